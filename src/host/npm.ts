// The npm package's host for the CLI bundle: dist/cli.cjs, dist/client-node.cjs and dist/mcp-sdk.cjs next to the entry, code
// caches in the user's cache directory (src/host/store.ts).
import { runCli } from './run.js';
import { userStore } from './store.js';

/** entryUrl: import.meta.url of dist/kubectl-arch.mjs. */
export function runNpm(entryUrl: string, argv: readonly string[]): Promise<number> {
  const fs = process.getBuiltinModule('node:fs');
  const path = process.getBuiltinModule('node:path');
  const dir = path.dirname(process.getBuiltinModule('node:url').fileURLToPath(entryUrl));
  const filename = (b: string) => path.join(dir, b);
  return runCli(
    {
      // the bundles are ASCII (scripts/lib/bundle-cli.mjs checks): latin1 reads them 3x faster than UTF-8
      source: (b) => fs.readFileSync(filename(b), 'latin1'),
      filename,
      modulePath: filename,
      dirname: dir,
      require: process.getBuiltinModule('node:module').createRequire(filename('cli.cjs')),
      store: userStore(),
    },
    argv,
  );
}
