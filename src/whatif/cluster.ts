// The cluster a what-if predicts on, with what several units read computed once: the nodes going down, the workloads
// behind the pods (by their top controller, whatever its kind), the pods with no controller, the pods pinned to a
// volume on those nodes, the distribution. Objects from files may be malformed: every reader tolerates a missing or
// wrong-typed field.
import type { Check } from '../checks/types.js';
import { APISERVER_LEASE_FRESH_MS } from '../etcd/quorum.js';
import { detectDistribution, type Distribution } from '../fingerprint.js';
import { arr, isReady } from '../lib/k8s.js';
import { ADDRESS_FIELDS } from '../lib/endpoints.js';
import { HOSTNAME, nodeNamer, volumeNodes } from '../lib/nodes.js';
import { gkKey, groupOf, type KObject, type ObjectRef } from '../model.js';
import { R } from '../resources.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import type { Hypothesis } from './hypothesis.js';

/** What the cluster as it would be reads beyond the predictions' and checks' own inputs: where each backend runs
 *  (every address form of an endpoint; what serves a hand-written one, by a pod's or a node's IP; whether a controller
 *  keeps the endpoints or they are written by hand), how long a lease lasts and which host holds it, why a container
 *  is not running, which backends a fail-closed webhook or an APIService dials. */
export const WHATIF_READS = [
  {
    ...R.endpointslices,
    fields: [
      'metadata.labels["endpointslice.kubernetes.io/managed-by"]',
      'metadata.labels["kubernetes.io/service-name"]',
      'addressType',
      'endpoints[].addresses',
      'endpoints[].conditions',
      'endpoints[].nodeName',
      'endpoints[].targetRef',
      'ports',
    ],
  },
  {
    ...R.endpoints,
    fields: [
      'metadata.labels["endpoints.kubernetes.io/managed-by"]',
      'metadata.labels["kubernetes.io/service-name"]',
      'metadata.annotations["endpoints.kubernetes.io/last-change-trigger-time"]',
      // moved whole between ready and not ready, or kept with the node that serves them (hand-written)
      'subsets[].addresses',
      'subsets[].notReadyAddresses',
    ],
  },
  // a Service with a selector has its endpoints kept by a controller
  { ...R.services, fields: ['spec.selector'] },
  { ...R.leases, fields: ['spec.holderIdentity', 'spec.leaseDurationSeconds'] },
  { ...R.pods, fields: [...ADDRESS_FIELDS.pods, 'status.containerStatuses[].state'] },
  // a node by its host name (metadata.labels), by its own address, and whether it still posts status
  { ...R.nodes, fields: ADDRESS_FIELDS.nodes },
  ...[R.validatingWebhooks, R.mutatingWebhooks].map((t) => ({
    ...t,
    fields: [
      'webhooks[].name',
      'webhooks[].failurePolicy',
      'webhooks[].clientConfig.service.name',
      'webhooks[].clientConfig.service.namespace',
    ],
  })),
  { ...R.apiservices, fields: ['spec.service.name', 'spec.service.namespace'] },
  { ...R.etcdSnapshotFiles, fields: ['status.error.time', 'status.error.message'] },
  // a workload's wanted count, whatever its kind (a Rollout, an operator's cluster): kept of every object
  { group: '*', kind: '*', fields: ['spec.replicas', 'spec.instances'] },
];

/** A list, or nothing when the field is missing or of another type. */
export { arr };

export interface Workload {
  /** Its top controller: a Deployment, StatefulSet, Argo Rollout, CloudNativePG Cluster, any operator's kind. */
  ref: ObjectRef;
  /** The desired count, when the controller is visible and says it (spec.replicas, spec.instances). */
  replicas?: number;
  pods: KObject[];
}

/** One API server, by the node it runs on, and whether anything shows it live now. */
export interface ApiServer {
  node: string;
  live: boolean;
  /** What shows it there, and live or not: "node Ready", "identity lease renewed 8 s ago", "pod not Ready". */
  evidence: string[];
}

