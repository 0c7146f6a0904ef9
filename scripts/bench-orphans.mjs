// The orphan scan at scale: a synthetic cluster (default 50,000 objects across 200 namespaces) on a
// local HTTP API server; measures `kubectl arch orphans` against the lower bound — the same client
// listing the same types metadata-only with nothing else done (scripts/list-only.ts).
// Prints wall time, requests and peak RSS (min/median/max over runs); asserts nothing.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate, kubeconfigFor, startFakeCluster } from './lib/fake-cluster.mjs';
import { listOnlyCommand } from './lib/list-only.mjs';
const LIST_ONLY = await listOnlyCommand();

const TOTAL = Number(process.env.BENCH_OBJECTS ?? 50_000);
const NS = Number(process.env.BENCH_NAMESPACES ?? 200);
const RUNS = Number(process.env.BENCH_SCALE_RUNS ?? 5);
const BIN = new URL('../bin/kubectl-arch', import.meta.url).pathname;

const data = generate(TOTAL, NS);
const fc = await startFakeCluster(data);
const dir = mkdtempSync(join(tmpdir(), 'kubectl-arch-bench-'));
const kc = join(dir, 'kubeconfig');
writeFileSync(kc, kubeconfigFor(fc));

function runOnce(args) {
  return new Promise((resolve) => {
    const before = fc.stats.requests;
    const t0 = process.hrtime.bigint();
    const cmd = args[0] === 'list-only' ? LIST_ONLY : [BIN, ...args];
    const p = spawn('/usr/bin/time', ['-f', '%M', ...cmd, '--kubeconfig', kc, '-o', 'json', '--fail-on', 'none'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    p.stderr.on('data', (d) => {
      err += d;
    });
    p.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const rss = Number(err.trim().split('\n').pop()) / 1024;
      resolve({ ms, rss, requests: fc.stats.requests - before, code, err });
    });
  });
}
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], med: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
};

console.log(`orphan scan benchmark: ${data.count} objects, ${NS} namespaces, ${RUNS} runs each, synthetic API server on loopback`);
console.log(
  `${'command'.padEnd(36)} ${'wall min/med/max (ms)'.padEnd(24)} ${'requests'.padStart(8)} ${'peak RSS med/max (MB)'.padStart(22)}`,
);
const rows = {};
for (const [name, args] of [
  ['lower bound: list-only (metadata)', ['list-only']],
  ['kubectl arch orphans', ['orphans']],
  ['kubectl arch doctor', ['doctor']],
]) {
  await runOnce(args); // warm-up (compile cache, server JIT)
  const rs = [];
  for (let i = 0; i < RUNS; i++) rs.push(await runOnce(args));
  if (rs.some((r) => r.code !== 0)) console.log(`  ${name}: exit ${rs.map((r) => r.code).join(',')}: ${rs[0].err.slice(0, 300)}`);
  const t = stats(rs.map((r) => r.ms));
  const m = stats(rs.map((r) => r.rss));
  rows[name] = t.med;
  console.log(
    `${name.padEnd(36)} ${`${t.min.toFixed(0)}/${t.med.toFixed(0)}/${t.max.toFixed(0)}`.padEnd(24)} ${String(rs[0].requests).padStart(8)} ${`${m.med.toFixed(0)}/${m.max.toFixed(0)}`.padStart(22)}`,
  );
}
const lb = rows['lower bound: list-only (metadata)'];
console.log(
  `ratio to lower bound (median): orphans ${(rows['kubectl arch orphans'] / lb).toFixed(2)}x, doctor ${(rows['kubectl arch doctor'] / lb).toFixed(2)}x (target <= 1.5x; peak RSS target <= 250 MB)`,
);
fc.server.close();
