// Backends by address, on the real control plane (#44). A fail-closed webhook whose Service has no selector and
// hand-written Endpoints — the address of a node (a webhook served from the host) or of a pod on it — is a door that
// closes when that node stops, and nothing in the cluster says so: no controller rewrites those Endpoints (the
// mirroring controller copies them into EndpointSlices as they are) and the API server keeps dialing the address.
// The control plane runs in a network namespace of its own, where each node's address (10.200.0.0/24, not loopback:
// Endpoints refuse 127.0.0.0/8) is real and a real webhook server answers on it. what-if n-1 predicts ARCH-WH01 for
// the two webhooks behind n-1's addresses and not for the one behind n-2's; then n-1 stops (its webhook server ends,
// its addresses go, its heartbeats stop): the real API server refuses a create behind each predicted webhook, in the
// words the prediction quotes, lets one through behind the other, and once the node lifecycle controller has marked
// n-1 NotReady, doctor finds the webhook behind n-1's own address without a backend — and says it cannot judge the one
// behind the pod's address (doctor lists pods without their bodies, so no pod's IP is visible to it), before and after.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane, startInNetns, type ControlPlane } from './lib/cluster.mjs';
import { GRACE_S, heartbeats, NODE_LIFECYCLE, ready } from './lib/nodes.js';
import { controlPlaneBinaries, until as untilDone } from './lib/setup.js';
import { loadScenario } from './lib/load.mjs';
import { grantReaders } from './lib/readers.mjs';
import { kubectl } from '../__tests__/helpers/run.js';

const bins = controlPlaneBinaries();
const root = process.getuid?.() === 0;
const T = '2026-08-13T09:00:00Z';
const SERVER = new URL('./lib/webhook-server.mjs', import.meta.url).pathname;
// n-1's own address, a pod's address on n-1, n-2's own address
const N1 = '10.200.0.2';
const POD = '10.200.0.4';
const N2 = '10.200.0.3';
const HOOKS = [
  { name: 'by-node', ip: N1 },
  { name: 'by-pod', ip: POD },
  { name: 'elsewhere', ip: N2 },
];

/** A CA and a serving certificate for the webhook Services (the API server verifies <service>.<namespace>.svc). */
function certs(dir: string): { ca: string; cert: string; key: string } {
  const f = (n: string): string => join(dir, n);
  const ssl = (args: string[]): void => void execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  ssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.crt'),
    '-days',
    '2',
    '-subj',
    '/CN=e2e-webhook-ca',
  ]);
  ssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('hook.key'), '-out', f('hook.csr'), '-subj', '/CN=e2e-webhook']);
  writeFileSync(f('hook.ext'), `subjectAltName=${HOOKS.map((h) => `DNS:${h.name}.hooks.svc`).join(',')}\n`);
  ssl([
    'x509',
    '-req',
    '-in',
    f('hook.csr'),
    '-CA',
    f('ca.crt'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    f('hook.ext'),
    '-out',
    f('hook.crt'),
  ]);
  return { ca: f('ca.crt'), cert: f('hook.crt'), key: f('hook.key') };
}

