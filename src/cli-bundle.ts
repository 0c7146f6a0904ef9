// The full CLI as one CommonJS file, dist/cli.cjs (scripts/lib/bundle-cli.mjs): the npm entry
// (src/entry-npm.ts) and the single executable (src/entry-sea.ts) compile it with a V8 code cache (src/host/) only
// when a command needs it.
export { main } from './cli.js';
