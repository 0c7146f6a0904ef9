// The cluster as it would be with these nodes down (a reboot, a drain, an outage) or, with --remove, gone for good
// (their etcd members removed too): the same snapshot, changed the way the control plane would change it — the node
// lifecycle controller marks the nodes NotReady and their pods not ready, the endpoints controllers drop those pods
// from their Services, their API servers stop renewing their leases, the aggregator marks an APIService whose
// backends are gone unavailable, and the etcd leader finds their members unhealthy. Every check then runs on it
// unchanged, so each contract check predicts for free. Pure: a snapshot in, a snapshot out.
// Endpoints the controllers keep (a Service with a selector) lose the addresses on those nodes as the controllers
// would drop them; hand-written ones (no selector: an operator's, a webhook served from the host) keep listing them,
// as in a real cluster — nothing rewrites them — and each such address is written with the node that serves it
// (resolved by its pod's or the node's IP), so the checks see that the API server would dial a node that is gone.
import { addressBook, type AddressBook } from '../lib/endpoints.js';
import { HOSTNAME, nodeNamer } from '../lib/nodes.js';
import { groupOf, gkKey, type KObject } from '../model.js';
import { R } from '../resources.js';
import { arr } from '../lib/k8s.js';
import { Snapshot } from '../snapshot/snapshot.js';
import type { UpgradeHypothesis } from './upgrade/version.js';

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
  /** what-if --upgrade: the version the cluster is upgraded to (the rollout's steps are node hypotheses of their own). */
  upgrade?: UpgradeHypothesis;
}

function setCondition(o: KObject, c: Record<string, unknown>): void {
  o.status ??= {};
  const list: Array<Record<string, unknown>> = arr(o.status.conditions);
  o.status.conditions = [...list.filter((x) => x?.type !== c.type), c];
}

/** What the hypothesis looks objects up by, once per snapshot: each pod's node, what serves an endpoint address, the
 *  node a host name names. */
interface Lookup {
  podNode: Map<string, string>;
  book: AddressBook;
  nodeOf: (host: string) => string;
}

/** Which nodes an object touches (a superset: the change itself decides). */
type Touches = (o: KObject, l: Lookup) => string[];
const podKey = (ns: string | undefined, name: string | undefined): string => `${ns ?? ''}/${name ?? ''}`;
const byName: Touches = (o) => [o.metadata.name];
const podTouches: Touches = (p) => [String(p.spec?.nodeName ?? '')];
const address = (a: Record<string, any>, l: Lookup): string[] => {
  const named = [
    String(a?.nodeName ?? ''),
    ...(a?.targetRef?.kind === 'Pod' ? [l.podNode.get(podKey(a.targetRef.namespace, a.targetRef.name)) ?? ''] : []),
  ];
  // written by a controller (its node or pod named): that is what serves it; else by what has its IP
  return named.some(Boolean) ? named : [l.book.serves({ ip: String(a?.ip ?? ''), targetRef: a?.targetRef })?.node ?? ''];
};
const endpointsTouches: Touches = (e, l) =>
  arr(e.subsets).flatMap((s) => [...arr(s?.addresses), ...arr(s?.notReadyAddresses)].flatMap((a) => address(a, l)));
const sliceTouches: Touches = (e, l) =>
  arr(e.endpoints).flatMap((x) => arr<string>(x?.addresses).flatMap((ip) => address({ ...x, ip }, l)));
/** The node a lease is about: an identity lease's host name, a leader's holder identity (host_uuid), a node lease's
 *  holder — by the node that host name names (a node's kubernetes.io/hostname is not always its name). */
const leaseHost = (l: KObject): string => l.metadata.labels?.[HOSTNAME] ?? String(l.spec?.holderIdentity ?? '').split('_')[0] ?? '';
const leaseTouches: Touches = (o, l) => [l.nodeOf(leaseHost(o))];

/** A list's objects by the nodes they touch, per list (by identity, with its length: lists only grow) and the way
 *  it is asked. */
const indexes = new WeakMap<KObject[], Map<Touches, { length: number; idx: Map<string, number[]> }>>();
function indexOf(items: KObject[], touches: Touches, l: Lookup): Map<string, number[]> {
  const byTouch = indexes.get(items) ?? new Map<Touches, { length: number; idx: Map<string, number[]> }>();
  indexes.set(items, byTouch);
  const had = byTouch.get(touches);
  if (had && had.length === items.length) return had.idx;
  const idx = new Map<string, number[]>();
  items.forEach((o, i) => {
    for (const n of new Set(touches(o, l))) {
      if (!n) continue;
      const x = idx.get(n);
      if (x) x.push(i);
      else idx.set(n, [i]);
    }
  });
  byTouch.set(touches, { length: items.length, idx });
  return idx;
}

