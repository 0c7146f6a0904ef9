// Build-time stand-in for `assert` inside yargs (scripts/lib/lazy-deps.mjs resolves its import here):
// yargs asserts only on mistakes in its own use, yet it calls these on every parse, and node:assert loads
// Node's diff machinery (~4 built-in modules compiled at every start, measured with process.moduleLoadList).
// The comparison is done here (Object.is, as node:assert's strict mode); only a failing one loads the real
// module, so the error thrown is node:assert's own.
let real;
const get = () => (real ??= require('node:assert'));
export const notStrictEqual = (actual, expected, ...rest) => {
  if (Object.is(actual, expected)) get().notStrictEqual(actual, expected, ...rest);
};
export const strictEqual = (actual, expected, ...rest) => {
  if (!Object.is(actual, expected)) get().strictEqual(actual, expected, ...rest);
};
