// Bundled ESM: dist/kubectl-arch.mjs, plus chunks that only commands which reach a cluster load.
// Measured: as one 18 MB file, `version` took 0.18-0.24 s just to parse it; split, the entry is small
// and @kubernetes/client-node (most of the bytes) is read only when a command connects.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
import { rmSync } from 'node:fs';
rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: ['src/bin.ts'],
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
  define: { __VERSION__: JSON.stringify(pkg.version) },
  // some CommonJS dependencies call require() for Node built-ins
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
