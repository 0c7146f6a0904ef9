// The full CLI for the single-executable build: bundled separately and stored as the SEA asset
// cli.cjs, evaluated by src/sea.ts only when a command needs it (see scripts/release.mjs).
export { main } from './cli.js';
