// Bundles scripts/list-only.ts (the benchmarks' lower bound) into dist/bench/ and returns the command to run it.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export async function listOnlyCommand() {
  const out = `${ROOT}dist/bench/list-only.mjs`;
  await build({
    entryPoints: [`${ROOT}scripts/list-only.ts`],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'warning',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  // the same Node flags as bin/kubectl-arch, so the comparison is fair
  return [process.execPath, '--max-semi-space-size=4', out];
}
