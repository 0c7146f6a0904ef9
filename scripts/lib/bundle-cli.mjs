// The CLI bundles both the npm package (scripts/build.mjs) and the single executables (scripts/release.mjs)
// run through src/host/: cli.cjs, the whole CLI, and client-node.cjs, the Kubernetes client (2.7 of 3.4 MB),
// which only commands that connect load. CommonJS, because vm.Script compiles it with a code cache made after
// a command ran (src/host/cjs.ts); every import() is turned into require() (a vm.Script has no module
// loader: an import() left in failed with "A dynamic import callback was not specified").
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { builtinsByRequire } from './builtins-by-require.mjs';
import { lazyDeps } from './lazy-deps.mjs';

const ROOT = new URL('../..', import.meta.url).pathname;
const CLIENT = '@kubernetes/client-node/dist/config.js';
const CLIENT_NODE = 'kubectl-arch:client-node'; // = src/host/cjs.ts

/** The client module our code imports is left to the host, which loads client-node.cjs for it. */
const clientByHost = {
  name: 'client-by-host',
  setup(b) {
    b.onResolve({ filter: /^@kubernetes\/client-node/ }, (args) => {
      if (args.path !== CLIENT)
        throw new Error(`${args.importer}: import ${CLIENT}, the one module client-node.cjs holds, not ${args.path}`);
      return { path: CLIENT_NODE, external: true };
    });
  },
};

const common = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  supported: { 'dynamic-import': false },
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  loader: { '.yaml': 'text' },
  // ES module dependencies (yargs) read import.meta.url
  define: { 'import.meta.url': '__kubectl_arch_url' },
  banner: { js: "var __kubectl_arch_url = require('node:url').pathToFileURL(__filename).href;" },
};

/** Writes outdir/cli.cjs and outdir/client-node.cjs; returns a hash of both (the code caches' build id). */
export async function bundleCli(outdir, version) {
  await build({
    ...common,
    entryPoints: ['src/cli-entry.ts'],
    outfile: join(outdir, 'cli.cjs'),
    plugins: [lazyDeps, builtinsByRequire, clientByHost],
    define: { ...common.define, __VERSION__: JSON.stringify(version), __HELP__: 'null', __EXPLAIN__: 'null' },
  });
  // cli.cjs is read as latin1 (src/host/npm.ts: 1.3 ms for 0.8 MB against 4.5 ms as UTF-8), so it must be
  // ASCII: esbuild escapes strings, not regular expression literals (write \u2014 there, not the character)
  const text = readFileSync(join(outdir, 'cli.cjs'), 'latin1');
  const bad = text.search(/[^\x00-\x7f]/);
  if (bad >= 0) {
    const line = text.slice(0, bad).split('\n').length;
    throw new Error(
      `${join(outdir, 'cli.cjs')}:${line}: a non-ASCII character (${JSON.stringify(text.slice(bad - 30, bad + 10))}); escape it in the source`,
    );
  }
  await build({ ...common, entryPoints: [CLIENT], outfile: join(outdir, 'client-node.cjs'), plugins: [builtinsByRequire] });
  const h = createHash('sha256');
  for (const f of ['cli.cjs', 'client-node.cjs']) h.update(readFileSync(join(outdir, f)));
  return h.digest('hex').slice(0, 16);
}
