// npm run bench: start-up and offline times, min/median/max over N runs, and the median's ratio to
// `node -e 0` (the Node process start, the floor) and to `kubectl version --client`, for the npm
// route (bin/kubectl-arch on the pinned Node) and, when built (npm run package / release), the
// single-executable binary. Prints numbers; asserts nothing (machines are noisy).
// Targets (issue #20): version, --help and completion within 1.5x `node -e 0`, doctor --snapshot
// examples/field-notes-k3s within 3x.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const N = Number(process.env.BENCH_RUNS ?? 15);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/kubectl-arch');
const NODE = existsSync(join(ROOT, 'node_modules/node/bin/node')) ? join(ROOT, 'node_modules/node/bin/node') : process.execPath;
const EX = join(ROOT, 'examples/field-notes-k3s');
const env = { ...process.env, NO_COLOR: '1', PATH: `${join(ROOT, 'bin')}:${process.env.PATH}` };

const time = (cmd, args) => {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, status: r.status, error: r.error };
};
function measure(cmd, args) {
  const probe = time(cmd, args);
  if (probe.error || (probe.status !== 0 && probe.status !== 1)) return null;
  time(cmd, args);
  const xs = Array.from({ length: N }, () => time(cmd, args).ms).sort((a, b) => a - b);
  const med = xs.length % 2 ? xs[(xs.length - 1) / 2] : (xs[xs.length / 2 - 1] + xs[xs.length / 2]) / 2;
  return { min: xs[0], med, max: xs[xs.length - 1] };
}
const fmt = (x) => `${x.toFixed(0)}ms`.padStart(7);
let floor = 0,
  kubectl = 0;
function row(name, cmd, args) {
  const m = measure(cmd, args);
  if (!m) {
    console.log(`${name.padEnd(52)} (not available)`);
    return;
  }
  const ratio = (d) => (d ? `${(m.med / d).toFixed(2)}x`.padStart(7) : '      -');
  console.log(`${name.padEnd(52)} ${fmt(m.min)} ${fmt(m.med)} ${fmt(m.max)} ${ratio(floor)} ${ratio(kubectl)}`);
  return m;
}

console.log(
  `kubectl-arch start-up benchmark, ${N} runs each (after 2 warm-up runs), node ${spawnSync(NODE, ['--version']).stdout.toString().trim()}`,
);
console.log(
  `${'command'.padEnd(52)} ${'min'.padStart(7)} ${'median'.padStart(7)} ${'max'.padStart(7)} ${'/node'.padStart(7)} ${'/kubectl'.padStart(7)}`,
);
floor = row('node -e 0', NODE, ['-e', '0'])?.med ?? 0;
kubectl = row('kubectl version --client', 'kubectl', ['version', '--client'])?.med ?? 0;
const cases = (exe, label) => {
  row(`${label} version`, exe, ['version']);
  row(`${label} --help`, exe, ['--help']);
  row(`${label} __complete explain ''`, exe, ['__complete', 'explain', '']);
  row(`${label} doctor --snapshot examples/field-notes-k3s`, exe, ['doctor', '--snapshot', EX, '--fail-on', 'none']);
  row(`${label} orphans --snapshot examples/field-notes-k3s`, exe, ['orphans', '--snapshot', EX, '--fail-on', 'none']);
};
cases(BIN, 'npm:');
row("npm: kubectl_complete-arch explain ''", join(ROOT, 'bin/kubectl_complete-arch'), ['explain', '']);
row("npm: kubectl __complete arch explain '' (real kubectl)", 'kubectl', ['__complete', 'arch', 'explain', '']);
// the single-executable build for this machine, from npm run package or npm run release
const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch] ?? process.arch;
const tgz = join(ROOT, `dist/release/kubectl-arch_${process.platform}_${arch}.tar.gz`);
if (existsSync(tgz)) {
  const dir = mkdtempSync(join(tmpdir(), 'ka-bench-'));
  spawnSync('tar', ['-xzf', tgz, '-C', dir]);
  cases(join(dir, 'kubectl-arch'), 'sea:');
} else {
  console.log(`(no ${tgz}: npm run package builds it)`);
}

// then the orphan scan at scale (issue: peak RSS <= 250 MB at 50,000 objects, within 1.5x of listing)
if (process.env.BENCH_SKIP_SCALE !== '1') await import('./bench-orphans.mjs');
