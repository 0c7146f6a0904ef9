// npm run bench:scale — kubectl-arch against a real kube-apiserver + etcd holding 10,000 then 50,000 (BENCH_SIZES: 200,000 too)
// objects (pods, services, configmaps, events, tracked Deployments, Argo CD Applications) across 200
// namespaces; nine pods in ten are Running (status written through /status, as a kubelet would).
// Measures, in the same run: doctor, orphans, what-if node-1, what-if of every worker (one at a time included),
// what-if -f over 1,000 manifests and what-if --upgrade: wall time, peak RSS and request count (from the audit
// log), against the lower bound: the same client listing the same types metadata-only with nothing
// else done (scripts/list-only.ts). Prints a table; asserts nothing. BENCH_HOLD=1 fills to the largest size and holds
// the cluster for profiling instead of measuring.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAudit, startControlPlane, USERS } from './lib/cluster.mjs';
import { grantReaders } from './lib/readers.mjs';
import { listOnlyCommand } from '../scripts/lib/list-only.mjs';
const LIST_ONLY = await listOnlyCommand();

const SIZES = (process.env.BENCH_SIZES ?? '10000,50000').split(',').map(Number);
const NS = Number(process.env.BENCH_NAMESPACES ?? 200);
const RUNS = Number(process.env.BENCH_SCALE_RUNS ?? 3);
const BIN = new URL('../bin/kubectl-arch', import.meta.url).pathname;
const log = (s) => process.stderr.write(`${s}\n`);

