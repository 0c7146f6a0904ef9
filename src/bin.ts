// Entry of the npm package (dist/kubectl-arch.mjs): checks the Node version, answers the start-up fast
// paths, else runs the CLI bundle dist/cli.cjs (src/host/), and exits with its code.
const [maj, min] = process.versions.node.split('.').map(Number) as [number, number];
if (maj < 22 || (maj === 22 && min < 19)) {
  process.stderr.write(
    `error: kubectl-arch needs Node.js >= 22.19 (this is ${process.version} at ${process.execPath})\n  hint: install Node.js 26 LTS (or >= 22.19), or point KUBECTL_ARCH_NODE at a newer node binary\n`,
  );
  process.exit(2);
}
// version, top-level --help and shell completion are answered without loading yargs (src/fast.ts)
const argv = process.argv.slice(2);
const { fast } = await import('./fast.js');
const code = await fast(argv);
process.exitCode = code ?? (await (await import('./host/npm.js')).runNpm(import.meta.url, argv));
