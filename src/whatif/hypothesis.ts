// The cluster as it would be with these nodes down (a reboot, a drain, an outage) or, with --remove, gone for good
// (their etcd members removed too): the same snapshot, changed the way the control plane would change it — the node
// lifecycle controller marks the nodes NotReady and their pods not ready, the endpoints controllers drop those pods
// from their Services, their API servers stop renewing their leases, the aggregator marks an APIService whose
// backends are gone unavailable, and the etcd leader finds their members unhealthy. Every check then runs on it
// unchanged, so each contract check predicts for free. Pure: a snapshot in, a snapshot out.
import { groupOf, gkKey, type KObject } from '../model.js';
import { R } from '../resources.js';
import { arr } from './cluster.js';
import { Snapshot } from '../snapshot/snapshot.js';

const clone = <T>(o: T): T => JSON.parse(JSON.stringify(o)) as T;
const iso = (t: number): string => new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The types the hypothesis changes (Kind or Kind.group): a check that reads none of them predicts nothing. */
export const CHANGED_TYPES = new Set([
  'Node',
  'Pod',
  'Endpoints',
  'EndpointSlice.discovery.k8s.io',
  'Lease.coordination.k8s.io',
  'CSINode.storage.k8s.io',
  'ETCDSnapshotFile.k3s.cattle.io',
  'APIService.apiregistration.k8s.io',
]);

export interface Hypothesis {
  nodes: string[];
  remove: boolean;
}

function setCondition(o: KObject, c: Record<string, unknown>): void {
  o.status ??= {};
  const list: Array<Record<string, unknown>> = arr(o.status.conditions);
  o.status.conditions = [...list.filter((x) => x?.type !== c.type), c];
}

/** Which nodes an object touches (a superset: the change itself decides). */
type Touches = (o: KObject, podNode: Map<string, string>) => string[];
const podKey = (ns: string | undefined, name: string | undefined): string => `${ns ?? ''}/${name ?? ''}`;
const byName: Touches = (o) => [o.metadata.name];
const podTouches: Touches = (p) => [String(p.spec?.nodeName ?? '')];
const address = (a: Record<string, any>, podNode: Map<string, string>): string[] => [
  String(a?.nodeName ?? ''),
  ...(a?.targetRef?.kind === 'Pod' ? [podNode.get(podKey(a.targetRef.namespace, a.targetRef.name)) ?? ''] : []),
];
const endpointsTouches: Touches = (e, podNode) =>
  arr(e.subsets).flatMap((s) => [...arr(s?.addresses), ...arr(s?.notReadyAddresses)].flatMap((a) => address(a, podNode)));
const sliceTouches: Touches = (e, podNode) => arr(e.endpoints).flatMap((x) => address(x, podNode));
const leaseTouches: Touches = (l) => [
  l.metadata.labels?.['kubernetes.io/hostname'] ?? String(l.spec?.holderIdentity ?? '').split('_')[0] ?? '',
];

/** A list's objects by the nodes they touch, per list (by identity, with its length: lists only grow) and the way
 *  it is asked. */
const indexes = new WeakMap<KObject[], Map<Touches, { length: number; idx: Map<string, number[]> }>>();
function indexOf(items: KObject[], touches: Touches, podNode: Map<string, string>): Map<string, number[]> {
  const byTouch = indexes.get(items) ?? new Map<Touches, { length: number; idx: Map<string, number[]> }>();
  indexes.set(items, byTouch);
  const had = byTouch.get(touches);
  if (had && had.length === items.length) return had.idx;
  const idx = new Map<string, number[]>();
  items.forEach((o, i) => {
    for (const n of new Set(touches(o, podNode))) {
      if (!n) continue;
      const l = idx.get(n);
      if (l) l.push(i);
      else idx.set(n, [i]);
    }
  });
  byTouch.set(touches, { length: items.length, idx });
  return idx;
}

