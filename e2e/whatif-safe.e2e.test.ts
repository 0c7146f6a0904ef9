// "Safe" means safe, on the real control plane (#39):
// - budgets: kube-controller-manager's disruption controller computes each PodDisruptionBudget's status; what-if
//   predicts ARCH-WI02 for a budget whose selector is {} (every pod of its namespace) and one that selects by
//   matchExpressions; then the harness posts a real eviction of a pod on that node and the real API server refuses it
//   (429) — and evicts a pod no budget covers (201). A pod two budgets select (each allowing one disruption) cannot be
//   evicted at all: the real eviction API answers 500 in the words ARCH-WI02 quotes, naming both budgets (#44).
// - API servers: two kube-apiservers on one etcd, each as its own "node" (a UTS namespace with its host name, so each
//   renews an identity lease of its own); with both live, taking one node down leaves a door; once the other is
//   stopped (its lease no longer renewed), what-if on the first node says no API server is left. The nodes are named
//   as cloud providers name them (cp-1.lab.example.com) and labelled with the host name (kubernetes.io/hostname:
//   cp-1), the name the real kube-apiserver writes on its lease: the lease is found by the node's label (#44).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { DEFAULT_CONTROLLERS, startControlPlane, type ControlPlane } from './lib/cluster.mjs';
import { controlPlaneBinaries } from './lib/setup.js';
import { loadScenario } from './lib/load.mjs';
import { grantReaders } from './lib/readers.mjs';
import { kubectl } from '../__tests__/helpers/run.js';

const bins = controlPlaneBinaries();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const T = '2026-08-13T09:00:00Z';

const node = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name.split('.')[0]!, ...labels } },
  status: {
    conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: T, lastTransitionTime: T }],
    allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
    nodeInfo: { kubeletVersion: 'v1.36.3', containerRuntimeVersion: 'containerd://2.1.0' },
  },
});
const pod = (name: string, ns: string, nodeName: string, labels: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, labels },
  spec: { nodeName, containers: [{ name: 'c', image: 'registry.example/app:1' }] },
  status: {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: T }],
    containerStatuses: [
      { name: 'c', ready: true, restartCount: 0, image: 'registry.example/app:1', imageID: '', state: { running: { startedAt: T } } },
    ],
  },
});
const ns = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const pdb = (name: string, namespace: string, selector: unknown, minAvailable = 2) => ({
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name, namespace },
  spec: { selector, minAvailable },
});

