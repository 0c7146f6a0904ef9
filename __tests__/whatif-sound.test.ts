// "Safe" means safe: hiding any one input (as RBAC or a partial capture would) never turns a verdict into "safe" that
// was "not safe" or "not judged" with it — over the what-if corpus (every case, every type it holds), and sampled over
// the checks' corpus and the example (any node, any type).
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { CHECKS } from '../src/checks/registry.js';
import { evidenceTime } from '../src/checks/run.js';
import { R } from '../src/resources.js';
import { loadSnapshot } from '../src/snapshot/load.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { whatIf } from '../src/whatif/predict.js';
import type { KObject } from '../src/model.js';
import { arr } from '../src/whatif/cluster.js';
import { EXAMPLE } from './helpers/fixtures.js';
import { ROOT } from './helpers/run.js';
import { SEED } from './helpers/seed.js';

/** The snapshot as a user without access to one type would have it (403, as RBAC answers). */
function without(snap: Snapshot, type: string): Snapshot {
  const out = new Snapshot({ ...snap.finalHeader(), captured: [], unavailable: [] });
  out.headerless = snap.headerless;
  for (const [key, items] of snap.lists()) if (key !== type) out.addList(groupOfKey(key), kindOfKey(key), items);
  for (const k of snap.kinds()) if (k !== type && !snap.lists().some(([x]) => x === k)) out.addList(groupOfKey(k), kindOfKey(k), []);
  for (const u of snap.unavailable()) out.markUnavailable(u);
  out.markUnavailable({
    group: groupOfKey(type),
    kind: kindOfKey(type),
    resource: kindOfKey(type).toLowerCase(),
    status: 403,
    reason: 'forbidden (test)',
  });
  return out;
}
const groupOfKey = (k: string): string => (k.includes('.') ? k.slice(k.indexOf('.') + 1) : '');
const kindOfKey = (k: string): string => k.split('.')[0]!;

const verdict = async (snap: Snapshot, nodes: string[], remove: boolean): Promise<string> =>
  (await whatIf(snap, { nodes, remove }, evidenceTime(snap), CHECKS)).verdict.state;

const CASES: Array<{ name: string; dir: string; nodes: string[]; remove: boolean }> = [];
const UNITS = join(ROOT, 'src/whatif/predictions');
for (const u of readdirSync(UNITS))
  if (existsSync(join(UNITS, u, 'cases')))
    for (const c of readdirSync(join(UNITS, u, 'cases'))) {
      const e = load(readFileSync(join(UNITS, u, 'cases', c, 'expected.yaml'), 'utf8')) as { nodes: string[]; remove?: boolean };
      CASES.push({ name: c, dir: join(UNITS, u, 'cases', c), nodes: e.nodes, remove: Boolean(e.remove) });
    }

describe('hiding one input never makes a verdict "safe" (the what-if corpus, every type)', () => {
  test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const snap = loadSnapshot(join(c.dir, 'snapshot.yaml'));
    const full = await verdict(snap, c.nodes, c.remove);
    for (const t of snap.kinds()) {
      const v = await verdict(without(snap, t), c.nodes, c.remove);
      if (full !== 'safe') expect([t, v]).not.toEqual([t, 'safe']);
    }
  });
});

