// npm run bench:fleet — `doctor --contexts` over several real kube-apiservers (each with its own etcd, on
// loopback) against single runs of each context. Cluster i holds i×BENCH_FLEET_OBJECTS objects (ConfigMaps,
// Services, Pods in 20 namespaces), so the contexts differ and one is the slowest. Prints the median wall time of
// each single run, of the fleet run (default --parallel 4) and of --parallel 1, and the ratios to the slowest
// single run and to their sum. Asserts nothing.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { buildApiserver, startControlPlane, USERS } from './lib/cluster.mjs';

const N = Number(process.env.BENCH_FLEET_CLUSTERS ?? 4);
const PER = Number(process.env.BENCH_FLEET_OBJECTS ?? 1500);
const RUNS = Number(process.env.BENCH_FLEET_RUNS ?? 5);
const BIN = new URL('../bin/kubectl-arch', import.meta.url).pathname;
const log = (s) => process.stderr.write(`${s}\n`);

const apiserver = buildApiserver();
const cps = [];
const dir = mkdtempSync(join(tmpdir(), 'kubectl-arch-bench-fleet-'));
const stopAll = async () => {
  await Promise.all(cps.map((cp) => cp.stop()));
  rmSync(dir, { recursive: true, force: true });
};
process.on('SIGINT', () => {
  void stopAll().then(() => process.exit(130));
});

async function pool(items, limit, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

async function load(cp, objects) {
  const role = [];
  loadAll(readFileSync(new URL('../deploy/clusterrole.yaml', import.meta.url), 'utf8'), (d) => {
    if (d?.metadata?.name === 'kubectl-arch-reader') role.push(d);
  });
  await cp.admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', role[0]);
  await cp.admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kubectl-arch-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USERS.reader.name }],
  });
  for (let n = 0; n < 20; n++)
    await cp.admin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `ns${n}` } });
  const items = Array.from({ length: objects }, (_, i) => i);
  await pool(items, 32, async (i) => {
    const ns = `ns${i % 20}`;
    const kind = i % 3;
    const r =
      kind === 0
        ? await cp.admin('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `cm${i}` }, data: { k: 'v' } })
        : kind === 1
          ? await cp.admin('POST', `/api/v1/namespaces/${ns}/services`, { metadata: { name: `svc${i}` }, spec: { ports: [{ port: 80 }] } })
          : await cp.admin('POST', `/api/v1/namespaces/${ns}/pods`, {
              metadata: { name: `pod${i}` },
              spec: { containers: [{ name: 'c', image: 'nginx' }] },
            });
    if (r.status !== 201) throw new Error(`load: ${r.status} ${r.text.slice(0, 200)}`);
  });
}

function time(args) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn(BIN, ['doctor', '--kubeconfig', join(dir, 'kubeconfig'), '-o', 'json', '--fail-on', 'none', ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`doctor ${args.join(' ')} exited ${code}`))));
  });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function measure(args) {
  const xs = [];
  for (let i = 0; i < RUNS; i++) xs.push(await time(args));
  return median(xs);
}

try {
  log(`starting ${N} control planes (${PER}..${N * PER} objects)…`);
  await Promise.all(
    Array.from({ length: N }, async (_, i) => {
      const cp = await startControlPlane({ apiserver });
      cps[i] = cp;
      await load(cp, (i + 1) * PER);
    }),
  );
  const names = cps.map((_, i) => `c${i + 1}`);
  writeFileSync(
    join(dir, 'kubeconfig'),
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      ...cps.map((cp, i) => `- name: c${i + 1}\n  cluster: {server: "${cp.url}", certificate-authority: "${cp.caFile}"}`),
      `users:\n- name: reader\n  user: {token: ${USERS.reader.token}}`,
      'contexts:',
      ...names.map((n) => `- name: ${n}\n  context: {cluster: ${n}, user: reader}`),
      '',
    ].join('\n'),
  );
  await time(['--contexts', names.join(',')]); // warm-up (page cache, API server caches)
  const singles = [];
  for (const n of names) singles.push(await measure(['--context', n]));
  const fleet = await measure(['--contexts', names.join(',')]);
  const serial = await measure(['--contexts', names.join(','), '--parallel', '1']);
  const slowest = Math.max(...singles);
  const sum = singles.reduce((a, b) => a + b, 0);
  const ms = (x) => `${Math.round(x)} ms`;
  console.log(`\nkubectl arch doctor, ${N} real API servers, median of ${RUNS} (${PER}..${N * PER} objects each)\n`);
  console.log('| run | wall | vs slowest single | vs sum of singles |');
  console.log('|---|---|---|---|');
  singles.forEach((s, i) =>
    console.log(`| single --context c${i + 1} (${(i + 1) * PER} objects) | ${ms(s)} | ${(s / slowest).toFixed(2)}x | |`),
  );
  console.log(`| --contexts (all ${N}, --parallel 4) | ${ms(fleet)} | ${(fleet / slowest).toFixed(2)}x | ${(fleet / sum).toFixed(2)}x |`);
  console.log(`| --contexts --parallel 1 | ${ms(serial)} | ${(serial / slowest).toFixed(2)}x | ${(serial / sum).toFixed(2)}x |`);
} finally {
  await stopAll();
}
