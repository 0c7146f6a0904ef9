// npm run bench: start-up and offline times, min/median/max over N runs, and the median's ratio to
// `node -e 0` (the Node process start, the floor) and to `kubectl version --client`, for the npm
// route (bin/kubectl-arch on the pinned Node) and, when built (npm run package / release), the
// single-executable binary. Prints numbers; asserts nothing (machines are noisy).
// Targets (issue #20): version, --help and completion (the scripts and __complete) within 1.5x `node -e 0`, doctor --snapshot
// examples/field-notes-k3s within 3x; (issue #32) the MCP server's first answer (`mcp`, the initialize round trip, from
// the start of the process) within 1.5x doctor --snapshot's whole run.
import { spawn, spawnSync } from 'node:child_process';
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

// a small synthetic cluster (200 objects, 4 namespaces) on loopback, in its own process, for the online cases:
// reaching a cluster loads the Kubernetes client, which offline commands never do
const KUBECONFIG = join(mkdtempSync(join(tmpdir(), 'ka-bench-')), 'kubeconfig');
const fake = spawn(NODE, [join(ROOT, 'scripts/lib/fake-cluster-server.mjs'), KUBECONFIG], { stdio: 'ignore' });
const wait = new Int32Array(new SharedArrayBuffer(4));
for (let i = 0; i < 200 && !existsSync(KUBECONFIG); i++) Atomics.wait(wait, 0, 0, 50);
const time = (cmd, args) => {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, status: r.status, error: r.error };
};
// `mcp`: from the process's start to the first answer, the initialize response (what an MCP client waits for), then
// stdin is closed and the server ends (its exit is not timed)
const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
})}\n`;
const firstAnswer = (cmd, args) =>
  new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const c = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'ignore'], env });
    let out = '';
    let ms;
    c.stdout.on('data', (d) => {
      out += d;
      if (ms === undefined && out.includes('\n')) {
        ms = Number(process.hrtime.bigint() - t0) / 1e6;
        c.stdin.end();
      }
    });
    c.on('error', (error) => resolve({ ms: 0, status: null, error }));
    c.on('close', (status) => resolve({ ms: ms ?? 0, status: /"serverInfo"/.test(out) ? status : null }));
    c.stdin.write(INITIALIZE);
  });
// Every case is registered first, then the runs go round-robin (one run of each case, N times): a machine that
// gets busier or quieter during the benchmark moves every case alike, so the ratios hold.
const cases = [];
const add = (name, cmd, args, run = time) => cases.push({ name, cmd, args, run, xs: [] });
add('node -e 0', NODE, ['-e', '0']);
add('kubectl version --client', 'kubectl', ['version', '--client']);
const commands = (exe, label) => {
  add(`${label} version`, exe, ['version']);
  add(`${label} --help`, exe, ['--help']);
  add(`${label} __complete explain ''`, exe, ['__complete', 'explain', '']);
  add(`${label} completion bash`, exe, ['completion', 'bash']);
  add(`${label} doctor --snapshot examples/field-notes-k3s`, exe, ['doctor', '--snapshot', EX, '--fail-on', 'none']);
  add(`${label} orphans --snapshot examples/field-notes-k3s`, exe, ['orphans', '--snapshot', EX, '--fail-on', 'none']);
  add(`${label} doctor (200-object synthetic cluster)`, exe, ['doctor', '--kubeconfig', KUBECONFIG, '--fail-on', 'none']);
  add(`${label} mcp: first answer (initialize)`, exe, ['mcp'], firstAnswer);
};
commands(BIN, 'npm:');
add("npm: kubectl_complete-arch explain ''", join(ROOT, 'bin/kubectl_complete-arch'), ['explain', '']);
add("npm: kubectl __complete arch explain '' (real kubectl)", 'kubectl', ['__complete', 'arch', 'explain', '']);
// the single-executable build for this machine, from npm run package or npm run release
const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch] ?? process.arch;
const tgz = join(ROOT, `dist/release/kubectl-arch_${process.platform}_${arch}.tar.gz`);
let noSea = '';
if (existsSync(tgz)) {
  const dir = mkdtempSync(join(tmpdir(), 'ka-bench-'));
  spawnSync('tar', ['-xzf', tgz, '-C', dir]);
  commands(join(dir, 'kubectl-arch'), 'sea:');
} else {
  noSea = `(no ${tgz}: npm run package builds it)`;
}
// a probe and a warm-up run each (page cache, compile cache); a case that cannot run is left out
for (const c of cases) {
  const probe = await c.run(c.cmd, c.args);
  c.ok = !probe.error && (probe.status === 0 || probe.status === 1);
  if (c.ok) await c.run(c.cmd, c.args);
}
for (let i = 0; i < N; i++) for (const c of cases) if (c.ok) c.xs.push((await c.run(c.cmd, c.args)).ms);

const fmt = (x) => `${x.toFixed(0)}ms`.padStart(7);
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const med = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { min: s[0], med, max: s[s.length - 1] };
};
console.log(
  `kubectl-arch start-up benchmark, ${N} rounds (each case once per round, after a warm-up run), node ${spawnSync(NODE, ['--version']).stdout.toString().trim()}`,
);
console.log(
  `${'command'.padEnd(52)} ${'min'.padStart(7)} ${'median'.padStart(7)} ${'max'.padStart(7)} ${'/node'.padStart(7)} ${'/kubectl'.padStart(7)}`,
);
const floor = cases[0].ok ? stats(cases[0].xs).med : 0;
const kubectl = cases[1].ok ? stats(cases[1].xs).med : 0;
for (const c of cases) {
  if (!c.ok) {
    console.log(`${c.name.padEnd(52)} (not available)`);
    continue;
  }
  const m = stats(c.xs);
  const ratio = (d) => (d && c !== cases[0] && !(d === kubectl && c === cases[1]) ? `${(m.med / d).toFixed(2)}x`.padStart(7) : '      -');
  console.log(`${c.name.padEnd(52)} ${fmt(m.min)} ${fmt(m.med)} ${fmt(m.max)} ${ratio(floor)} ${ratio(kubectl)}`);
}
if (noSea) console.log(noSea);
// issue #32's target: the MCP server's first answer against doctor --snapshot's whole run
for (const label of ['npm:', 'sea:']) {
  const m = cases.find((c) => c.name === `${label} mcp: first answer (initialize)`);
  const d = cases.find((c) => c.name === `${label} doctor --snapshot examples/field-notes-k3s`);
  if (m?.ok && d?.ok)
    console.log(`${label} mcp first answer / doctor --snapshot: ${(stats(m.xs).med / stats(d.xs).med).toFixed(2)}x (goal 1.5x)`);
}
fake.kill();

// then the orphan scan at scale (issue: peak RSS <= 250 MB at 50,000 objects, within 1.5x of listing)
if (process.env.BENCH_SKIP_SCALE !== '1') await import('./bench-orphans.mjs');
