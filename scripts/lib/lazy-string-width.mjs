// esbuild plugin: yargs, cliui and wrap-ansi measure text through string-width; they get one copy, built on
// first use (see string-width-lazy.mjs), and yargs' `assert` is loaded on first call (assert-lazy.mjs); for
// both the npm bundle (scripts/build.mjs) and the single executables (scripts/release.mjs).
import { fileURLToPath } from 'node:url';

const LAZY = fileURLToPath(new URL('./string-width-lazy.mjs', import.meta.url));
const ASSERT = fileURLToPath(new URL('./assert-lazy.mjs', import.meta.url));
const EAGER = fileURLToPath(new URL('../../node_modules/yargs/node_modules/string-width/index.js', import.meta.url));

export const lazyStringWidth = {
  name: 'lazy-string-width',
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, (args) =>
      /[\\/]node_modules[\\/](yargs|cliui|wrap-ansi)[\\/]/.test(args.importer) ? { path: LAZY } : undefined,
    );
    b.onResolve({ filter: /^string-width-eager$/ }, () => ({ path: EAGER }));
    b.onResolve({ filter: /^assert$/ }, (args) => (/[\\/]node_modules[\\/]yargs[\\/]/.test(args.importer) ? { path: ASSERT } : undefined));
  },
};