export interface Pinned {
  pod: KObject;
  claim: string;
  pv: KObject;
  pvc?: KObject;
  /** The nodes going down that can mount it (by its nodeAffinity against their labels). */
  nodes: string[];
  /** Nodes left that could mount it too, but take no pod now (not Ready, cordoned). */
  idle: string[];
}

type Owner = { apiVersion?: string; kind?: string; name?: string; controller?: boolean };

/** The controller of an object: the ownerReference marked controller (an old or hand-written one without the mark
 *  counts when it is the only owner). */
export function controllerOf(o: KObject): Owner | undefined {
  const refs = arr<Owner>(o.metadata.ownerReferences).filter((r) => r && typeof r.kind === 'string' && typeof r.name === 'string');
  return refs.find((r) => r.controller === true) ?? (refs.length === 1 && refs[0]!.controller !== false ? refs[0] : undefined);
}

/** Pods a node lifecycle controller never evicts and a drain never moves: DaemonSet pods, static (mirror) pods. */
export const nodeBound = (p: KObject): boolean =>
  Boolean(p.metadata.annotations?.['kubernetes.io/config.mirror']) || ['DaemonSet', 'Node'].includes(controllerOf(p)?.kind ?? '');

export const running = (p: KObject): boolean => p.status?.phase === 'Running' && isReady(p);

/** What does not depend on the hypothesis, computed once per snapshot and shared by every node's pass (one at a time
 *  for 100 nodes does not group 40,000 pods 100 times). */
const shared = new WeakMap<Snapshot, Map<string, unknown>>();

export class Cluster {
  readonly down: Set<string>;
  private memo = new Map<string, unknown>();
  private common: Map<string, unknown>;

  constructor(
    readonly snap: Snapshot,
    readonly h: Hypothesis,
    readonly now: Date,
    readonly checks: Check[],
  ) {
    this.down = new Set(h.nodes);
    this.common = shared.get(snap) ?? new Map();
    shared.set(snap, this.common);
  }

  /** Computed once for this hypothesis. */
  private once<T>(key: string, f: () => T): T {
    if (!this.memo.has(key)) this.memo.set(key, f());
    return this.memo.get(key) as T;
  }

  /** Computed once for the snapshot, whatever the hypothesis (keyed by the time where it matters). */
  shared<T>(key: string, f: () => T): T {
    if (!this.common.has(key)) this.common.set(key, f());
    return this.common.get(key) as T;
  }

  /** The pods on each node. */
  get podsByNode(): Map<string, KObject[]> {
    return this.shared('podsByNode', () => {
      const m = new Map<string, KObject[]>();
      for (const p of this.pods) {
        const n = String(p.spec?.nodeName ?? '');
        const l = m.get(n);
        if (l) l.push(p);
        else m.set(n, [p]);
      }
      return m;
    });
  }

  /** The pods on the nodes going down. */
  get podsThere(): KObject[] {
    return this.once('podsThere', () => [...this.down].flatMap((n) => this.podsByNode.get(n) ?? []));
  }

  /** The pod runs on a node that goes down. */
  on = (p: KObject): boolean => this.down.has(String(p.spec?.nodeName ?? ''));

  get pods(): KObject[] {
    return this.snap.of(R.pods);
  }

  get distribution(): Distribution {
    return this.shared('distribution', () => detectDistribution(this.snap).distribution);
  }

