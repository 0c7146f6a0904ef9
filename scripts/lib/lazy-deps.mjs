// esbuild plugin: dependencies whose module top level costs start-up time, loaded on first use instead, for both
// the npm bundle (scripts/build.mjs) and the single executables (scripts/release.mjs). yargs, cliui and wrap-ansi
// measure text through string-width and get one copy (string-width-lazy.mjs), as does our terminal wrapping
// (src/lib/wrap.ts); yargs' `assert` (assert-lazy.mjs)
// and our own `js-yaml` (js-yaml-lazy.mjs) are loaded on first call. esbuild turns each stand-in's require() of
// the real ES module into a lazy initialiser.
import { fileURLToPath } from 'node:url';

const LAZY = fileURLToPath(new URL('./string-width-lazy.mjs', import.meta.url));
const ASSERT = fileURLToPath(new URL('./assert-lazy.mjs', import.meta.url));
const YAML = fileURLToPath(new URL('./js-yaml-lazy.mjs', import.meta.url));
const YAML_EAGER = fileURLToPath(new URL('../../node_modules/js-yaml/dist/js-yaml.mjs', import.meta.url));
const EAGER = fileURLToPath(new URL('../../node_modules/string-width/index.js', import.meta.url));

export const lazyDeps = {
  name: 'lazy-deps',
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, (args) =>
      /[\\/]node_modules[\\/](yargs|cliui|wrap-ansi)[\\/]|[\\/]src[\\/]lib[\\/]wrap\.ts$/.test(args.importer) ? { path: LAZY } : undefined,
    );
    b.onResolve({ filter: /^string-width-eager$/ }, () => ({ path: EAGER }));
    b.onResolve({ filter: /^js-yaml$/ }, (args) => (/[\\/]src[\\/]/.test(args.importer) ? { path: YAML } : undefined));
    b.onResolve({ filter: /^js-yaml-eager$/ }, () => ({ path: YAML_EAGER }));
    b.onResolve({ filter: /^assert$/ }, (args) => (/[\\/]node_modules[\\/]yargs[\\/]/.test(args.importer) ? { path: ASSERT } : undefined));
  },
};
