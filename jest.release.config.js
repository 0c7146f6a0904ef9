/** `npm run test:release`: the krew archives built twice (reproducible), run natively and under qemu, installed by
 *  the real krew. Its prerequisites are checked first by scripts/prereqs.mjs. */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['**/*.release.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 600000,
  maxWorkers: 1,
};
