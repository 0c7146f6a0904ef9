// npm run bench: start-up and offline doctor times of the built CLI, min/median/max over N runs.
// Prints numbers; asserts nothing (machines are noisy). Targets (issue #3): version and --help
// median <= 150 ms, doctor --snapshot examples/field-notes-k3s <= 400 ms.
import { spawnSync } from 'node:child_process';

const N = Number(process.env.BENCH_RUNS ?? 15);
const BIN = new URL('../bin/kubectl-arch', import.meta.url).pathname;
const cases = [
  ['version', ['version']],
  ['--help', ['--help']],
  ['doctor --snapshot examples/field-notes-k3s', ['doctor', '--snapshot', 'examples/field-notes-k3s', '--fail-on', 'none']],
  ['orphans --snapshot examples/field-notes-k3s', ['orphans', '--snapshot', 'examples/field-notes-k3s', '--fail-on', 'none']],
  ['quorum --snapshot examples/field-notes-k3s', ['quorum', '--snapshot', 'examples/field-notes-k3s', '--fail-on', 'none']],
];
const time = (args) => {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(BIN, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { ms, status: r.status, stderr: r.stderr.toString() };
};
console.log(`kubectl-arch start-up benchmark, ${N} runs each (after 2 warm-up runs), node ${process.version}`);
console.log(`${'command'.padEnd(46)} ${'min'.padStart(8)} ${'median'.padStart(8)} ${'max'.padStart(8)}`);
for (const [name, args] of cases) {
  const probe = time(args);
  if (probe.status === 2 && /Unknown|unknown command|Did you mean/i.test(probe.stderr)) continue; // command not in this version
  time(args);
  const xs = Array.from({ length: N }, () => time(args).ms).sort((a, b) => a - b);
  const med = xs.length % 2 ? xs[(xs.length - 1) / 2] : (xs[xs.length / 2 - 1] + xs[xs.length / 2]) / 2;
  console.log(`${name.padEnd(46)} ${xs[0].toFixed(0).padStart(6)}ms ${med.toFixed(0).padStart(6)}ms ${xs[xs.length - 1].toFixed(0).padStart(6)}ms`);
}

// then the orphan scan at scale (issue: peak RSS <= 250 MB at 50,000 objects, within 1.5x of listing)
if (process.env.BENCH_SKIP_SCALE !== '1') await import('./bench-orphans.mjs');
