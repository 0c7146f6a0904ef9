// "Safe" means safe (#44): three shapes real clusters have that once gave a false "safe", each on a small cluster that
// differs from its control in one thing only — a backend written by address, a pod under two budgets, a node whose
// kubernetes.io/hostname is not its name — and quorum counts that keep unknown apart from down.
import { describe, expect, test } from '@jest/globals';
import { CHECKS } from '../src/checks/registry.js';
import { runChecks } from '../src/checks/run.js';
import { nodeSelectorMatches, podAllowsNode, volumeNodes, nodeNamer } from '../src/lib/nodes.js';
import type { KObject } from '../src/model.js';
import { R } from '../src/resources.js';
import type { Snapshot } from '../src/snapshot/snapshot.js';
import { MULTIPLE_BUDGETS } from '../src/whatif/predictions/drain-budgets/prediction.js';
import { whatIf } from '../src/whatif/predict.js';
import { node, obj, snapshotOf } from './helpers/fixtures.js';

const T = '2026-08-13T09:00:00Z';
const K3S = 'v1.35.4+k3s1';
const ready = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
const ALL = [...new Map([...CHECKS.flatMap((c) => c.needs), ...Object.values(R)].map((n) => [`${n.kind}.${n.group}`, n])).values()];
const cluster = (objects: KObject[], opts: { hide?: string[] } = {}): Snapshot => {
  const s = snapshotOf(objects, { capturedAt: T, serverVersion: K3S, captured: ALL.filter((n) => !(opts.hide ?? []).includes(n.kind)) });
  for (const k of opts.hide ?? []) {
    const n = ALL.find((x) => x.kind === k)!;
    s.markUnavailable({ group: n.group, kind: n.kind, resource: n.resource, status: 403, reason: 'forbidden' });
  }
  return s;
};
const run = (s: Snapshot, nodes: string[], remove = false) => whatIf(s, { nodes, remove }, new Date(T), CHECKS, { failOn: 'error' });
const codes = (r: Awaited<ReturnType<typeof run>>, code: string) => r.predictions.filter((p) => p.code === code);

