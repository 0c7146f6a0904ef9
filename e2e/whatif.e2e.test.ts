// what-if against reality: a kubeadm cluster in a real kube-apiserver with kube-controller-manager running the node
// lifecycle controller next to the endpoints controllers. The test posts the node heartbeats (Leases in
// kube-node-lease) a kubelet would; what-if predicts for worker w-2, then w-2's heartbeats stop — the way an outage
// looks to the control plane: the node lifecycle controller marks it NotReady and its pods not ready, the endpoints
// controllers drop them. What appeared in doctor must be what what-if predicted, and nothing it predicted may fail
// to appear.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { startControlPlane, type ControlPlane } from './lib/cluster.mjs';
import { heartbeats, NODE_LIFECYCLE, ready } from './lib/nodes.js';
import { controlPlaneBinaries, type Report, until as untilDone } from './lib/setup.js';
import { loadScenario } from './lib/load.mjs';
import { grantReaders } from './lib/readers.mjs';
import { build, CAPTURED, type Scenario } from '../scenarios/index.js';
import { kubectl } from '../__tests__/helpers/run.js';
import { worstRank, type Severity } from '../src/model.js';

const bins = controlPlaneBinaries();
const NODES = ['cp-1', 'cp-2', 'cp-3', 'w-1', 'w-2'];
const DOWN = 'w-2';

interface Obj {
  kind: string;
  namespace?: string;
  name: string;
}
interface Prediction {
  code: string;
  from: string;
  severity: string;
  objects: Obj[];
}
const key = (code: string, objects: Obj[]): string =>
  `${code} ${objects
    .map((o) => `${o.kind}/${o.namespace ?? ''}/${o.name}`)
    .sort()
    .join(', ')}`;
type MapJson = { sections: Array<{ lines: Array<{ name: string; checks: Array<{ status: string; worst?: Severity }> }> }> };
/** Each part of the map (by name) with the rank of its worst finding (-1: none), as worstRank ranks findings. */
const partRanks = (m: MapJson): Map<string, number> =>
  new Map(
    m.sections.flatMap((s) =>
      s.lines.map(
        (l) => [l.name, worstRank(l.checks.filter((c) => c.status === 'findings').map((c) => ({ severity: c.worst ?? 'info' })))] as const,
      ),
    ),
  );
const findingKeys = (r: Report): string[] => r.checks.flatMap((c) => c.findings.map((f) => key(f.code, f.objects as Obj[]))).sort();

