// dist/kubectl-arch.mjs: the ES module entry with the start-up fast paths (version, --help, completion) and
// its chunks; dist/cli.cjs: the rest of the CLI, dist/client-node.cjs: the Kubernetes client, and dist/mcp-sdk.cjs:
// the MCP SDK (for `mcp` only), which the entry compiles with code caches of its own (src/host/,
// scripts/lib/bundle-cli.mjs).
// Measured: as one 18 MB file, `version` took 0.18-0.24 s just to parse it; split, the entry is small
// and @kubernetes/client-node (most of the bytes) is read only when a command connects.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { renderExplain, renderHelp } from './lib/help.mjs';
import { builtinsByRequire } from './lib/builtins-by-require.mjs';
import { lazyDeps } from './lib/lazy-deps.mjs';
import { bundleCli } from './lib/bundle-cli.mjs';
import { packedExamples } from './lib/examples.mjs';

const [maj, min] = process.versions.node.split('.').map(Number);
if (maj < 22 || (maj === 22 && min < 19)) {
  // the pinned Node (scripts/dev-node: optional, so npm ci goes on where it has no binary) is missing
  console.error(`error: building kubectl-arch needs Node.js >= 22.19 (package.json engines); this is ${process.version} at ${process.execPath}.
  The pinned development Node (the optional \`node\` package in scripts/dev-node) did not install on this machine,
  so npm scripts run on the system Node. Install Node.js 26 LTS (or >= 22.19) and run npm ci again.`);
  process.exit(2);
}
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// only what this script writes: dist/release (npm run release) survives a build, and so npm pack
const clean = () => {
  rmSync('dist/kubectl-arch.mjs', { force: true });
  rmSync('dist/chunks', { recursive: true, force: true });
};
for (const f of ['dist/cli.cjs', 'dist/client-node.cjs', 'dist/mcp-sdk.cjs']) rmSync(f, { force: true });
const buildId = await bundleCli('dist', pkg.version);
const bundle = (help, explain) =>
  clean() ??
  build({
    entryPoints: ['src/entry-npm.ts'],
    outdir: 'dist',
    entryNames: 'kubectl-arch',
    chunkNames: 'chunks/[name]-[hash]',
    splitting: true,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
    loader: { '.yaml': 'text' },
    plugins: [lazyDeps, builtinsByRequire],
    define: {
      __VERSION__: JSON.stringify(pkg.version),
      __HELP__: JSON.stringify(help),
      __EXPLAIN__: JSON.stringify(explain),
      __BUILD_ID__: JSON.stringify(buildId),
      // completion reads the embedded example too (node names of `what-if --snapshot example:… <TAB>`), in a lazy chunk
      __EXAMPLES__: JSON.stringify(packedExamples()),
    },
    // some CommonJS dependencies call require() for Node built-ins
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
// two passes: the second carries --help as the first one's yargs renders it (src/fast-paths.ts) and the
// check ids and codes `explain` completes (src/complete.ts)
await bundle(null, null);
await bundle(renderHelp(), renderExplain());
