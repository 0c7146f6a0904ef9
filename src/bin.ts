// Bundle entry: checks the Node version, runs the CLI, exits with its code.
const [maj, min] = process.versions.node.split('.').map(Number) as [number, number];
if (maj < 22 || (maj === 22 && min < 19)) {
  process.stderr.write(`error: kubectl-arch needs Node.js >= 22.19 (this is ${process.version} at ${process.execPath})\n  hint: install Node.js 24 LTS, or point KUBECTL_ARCH_NODE at a newer node binary\n`);
  process.exit(2);
}
const { main } = await import('./cli.js');
process.exitCode = await main();