const node = (name: string, ip: string) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name } },
  status: {
    conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: T, lastTransitionTime: T }],
    addresses: [
      { type: 'InternalIP', address: ip },
      { type: 'Hostname', address: name },
    ],
    allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
    nodeInfo: { kubeletVersion: 'v1.36.3', containerRuntimeVersion: 'containerd://2.1.0' },
  },
});
const lease = (name: string) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name, namespace: 'kube-node-lease' },
  spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: '2026-08-13T08:59:59.000000Z' },
});
const scenario = (caBundle: string) => [
  node('n-1', N1),
  node('n-2', N2),
  lease('n-1'),
  lease('n-2'),
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'hooks' } },
  ...HOOKS.map((h) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `guarded-${h.name}`, labels: { guard: h.name } } })),
  // the agent whose pod IP the by-pod Endpoints list (no targetRef: written by hand)
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'agent-0', namespace: 'hooks', labels: { app: 'agent' } },
    spec: { nodeName: 'n-1', containers: [{ name: 'c', image: 'registry.example/agent:1' }] },
    status: {
      phase: 'Running',
      podIP: POD,
      podIPs: [{ ip: POD }],
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: T }],
      containerStatuses: [
        { name: 'c', ready: true, restartCount: 0, image: 'registry.example/agent:1', imageID: '', state: { running: { startedAt: T } } },
      ],
    },
  },
  ...HOOKS.flatMap((h) => [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: h.name, namespace: 'hooks' },
      spec: { ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 8443 }] },
    },
    {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: h.name, namespace: 'hooks' },
      subsets: [{ addresses: [{ ip: h.ip }], ports: [{ name: 'https', port: 8443, protocol: 'TCP' }] }],
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: h.name },
      webhooks: [
        {
          name: `${h.name}.example.com`,
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          timeoutSeconds: 5,
          clientConfig: { service: { namespace: 'hooks', name: h.name, path: '/validate', port: 443 }, caBundle },
          namespaceSelector: { matchLabels: { guard: h.name } },
          rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
        },
      ],
    },
  ]),
];

