// esbuild plugin: yargs, cliui and wrap-ansi measure text through string-width; they get one copy, built on
// first use (see string-width-lazy.mjs), yargs' `assert` and our own `js-yaml` are loaded on first call
// (assert-lazy.mjs, js-yaml-lazy.mjs); for
// both the npm bundle (scripts/build.mjs) and the single executables (scripts/release.mjs).
import { fileURLToPath } from 'node:url';

const LAZY = fileURLToPath(new URL('./string-width-lazy.mjs', import.meta.url));
const ASSERT = fileURLToPath(new URL('./assert-lazy.mjs', import.meta.url));
const YAML = fileURLToPath(new URL('./js-yaml-lazy.mjs', import.meta.url));
const YAML_EAGER = fileURLToPath(new URL('../../node_modules/js-yaml/dist/js-yaml.mjs', import.meta.url));
const EAGER = fileURLToPath(new URL('../../node_modules/yargs/node_modules/string-width/index.js', import.meta.url));

export const lazyStringWidth = {
  name: 'lazy-string-width',
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, (args) =>
      /[\\/]node_modules[\\/](yargs|cliui|wrap-ansi)[\\/]/.test(args.importer) ? { path: LAZY } : undefined,
    );
    b.onResolve({ filter: /^string-width-eager$/ }, () => ({ path: EAGER }));
    b.onResolve({ filter: /^js-yaml$/ }, (args) => (/[\\/]src[\\/]/.test(args.importer) ? { path: YAML } : undefined));
    b.onResolve({ filter: /^js-yaml-eager$/ }, () => ({ path: YAML_EAGER }));
    b.onResolve({ filter: /^assert$/ }, (args) => (/[\\/]node_modules[\\/]yargs[\\/]/.test(args.importer) ? { path: ASSERT } : undefined));
  },
};