describe(`hiding one input never makes a verdict "safe" (the checks' corpus and the example, sampled) [seed ${SEED}]`, () => {
  const dirs = [
    EXAMPLE,
    ...readdirSync(join(ROOT, 'src/checks')).flatMap((c) =>
      existsSync(join(ROOT, 'src/checks', c, 'cases'))
        ? readdirSync(join(ROOT, 'src/checks', c, 'cases')).map((x) => join(ROOT, 'src/checks', c, 'cases', x, 'snapshot.yaml'))
        : [],
    ),
  ];
  // snapshots with nodes to take down (the others have nothing to predict)
  const snaps = dirs.map((d) => loadSnapshot(d)).filter((s) => s.of(R.nodes).length > 0 && s.kinds().length > 1);
  test('any snapshot, any node, removed or down, any one type hidden', async () => {
    expect(snaps.length).toBeGreaterThan(20);
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.nat(), fc.nat(), fc.boolean(), async (k, i, j, remove) => {
        const snap = snaps[k % snaps.length]!;
        const nodes = snap.of(R.nodes).map((n) => n.metadata.name);
        const types = snap.kinds();
        const node = nodes[i % nodes.length]!;
        const t = types[j % types.length]!;
        const full = await verdict(snap, [node], remove);
        if (full === 'safe') return;
        expect([node, t, await verdict(without(snap, t), [node], remove)]).not.toEqual([node, t, 'safe']);
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});

// #44: three shapes real clusters have, generated over the same snapshots. Each generator rewrites a snapshot the way
// such a cluster is written, and the verdict must hold: hand-written Endpoints (a Service's selector gone, its
// addresses by IP alone — a pod's IP or its node's own address) never turn "not safe" into "safe" and keep the door's
// predictions; two budgets over a pod on the node make the drain not safe, naming both; a node whose name differs from
// its kubernetes.io/hostname label (cloud providers, --hostname-override) gets the same verdict and predictions.
// The cases each generator applies to are listed first (deterministically), so no property passes for want of one.
const clone = <T>(o: T): T => JSON.parse(JSON.stringify(o)) as T;
const rebuilt = (snap: Snapshot, edit: (o: KObject) => KObject | null, extra: KObject[] = []): Snapshot => {
  const out = new Snapshot(snap.finalHeader());
  out.headerless = snap.headerless;
  for (const k of snap.kinds()) out.addList(groupOfKey(k), kindOfKey(k), []);
  for (const [key, items] of snap.lists())
    out.addList(
      groupOfKey(key),
      kindOfKey(key),
      items.map((o) => edit(clone(o))).filter((o): o is KObject => o !== null),
    );
  for (const o of extra) out.addObject(o);
  for (const u of snap.unavailable()) out.markUnavailable(u);
  return out;
};
const full = async (snap: Snapshot, nodes: string[], remove: boolean) => whatIf(snap, { nodes, remove }, evidenceTime(snap), CHECKS);
const podKey = (ns: unknown, name: unknown): string => `${String(ns ?? '')}/${String(name ?? '')}`;

describe(`#44 shapes over the corpus: hand-written Endpoints, overlapping budgets, host names that are not node names [seed ${SEED}]`, () => {
  const dirs = [
    EXAMPLE,
    ...CASES.map((c) => join(c.dir, 'snapshot.yaml')),
    ...readdirSync(join(ROOT, 'src/checks')).flatMap((c) =>
      existsSync(join(ROOT, 'src/checks', c, 'cases'))
        ? readdirSync(join(ROOT, 'src/checks', c, 'cases')).map((x) => join(ROOT, 'src/checks', c, 'cases', x, 'snapshot.yaml'))
        : [],
    ),
  ];
  const snaps = dirs.map((d) => loadSnapshot(d)).filter((s) => s.of(R.nodes).length > 0);

  /** Services with a selector whose endpoints name a pod on the node: what the controllers keep, to be written by hand. */
  const kept = (snap: Snapshot, node: string): string[] => {
    const podNode = new Map(snap.of(R.pods).map((p) => [podKey(p.metadata.namespace, p.metadata.name), p.spec?.nodeName] as const));
    const onNode = (a: Record<string, any>): boolean =>
      a?.nodeName === node || (a?.targetRef?.kind === 'Pod' && podNode.get(podKey(a.targetRef.namespace, a.targetRef.name)) === node);
    const selected = new Set(
      snap
        .of(R.services)
        .filter((s) => s.spec?.selector && Object.keys(s.spec.selector).length)
        .map((s) => podKey(s.metadata.namespace, s.metadata.name)),
    );
    const out = new Set<string>();
    for (const e of snap.of(R.endpoints))
      if (selected.has(podKey(e.metadata.namespace, e.metadata.name)) && arr(e.subsets).some((s) => arr(s?.addresses).some(onNode)))
        out.add(podKey(e.metadata.namespace, e.metadata.name));
    for (const e of snap.of(R.endpointslices)) {
      const k = podKey(e.metadata.namespace, e.metadata.labels?.['kubernetes.io/service-name']);
      if (selected.has(k) && arr(e.endpoints).some(onNode)) out.add(k);
    }
    return [...out];
  };

  /** The snapshot with these Services' endpoints written by hand: no selector, each address by IP alone — its pod's IP
   *  or its node's own InternalIP (`byNode`) — given to the pod or node where it had none; plus an address nothing
   *  visible has (`stranger`). */
  const byHand = (snap: Snapshot, services: Set<string>, byNode: (i: number) => boolean, stranger: boolean): Snapshot => {
    const pods = new Map(snap.of(R.pods).map((p) => [podKey(p.metadata.namespace, p.metadata.name), p] as const));
    const nodeIp = new Map<string, string>();
    const podIp = new Map<string, string>();
    let n = 0;
    const fresh = (): string => `10.251.${Math.floor(++n / 250)}.${(n % 250) + 1}`;
    snap.of(R.nodes).forEach((x) => {
      const ip = arr(x.status?.addresses).find((a) => a?.type === 'InternalIP')?.address;
      nodeIp.set(x.metadata.name, ip ?? fresh());
    });
    let i = 0;
    const rewrite = (a: Record<string, any>, ip: string | undefined): Record<string, any> => {
      const pod = a?.targetRef?.kind === 'Pod' ? pods.get(podKey(a.targetRef.namespace, a.targetRef.name)) : undefined;
      const node = String(a?.nodeName ?? pod?.spec?.nodeName ?? '');
      if (node && byNode(i++)) return { ip: nodeIp.get(node) ?? fresh() };
      if (pod) {
        const k = podKey(pod.metadata.namespace, pod.metadata.name);
        if (!podIp.has(k)) podIp.set(k, pod.status?.podIP || ip || fresh());
        return { ip: podIp.get(k) };
      }
      return { ip: ip ?? fresh() };
    };
    const out = rebuilt(snap, (o) => {
      const k = podKey(
        o.metadata.namespace,
        o.kind === 'EndpointSlice' ? o.metadata.labels?.['kubernetes.io/service-name'] : o.metadata.name,
      );
      if (o.kind === 'Service' && services.has(k)) delete o.spec.selector;
      if (o.kind === 'Endpoints' && services.has(k)) {
        delete o.metadata.labels?.['endpoints.kubernetes.io/managed-by'];
        delete o.metadata.annotations?.['endpoints.kubernetes.io/last-change-trigger-time'];
        for (const s of arr(o.subsets)) {
          if (s.addresses) s.addresses = arr(s.addresses).map((a) => rewrite(a, a?.ip));
          if (s.notReadyAddresses) s.notReadyAddresses = arr(s.notReadyAddresses).map((a) => rewrite(a, a?.ip));
        }
        if (stranger) o.subsets = [...arr(o.subsets), { addresses: [{ ip: '192.0.2.77' }], ports: arr(o.subsets)[0]?.ports ?? [] }];
      }
      if (o.kind === 'EndpointSlice' && services.has(k)) {
        o.metadata.labels = { ...o.metadata.labels, 'endpointslice.kubernetes.io/managed-by': 'endpointslicemirroring-controller.k8s.io' };
        o.endpoints = arr(o.endpoints).map((e) => ({ addresses: [rewrite(e, arr(e?.addresses)[0]).ip], conditions: e?.conditions }));
        if (stranger) o.endpoints = [...o.endpoints, { addresses: ['192.0.2.77'], conditions: { ready: true } }];
      }
      return o;
    });
    // the pods now have the IPs their addresses name
    for (const p of out.of(R.pods)) {
      const ip = podIp.get(podKey(p.metadata.namespace, p.metadata.name));
      if (ip) p.status = { ...p.status, podIP: ip, podIPs: [{ ip }] };
    }
    for (const x of out.of(R.nodes))
      if (!arr(x.status?.addresses).some((a) => a?.type === 'InternalIP'))
        x.status = { ...x.status, addresses: [...arr(x.status?.addresses), { type: 'InternalIP', address: nodeIp.get(x.metadata.name) }] };
    return out;
  };

  test('hand-written Endpoints: never "safe" where the controllers\' were not, and the door is predicted the same', async () => {
    const cases = snaps.flatMap((s) =>
      s
        .of(R.nodes)
        .map((n) => ({ s, node: n.metadata.name, services: kept(s, n.metadata.name) }))
        .filter((c) => c.services.length),
    );
    expect(cases.length).toBeGreaterThanOrEqual(15);
    const door = (r: Awaited<ReturnType<typeof full>>): string[] =>
      r.predictions.filter((p) => ['ARCH-WH01', 'ARCH-API01', 'ARCH-WI06'].includes(p.code)).map((p) => `${p.code} ${p.objects[0]?.name}`);
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.nat(), fc.boolean(), fc.boolean(), async (k, mask, remove, stranger) => {
        const c = cases[k % cases.length]!;
        const before = await full(c.s, [c.node], remove);
        const after = await full(
          byHand(c.s, new Set(c.services), (i) => ((mask >> (i % 30)) & 1) === 1, stranger),
          [c.node],
          remove,
        );

        if (before.verdict.state !== 'safe') expect([c.node, after.verdict.state]).not.toEqual([c.node, 'safe']);
        if (!stranger) expect([c.node, door(after).sort()]).toEqual([c.node, expect.arrayContaining(door(before))]);
      }),
      { numRuns: 60 },
    );
  }, 300_000);

  test('two budgets over one pod on the node: ARCH-WI02 names both, never "safe"', async () => {
    const cases = snaps.flatMap((s) =>
      s
        .of(R.pods)
        .filter(
          (p) =>
            p.spec?.nodeName &&
            p.status?.phase === 'Running' &&
            !p.metadata.deletionTimestamp &&
            !p.metadata.annotations?.['kubernetes.io/config.mirror'] &&
            !arr(p.metadata.ownerReferences).some((o) => ['DaemonSet', 'Node'].includes(o?.kind)),
        )
        .map((p) => ({ s, pod: p })),
    );
    expect(cases.length).toBeGreaterThan(50);
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.nat(), async (k, allowed) => {
        const { s, pod } = cases[k % cases.length]!;
        const ns = String(pod.metadata.namespace);
        const budget = (name: string, selector: unknown): KObject => ({
          apiVersion: 'policy/v1',
          kind: 'PodDisruptionBudget',
          metadata: { name, namespace: ns },
          spec: { selector, maxUnavailable: '100%' },
          status: { disruptionsAllowed: 1 + (allowed % 50), currentHealthy: 3, desiredHealthy: 0, expectedPods: 3 },
        });
        const snap = rebuilt(
          s,
          (o) => {
            if (o.kind === 'Pod' && o.metadata.namespace === ns && o.metadata.name === pod.metadata.name)
              o.metadata.labels = { ...o.metadata.labels, 'example.com/overlap': 'yes' };
            return o;
          },
          [
            budget('overlap-a', { matchLabels: { 'example.com/overlap': 'yes' } }),
            budget('overlap-b', { matchExpressions: [{ key: 'example.com/overlap', operator: 'Exists' }] }),
          ],
        );
        const r = await full(snap, [String(pod.spec.nodeName)], false);
        const wi02 = r.predictions.filter(
          (p) => p.code === 'ARCH-WI02' && p.objects.some((o) => o.kind === 'Pod' && o.name === pod.metadata.name && o.namespace === ns),
        );
        expect([pod.metadata.name, wi02.map((p) => p.objects.filter((o) => o.kind === 'PodDisruptionBudget').map((o) => o.name))]).toEqual([
          pod.metadata.name,
          [expect.arrayContaining(['overlap-a', 'overlap-b'])],
        ]);
        expect(r.verdict.state).not.toBe('safe');
      }),
      { numRuns: 60 },
    );
  }, 300_000);

  test('a node whose name is not its kubernetes.io/hostname: the same verdict and predictions as with its host name', async () => {
    const cases = snaps.flatMap((s) => s.of(R.nodes).map((n) => ({ s, node: n.metadata.name })));
    expect(cases.length).toBeGreaterThan(100);
    /** The snapshot with `node` named `fqdn` wherever a node's name is written, its labels (hostname) unchanged. */
    const renamed = (snap: Snapshot, node: string, fqdn: string): Snapshot =>
      rebuilt(snap, (o) => {
        const swap = (v: unknown): unknown => (v === node ? fqdn : v);
        if (o.kind === 'Node' && o.metadata.name === node) {
          o.metadata.name = fqdn;
          o.metadata.labels = { 'kubernetes.io/hostname': node, ...o.metadata.labels };
        }
        if (o.kind === 'CSINode' && o.metadata.name === node) o.metadata.name = fqdn;
        if (o.kind === 'Lease' && o.metadata.namespace === 'kube-node-lease' && o.metadata.name === node) {
          o.metadata.name = fqdn;
          if (o.spec) o.spec.holderIdentity = swap(o.spec.holderIdentity);
        }
        if (o.kind === 'Pod' && o.spec) o.spec.nodeName = swap(o.spec.nodeName);
        if (o.kind === 'ETCDSnapshotFile' && o.spec) o.spec.nodeName = swap(o.spec.nodeName);
        for (const r of arr(o.metadata.ownerReferences)) if (r?.kind === 'Node') r.name = swap(r.name);
        if (o.kind === 'Event' && o.involvedObject?.kind === 'Node') o.involvedObject.name = swap(o.involvedObject.name);
        if (o.kind === 'Endpoints')
          for (const s of arr(o.subsets))
            for (const a of [...arr(s?.addresses), ...arr(s?.notReadyAddresses)]) if (a) a.nodeName = swap(a.nodeName);
        if (o.kind === 'EndpointSlice') for (const e of arr(o.endpoints)) if (e?.nodeName) e.nodeName = swap(e.nodeName);
        return o;
      });
    const said = (r: Awaited<ReturnType<typeof full>>): string[] => r.predictions.map((p) => `${p.code} ${p.severity}`).sort();
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.boolean(), async (k, remove) => {
        const { s, node } = cases[k % cases.length]!;
        const fqdn = `${node}.lab.example.com`;
        const before = await full(s, [node], remove);
        const after = await full(renamed(s, node, fqdn), [fqdn], remove);
        expect([node, after.verdict.state, said(after)]).toEqual([node, before.verdict.state, said(before)]);
      }),
      { numRuns: 60 },
    );
  }, 300_000);
});