describe('backends by address: a webhook behind hand-written Endpoints on a node that stops', () => {
  let cp: ControlPlane;
  let dir = '';
  const servers = new Map<string, { stop(): Promise<void> }>();
  const beating = new Set(['n-1', 'n-2']);
  let beats: { stop(): void } | undefined;
  const until = <T>(what: string, probe: () => Promise<T | undefined>, boundMs?: number): Promise<T> => untilDone(cp, what, probe, boundMs);
  const arch = async (args: string[]): Promise<{ code: number; json: any }> => {
    const r = await kubectl(['arch', ...args, '--kubeconfig', cp.kubeconfig, '--context', 'reader', '-o', 'json']);
    if (![0, 1, 3].includes(r.code)) throw new Error(`kubectl arch ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return { code: r.code, json: JSON.parse(r.stdout) };
  };
  const create = (hook: string, name: string) =>
    cp.admin('POST', `/api/v1/namespaces/guarded-${hook}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

  beforeAll(async () => {
    if (!root) return;
    dir = mkdtempSync(join(tmpdir(), 'kubectl-arch-e2e-hooks-'));
    const c = certs(dir);
    cp = await startControlPlane({
      apiserver: bins.apiserver,
      controllerManager: bins.controllerManager,
      ...NODE_LIFECYCLE,
      netns: true,
    });
    // each node's addresses, and a webhook server on them: n-1's (its own and its pod's), n-2's
    for (const ip of [N1, POD, N2]) execFileSync('ip', ['-n', cp.netns!, 'addr', 'add', `${ip}/32`, 'dev', 'lo']);
    servers.set('n-1', await startInNetns(cp.netns!, process.execPath, [SERVER, c.cert, c.key, `${N1}:8443`, `${POD}:8443`]));
    servers.set('n-2', await startInNetns(cp.netns!, process.execPath, [SERVER, c.cert, c.key, `${N2}:8443`]));
    await grantReaders(cp);
    beats = heartbeats(cp, beating);
    await loadScenario(cp, scenario(Buffer.from(readFileSync(c.ca)).toString('base64')), { referenceTime: Date.parse(T) });
    await until('both nodes Ready', async () => {
      const nodes = (await cp.admin('GET', '/api/v1/nodes')).json.items as any[];
      return nodes.length === 2 && nodes.every((n) => ready(n) === 'True') ? true : undefined;
    });
    // the mirroring controller copied each hand-written Endpoints into an EndpointSlice (what the API server reads)
    await until('the mirrored EndpointSlices', async () => {
      const slices = (await cp.admin('GET', '/apis/discovery.k8s.io/v1/namespaces/hooks/endpointslices')).json.items as any[];
      return HOOKS.every((h) => slices.some((s) => s.metadata.labels?.['kubernetes.io/service-name'] === h.name)) ? true : undefined;
    });
  }, 600_000);
  afterAll(async () => {
    beats?.stop();
    for (const s of servers.values()) await s.stop();
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('predicted for n-1: ARCH-WH01 behind its address and its pod; the API server then refuses in those words', async () => {
    if (!root) {
      console.warn('skipped: the control plane in a network namespace of its own needs root (ip netns)');
      return;
    }
    // the API server reaches each webhook at its hand-written address: each refuses "deny-me" in its own words
    for (const h of HOOKS) {
      const r = await create(h.name, 'deny-me');
      expect([h.name, r.status, r.json?.message]).toEqual([h.name, 403, expect.stringContaining(`denied by ${h.ip}:8443`)]);
    }
    const before = await arch(['doctor']);
    const wh01 = (j: any): string[] =>
      j.checks
        .flatMap((c: any) => c.findings)
        .filter((f: any) => f.code === 'ARCH-WH01')
        .map((f: any) => f.objects[0].name)
        .sort();
    const notJudged = (j: any): string => JSON.stringify(j.checks.find((c: any) => c.id === 'admission-webhooks'));
    expect(wh01(before.json)).toEqual([]);
    expect(notJudged(before.json)).toMatch(
      /whether by-pod\.example\.com has a backend: Service hooks\/by-pod lists 10\.200\.0\.4 by address alone/,
    );

    const predicted = await arch(['what-if', 'n-1']);
    const hooks = (predicted.json.predictions as any[]).filter((p) => p.code === 'ARCH-WH01');
    expect(hooks.map((p) => p.objects[0].name).sort()).toEqual(['by-node', 'by-pod']);
    expect([predicted.code, predicted.json.verdict.state]).toEqual([1, 'not safe']);
    const said = new Map(hooks.map((p) => [p.objects[0].name, p.message as string]));
    expect(said.get('by-node')).toMatch(/10\.200\.0\.2 \(node n-1's InternalIP\): node n-1 stopped posting status/);
    expect(said.get('by-pod')).toMatch(/10\.200\.0\.4 \(pod hooks\/agent-0 on node n-1\)/);
    // n-2 alone takes down only the webhook behind its own address
    const other = await arch(['what-if', 'n-2']);
    expect((other.json.predictions as any[]).filter((p) => p.code === 'ARCH-WH01').map((p) => p.objects[0].name)).toEqual(['elsewhere']);

    // n-1 stops: what it served ends, its addresses go, its kubelet posts no more heartbeats
    await servers.get('n-1')!.stop();
    for (const ip of [N1, POD]) execFileSync('ip', ['-n', cp.netns!, 'addr', 'del', `${ip}/32`, 'dev', 'lo']);
    beating.delete('n-1');
    // the Endpoints are unchanged, and the API server still dials them: refused, in the words predicted
    for (const [hook, ip] of [
      ['by-node', N1],
      ['by-pod', POD],
    ] as const) {
      const r = await create(hook, 'after-n-1-stopped');
      const words = /failed calling webhook "[^"]+": failed to call webhook: … dial tcp [0-9.]+:…/.exec(said.get(hook)!)![0];
      const [head, tail] = words.split(' … ') as [string, string];
      expect([hook, r.status]).toEqual([hook, 500]);
      expect(r.json.message).toContain(head);
      expect(r.json.message).toContain(tail.replace('…', ''));
      expect(r.json.message).toContain(`dial tcp ${ip}:8443`);
    }
    expect((await create('elsewhere', 'after-n-1-stopped')).status).toBe(201);
    const eps = (await cp.admin('GET', '/api/v1/namespaces/hooks/endpoints/by-node')).json;
    expect(eps.subsets[0].addresses).toEqual([{ ip: N1 }]);

    // and once the node lifecycle controller has marked n-1 (Ready Unknown), doctor finds what was predicted
    await until(
      'n-1 marked NotReady',
      async () => (ready((await cp.admin('GET', '/api/v1/nodes/n-1')).json) === 'Unknown' ? true : undefined),
      GRACE_S * 1000 + 120_000,
    );
    const after = await arch(['doctor']);
    expect(wh01(after.json)).toEqual(['by-node']);
    expect(notJudged(after.json)).toMatch(/whether by-pod\.example\.com has a backend/);
  }, 400_000);
});
