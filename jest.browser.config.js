/** `npm run test:browser`: the pages (`map -o html`, `doctor -o html`) and the Mermaid output opened in a real
 *  headless Chromium (Debian's chromium, driven by playwright-core) with the network blocked. Its prerequisites are
 *  checked first by scripts/prereqs.mjs; `npm test` does not run it. */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['**/*.browser.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 600000,
  maxWorkers: 1,
};
