// How a command runs (each arrow a file or folder; each step exists for start-up time, measured in docs/performance.md):
//
//   npm package:        src/entry-npm.ts ─┐   (dist/kubectl-arch.mjs: Node version check)
//   single executable:  src/entry-sea.ts ─┤   (the SEA main script)
//                                         ▼
//                       src/fast-paths.ts      version, top-level --help, completion scripts, __complete: answered here,
//                                         │    without yargs or the checks
//                                         ▼ anything else
//                       src/host/              compiles the CLI bundle (dist/cli.cjs, or the SEA asset) with a V8 code
//                                         │    cache made after the command first ran; the Kubernetes client
//                                         │    (client-node.cjs) only for commands that connect
//                                         ▼
//                       src/cli-bundle.ts      what the bundle exports: main()
//                                         ▼
//                       src/cli.ts             yargs: flags, commands (src/commands/), exit codes
//
// This file: the npm entry. It checks the Node version, answers the fast paths, else runs the CLI bundle through the
// host and exits with its code. Both are small and bundled into this file (each module more to load costs start-up
// time); their top level only defines functions, so the version check below still speaks first on an old Node.
import { fast } from './fast-paths.js';
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