  /** Pods by their top controller (DaemonSet and static pods are the node's, finished pods move nothing). */
  get workloads(): Map<string, Workload> {
    return this.shared('workloads', () => {
      const byName = new Map<string, Map<string, KObject>>();
      const find = (apiVersion: string | undefined, kind: string, ns: string | undefined, name: string): KObject | undefined => {
        const gk = gkKey(groupOf(apiVersion), kind);
        let m = byName.get(gk);
        if (!m) {
          m = new Map(this.snap.list(groupOf(apiVersion), kind).map((o) => [`${o.metadata.namespace ?? ''}/${o.metadata.name}`, o]));
          byName.set(gk, m);
        }
        return m.get(`${ns ?? ''}/${name}`);
      };
      const rsGap = Boolean(this.snap.gap(R.replicasets));
      const out = new Map<string, Workload>();
      for (const p of this.pods) {
        if (nodeBound(p) || p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
        const ns = p.metadata.namespace;
        let ref = controllerOf(p);
        if (!ref) continue;
        let top: KObject | undefined;
        // climb while the owner is visible and has a controller of its own (Pod → ReplicaSet → Deployment | Rollout)
        for (let depth = 0; depth < 8; depth++) {
          const o = find(ref.apiVersion, ref.kind!, ns, ref.name!);
          if (!o) {
            // ReplicaSets not visible: a Deployment's ReplicaSet is named after it plus a hash
            if (ref.kind === 'ReplicaSet' && rsGap && /-[a-z0-9]{5,10}$/.test(ref.name!))
              ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: ref.name!.replace(/-[a-z0-9]{5,10}$/, '') };
            break;
          }
          const up = controllerOf(o);
          if (!up) {
            top = o;
            break;
          }
          ref = up;
        }
        const key = `${gkKey(groupOf(ref.apiVersion), ref.kind!)}/${ns ?? ''}/${ref.name}`;
        let w = out.get(key);
        if (!w) {
          top ??= find(ref.apiVersion, ref.kind!, ns, ref.name!);
          // spec.instances is an operator's word for it (CloudNativePG); the apps kinds say replicas
          const desired = top?.spec?.replicas ?? (groupOf(top?.apiVersion) === 'apps' ? undefined : top?.spec?.instances);
          w = {
            ref: { kind: ref.kind!, apiVersion: ref.apiVersion, namespace: ns, name: ref.name! },
            ...(typeof desired === 'number' ? { replicas: desired } : {}),
            pods: [],
          };
          out.set(key, w);
        }
        w.pods.push(p);
      }
      return out;
    });
  }

  /** The workloads with a pod on the nodes going down (the only ones a node can take down). */
  get workloadsThere(): Workload[] {
    return this.once('workloadsThere', () => {
      const of = this.shared('workloadOfPod', () => {
        const m = new Map<KObject, Workload>();
        for (const w of this.workloads.values()) for (const p of w.pods) m.set(p, w);
        return m;
      });
      return [...new Set(this.podsThere.map((p) => of.get(p)).filter((w): w is Workload => w !== undefined))];
    });
  }

