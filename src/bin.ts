// Entry of the npm package (dist/kubectl-arch.mjs): checks the Node version, answers the start-up fast
// paths (version, top-level --help, shell completion: src/fast.ts, without yargs), else runs the CLI bundle
// dist/cli.cjs (src/host/), and exits with its code. Both are small and bundled into this file (each module
// more to load costs start-up time); their top level only defines functions, so the version check below
// still speaks first on an old Node.
import { fast } from './fast.js';
import { runNpm } from './host/npm.js';

const [maj, min] = process.versions.node.split('.').map(Number) as [number, number];
if (maj < 22 || (maj === 22 && min < 19)) {
  process.stderr.write(
    `error: kubectl-arch needs Node.js >= 22.19 (this is ${process.version} at ${process.execPath})\n  hint: install Node.js 26 LTS (or >= 22.19), or point KUBECTL_ARCH_NODE at a newer node binary\n`,
  );
  process.exit(2);
}
const argv = process.argv.slice(2);
process.exitCode = (await fast(argv)) ?? (await runNpm(import.meta.url, argv));
