// npm run bench:fleet — `doctor --contexts` over several real kube-apiservers (each with its own etcd, on
// loopback) against single runs of each context. Cluster i holds i×BENCH_FLEET_OBJECTS objects (ConfigMaps,
// Services, Pods in 20 namespaces), so the contexts differ and one is the slowest. Prints the median wall time of
// each single run, of the fleet run (default --parallel 4) and of --parallel 1, the ratios to the slowest single
// run and to their sum, and the CPU time the plugin and the API servers (with their etcds) spent: every server
// runs on this machine, so a fleet run is bounded by the machine's cores, which real clusters do not share.
// Each table is measured twice: on plain loopback, and through a loopback TCP proxy per cluster that delays
// every chunk by BENCH_FLEET_RTT_MS/2 each way (default 40 ms round trip), like clusters elsewhere on a network.
// Asserts nothing.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApiserver, startControlPlane, USERS } from './lib/cluster.mjs';
import { grantReaders } from './lib/readers.mjs';

const N = Number(process.env.BENCH_FLEET_CLUSTERS ?? 4);
const PER = Number(process.env.BENCH_FLEET_OBJECTS ?? 1500);
const RUNS = Number(process.env.BENCH_FLEET_RUNS ?? 5);
const RTT = Number(process.env.BENCH_FLEET_RTT_MS ?? 40);
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
  await grantReaders(cp);
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

/** A TCP proxy on loopback that delays every chunk by ms in each direction (TLS passes through untouched). */
function delayProxy(target, ms) {
  return new Promise((resolve) => {
    const server = net.createServer((client) => {
      const up = net.connect(target.port, target.host);
      const pipe = (from, to) => {
        from.on('data', (d) => setTimeout(() => to.writable && to.write(d), ms));
        from.on('end', () => setTimeout(() => to.end(), ms));
        from.on('error', () => to.destroy());
      };
      pipe(client, up);
      pipe(up, client);
    });
    server.listen(0, '127.0.0.1', () => resolve({ port: server.address().port, close: () => server.close() }));
  });
}

/** CPU seconds (user + system) a process has used so far, from /proc. */
function cpuOf(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}
const serverCpu = () => cps.flatMap((cp) => cp.pids).reduce((n, pid) => n + cpuOf(pid), 0);

/** One doctor run: wall ms, the plugin's CPU s (bash's `times` of its child), the servers' CPU s. */
function time(kc, args) {
  return new Promise((resolve, reject) => {
    const s0 = serverCpu();
    const t0 = performance.now();
    const p = spawn(
      'bash',
      ['-c', '"$@" >/dev/null; rc=$?; times; exit $rc', '_', BIN, 'doctor', '--kubeconfig', kc, '-o', 'json', '--fail-on', 'none', ...args],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) return reject(new Error(`doctor ${args.join(' ')} exited ${code}`));
      const wall = performance.now() - t0;
      // times: the shell's own line, then its children's: "0m1.234s 0m0.210s"
      const [u, sy] = out
        .trim()
        .split('\n')
        .pop()
        .split(' ')
        .map((t) => {
          const m = /(\d+)m([\d.]+)s/.exec(t);
          return m ? Number(m[1]) * 60 + Number(m[2]) : 0;
        });
      resolve({ wall, cpu: u + sy, server: serverCpu() - s0 });
    });
  });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function measure(kc, args) {
  const xs = [];
  for (let i = 0; i < RUNS; i++) xs.push(await time(kc, args));
  const m = median(xs.map((x) => x.wall));
  return { wall: m, cpu: median(xs.map((x) => x.cpu)), server: median(xs.map((x) => x.server)) };
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
  const kubeconfig = (urls, file) => {
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        ...cps.map((cp, i) => `- name: c${i + 1}\n  cluster: {server: "${urls[i]}", certificate-authority: "${cp.caFile}"}`),
        `users:\n- name: reader\n  user: {token: ${USERS.reader.token}}`,
        'contexts:',
        ...names.map((n) => `- name: ${n}\n  context: {cluster: ${n}, user: reader}`),
        '',
      ].join('\n'),
    );
    return file;
  };
  const proxies = await Promise.all(cps.map((cp) => delayProxy({ host: '127.0.0.1', port: Number(new URL(cp.url).port) }, RTT / 2)));
  const setups = [
    [
      'loopback',
      kubeconfig(
        cps.map((cp) => cp.url),
        join(dir, 'kubeconfig'),
      ),
    ],
    [
      `${RTT} ms round trip`,
      kubeconfig(
        proxies.map((p) => `https://127.0.0.1:${p.port}`),
        join(dir, 'kubeconfig-rtt'),
      ),
    ],
  ];
  const ms = (x) => `${Math.round(x)} ms`;
  const s1 = (x) => `${x.toFixed(2)} s`;
  for (const [label, kc] of setups) {
    await time(kc, ['--contexts', names.join(',')]); // warm-up (page cache, API server caches)
    const singles = [];
    for (const n of names) singles.push(await measure(kc, ['--context', n]));
    const fleet = await measure(kc, ['--contexts', names.join(',')]);
    const serial = await measure(kc, ['--contexts', names.join(','), '--parallel', '1']);
    const slowest = Math.max(...singles.map((x) => x.wall));
    const sum = singles.reduce((a, b) => a + b.wall, 0);
    console.log(`\nkubectl arch doctor, ${N} real API servers (${label}), median of ${RUNS}, ${PER}..${N * PER} objects\n`);
    console.log('| run | wall | vs slowest single | vs sum of singles | plugin CPU | API servers + etcd CPU |');
    console.log('|---|---|---|---|---|---|');
    singles.forEach((x, i) =>
      console.log(
        `| single --context c${i + 1} (${(i + 1) * PER} objects) | ${ms(x.wall)} | ${(x.wall / slowest).toFixed(2)}x | | ${s1(x.cpu)} | ${s1(x.server)} |`,
      ),
    );
    for (const [name, x] of [
      [`--contexts (all ${N}, --parallel 4)`, fleet],
      ['--contexts --parallel 1', serial],
    ])
      console.log(
        `| ${name} | ${ms(x.wall)} | ${(x.wall / slowest).toFixed(2)}x | ${(x.wall / sum).toFixed(2)}x | ${s1(x.cpu)} | ${s1(x.server)} |`,
      );
  }
  for (const p of proxies) p.close();
} finally {
  await stopAll();
}
