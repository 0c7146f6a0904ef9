// Entry for the single-executable (Node SEA) build used by krew: CommonJS, so no top-level await.
// The main script is small (start-up fast paths and completion); the rest of the CLI is the SEA asset
// cli.cjs, the Kubernetes client the asset client-node.cjs and the MCP SDK mcp-sdk.cjs, compiled only when a command needs them
// (src/host/), with the code caches the release made with the target's own Node where it could
// (scripts/release.mjs, scripts/lib/sea-cache.cjs), then with our own made after a command ran.
import { fast } from './fast-paths.js';
import { runCli, type Bundle } from './host/run.js';
import { userStore } from './host/store.js';

function runSea(): Promise<number> {
  const sea = require('node:sea') as typeof import('node:sea');
  const keys = sea.getAssetKeys();
  const cacheOf = (b: Bundle) => b.replace(/\.cjs$/, '.cache');
  return runCli(
    {
      source: (b) => sea.getAsset(b, 'utf8'),
      // must equal scripts/lib/sea-cache.cjs's, where the shipped caches are made
      filename: (b) => `kubectl-arch-${b}`,
      modulePath: () => __filename,
      dirname: __dirname,
      shipped: (b) => (keys.includes(cacheOf(b)) ? Buffer.from(sea.getRawAsset(cacheOf(b))) : undefined),
      require,
      store: userStore(),
    },
    process.argv.slice(2),
  );
}

// version, top-level --help and completion before the CLI (and yargs) is compiled
fast(process.argv.slice(2))
  .then((code) => code ?? runSea())
  .then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`error: internal error: ${(e as Error)?.message ?? String(e)}\n`);
      process.exitCode = 4;
    },
  );