const cp = await startControlPlane({ log });
const stopAll = async () => {
  await cp.stop();
};
process.on('SIGINT', () => {
  void stopAll().then(() => process.exit(130));
});
try {
  // the shipped least-privilege ClusterRole, bound to the reader the plugin runs as
  await grantReaders(cp);
  await cp.admin('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'applications.argoproj.io' },
    spec: {
      group: 'argoproj.io',
      scope: 'Namespaced',
      names: { kind: 'Application', plural: 'applications', singular: 'application', listKind: 'ApplicationList' },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  });
  await cp.admin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'argocd' } });
  for (let i = 0; i < NS; i++)
    await cp.admin('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: `ns-${String(i).padStart(3, '0')}` },
    });
  await new Promise((r) => setTimeout(r, 1000)); // CRD established
  for (let i = 0; i < NS; i++) {
    if (i % 10 === 0) continue; // every tenth app was deleted without its finalizer: its objects are orphans
    await cp.admin('POST', '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications', {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: `app-${i}`, finalizers: ['resources-finalizer.argocd.argoproj.io'] },
      spec: { destination: { namespace: `ns-${String(i).padStart(3, '0')}` } },
    });
  }

  // three nodes the pods run on, for what-if node-1 (no kubelet: they are NotReady, as seen by a reader)
  for (const i of [1, 2, 3]) await cp.admin('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: `node-${i}` } });
  let created = NS + 1 + Math.ceil(NS * 0.9) + 3;
  let seq = 0;
  // one object of the mix: pods 40%, configmaps 25%, services 10%, events 15%, tracked deployments 10%
  const next = () => {
    const k = seq++;
    const i = k % NS;
    const ns = `ns-${String(i).padStart(3, '0')}`;
    const n = Math.floor(k / NS);
    const app = `app-${i}`;
    const track = (group, kind, name) => ({
      labels: { 'app.kubernetes.io/instance': app },
      annotations: { 'argocd.argoproj.io/tracking-id': `${app}:${group}/${kind}:${ns}/${name}` },
    });
    const r = k % 20;
    if (r < 8)
      return [
        `/api/v1/namespaces/${ns}/pods`,
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `pod-${n}`, labels: { app: `web-${n % 10}` } },
          spec: { nodeName: `node-${(n % 3) + 1}`, containers: [{ name: 'app', image: 'registry.example/app:1.0' }] },
        },
      ];
    if (r < 13)
      return [
        `/api/v1/namespaces/${ns}/configmaps`,
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${n}`, ...track('', 'ConfigMap', `cm-${n}`) },
          data: { key: 'x'.repeat(200) },
        },
      ];
    if (r < 15)
      return [
        `/api/v1/namespaces/${ns}/services`,
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: `svc-${n}`, ...track('', 'Service', `svc-${n}`) },
          spec: { selector: { app: `web-${n % 10}` }, ports: [{ port: 80 }] },
        },
      ];
    if (r < 18)
      return [
        `/api/v1/namespaces/${ns}/events`,
        {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: `ev-${n}` },
          involvedObject: { kind: 'Pod', name: `pod-${n}`, namespace: ns },
          reason: 'Pulled',
          type: 'Normal',
          message: 'Container image already present on machine',
          count: 1,
          firstTimestamp: new Date().toISOString().replace(/\.\d+Z/, 'Z'),
          lastTimestamp: new Date().toISOString().replace(/\.\d+Z/, 'Z'),
          source: { component: 'kubelet' },
        },
      ];
    return [
      `/apis/apps/v1/namespaces/${ns}/deployments`,
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: `web-${n}`, ...track('apps', 'Deployment', `web-${n}`) },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: `web-${n}` } },
          template: {
            metadata: { labels: { app: `web-${n}` } },
            spec: { containers: [{ name: 'app', image: 'registry.example/app:1.0' }] },
          },
        },
      },
    ];
  };
  let pods = 0;
  const fill = async (target) => {
    const t0 = Date.now();
    let failed = 0;
    await Promise.all(
      Array.from({ length: 48 }, async () => {
        while (created < target) {
          created++;
          const [path, body] = next();
          const r = await cp.admin('POST', path, body);
          if (r.status >= 300) failed++;
          // as in a working cluster, nine pods in ten run (no kubelet here: their status is written as one would)
          else if (body.kind === 'Pod' && ++pods % 10 !== 0) {
            const st = await cp.admin('PUT', `${path}/${body.metadata.name}/status`, {
              ...r.json,
              status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], podIP: '10.42.0.10' },
            });
            if (st.status >= 300) failed++;
          }
        }
      }),
    );
    log(`created ${created} objects (${failed} failed) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  };

  const runOnce = (args) =>
    new Promise((resolve) => {
      const before = readAudit(cp.auditLog).filter((e) => e.user?.username === USERS.reader.name).length;
      const t0 = process.hrtime.bigint();
      const cmd = args[0] === 'list-only' ? LIST_ONLY : [BIN, ...args];
      const p = spawn(
        '/usr/bin/time',
        ['-f', '%M', ...cmd, '--kubeconfig', cp.kubeconfig, '--context', 'reader', '-o', 'json', '--fail-on', 'none'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      let err = '';
      p.stdout.on('data', (d) => {
        out += d;
      });
      p.stderr.on('data', (d) => {
        err += d;
      });
      p.on('close', (code) => {
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        const after = readAudit(cp.auditLog).filter((e) => e.user?.username === USERS.reader.name).length;
        resolve({ ms, rss: Number(err.trim().split('\n').pop()) / 1024, requests: after - before, code, err, out });
      });
    });
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  // #40: what-if -f over 1,000 manifests of objects the cluster holds (ConfigMaps, Services and Deployments in the
  // order the fill created them: a label added to each; one Service in ten asks for another clusterIP, refused)
  const manifestsFile = join(mkdtempSync(join(tmpdir(), 'ka-bench-')), 'render.yaml');
  const writeManifests = () => {
    const docs = [];
    for (let k = 0; docs.length < 1000; k++) {
      const i = k % NS;
      const ns = `ns-${String(i).padStart(3, '0')}`;
      const n = Math.floor(k / NS);
      const r = k % 20;
      const labels = { 'app.kubernetes.io/instance': `app-${i}`, team: 'bench' };
      if (r >= 8 && r < 13)
        docs.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${n}`, namespace: ns, labels }, data: { key: 'y' } });
      else if (r >= 13 && r < 15)
        docs.push({
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: `svc-${n}`, namespace: ns, labels },
          spec: {
            selector: { app: `web-${n % 10}` },
            ports: [{ port: 80 }],
            ...(docs.length % 10 === 0 ? { clusterIP: '10.43.255.254' } : {}),
          },
        });
      else if (r >= 18)
        docs.push({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: `web-${n}`, namespace: ns, labels },
          spec: {
            replicas: 2,
            selector: { matchLabels: { app: `web-${n}` } },
            template: {
              metadata: { labels: { app: `web-${n}` } },
              spec: { containers: [{ name: 'app', image: 'registry.example/app:1.1' }] },
            },
          },
        });
    }
    writeFileSync(manifestsFile, docs.map((d) => JSON.stringify(d)).join('\n---\n'));
  };
  const rows = [];
  const ratios = [];
  if (process.env.BENCH_HOLD) {
    // for profiling: fill to the largest size, print how to reach the cluster, and hold it until Ctrl-C
    await fill(Math.max(...SIZES));
    writeManifests();
    console.log(`holding ${created} objects: --kubeconfig ${cp.kubeconfig} --context reader; manifests: ${manifestsFile}`);
    await new Promise(() => {});
  }
  for (const size of SIZES) {
    await fill(size);
    writeManifests();
    const res = {};
    for (const [name, args] of [
      ['lower bound (list-only, metadata)', ['list-only']],
      ['kubectl arch doctor', ['doctor']],
      ['kubectl arch orphans', ['orphans']],
      ['kubectl arch what-if node-1', ['what-if', 'node-1']],
      // every worker, together and one at a time (#39: at most 3x doctor)
      ['kubectl arch what-if node-1 node-2 node-3', ['what-if', 'node-1', 'node-2', 'node-3']],
      // #40: at most 1.5x doctor
      ['kubectl arch what-if -f (1,000 manifests)', ['what-if', '-f', manifestsFile]],
      // #47: at most 1.5x doctor — the door over every object, the owners, and each node as a step of the rollout
      ['kubectl arch what-if --upgrade v1.37.0', ['what-if', '--upgrade', 'v1.37.0']],
    ]) {
      await runOnce(args);
      const rs = [];
      for (let i = 0; i < RUNS; i++) rs.push(await runOnce(args));
      if (rs.some((r) => r.code !== 0 && !(args[0] === 'what-if' && [1, 3].includes(r.code))))
        log(`${name}: exit ${rs.map((r) => r.code)}: ${rs[0].err.slice(0, 300)}`);
      res[name] = { ms: med(rs.map((r) => r.ms)), rss: Math.max(...rs.map((r) => r.rss)), requests: rs[0].requests };
      if (name.startsWith('lower')) res[name].objects = JSON.parse(rs[0].out).objects;
    }
    const lb = res['lower bound (list-only, metadata)'];
    const vs = (name) => (res[name].ms / res['kubectl arch doctor'].ms).toFixed(2);
    ratios.push(
      `${size} objects: what-if ${vs('kubectl arch what-if node-1')}x doctor, every worker one at a time included ${vs('kubectl arch what-if node-1 node-2 node-3')}x, what-if -f over 1,000 manifests ${vs('kubectl arch what-if -f (1,000 manifests)')}x, what-if --upgrade ${vs('kubectl arch what-if --upgrade v1.37.0')}x`,
    );
    for (const [name, r] of Object.entries(res))
      rows.push([
        String(size),
        name,
        `${r.ms.toFixed(0)} ms`,
        `${(r.ms / lb.ms).toFixed(2)}x`,
        String(r.requests),
        `${r.rss.toFixed(0)} MB`,
        r.objects ? String(r.objects) : '',
      ]);
  }
  const head = ['objects', 'command', `wall (median of ${RUNS})`, 'vs lower bound', 'requests', 'peak RSS (max)', 'objects listed'];
  const all = [head, ...rows];
  const w = head.map((_, i) => Math.max(...all.map((r) => r[i].length)) + 2);
  console.log(`kubectl-arch scale benchmark — real kube-apiserver ${cp.url}, ${NS} namespaces, as the least-privilege reader`);
  for (const r of all)
    console.log(
      r
        .map((c, i) => c.padEnd(w[i]))
        .join('')
        .trimEnd(),
    );
  console.log(ratios.join('; '));
  console.log(
    "targets: doctor and orphans within 1.5x of the lower bound; what-if within 1.2x of doctor, every worker one at a time included within 3x; what-if -f over 1,000 manifests and what-if --upgrade within 1.5x of doctor; peak RSS <= 200 MB at 50,000 objects (#43) and <= 512 MiB at 200,000 (#48, the CronJob's limit); time linear in objects",
  );
} finally {
  await stopAll();
}
