// The cluster as it would be with these nodes down (a reboot, a drain, an outage) or, with --remove, gone for good
// (their etcd members removed too): the same snapshot, changed the way the control plane would change it — the node
// lifecycle controller marks the nodes NotReady and their pods not ready, the endpoints controllers drop those pods
// from their Services, their API servers stop renewing their leases, the aggregator marks an APIService whose
// backends are gone unavailable, and the etcd leader finds their members unhealthy. Every check then runs on it
// unchanged, so each contract check predicts for free. Pure: a snapshot in, a snapshot out.
import { groupOf, gkKey, type KObject } from '../model.js';
import { R } from '../resources.js';
import { Snapshot } from '../snapshot/snapshot.js';

const clone = <T>(o: T): T => JSON.parse(JSON.stringify(o)) as T;
const iso = (t: number): string => new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');

export interface Hypothesis {
  nodes: string[];
  remove: boolean;
}

function setCondition(o: KObject, c: Record<string, unknown>): void {
  o.status ??= {};
  const list: Array<Record<string, unknown>> = Array.isArray(o.status.conditions) ? o.status.conditions : [];
  o.status.conditions = [...list.filter((x) => x?.type !== c.type), c];
}

export function hypothesize(snap: Snapshot, h: Hypothesis, now: Date): Snapshot {
  const down = new Set(h.nodes);
  const t = now.getTime();
  const header = { ...snap.finalHeader(), hypothetical: { nodes: h.nodes, remove: h.remove } };
  const out = new Snapshot(header);
  out.headerless = snap.headerless;
  // pods that go (their node removed) or stop being ready (their node down), by name, for the endpoints below
  const gone = new Set<string>();
  const podKey = (ns: string | undefined, name: string | undefined): string => `${ns ?? ''}/${name ?? ''}`;
  for (const p of snap.of(R.pods)) if (down.has(p.spec?.nodeName)) gone.add(podKey(p.metadata.namespace, p.metadata.name));
  const onDownNode = (nodeName: unknown, ref?: { kind?: string; namespace?: string; name?: string }): boolean =>
    down.has(String(nodeName ?? '')) || (ref?.kind === 'Pod' && gone.has(podKey(ref.namespace, ref.name)));

  // copy on write: an object the hypothesis changes is copied first; every other one is shared (checks only read)
  const lists = new Map<string, { group: string; kind: string; items: KObject[] }>();
  for (const [key, items] of snap.lists()) {
    const first = items[0];
    if (!first) continue;
    lists.set(key, { group: groupOf(first.apiVersion), kind: first.kind ?? '', items });
  }
  const each = (kind: string, group: string, fn: (o: KObject) => KObject | null): void => {
    const l = lists.get(gkKey(group, kind));
    if (l) l.items = l.items.map(fn).filter((x): x is KObject => x !== null);
  };

  each('Node', '', (n) => {
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
    if ((n.status?.conditions ?? []).some((c: { type?: string }) => c?.type === 'EtcdIsVoter'))
      setCondition(n, {
        type: 'EtcdIsVoter',
        status: 'False',
        reason: 'Unhealthy',
        message: 'etcd member is not answering (what-if: its server is down)',
        lastHeartbeatTime: iso(t),
        lastTransitionTime: iso(t),
      });
    n.spec = { ...n.spec, taints: [...(n.spec?.taints ?? []), { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }] };
    return n;
  });
  each('Pod', '', (p) => {
    if (!down.has(p.spec?.nodeName)) return p;
    if (h.remove) return null;
    p = clone(p);
    setCondition(p, { type: 'Ready', status: 'False', reason: 'NodeLost', lastTransitionTime: iso(t) });
    for (const c of Array.isArray(p.status?.containerStatuses) ? p.status.containerStatuses : []) if (c) c.ready = false;
    return p;
  });
  each('Endpoints', '', (e) => {
    const addresses = (x: Record<string, any>): Array<Record<string, any>> => [
      ...(Array.isArray(x?.addresses) ? x.addresses : []),
      ...(Array.isArray(x?.notReadyAddresses) ? x.notReadyAddresses : []),
    ];
    if (!(Array.isArray(e.subsets) ? e.subsets : []).some((x) => addresses(x).some((a) => onDownNode(a?.nodeName, a?.targetRef)))) return e;
    e = clone(e);
    for (const s of Array.isArray(e.subsets) ? e.subsets : []) {
      const addrs: Array<Record<string, any>> = Array.isArray(s?.addresses) ? s.addresses : [];
      const moved = addrs.filter((a) => onDownNode(a?.nodeName, a?.targetRef));
      s.addresses = addrs.filter((a) => !moved.includes(a));
      if (!h.remove) s.notReadyAddresses = [...(Array.isArray(s.notReadyAddresses) ? s.notReadyAddresses : []), ...moved];
      else s.notReadyAddresses = (s.notReadyAddresses ?? []).filter((a: Record<string, any>) => !onDownNode(a?.nodeName, a?.targetRef));
    }
    return e;
  });
  each('EndpointSlice', 'discovery.k8s.io', (e) => {
    const eps: Array<Record<string, any>> = Array.isArray(e.endpoints) ? e.endpoints : [];
    if (!eps.some((x) => onDownNode(x?.nodeName, x?.targetRef))) return e;
    e = { ...e };
    e.endpoints = eps
      .filter((x) => !(h.remove && onDownNode(x?.nodeName, x?.targetRef)))
      .map((x) => (onDownNode(x?.nodeName, x?.targetRef) ? { ...x, conditions: { ...x.conditions, ready: false, serving: false } } : x));
    return e;
  });
  each('Lease', 'coordination.k8s.io', (l) => {
    const host = l.metadata.labels?.['kubernetes.io/hostname'] ?? String(l.spec?.holderIdentity ?? '').split('_')[0];
    if (!down.has(host ?? '')) return l;
    if (h.remove && l.metadata.labels?.['apiserver.kubernetes.io/identity']) return null;
    l = { ...l };
    l.spec = { ...l.spec, renewTime: iso(t - 2 * 3_600_000) };
    return l;
  });
  each('CSINode', 'storage.k8s.io', (c) => (h.remove && down.has(c.metadata.name) ? null : c));
  // the local snapshot files of removed servers go with their disks
  each('ETCDSnapshotFile', 'k3s.cattle.io', (f) =>
    h.remove && down.has(f.spec?.nodeName) && !String(f.spec?.location ?? '').startsWith('s3://') ? null : f,
  );
  // the aggregator finds an APIService whose Service has no ready endpoint left unavailable
  const readyBehind = (ns: string, name: string): boolean => {
    const ep = lists.get('Endpoints')?.items.find((e) => e.metadata.namespace === ns && e.metadata.name === name);
    if (ep) return (ep.subsets ?? []).some((s: { addresses?: unknown[] }) => (s?.addresses ?? []).length > 0);
    const slices = (lists.get('EndpointSlice.discovery.k8s.io')?.items ?? []).filter(
      (e) => e.metadata.namespace === ns && e.metadata.labels?.['kubernetes.io/service-name'] === name,
    );
    return (
      !slices.length ||
      slices.some((s) => (s.endpoints ?? []).some((x: { conditions?: { ready?: boolean } }) => x?.conditions?.ready !== false))
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