/** The lookups of a snapshot, once per list of pods and nodes (with their lengths: lists only grow). */
const lookups = new WeakMap<KObject[], { pods: number; nodes: KObject[]; n: number; lookup: Lookup }>();
function lookupOf(snap: Snapshot): Lookup {
  const pods = snap.of(R.pods);
  const nodes = snap.of(R.nodes);
  const had = lookups.get(pods);
  if (had && had.pods === pods.length && had.nodes === nodes && had.n === nodes.length) return had.lookup;
  const lookup: Lookup = {
    podNode: new Map(pods.map((p) => [podKey(p.metadata.namespace, p.metadata.name), String(p.spec?.nodeName ?? '')] as const)),
    book: addressBook(pods, nodes),
    nodeOf: nodeNamer(nodes),
  };
  lookups.set(pods, { pods: pods.length, nodes, n: nodes.length, lookup });
  return lookup;
}

/** Endpoints a controller keeps: those of a Service with a selector (the endpoints controller's label says so too);
 *  with the Services not visible, the controller's own marks. */
function managedEndpoints(e: KObject, services: Map<string, KObject> | null): boolean {
  if (e.metadata.labels?.['endpoints.kubernetes.io/managed-by'] === 'endpoint-controller') return true;
  if (isApiServers(e)) return true;
  const svc = services?.get(podKey(e.metadata.namespace, e.metadata.name));
  if (services) return Boolean(svc?.spec?.selector && Object.keys(svc.spec.selector).length);
  return Boolean(e.metadata.annotations?.['endpoints.kubernetes.io/last-change-trigger-time']);
}
const managedSlice = (e: KObject): boolean =>
  e.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === 'endpointslice-controller.k8s.io' || isApiServers(e);
/** default/kubernetes: the API servers' own endpoint reconciler drops a server whose lease expired. */
const isApiServers = (e: KObject): boolean =>
  e.metadata.namespace === 'default' &&
  (e.metadata.name === 'kubernetes' || e.metadata.labels?.['kubernetes.io/service-name'] === 'kubernetes');