/** Each pod's node, by namespace/name, once per list of pods (with its length: lists only grow). */
const podNodes = new WeakMap<KObject[], { length: number; map: Map<string, string> }>();
function nodeOfPod(snap: Snapshot): Map<string, string> {
  const pods = snap.of(R.pods);
  const had = podNodes.get(pods);
  if (had && had.length === pods.length) return had.map;
  const map = new Map(pods.map((p) => [podKey(p.metadata.namespace, p.metadata.name), String(p.spec?.nodeName ?? '')] as const));
  podNodes.set(pods, { length: pods.length, map });
  return map;
}

export function hypothesize(snap: Snapshot, h: Hypothesis, now: Date): Snapshot {
  const down = new Set(h.nodes);
  const t = now.getTime();
  const header = { ...snap.finalHeader(), hypothetical: { nodes: h.nodes, remove: h.remove } };
  const out = new Snapshot(header);
  out.headerless = snap.headerless;
  // pods that go (their node removed) or stop being ready (their node down), by name, for the endpoints below
  const onDownNode = (nodeName: unknown, ref?: { kind?: string; namespace?: string; name?: string }): boolean =>
    down.has(String(nodeName ?? '')) || (ref?.kind === 'Pod' && down.has(podNode.get(podKey(ref.namespace, ref.name)) ?? ''));

  // copy on write: an object the hypothesis changes is copied first; every other one is shared (checks only read)
  const lists = new Map<string, { group: string; kind: string; items: KObject[] }>();
  for (const [key, items] of snap.lists()) {
    const first = items[0];
    if (!first) continue;
    lists.set(key, { group: groupOf(first.apiVersion), kind: first.kind ?? '', items });
  }
  // only the objects that touch a node going down are looked at: an index per list, built once and shared by every
  // hypothesis on this snapshot (one at a time over 100 nodes does not walk 40,000 pods 100 times)
  const podNode = nodeOfPod(snap);
  const each = (kind: string, group: string, fn: (o: KObject) => KObject | null, touches?: Touches): void => {
    const l = lists.get(gkKey(group, kind));
    if (!l) return;
    if (!touches) {
      l.items = l.items.map(fn).filter((x): x is KObject => x !== null);
      return;
    }
    const idx = indexOf(l.items, touches, podNode);
    const at = [...new Set(h.nodes.flatMap((n) => idx.get(n) ?? []))];
    if (!at.length) return;
    const items = [...l.items];
    for (const i of at) items[i] = fn(items[i]!) as KObject;
    l.items = items.filter((x) => x !== null);
  };

  each(
    'Node',
    '',
    (n) => {
      if (!down.has(n.metadata.name)) return n;
      if (h.remove) return null; // K3s/RKE2 remove a server's etcd member when its node is deleted
      n = clone(n);
      setCondition(n, {
        type: 'Ready',
        status: 'Unknown',
        reason: 'NodeStatusUnknown',
        message: 'Kubelet stopped posting node status. (what-if)',
        lastHeartbeatTime: iso(t - 60_000),
        lastTransitionTime: iso(t),
      });
      // its k3s/rke2 process is down with it: the etcd leader's next probe finds the member unhealthy
      if (arr(n.status?.conditions).some((c: { type?: string }) => c?.type === 'EtcdIsVoter'))
        setCondition(n, {
          type: 'EtcdIsVoter',
          status: 'False',
          reason: 'Unhealthy',
          message: 'etcd member is not answering (what-if: its server is down)',
          lastHeartbeatTime: iso(t),
          lastTransitionTime: iso(t),
        });
      n.spec = { ...n.spec, taints: [...arr(n.spec?.taints), { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }] };
      return n;
    },
    byName,
  );
  each(
    'Pod',
    '',
    (p) => {
      if (!down.has(p.spec?.nodeName)) return p;
      if (h.remove) return null;
      p = clone(p);
      setCondition(p, { type: 'Ready', status: 'False', reason: 'NodeLost', lastTransitionTime: iso(t) });
      for (const c of arr(p.status?.containerStatuses)) if (c && typeof c === 'object') c.ready = false;
      return p;
    },
    podTouches,
  );
  each(
    'Endpoints',
    '',
    (e) => {
      const addresses = (x: Record<string, any>): Array<Record<string, any>> => [...arr(x?.addresses), ...arr(x?.notReadyAddresses)];
      if (!arr(e.subsets).some((x) => addresses(x).some((a) => onDownNode(a?.nodeName, a?.targetRef)))) return e;
      e = clone(e);
      for (const s of arr(e.subsets)) {
        if (!s || typeof s !== 'object') continue;
        const addrs: Array<Record<string, any>> = arr(s.addresses);
        const moved = addrs.filter((a) => onDownNode(a?.nodeName, a?.targetRef));
        s.addresses = addrs.filter((a) => !moved.includes(a));
        if (!h.remove) s.notReadyAddresses = [...arr(s.notReadyAddresses), ...moved];
        else s.notReadyAddresses = arr(s.notReadyAddresses).filter((a: Record<string, any>) => !onDownNode(a?.nodeName, a?.targetRef));
      }
      return e;
    },
    endpointsTouches,
  );
  each(
    'EndpointSlice',
    'discovery.k8s.io',
    (e) => {
      const eps: Array<Record<string, any>> = arr(e.endpoints);
      if (!eps.some((x) => onDownNode(x?.nodeName, x?.targetRef))) return e;
      e = { ...e };
      e.endpoints = eps
        .filter((x) => !(h.remove && onDownNode(x?.nodeName, x?.targetRef)))
        .map((x) => (onDownNode(x?.nodeName, x?.targetRef) ? { ...x, conditions: { ...x.conditions, ready: false, serving: false } } : x));
      return e;
    },
    sliceTouches,
  );
  each(
    'Lease',
    'coordination.k8s.io',
    (l) => {
      const host = l.metadata.labels?.['kubernetes.io/hostname'] ?? String(l.spec?.holderIdentity ?? '').split('_')[0];
      if (!down.has(host ?? '')) return l;
      if (h.remove && l.metadata.labels?.['apiserver.kubernetes.io/identity']) return null;
      l = { ...l };
      l.spec = { ...l.spec, renewTime: iso(t - 2 * 3_600_000) };
      return l;
    },
    leaseTouches,
  );
  each('CSINode', 'storage.k8s.io', (c) => (h.remove && down.has(c.metadata.name) ? null : c), byName);
  // the local snapshot files of removed servers go with their disks
  each(
    'ETCDSnapshotFile',
    'k3s.cattle.io',
    (f) => (h.remove && down.has(f.spec?.nodeName) && !String(f.spec?.location ?? '').startsWith('s3://') ? null : f),
    (f) => [String(f.spec?.nodeName ?? '')],
  );
  // the aggregator finds an APIService whose Service has no ready endpoint left unavailable
  const readyBehind = (ns: string, name: string): boolean => {
    const ep = lists.get('Endpoints')?.items.find((e) => e.metadata.namespace === ns && e.metadata.name === name);
    if (ep) return arr(ep.subsets).some((s: { addresses?: unknown }) => arr(s?.addresses).length > 0);
    const slices = (lists.get('EndpointSlice.discovery.k8s.io')?.items ?? []).filter(
      (e) => e.metadata.namespace === ns && e.metadata.labels?.['kubernetes.io/service-name'] === name,
    );
    return (
      !slices.length ||
      slices.some((s) => arr(s.endpoints).some((x: { conditions?: { ready?: boolean } }) => x?.conditions?.ready !== false))
    );
  };
  each('APIService', 'apiregistration.k8s.io', (a) => {
    const svc = a.spec?.service;
    if (!svc?.name || readyBehind(svc.namespace, svc.name)) return a;
    a = clone(a);
    setCondition(a, {
      type: 'Available',
      status: 'False',
      reason: 'MissingEndpoints',
      message: `endpoints for service/${svc.name} in "${svc.namespace}" have no addresses (what-if)`,
      lastTransitionTime: iso(t),
    });
    return a;
  });

  for (const l of lists.values()) out.addList(l.group, l.kind, l.items);
  // types listed with no objects stay listed (an empty list is "none exist", not "not captured")
  for (const k of snap.kinds()) if (!lists.has(k)) out.addList(k.includes('.') ? k.slice(k.indexOf('.') + 1) : '', k.split('.')[0]!, []);
  return out;
}