  /** Running pods with no controller at all: nothing recreates them, and kubectl drain refuses them without --force. */
  get bare(): KObject[] {
    return this.shared('bare', () =>
      this.pods.filter((p) => !controllerOf(p) && !nodeBound(p) && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed'),
    );
  }

  /** Pods there whose claim is bound to a volume only nodes going down can mount (local-path, local, hostPath, a
   *  zone whose nodes all go): its nodeAffinity matched against every node's labels, as the scheduler and the kubelet
   *  match it. With the nodes not visible, a volume that names a node going down by host name is the guess. */
  get pinned(): Map<string, Pinned> {
    return this.once('pinned', () => {
      const pvcs = this.shared(
        'pvcs',
        () => new Map(this.snap.of(R.persistentvolumeclaims).map((c) => [`${c.metadata.namespace}/${c.metadata.name}`, c] as const)),
      );
      const pvs = this.shared('pvs', () => new Map(this.snap.of(R.persistentvolumes).map((p) => [p.metadata.name, p] as const)));
      const nodes = this.snap.of(R.nodes);
      const nodesSeen = !this.snap.gap(R.nodes);
      const out = new Map<string, Pinned>();
      for (const p of this.podsThere) {
        if (nodeBound(p)) continue;
        for (const v of arr(p.spec?.volumes)) {
          const claim = v?.persistentVolumeClaim?.claimName;
          if (typeof claim !== 'string') continue;
          const pvc = pvcs.get(`${p.metadata.namespace}/${claim}`);
          const pv = pvc?.spec?.volumeName ? pvs.get(String(pvc.spec.volumeName)) : undefined;
          if (!pv) continue;
          let there: string[];
          let idle: string[] = [];
          if (nodesSeen) {
            const can = volumeNodes(pv, nodes);
            if (!can) continue;
            const left = can.filter((n) => !this.down.has(n.metadata.name));
            if (left.some((n) => isReady(n) && !n.spec?.unschedulable)) continue;
            there = can.filter((n) => this.down.has(n.metadata.name)).map((n) => n.metadata.name);
            idle = left.map((n) => n.metadata.name);
            // it matches no node at all: the node it runs on no longer carries the labels it was placed by
            if (!there.length) there = [String(p.spec?.nodeName)];
          } else {
            const named = pvNodeByName(pv);
            if (!named || !this.down.has(named)) continue;
            there = [named];
          }
          out.set(`${p.metadata.namespace}/${p.metadata.name}`, { pod: p, claim, pv, pvc, nodes: there, idle });
          break;
        }
      }
      return out;
    });
  }

  /** Every API server the objects show, live or not: K3s/RKE2 servers (control-plane nodes, live when Ready),
   *  kube-apiserver static pods (live when Ready), identity leases (live when renewed within a minute). Live needs
   *  positive evidence: a server known only by its role is not counted live. */
  get apiServers(): ApiServer[] {
    return this.shared(`apiServers@${this.now.getTime()}`, () => {
      const by = new Map<string, ApiServer>();
      const add = (node: string, live: boolean, evidence: string): void => {
        const s = by.get(node) ?? { node, live: false, evidence: [] };
        s.live ||= live;
        s.evidence.push(evidence);
        by.set(node, s);
      };
      const d = this.distribution;
      if (d === 'K3s' || d === 'RKE2')
        for (const n of this.snap.of(R.nodes)) {
          const l = n.metadata.labels ?? {};
          if (l['node-role.kubernetes.io/control-plane'] !== 'true' && l['node-role.kubernetes.io/master'] !== 'true') continue;
          add(n.metadata.name, isReady(n), `${d} server, node ${isReady(n) ? 'Ready' : 'not Ready'}`);
        }
      for (const p of this.pods)
        if (p.metadata.namespace === 'kube-system' && p.metadata.labels?.component === 'kube-apiserver' && p.spec?.nodeName)
          add(String(p.spec.nodeName), running(p), `pod ${p.metadata.name} ${running(p) ? 'Ready' : 'not Ready'}`);
      const now = this.now.getTime();
      // an identity lease names its server's host name, which is not always its node's name
      const nodeOf = nodeNamer(this.snap.of(R.nodes));
      for (const l of this.snap.of(R.leases)) {
        if (l.metadata.namespace !== 'kube-system' || l.metadata.labels?.['apiserver.kubernetes.io/identity'] !== 'kube-apiserver')
          continue;
        const host = l.metadata.labels?.[HOSTNAME];
        if (!host) continue;
        const node = nodeOf(host);
        const t = Date.parse(String(l.spec?.renewTime ?? ''));
        const age = Number.isNaN(t) ? undefined : Math.round((now - t) / 1000);
        const fresh = age !== undefined && age * 1000 <= APISERVER_LEASE_FRESH_MS;
        add(
          node,
          fresh,
          `identity lease ${age === undefined ? 'never renewed' : `renewed ${age < 120 ? `${age} s` : `${Math.round(age / 60)} min`} ago`}`,
        );
      }
      return [...by.values()];
    });
  }

  /** Pods there that have a claim (whether volumes are visible matters only for them). */
  get claimsThere(): boolean {
    return this.once('claims', () => this.podsThere.some((p) => arr(p.spec?.volumes).some((v) => v?.persistentVolumeClaim)));
  }
}

/** With the nodes not visible: the one node a volume's nodeAffinity names by host name (local-path and local PVs),
 *  taken as its node's name. */
function pvNodeByName(pv: KObject): string | undefined {
  for (const t of arr(pv.spec?.nodeAffinity?.required?.nodeSelectorTerms))
    for (const e of arr(t?.matchExpressions))
      if ([HOSTNAME, 'topology.kubernetes.io/hostname'].includes(e?.key) && e?.operator === 'In' && arr(e.values).length === 1)
        return String(e.values[0]);
  return undefined;
}