/** On top of the kubeadm base (coredns on w-1 and w-2): one app only on w-2, one spread, a fail-closed webhook on w-2. */
const scenario = (caBundle: string): Scenario => ({
  name: 'what-if-reality',
  summary: 'a worker with a single-replica app and the only backend of a fail-closed webhook',
  base: 'kubeadm',
  build(c) {
    c.deployment('shop', 'default', 1, { app: 'shop' }, { nodes: [DOWN] });
    c.service('shop', 'default', { app: 'shop' }, '10.96.20.1');
    c.deployment('web', 'default', 2, { app: 'web' }, { nodes: ['w-1', DOWN] });
    c.service('web', 'default', { app: 'web' }, '10.96.20.2');
    c.deployment('policy-webhook', 'default', 1, { app: 'policy-webhook' }, { nodes: [DOWN] });
    c.service('policy-webhook', 'default', { app: 'policy-webhook' }, '10.96.20.3', {
      ports: [{ name: 'https', port: 443, protocol: 'TCP' }],
    });
    c.add({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: c.meta('policy-webhook'),
      webhooks: [
        {
          name: 'validate.policy.example.com',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          clientConfig: { service: { namespace: 'default', name: 'policy-webhook', path: '/validate', port: 443 }, caBundle },
          // a group nothing here writes: the webhook is in the door, and the test's own writes stay out of it
          rules: [{ apiGroups: ['policy.example.com'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['widgets'] }],
        },
      ],
    });
    for (const n of NODES)
      c.add({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: c.meta(n, 'kube-node-lease'),
        spec: { holderIdentity: n, leaseDurationSeconds: 40, renewTime: c.ago(1000).replace('Z', '.000000Z') },
      });
  },
  expect: { findings: [] },
});

describe('what-if against the real control plane: a worker whose heartbeats stop', () => {
  let cp: ControlPlane;
  const beating = new Set(NODES);
  let beats: { stop(): void } | undefined;
  const until = <T>(what: string, probe: () => Promise<T | undefined>, boundMs?: number): Promise<T> => untilDone(cp, what, probe, boundMs);
  const run = async (args: string[]): Promise<{ code: number; json: any }> => {
    const r = await kubectl(['arch', ...args, '--kubeconfig', cp.kubeconfig, '--context', 'reader', '-o', 'json']);
    if (r.code > 1) throw new Error(`kubectl arch ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return { code: r.code, json: JSON.parse(r.stdout) };
  };

  beforeAll(async () => {
    cp = await startControlPlane({
      apiserver: bins.apiserver,
      controllerManager: bins.controllerManager,
      ...NODE_LIFECYCLE,
    });
    await grantReaders(cp);
    beats = heartbeats(cp, beating);
    const caBundle = Buffer.from(readFileSync(cp.caFile)).toString('base64');
    const { objects } = build([scenario(caBundle)]);
    await loadScenario(cp, objects, { referenceTime: CAPTURED });
    // every node is seen alive by the controller before anything is predicted
    await until('every node Ready', async () => {
      const nodes = (await cp.admin('GET', '/api/v1/nodes')).json.items;
      return nodes.length === NODES.length && nodes.every((n: any) => ready(n) === 'True') ? true : undefined;
    });
  }, 600_000);
  afterAll(async () => {
    beats?.stop();
    await cp?.stop();
  });

  test('what appeared in doctor after w-2 went down is what what-if predicted, and all of it appeared', async () => {
    const before = await run(['doctor']);
    const mapBefore = partRanks((await run(['map'])).json);
    const predicted = await run(['what-if', DOWN]);
    // the same prediction drawn: the parts of the map marked "would break"
    const page = await kubectl(['arch', 'what-if', DOWN, '--kubeconfig', cp.kubeconfig, '--context', 'reader', '-o', 'html']);
    expect([page.code, page.stderr]).toEqual([1, '']);
    const marked = [...page.stdout.matchAll(/<button[^>]*class="part[^"]*\bpredicted\b[^"]*"[^>]*>.*?<span class="name">([^<]*)<\/span>/g)]
      .map((m) => m[1]!)
      .sort();
    const predictions = predicted.json.predictions as Prediction[];
    // the prediction, written down before the outage: the webhook's only backend and half of DNS are on w-2
    expect(predictions.map((p) => `${p.code} ${p.from}`)).toEqual(
      expect.arrayContaining(['ARCH-WH01 admission-webhooks', 'ARCH-DNS02 cluster-dns', 'ARCH-WI01 what-if']),
    );
    expect(predicted.code).toBe(1);

    // the outage: w-2's kubelet stops posting heartbeats
    beating.delete(DOWN);
    await until('w-2 NotReady and its pods not ready', async () => {
      const node = (await cp.admin('GET', `/api/v1/nodes/${DOWN}`)).json;
      const pods = (await cp.admin('GET', `/api/v1/pods?fieldSelector=spec.nodeName%3D${DOWN}`)).json.items;
      return ready(node) !== 'True' && pods.length && pods.every((p: any) => ready(p) === 'False') ? true : undefined;
    });
    await until('the endpoints controllers dropped them', async () => {
      const ep = (await cp.admin('GET', '/api/v1/namespaces/default/endpoints/policy-webhook')).json;
      const dns = (await cp.admin('GET', '/api/v1/namespaces/kube-system/endpoints/kube-dns')).json;
      const readyAddrs = (e: any): number => (e.subsets ?? []).reduce((a: number, s: any) => a + (s.addresses ?? []).length, 0);
      return readyAddrs(ep) === 0 && readyAddrs(dns) === 1 ? true : undefined;
    });
    const node = (await cp.admin('GET', `/api/v1/nodes/${DOWN}`)).json;
    // what the node lifecycle controller wrote, as the hypothesis writes it
    expect(node.spec.taints).toEqual(expect.arrayContaining([expect.objectContaining({ key: 'node.kubernetes.io/unreachable' })]));
    expect(node.status.conditions.find((c: any) => c.type === 'Ready')).toMatchObject({ status: 'Unknown', reason: 'NodeStatusUnknown' });

    const after = await run(['doctor']);
    const was = new Set(findingKeys(before.json));
    const appeared = findingKeys(after.json).filter((k) => !was.has(k));
    const fromChecks = predictions.filter((p) => p.from !== 'what-if').map((p) => key(p.code, p.objects));
    expect(appeared).toEqual([...fromChecks].sort());
    expect(after.code).toBe(1);
    // and on the map: the parts that got worse are the parts the what-if page marked
    const mapAfter = partRanks((await run(['map'])).json);
    const worse = [...mapAfter].filter(([name, r]) => r > (mapBefore.get(name) ?? -1)).map(([name]) => name);
    expect(marked.length).toBeGreaterThan(0);
    expect(marked).toEqual(worse.sort());

    // what-if's own predictions are about things doctor does not judge: held to the objects themselves
    for (const p of predictions.filter((x) => x.code === 'ARCH-WI01')) {
      const d = p.objects[0]!;
      const pods = (await cp.admin('GET', `/api/v1/namespaces/${d.namespace}/pods?labelSelector=app%3D${d.name}`)).json.items;
      expect([d.name, pods.filter((x: any) => ready(x) === 'True').length]).toEqual([d.name, 0]);
    }
    // and what it did not predict did not happen: web keeps a ready pod on w-1
    expect(predictions.some((p) => p.objects.some((o) => o.name === 'web'))).toBe(false);
    const web = (await cp.admin('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).json.items;
    expect(web.filter((x: any) => ready(x) === 'True').map((x: any) => x.spec.nodeName)).toEqual(['w-1']);
  });
});
