// Build-time stand-in for `string-width` inside yargs, cliui and wrap-ansi (scripts/lib/lazy-deps.mjs resolves their
// imports here). The real module compiles Unicode property regexes and an Intl.Segmenter at its top level:
// ~25 ms (node --cpu-prof) that every command paid at start, though only yargs' help and error layout measure
// text. Here it is built on first use: esbuild turns this require() of an ES module into a lazy initialiser.
let real;
export default function stringWidth(text, options) {
  real ??= require('string-width-eager');
  return real.default(text, options);
}
