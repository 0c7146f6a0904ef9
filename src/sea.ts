// Entry for the single-executable (Node SEA) build used by krew: CommonJS, so no top-level await.
// The main script is small (start-up fast paths and completion); the rest of the CLI is the SEA asset
// cli.cjs, compiled only when a command needs it, with the V8 code cache in the asset cli.cache
// where the release made one with the target's own Node (scripts/release.mjs, scripts/lib/sea-cache.cjs).
import { fast } from './fast.js';

/** Must equal the wrapper in scripts/lib/sea-cache.cjs, or the code cache is rejected. */
const wrap = (src: string): string => `(function (exports, require, module, __filename, __dirname) {${src}\n})`;

function loadCli(): { main: () => Promise<number> } {
  const sea = require('node:sea') as typeof import('node:sea');
  const vm = require('node:vm') as typeof import('node:vm');
  const src = sea.getAsset('cli.cjs', 'utf8');
  const cachedData = sea.getAssetKeys().includes('cli.cache') ? Buffer.from(sea.getRawAsset('cli.cache')) : undefined;
  const script = new vm.Script(wrap(src), { filename: 'kubectl-arch-cli.cjs', cachedData });
  if (process.env.KUBECTL_ARCH_DEBUG_SEA)
    process.stderr.write(`cli.cache: ${cachedData ? (script.cachedDataRejected ? 'rejected' : 'accepted') : 'none'}\n`);
  const mod = { exports: {} as { main: () => Promise<number> } };
  (script.runInThisContext() as (...a: unknown[]) => void)(mod.exports, require, mod, __filename, __dirname);
  return mod.exports;
}

// version, top-level --help and completion before the CLI (and yargs) is compiled
fast(process.argv.slice(2))
  .then((code) => code ?? loadCli().main())
  .then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`error: internal error: ${(e as Error)?.message ?? String(e)}\n`);
      process.exitCode = 4;
    },
  );