const servers = ['s1', 's2', 's3'].map((n) =>
  node(n, {
    kubelet: K3S,
    roles: ['control-plane', 'etcd', 'master'],
    conditions: [{ type: 'EtcdIsVoter', status: 'True', reason: 'MemberNotLearner', lastHeartbeatTime: T }],
  }),
);
const withAddress = (n: KObject, ip: string, labels: Record<string, string> = {}): KObject => ({
  ...n,
  metadata: { ...n.metadata, labels: { ...n.metadata.labels, ...labels } },
  status: {
    ...n.status,
    addresses: [
      { type: 'InternalIP', address: ip },
      { type: 'Hostname', address: n.metadata.name },
    ],
  },
});
const workers = [withAddress(node('w1', { kubelet: K3S }), '10.0.0.11'), withAddress(node('w2', { kubelet: K3S }), '10.0.0.12')];
const pod = (
  name: string,
  ns: string,
  nodeName: string,
  ip: string,
  labels: Record<string, string> = {},
  status: object = ready,
): KObject =>
  obj('v1', 'Pod', name, ns, {
    metadata: {
      name,
      namespace: ns,
      labels,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${ns}-rs`, uid: `u-${ns}`, controller: true }],
    },
    spec: { nodeName, containers: [{ name: 'c' }] },
    status: { ...status, podIP: ip, podIPs: [{ ip }] },
  });

describe('backends by address: what serves each address a Service lists', () => {
  const hook = (svc: string): KObject =>
    obj('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'guard', undefined, {
      webhooks: [
        {
          name: 'guard.example.com',
          failurePolicy: 'Fail',
          clientConfig: { service: { namespace: 'hooks', name: svc, port: 443 } },
          rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
        },
      ],
    });
  const service = (name: string, selector?: Record<string, string>): KObject =>
    obj('v1', 'Service', name, 'hooks', { spec: { ...(selector ? { selector } : {}), ports: [{ name: 'https', port: 443 }] } });
  const endpoints = (name: string, addresses: object[]): KObject =>
    obj('v1', 'Endpoints', name, 'hooks', { subsets: [{ addresses, ports: [{ name: 'https', port: 8443 }] }] });
  const hookPod = pod('guard-7d9f-x', 'hooks', 'w1', '10.42.1.7', { app: 'guard' });
  const base = [...servers, ...workers, hookPod, obj('v1', 'Namespace', 'kube-system')];

  test('the control: a Service with a selector, Endpoints the controller wrote (targetRef, nodeName): ARCH-WH01', async () => {
    const managed = endpoints('guard', [
      { ip: '10.42.1.7', nodeName: 'w1', targetRef: { kind: 'Pod', namespace: 'hooks', name: 'guard-7d9f-x' } },
    ]);
    managed.metadata.labels = { 'endpoints.kubernetes.io/managed-by': 'endpoint-controller' };
    const r = await run(cluster([...base, hook('guard'), service('guard', { app: 'guard' }), managed]), ['w1']);
    expect(codes(r, 'ARCH-WH01').map((p) => p.message)).toEqual([
      expect.stringMatching(/no endpoints available for service "hooks\/guard"/),
    ]);
  });

  test("a pod's IP or a node's own address written by hand: the API server still dials it — ARCH-WH01, not safe", async () => {
    for (const [what, ip, words] of [
      ["the pod's IP", '10.42.1.7', /10\.42\.1\.7 \(pod hooks\/guard-7d9f-x on node w1\): node w1 stopped posting status/],
      ["the node's InternalIP", '10.0.0.11', /10\.0\.0\.11 \(node w1's InternalIP\): node w1 stopped posting status/],
    ] as const) {
      const s = cluster([...base, hook('guard'), service('guard'), endpoints('guard', [{ ip }])]);
      // as it is: the webhook answers
      expect(
        runChecks(CHECKS, s, { now: new Date(T) })
          .find((c) => c.id === 'admission-webhooks')
          ?.findings.filter((f) => f.code === 'ARCH-WH01'),
      ).toEqual([]);
      const r = await run(s, ['w1']);
      const wh = codes(r, 'ARCH-WH01');
      expect([what, wh.length, r.verdict.state]).toEqual([what, 1, 'not safe']);
      expect(wh[0]!.message).toMatch(words);
      expect(wh[0]!.message).toMatch(new RegExp(`failed calling webhook "guard.example.com".*dial tcp ${ip.replace(/\./g, '\\.')}`));
      expect(wh[0]!.fix?.map(String)).toContainEqual(
        expect.stringMatching(/written by hand.*kubectl -n hooks get endpoints guard -o yaml/),
      );
      // removed for good: the address is still listed, and nothing has it any more
      const gone = codes(await run(s, ['w1'], true), 'ARCH-WH01');
      expect([what, gone[0]?.message]).toEqual([what, expect.stringMatching(/node w1 no longer exists/)]);
      // the other node going down changes nothing
      expect(codes(await run(s, ['w2']), 'ARCH-WH01')).toEqual([]);
    }
  });

  test('EndpointSlices written by hand (no Endpoints) are read the same way', async () => {
    const slice = obj('discovery.k8s.io/v1', 'EndpointSlice', 'guard-manual', 'hooks', {
      metadata: {
        name: 'guard-manual',
        namespace: 'hooks',
        labels: { 'kubernetes.io/service-name': 'guard', 'endpointslice.kubernetes.io/managed-by': 'ops.example.com' },
      },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.11'], conditions: { ready: true } }],
      ports: [{ name: 'https', port: 8443 }],
    });
    const r = await run(cluster([...base, hook('guard'), service('guard'), slice]), ['w1']);
    expect(codes(r, 'ARCH-WH01')[0]?.message).toMatch(/10\.0\.0\.11 \(node w1's InternalIP\)/);
  });

  test('an address no visible pod or node has is never counted live: not judged; one address that stays is enough', async () => {
    const lone = await run(cluster([...base, hook('guard'), service('guard'), endpoints('guard', [{ ip: '192.0.2.10' }])]), ['w1']);
    expect(lone.verdict.state).toBe('not judged');
    expect(lone.notJudged).toContainEqual(
      expect.objectContaining({
        by: 'admission-webhooks',
        what: expect.stringMatching(/Service hooks\/guard lists 192\.0\.2\.10, which no visible pod or node has/),
      }),
    );
    // with the pod on w1 too: it goes, the unknown one is not counted — still not judged, never safe
    const mixed = await run(
      cluster([...base, hook('guard'), service('guard'), endpoints('guard', [{ ip: '192.0.2.10' }, { ip: '10.42.1.7' }])]),
      ['w1'],
    );
    expect(mixed.verdict.state).not.toBe('safe');
    // an address on w2 stays: the webhook keeps a backend
    const stays = await run(
      cluster([...base, hook('guard'), service('guard'), endpoints('guard', [{ ip: '192.0.2.10' }, { ip: '10.0.0.12' }])]),
      ['w1'],
    );
    expect(stays.notJudged.filter((n) => n.by === 'admission-webhooks')).toEqual([]);
    expect(codes(stays, 'ARCH-WH01')).toEqual([]);
  });

  test("an APIService behind hand-written Endpoints on the node's address: the aggregator's discovery check fails — ARCH-API01", async () => {
    const api = obj('apiregistration.k8s.io/v1', 'APIService', 'v1beta1.metrics.example.com', undefined, {
      spec: { group: 'metrics.example.com', version: 'v1beta1', service: { namespace: 'hooks', name: 'metrics' } },
      status: { conditions: [{ type: 'Available', status: 'True', reason: 'Passed' }] },
    });
    const r = await run(cluster([...base, api, service('metrics'), endpoints('metrics', [{ ip: '10.0.0.11' }])]), ['w1']);
    expect(codes(r, 'ARCH-API01').map((p) => p.title)).toEqual([expect.stringMatching(/not available \(FailedDiscoveryCheck\)/)]);
  });

  test('doctor: a hand-written address on a node that stopped posting status is a webhook with no backend, now', () => {
    const gone = {
      ...workers[0]!,
      status: { ...workers[0]!.status, conditions: [{ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown' }] },
    };
    const s = cluster([...servers, gone, workers[1]!, hook('guard'), service('guard'), endpoints('guard', [{ ip: '10.0.0.11' }])]);
    const r = runChecks(CHECKS, s, { now: new Date(T) }).find((c) => c.id === 'admission-webhooks')!;
    expect(r.findings.map((f) => f.code).filter((c) => c !== 'ARCH-WH02')).toEqual(['ARCH-WH01']);
    // a node that says NotReady (False) still posts status: what runs there may answer, and nothing says otherwise
    const notReady = { ...gone, status: { ...gone.status, conditions: [{ type: 'Ready', status: 'False' }] } };
    const s2 = cluster([...servers, notReady, workers[1]!, hook('guard'), service('guard'), endpoints('guard', [{ ip: '10.0.0.11' }])]);
    expect(
      runChecks(CHECKS, s2, { now: new Date(T) })
        .find((c) => c.id === 'admission-webhooks')!
        .findings.filter((f) => f.code === 'ARCH-WH01'),
    ).toEqual([]);
  });
});

test('doctor, pods listed without their bodies: a hand-written pod address is not judged, never counted live', () => {
  const hook = obj('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'guard', undefined, {
    webhooks: [
      { name: 'guard.example.com', failurePolicy: 'Fail', clientConfig: { service: { namespace: 'hooks', name: 'guard' } }, rules: [] },
    ],
  });
  const svc = obj('v1', 'Service', 'guard', 'hooks', { spec: { ports: [{ name: 'https', port: 443 }] } });
  const ep = obj('v1', 'Endpoints', 'guard', 'hooks', { subsets: [{ addresses: [{ ip: '10.42.1.7' }] }] });
  // as doctor lists pods: metadata and whether they run, no spec, no IP
  const lean = obj('v1', 'Pod', 'guard-0', 'hooks', { status: { phase: 'Running' } });
  const r = runChecks(CHECKS, cluster([...servers, ...workers, hook, svc, ep, lean]), { now: new Date(T) }).find(
    (c) => c.id === 'admission-webhooks',
  )!;
  expect([r.findings.filter((f) => f.code === 'ARCH-WH01'), r.unjudged]).toEqual([
    [],
    [expect.stringMatching(/whether guard\.example\.com has a backend: Service hooks\/guard lists 10\.42\.1\.7 by address alone/)],
  ]);
  // with the pods' bodies visible and none of them or any node having it, the address is outside the cluster: listed, live
  const full = pod('guard-0', 'hooks', 'w1', '10.42.9.9');
  const r2 = runChecks(CHECKS, cluster([...servers, ...workers, hook, svc, ep, full]), { now: new Date(T) }).find(
    (c) => c.id === 'admission-webhooks',
  )!;
  expect(r2.unjudged ?? []).toEqual([]);
});

describe('a pod under two budgets: the eviction API answers 500, whatever each allows', () => {
  const pdb = (name: string, selector: unknown, allowed = 1): KObject =>
    obj('policy/v1', 'PodDisruptionBudget', name, 'shop', {
      spec: { selector, maxUnavailable: 1 },
      status: { disruptionsAllowed: allowed, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 },
    });
  const pods = [
    pod('api-1', 'shop', 'w1', '10.42.1.8', { app: 'api', tier: 'web' }),
    pod('api-2', 'shop', 'w2', '10.42.2.8', { app: 'api', tier: 'web' }),
  ];

  test('ARCH-WI02 names both budgets and says one budget per pod; one budget allowing it is the negative', async () => {
    const two = await run(
      cluster([...servers, ...workers, ...pods, pdb('api', { matchLabels: { app: 'api' } }), pdb('web', { matchLabels: { tier: 'web' } })]),
      ['w1'],
    );
    const wi02 = codes(two, 'ARCH-WI02');
    expect(wi02).toHaveLength(1);
    expect(wi02[0]!.title).toBe('`kubectl drain` cannot evict pod shop/api-1: PodDisruptionBudgets api and web both select it');
    expect(wi02[0]!.message).toContain(`answers 500 "${MULTIPLE_BUDGETS}"`);
    expect(wi02[0]!.objects.map((o) => `${o.kind} ${o.name}`)).toEqual(['PodDisruptionBudget api', 'PodDisruptionBudget web', 'Pod api-1']);
    expect(String(wi02[0]!.fix?.[0])).toMatch(/one budget: .*kubectl -n shop get poddisruptionbudgets api web -o yaml$/);
    expect(two.verdict.state).toBe('not safe');
    const one = await run(cluster([...servers, ...workers, ...pods, pdb('api', { matchLabels: { app: 'api' } })]), ['w1']);
    expect(codes(one, 'ARCH-WI02')).toEqual([]);
  });

  test('a Pending pod, or one already deleting, is evicted without looking at budgets', async () => {
    for (const p of [
      { ...pods[0]!, status: { phase: 'Pending', podIP: '' } },
      { ...pods[0]!, metadata: { ...pods[0]!.metadata, deletionTimestamp: T } },
    ]) {
      const r = await run(
        cluster([...servers, ...workers, p, pods[1]!, pdb('api', {}, 0), pdb('web', { matchLabels: { tier: 'web' } }, 0)]),
        ['w1'],
      );
      expect(codes(r, 'ARCH-WI02')).toEqual([]);
    }
  });
});

describe('a node is matched by its labels: kubernetes.io/hostname is not always its name', () => {
  const fqdn = (name: string, ip: string): KObject =>
    withAddress(node(`${name}.lab.example.com`, { kubelet: K3S, labels: { 'kubernetes.io/hostname': name } }), ip);
  const nodes = [fqdn('w1', '10.0.0.11'), fqdn('w2', '10.0.0.12')];
  const pv = (name: string, terms: unknown[]): KObject =>
    obj('v1', 'PersistentVolume', name, undefined, {
      spec: { storageClassName: 'local-path', nodeAffinity: { required: { nodeSelectorTerms: terms } } },
    });
  const claimed = (pvName: string): KObject[] => [
    obj('v1', 'PersistentVolumeClaim', 'data', 'db', { spec: { volumeName: pvName } }),
    {
      ...pod('db-0', 'db', 'w1.lab.example.com', '10.42.1.9'),
      spec: { nodeName: 'w1.lab.example.com', volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] },
    },
  ];
  const byHost = (h: string) => [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [h] }] }];

  test('a local volume pinned to kubernetes.io/hostname=w1 lives on w1.lab.example.com: ARCH-WI03', async () => {
    const r = await run(cluster([...servers, ...nodes, pv('pv-1', byHost('w1')), ...claimed('pv-1')]), ['w1.lab.example.com']);
    expect(codes(r, 'ARCH-WI03').map((p) => p.title)).toEqual(['Pod db/db-0 cannot move: its volume pv-1 lives on w1.lab.example.com']);
    expect(r.verdict.state).toBe('not safe');
  });

  test('a zone: pinned only when every node of it goes (or the rest take no pod); matchFields pins nothing', async () => {
    const zoned = nodes.map((n) => ({
      ...n,
      metadata: { ...n.metadata, labels: { ...n.metadata.labels, 'topology.kubernetes.io/zone': 'a' } },
    }));
    const zone = [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a'] }] }];
    const s = cluster([...servers, ...zoned, pv('pv-1', zone), ...claimed('pv-1')]);
    expect(codes(await run(s, ['w1.lab.example.com']), 'ARCH-WI03')).toEqual([]);
    expect(codes(await run(s, ['w1.lab.example.com', 'w2.lab.example.com']), 'ARCH-WI03')).toHaveLength(1);
    const cordoned = zoned.map((n) => (n.metadata.name.startsWith('w2') ? { ...n, spec: { ...n.spec, unschedulable: true } } : n));
    const c = await run(cluster([...servers, ...cordoned, pv('pv-1', zone), ...claimed('pv-1')]), ['w1.lab.example.com']);
    expect(codes(c, 'ARCH-WI03')[0]?.message).toMatch(/w2\.lab\.example\.com could too, but it takes no pod now/);
    // upstream matches a volume's nodeAffinity against labels only (CheckNodeAffinity): matchFields pins nothing
    const fields = [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['w1.lab.example.com'] }] }];
    expect(
      codes(await run(cluster([...servers, ...nodes, pv('pv-1', fields), ...claimed('pv-1')]), ['w1.lab.example.com']), 'ARCH-WI03'),
    ).toEqual([]);
  });

  test('the nodes not visible: a volume naming a node going down by host name is still found, and the verdict is not judged', async () => {
    const r = await run(
      cluster(
        [
          ...servers,
          ...workers,
          pv('pv-1', byHost('w1')),
          ...claimed('pv-1').map((o) => (o.kind === 'Pod' ? { ...o, spec: { ...o.spec, nodeName: 'w1' } } : o)),
        ],
        { hide: ['Node'] },
      ),
      ['w1'],
    );
    expect(codes(r, 'ARCH-WI03')).toHaveLength(1);
    expect(r.verdict.state).toBe('not safe');
  });

  test("an API server's identity lease names its host: the server on w1.lab.example.com, labelled w1", async () => {
    const lease = (host: string, renew: string): KObject =>
      obj('coordination.k8s.io/v1', 'Lease', `apiserver-${host}`, 'kube-system', {
        metadata: {
          name: `apiserver-${host}`,
          namespace: 'kube-system',
          labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': host },
        },
        spec: { holderIdentity: `apiserver-${host}_x`, renewTime: renew },
      });
    const cps = [fqdn('c1', '10.0.0.21'), fqdn('c2', '10.0.0.22')].map((n) => ({
      ...n,
      metadata: { ...n.metadata, labels: { ...n.metadata.labels, 'node-role.kubernetes.io/control-plane': '' } },
    }));
    const cm = obj('v1', 'ConfigMap', 'kubeadm-config', 'kube-system', { data: { ClusterConfiguration: 'etcd:\n  local: {}\n' } });
    const s = snapshotOf([...cps, cm, lease('c1', T), lease('c2', '2026-08-13T07:00:00Z')], {
      capturedAt: T,
      serverVersion: 'v1.35.4',
      captured: ALL,
    });
    const r = await whatIf(s, { nodes: ['c1.lab.example.com'], remove: false }, new Date(T), CHECKS);
    const wi07 = codes(r, 'ARCH-WI07');
    expect(wi07.map((p) => p.title)).toEqual([
      expect.stringMatching(/no live API server is left: c1\.lab\.example\.com is the last live one/),
    ]);
    expect(wi07[0]!.message).toMatch(/Not live already: c2\.lab\.example\.com \(identity lease renewed 120 min ago\)/);
  });

  test("a pod's nodeSelector and required node affinity: placed only where they allow (by labels and name), else ARCH-WI04", async () => {
    const withReq = (o: KObject, spec: object): KObject => ({
      ...o,
      spec: { ...o.spec, containers: [{ name: 'c', resources: { requests: { cpu: '100m', memory: '64Mi' } } }], ...spec },
    });
    const alloc = nodes.map((n) => ({ ...n, status: { ...n.status, allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } }));
    const pinnedByLabel = withReq(pod('agent-0', 'ops', 'w1.lab.example.com', '10.42.1.10'), {
      nodeSelector: { 'kubernetes.io/hostname': 'w1' },
    });
    const r = await run(cluster([...alloc, pinnedByLabel]), ['w1.lab.example.com']);
    expect(codes(r, 'ARCH-WI04').map((p) => [p.title, p.message])).toEqual([
      [
        '1 pod would find no node left that its nodeSelector or node affinity allows',
        expect.stringMatching(/^ops\/agent-0 \(nodeSelector kubernetes\.io\/hostname=w1\)\. They stay Pending/),
      ],
    ]);
    // allowed elsewhere: by a label w2 carries, or by its name (matchFields)
    const byName = {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['w2.lab.example.com'] }] }],
          },
        },
      },
    };
    const movable = withReq(pod('agent-0', 'ops', 'w1.lab.example.com', '10.42.1.10'), byName);
    expect(codes(await run(cluster([...alloc, movable]), ['w1.lab.example.com']), 'ARCH-WI04')).toEqual([]);
  });

  test('the matcher: terms ORed, requirements ANDed, NotIn and DoesNotExist match an absent label, Gt/Lt on integers', () => {
    const n = { labels: { 'kubernetes.io/hostname': 'w1', gen: '7' }, name: 'w1.lab.example.com' };
    const m = (terms: unknown[]) => nodeSelectorMatches({ nodeSelectorTerms: terms }, n);
    expect(m([{ matchExpressions: [{ key: 'gen', operator: 'Gt', values: ['6'] }] }])).toBe(true);
    expect(m([{ matchExpressions: [{ key: 'gen', operator: 'Lt', values: ['6'] }] }])).toBe(false);
    expect(m([{ matchExpressions: [{ key: 'gen', operator: 'Gt', values: ['x'] }] }])).toBe(false);
    expect(m([{ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }])).toBe(true);
    expect(m([{ matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }])).toBe(true);
    expect(
      m([
        { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] },
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['w1.lab.example.com'] }] },
      ]),
    ).toBe(true);
    // an empty term, no terms, an unknown operator: nothing
    expect([m([{}]), m([]), m([{ matchExpressions: [{ key: 'gen', operator: 'Near', values: ['7'] }] }])]).toEqual([false, false, false]);
    // matchFields with two values cannot be read: the term matches nothing
    expect(m([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a', 'w1.lab.example.com'] }] }])).toBe(false);
    // a pod's nodeSelector and required affinity see the name too; a volume's affinity sees labels only
    const w1 = nodes[0]!;
    const podOn = (spec: object): KObject => obj('v1', 'Pod', 'p', 'd', { spec });
    expect(podAllowsNode(podOn({ nodeSelector: { 'kubernetes.io/hostname': 'w1' } }), w1)).toBe(true);
    expect(podAllowsNode(podOn({ nodeSelector: { 'kubernetes.io/hostname': 'w1.lab.example.com' } }), w1)).toBe(false);
    const byName = { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['w2.lab.example.com'] }] }] };
    expect(podAllowsNode(podOn({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: byName } } }), w1)).toBe(
      false,
    );
    expect(volumeNodes(obj('v1', 'PersistentVolume', 'v', undefined, { spec: { nodeAffinity: { required: byName } } }), nodes)).toEqual(
      nodes,
    );
    expect(nodeNamer(nodes)('w2')).toBe('w2.lab.example.com');
    expect(nodeNamer(nodes)('w3')).toBe('w3');
  });
});

describe('quorum counts keep unknown apart from down', () => {
  test('two of three K3s servers removed, the third of unknown health: "1 of 3 would remain (its health is not visible)"', async () => {
    const blind = ['s1', 's2', 's3'].map((n) => node(n, { kubelet: 'v1.21.0+k3s1', roles: ['control-plane', 'etcd', 'master'] }));
    const s = cluster([...blind, ...workers]);
    const r = await run(s, ['s1', 's2'], true);
    const eq01 = codes(r, 'ARCH-EQ01')[0]!;
    expect(eq01.title).toMatch(/3 voters, 0 healthy, 2 down, 1 unknown — quorum 2/);
    expect(eq01.message).toContain('1 of 3 voting members would remain (its health is not visible); 2 are needed to write.');
    expect(eq01.message).not.toMatch(/0 of 3 voting members are healthy/);
    // doctor, on the cluster as it is with two servers down: down and unknown are said apart
    const twoDown = blind.map((n, i) =>
      i < 2 ? { ...n, status: { ...n.status, conditions: [{ type: 'Ready', status: 'Unknown' }] } } : n,
    );
    const d = runChecks(CHECKS, cluster([...twoDown, ...workers]), { now: new Date(T) }).find((c) => c.id === 'etcd-quorum')!;
    expect(JSON.stringify(d)).not.toMatch(/0 of 3 voting members are healthy/);
  });
});
