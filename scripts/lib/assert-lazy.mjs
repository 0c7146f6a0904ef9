// Build-time stand-in for `assert` inside yargs (scripts/lib/lazy-deps.mjs resolves its import here):
// yargs asserts only on mistakes in its own use, yet importing node:assert loads Node's streams and its diff
// machinery (~10 ms, node --cpu-prof) at every start. The real module is loaded on first call.
let real;
const get = () => (real ??= require('node:assert'));
export const notStrictEqual = (...args) => get().notStrictEqual(...args);
export const strictEqual = (...args) => get().strictEqual(...args);