const whatIf = async (cp: ControlPlane, nodes: string[]): Promise<{ code: number; json: any }> => {
  const r = await kubectl(['arch', 'what-if', ...nodes, '--kubeconfig', cp.kubeconfig, '--context', 'reader', '-o', 'json']);
  if (![0, 1, 3].includes(r.code)) throw new Error(`what-if exited ${r.code}: ${r.stderr}`);
  return { code: r.code, json: JSON.parse(r.stdout) };
};
const until = async <T>(what: string, probe: () => Promise<T | undefined>, boundMs = 180_000): Promise<T> => {
  const end = Date.now() + boundMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${boundMs / 1000} s`);
    await sleep(500);
  }
};

describe('budgets: what-if predicts the drain the real API server refuses', () => {
  let cp: ControlPlane;
  beforeAll(async () => {
    cp = await startControlPlane({
      apiserver: bins.apiserver,
      controllerManager: bins.controllerManager,
      controllers: [...DEFAULT_CONTROLLERS, 'disruption-controller'],
    });
    await grantReaders(cp);
    await loadScenario(
      cp,
      [
        node('n-1'),
        node('n-2'),
        ns('all'),
        ns('expr'),
        ns('free'),
        // {}: in policy/v1 every pod of the namespace
        pod('a-1', 'all', 'n-1', { app: 'a' }),
        pod('a-2', 'all', 'n-2', { app: 'b' }),
        pdb('everything', 'all', {}),
        // matchExpressions only
        pod('e-1', 'expr', 'n-1', { tier: 'db' }),
        pod('e-2', 'expr', 'n-2', { tier: 'db' }),
        pdb('db', 'expr', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['db', 'cache'] }] }),
        // a budget that selects nothing on n-1 (NotIn): the pod there is free to go
        pod('f-1', 'free', 'n-1', { tier: 'web' }),
        pod('f-2', 'free', 'n-2', { tier: 'db' }),
        pdb('not-web', 'free', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['web'] }] }),
        // two budgets over the same pods, each allowing one disruption (2 healthy, 1 required)
        ns('two'),
        pod('t-1', 'two', 'n-1', { app: 't', tier: 'x' }),
        pod('t-2', 'two', 'n-2', { app: 't', tier: 'x' }),
        pdb('by-app', 'two', { matchLabels: { app: 't' } }, 1),
        pdb('by-tier', 'two', { matchLabels: { tier: 'x' } }, 1),
      ],
      { referenceTime: Date.parse(T) },
    );
    // the disruption controller has judged every budget: 2 healthy, 2 required, none allowed (1 for not-web: 1 of 1)
    await until('the disruption controller computed every budget', async () => {
      const items = (await cp.admin('GET', '/apis/policy/v1/poddisruptionbudgets')).json.items as any[];
      return items.length === 5 && items.every((p) => p.status?.observedGeneration === p.metadata.generation) ? true : undefined;
    });
  }, 600_000);
  afterAll(async () => cp?.stop());

  test('ARCH-WI02 for {} and for matchExpressions; the API server refuses those evictions (429), and allows the free one', async () => {
    const r = await whatIf(cp, ['n-1']);
    const budgets = r.json.predictions
      .filter((p: any) => p.code === 'ARCH-WI02')
      .map((p: any) => `${p.objects[0].namespace}/${p.objects[0].name}`)
      .sort();
    expect(budgets).toEqual(['all/everything', 'expr/db', 'two/by-app']);
    expect([r.code, r.json.verdict.state]).toEqual([1, 'not safe']);
    const evict = (namespace: string, name: string) =>
      cp.admin('POST', `/api/v1/namespaces/${namespace}/pods/${name}/eviction`, {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name, namespace },
      });
    for (const [n, p] of [
      ['all', 'a-1'],
      ['expr', 'e-1'],
    ]) {
      const e = await evict(n!, p!);
      expect([p, e.status, e.json?.message]).toEqual([
        p,
        429,
        expect.stringMatching(/Cannot evict pod as it would violate the pod's disruption budget/),
      ]);
    }
    const free = await evict('free', 'f-1');
    expect(free.status).toBe(201);
  });

  test('a pod under two budgets: ARCH-WI02 names both, and the real eviction API answers 500 in the words it quotes', async () => {
    const items = (await cp.admin('GET', '/apis/policy/v1/namespaces/two/poddisruptionbudgets')).json.items as any[];
    // each budget alone would allow the eviction
    expect(items.map((p) => `${p.metadata.name} ${p.status.disruptionsAllowed}`).sort()).toEqual(['by-app 1', 'by-tier 1']);
    const r = await whatIf(cp, ['n-1']);
    const two = r.json.predictions.filter((p: any) => p.code === 'ARCH-WI02' && p.objects[0].namespace === 'two');
    expect(two.map((p: any) => p.objects.map((o: any) => `${o.kind} ${o.name}`))).toEqual([
      ['PodDisruptionBudget by-app', 'PodDisruptionBudget by-tier', 'Pod t-1'],
    ]);
    const e = await cp.admin('POST', '/api/v1/namespaces/two/pods/t-1/eviction', {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: 't-1', namespace: 'two' },
    });
    expect([e.status, e.json?.message]).toEqual([500, expect.any(String)]);
    expect(two[0].message).toContain(`answers 500 "${e.json.message}"`);
    // and the pod is still there
    expect((await cp.admin('GET', '/api/v1/namespaces/two/pods/t-1')).status).toBe(200);
  });
});

describe('API servers: only live ones count', () => {
  let cp: ControlPlane;
  let second: { stop(): Promise<void> } | undefined;
  const root = process.getuid?.() === 0;
  beforeAll(async () => {
    if (!root) return;
    cp = await startControlPlane({ apiserver: bins.apiserver, hostname: 'cp-1' });
    second = await cp.addApiserver('cp-2');
    await grantReaders(cp);
    await loadScenario(
      cp,
      [
        node('cp-1.lab.example.com', { 'node-role.kubernetes.io/control-plane': '' }),
        node('cp-2.lab.example.com', { 'node-role.kubernetes.io/control-plane': '' }),
        node('w-1.lab.example.com'),
      ],
      {
        referenceTime: Date.parse(T),
      },
    );
    await until('both identity leases renewed', async () => {
      const items = (
        await cp.admin(
          'GET',
          '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=apiserver.kubernetes.io%2Fidentity%3Dkube-apiserver',
        )
      ).json.items as any[];
      const hosts = items.map((l) => l.metadata.labels['kubernetes.io/hostname']).sort();
      return hosts.join(',') === 'cp-1,cp-2' ? true : undefined;
    });
  }, 600_000);
  afterAll(async () => {
    await second?.stop();
    await cp?.stop();
  });

  test('two live: cp-1 down leaves a door; cp-2 stopped (its lease goes stale): cp-1 is the last, ARCH-WI07 critical (nodes named otherwise than their host names)', async () => {
    if (!root) {
      console.warn('skipped: a kube-apiserver per host name needs a UTS namespace (unshare), which needs root');
      return;
    }
    const both = await whatIf(cp, ['cp-1.lab.example.com']);
    expect(both.json.predictions.filter((p: any) => p.code === 'ARCH-WI07')).toEqual([]);
    await second!.stop();
    // an identity lease counts as live for a minute after its last renewal (renewed every 10 s)
    await until(
      "cp-2's identity lease stale",
      async () => {
        const items = (
          await cp.admin('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=kubernetes.io%2Fhostname%3Dcp-2')
        ).json.items as any[];
        return items.length && Date.now() - Date.parse(items[0].spec.renewTime) > 75_000 ? true : undefined;
      },
      240_000,
    );
    const last = await whatIf(cp, ['cp-1.lab.example.com']);
    const door = last.json.predictions.find((p: any) => p.code === 'ARCH-WI07');
    expect([door?.severity, door?.title]).toEqual([
      'critical',
      expect.stringMatching(/no live API server is left: cp-1\.lab\.example\.com is the last live one/),
    ]);
    expect(door?.message).toMatch(/Not live already: cp-2\.lab\.example\.com \(identity lease renewed \d+ (s|min) ago\)/);
    expect([last.code, last.json.verdict.state]).toEqual([1, 'not safe']);
  }, 400_000);
});