export function hypothesize(snap: Snapshot, h: Hypothesis, now: Date): Snapshot {
  const down = new Set(h.nodes);
  const t = now.getTime();
  const header = { ...snap.finalHeader(), hypothetical: { nodes: h.nodes, remove: h.remove } };
  const out = new Snapshot(header);
  out.headerless = snap.headerless;
  // what serves an address: its node, its pod's node, or the pod or node whose IP it is — on a node going down?
  const lookup = lookupOf(snap);
  const onDown = (a: Record<string, any>): boolean => address(a, lookup).some((n) => n && down.has(n));
  /** A hand-written address on a node going down, written with that node (as the controllers write theirs). */
  const stamped = (a: Record<string, any>): Record<string, any> => {
    if (a?.nodeName || !onDown(a)) return a;
    const node = lookup.book.serves({ ip: String(a?.ip ?? ''), targetRef: a?.targetRef })?.node;
    return node ? { ...a, nodeName: node } : a;
  };
  const services = snap.gap(R.services)
    ? null
    : new Map(snap.of(R.services).map((x) => [podKey(x.metadata.namespace, x.metadata.name), x] as const));

  // copy on write: an object the hypothesis changes is copied first; every other one is shared (checks only read)
  const lists = new Map<string, { group: string; kind: string; items: KObject[] }>();
  for (const [key, items] of snap.lists()) {
    const first = items[0];
    if (!first) continue;
    lists.set(key, { group: groupOf(first.apiVersion), kind: first.kind ?? '', items });
  }
  // only the objects that touch a node going down are looked at: an index per list, built once and shared by every
  // hypothesis on this snapshot (one at a time over 100 nodes does not walk 40,000 pods 100 times)
  const each = (kind: string, group: string, fn: (o: KObject) => KObject | null, touches?: Touches): void => {
    const l = lists.get(gkKey(group, kind));
    if (!l) return;
    if (!touches) {
      l.items = l.items.map(fn).filter((x): x is KObject => x !== null);
      return;
    }
    const idx = indexOf(l.items, touches, lookup);
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
  // one condition for every pod there (20,000 pods, one object)
  const lost = { type: 'Ready', status: 'False', reason: 'NodeLost', lastTransitionTime: iso(t) };
  each(
    'Pod',
    '',
    (p) => {
      if (!down.has(p.spec?.nodeName)) return p;
      if (h.remove) return null;
      // its status alone is new (every pod of the nodes is changed: a whole copy of each was 30 MB at 20,000 pods)
      const cs = p.status?.containerStatuses;
      p = {
        ...p,
        status: {
          ...(p.status && typeof p.status === 'object' ? p.status : {}),
          ...(Array.isArray(cs) ? { containerStatuses: cs.map((c) => (c && typeof c === 'object' ? { ...c, ready: false } : c)) } : {}),
        },
      };
      setCondition(p, lost);
      return p;
    },
    podTouches,
  );
  each(
    'Endpoints',
    '',
    (e) => {
      const addresses = (x: Record<string, any>): Array<Record<string, any>> => [...arr(x?.addresses), ...arr(x?.notReadyAddresses)];
      if (!arr(e.subsets).some((x) => addresses(x).some(onDown))) return e;
      e = clone(e);
      const managed = managedEndpoints(e, services);
      for (const s of arr(e.subsets)) {
        if (!s || typeof s !== 'object') continue;
        if (!managed) {
          // nothing rewrites hand-written Endpoints: the address stays, and the API server still dials it
          s.addresses = arr(s.addresses).map(stamped);
          s.notReadyAddresses = arr(s.notReadyAddresses).map(stamped);
          continue;
        }
        const addrs: Array<Record<string, any>> = arr(s.addresses);
        const moved = addrs.filter(onDown);
        s.addresses = addrs.filter((a) => !moved.includes(a));
        if (!h.remove) s.notReadyAddresses = [...arr(s.notReadyAddresses), ...moved];
        else s.notReadyAddresses = arr(s.notReadyAddresses).filter((a: Record<string, any>) => !onDown(a));
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
      const at = (x: Record<string, any>): boolean => arr<string>(x?.addresses).some((ip) => onDown({ ...x, ip }));
      if (!eps.some(at)) return e;
      e = { ...e };
      if (!managedSlice(e)) {
        // mirrored from hand-written Endpoints, or written by another controller: listed as it was
        e.endpoints = eps.map((x) => {
          if (!at(x) || x?.nodeName) return x;
          const node = lookup.book.serves({ ip: String(arr(x?.addresses)[0] ?? ''), targetRef: x?.targetRef })?.node;
          return node ? { ...x, nodeName: node } : x;
        });
        return e;
      }
      e.endpoints = eps
        .filter((x) => !(h.remove && at(x)))
        .map((x) => (at(x) ? { ...x, conditions: { ...x.conditions, ready: false, serving: false } } : x));
      return e;
    },
    sliceTouches,
  );
  each(
    'Lease',
    'coordination.k8s.io',
    (l) => {
      if (!down.has(lookup.nodeOf(leaseHost(l)))) return l;
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
  // the aggregator finds an APIService whose Service has no ready endpoint left unavailable (MissingEndpoints), and
  // one whose ready addresses are all on nodes going down failing its discovery check (it dials them: no answer)
  const behind = (ns: string, name: string): { ready: Array<Record<string, any>> } | null => {
    const ep = lists.get('Endpoints')?.items.find((e) => e.metadata.namespace === ns && e.metadata.name === name);
    if (ep) return { ready: arr(ep.subsets).flatMap((s: { addresses?: unknown }) => arr(s?.addresses)) };
    const slices = (lists.get('EndpointSlice.discovery.k8s.io')?.items ?? []).filter(
      (e) => e.metadata.namespace === ns && e.metadata.labels?.['kubernetes.io/service-name'] === name,
    );
    if (!slices.length) return null;
    return {
      ready: slices.flatMap((s) =>
        arr(s.endpoints)
          .filter((x: { conditions?: { ready?: boolean } }) => x?.conditions?.ready !== false)
          .map((x: Record<string, any>) => ({ ...x, ip: arr(x?.addresses)[0] })),
      ),
    };
  };
  each('APIService', 'apiregistration.k8s.io', (a) => {
    const svc = a.spec?.service;
    const b = svc?.name ? behind(svc.namespace, svc.name) : null;
    if (!b) return a;
    const gone = b.ready.filter(onDown);
    if (b.ready.length && gone.length < b.ready.length) return a;
    a = clone(a);
    setCondition(
      a,
      b.ready.length
        ? {
            type: 'Available',
            status: 'False',
            reason: 'FailedDiscoveryCheck',
            message: `failing or missing response from ${gone.map((x) => String(x.ip)).join(', ')} (what-if: ${gone.length === 1 ? 'it is served' : 'they are served'} from ${[...new Set(gone.flatMap((x) => address(x, lookup)).filter((n) => down.has(n)))].join(', ')}, going down; the endpoints were written by hand and still list ${gone.length === 1 ? 'it' : 'them'})`,
            lastTransitionTime: iso(t),
          }
        : {
            type: 'Available',
            status: 'False',
            reason: 'MissingEndpoints',
            message: `endpoints for service/${svc.name} in "${svc.namespace}" have no addresses (what-if)`,
            lastTransitionTime: iso(t),
          },
    );
    return a;
  });

  for (const l of lists.values()) out.addList(l.group, l.kind, l.items);
  // types listed with no objects stay listed (an empty list is "none exist", not "not captured")
  for (const k of snap.kinds()) if (!lists.has(k)) out.addList(k.includes('.') ? k.slice(k.indexOf('.') + 1) : '', k.split('.')[0]!, []);
  return out;
}
