// jest's globalTeardown: `npm test` leaves no temporary directory behind. What is left in the run's TMPDIR
// (__tests__/helpers/tmp-setup.mjs) fails the run, named; the directory is removed either way.
import { readdirSync, rmSync } from 'node:fs';

export default function teardown() {
  const dir = process.env.KUBECTL_ARCH_TEST_TMP;
  if (!dir) return;
  // Node's compile cache, which tsc turns on for itself (new-check.test.ts builds a copy of the tree): a cache of
  // Node's that goes with the directory, not a file a test forgot
  const left = readdirSync(dir).filter((f) => f !== 'node-compile-cache');
  rmSync(dir, { recursive: true, force: true });
  if (left.length) throw new Error(`the tests left ${left.length} temporary file(s) behind: ${left.sort().join(', ')}`);
}
