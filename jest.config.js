/** `npm test`: unit, CLI, corpus and fault suites (ESM through ts-jest); they need nothing but `npm ci`. The
 *  release suite (qemu, krew), the browser suite (chromium) and the real-cluster suite (kube-apiserver) have their
 *  own configs and scripts. */
import { packedExamples } from './scripts/lib/examples.mjs';

export default {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  roots: ['<rootDir>/__tests__'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '\\.release\\.test\\.ts$', '\\.browser\\.test\\.ts$'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true }] },
  // one seed for every property test (FC_SEED, else fixed): a run never fails by chance
  setupFiles: ['<rootDir>/__tests__/helpers/seed.ts'],
  // jest's own cache with the other tools' caches, not in the temporary directory
  cacheDirectory: '<rootDir>/node_modules/.cache/jest',
  // every temporary file in one directory of the run; one left behind fails it
  globalSetup: '<rootDir>/__tests__/helpers/tmp-setup.mjs',
  globalTeardown: '<rootDir>/__tests__/helpers/tmp-teardown.mjs',
  testTimeout: 60000,
  // the examples embedded in the CLI, as the build embeds them (src/snapshot/example-files.ts)
  globals: { __EXAMPLES__: packedExamples() },
};
