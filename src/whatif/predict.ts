// What breaks if these nodes go down (or are removed): every check run on the cluster as it would be
// (./hypothesis.ts), keeping the findings that appear, and what no check covers — workloads whose every ready pod is
// there, PodDisruptionBudgets that would stop `kubectl drain`, pods pinned to volumes on those nodes, pods that would
// not fit on the nodes left, controllers that stop reconciling, ingress with nothing left, no API server left.
import { runChecks } from '../checks/run.js';
import type { Check } from '../checks/types.js';
import { quorumView } from '../etcd/quorum.js';
import { detectDistribution } from '../fingerprint.js';
import { isReady, refOf } from '../lib/k8s.js';
import {
  faultKey,
  SEVERITY_RANK,
  type CheckResult,
  type Contract,
  type Finding,
  type KObject,
  type ObjectRef,
  type Severity,
} from '../model.js';
import { R } from '../resources.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { hypothesize, type Hypothesis } from './hypothesis.js';
export { WHATIF_CODES } from './codes.js';

export type WhatIfContract = Contract | 'workloads';

export interface Prediction {
  contract: WhatIfContract;
  code: string;
  /** The check that predicts it, or what-if's own. */
  from: string;
  severity: Severity;
  title: string;
  message: string;
  objects: ObjectRef[];
  why?: string;
  fix?: string[];
}

/** Findings that only restate the hypothesis (a server's lease goes stale with it) or cannot be predicted. */
const RESTATES = new Set(['ARCH-EQ05', 'ARCH-EQ07', 'ARCH-DNS03']);

const rank = (s: Severity): number => SEVERITY_RANK[s];

/** A finding's severity as a prediction: a reboot of one server of three keeps quorum, within what the cluster was
 *  built for — a warning, not a gate. */
export const severityIf = (f: Pick<Finding, 'code' | 'severity'>): Severity => (f.code === 'ARCH-EQ02' ? 'warning' : f.severity);
const text = (r: ObjectRef): string => `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

// ---------------------------------------------------------------- the workloads behind pods

interface Workload {
  ref: ObjectRef;
  replicas: number;
  pods: KObject[];
}

/** Pod → ReplicaSet → Deployment, or Pod → StatefulSet; DaemonSet pods are not moved, static pods are the node's. */
function workloads(snap: Snapshot): Map<string, Workload> {
  const rsOwner = new Map<string, { kind: string; name: string }>();
  for (const rs of snap.of(R.replicasets)) {
    const o = (rs.metadata.ownerReferences ?? []).find((x) => x.controller !== false && x.kind === 'Deployment');
    if (o) rsOwner.set(`${rs.metadata.namespace}/${rs.metadata.name}`, { kind: 'Deployment', name: o.name });
  }
  const objects = new Map<string, KObject>();
  for (const d of [...snap.of(R.deployments), ...snap.of(R.statefulsets)])
    objects.set(`${d.kind}/${d.metadata.namespace}/${d.metadata.name}`, d);
  const out = new Map<string, Workload>();
  for (const p of snap.of(R.pods)) {
    const o = (p.metadata.ownerReferences ?? []).find((x) => x.controller !== false);
    if (!o || o.kind === 'DaemonSet' || o.kind === 'Node') continue;
    let kind = o.kind;
    let name = o.name;
    if (o.kind === 'ReplicaSet') {
      const d =
        rsOwner.get(`${p.metadata.namespace}/${o.name}`) ??
        (snap.gap(R.replicasets) ? { kind: 'Deployment', name: o.name.replace(/-[a-z0-9]{5,10}$/, '') } : undefined);
      if (!d) continue;
      ({ kind, name } = d);
    } else if (o.kind !== 'StatefulSet') continue;
    const k = `${kind}/${p.metadata.namespace}/${name}`;
    const obj = objects.get(k);
    const w: Workload = out.get(k) ?? {
      ref: { kind, apiVersion: 'apps/v1', namespace: p.metadata.namespace, name },
      replicas: typeof obj?.spec?.replicas === 'number' ? obj.spec.replicas : 1,
      pods: [],
    };
    w.pods.push(p);
    out.set(k, w);
  }
  return out;
}

const running = (p: KObject): boolean => p.status?.phase === 'Running' && isReady(p);
const tolerates = (p: KObject, taint: { key?: string; effect?: string }): boolean =>
  (Array.isArray(p.spec?.tolerations) ? p.spec.tolerations : []).some(
    (t: { key?: string; operator?: string; effect?: string }) =>
      (t.operator === 'Exists' && !t.key) || (t.key === taint.key && (!t.effect || t.effect === taint.effect)),
  );
const toleratesAll = (p: KObject): boolean =>
  (Array.isArray(p.spec?.tolerations) ? p.spec.tolerations : []).some(
    (t: { key?: string; operator?: string }) => t.operator === 'Exists' && !t.key,
  );

// ---------------------------------------------------------------- quantities

/** "250m" → 0.25 cpu; "512Mi" → bytes. */
export function quantity(v: unknown): number {
  const m = /^([0-9.]+)\s*([a-zA-Z]*)$/.exec(String(v ?? '').trim());
  if (!m) return 0;
  const n = Number(m[1]);
  const unit: Record<string, number> = {
    '': 1,
    m: 1e-3,
    k: 1e3,
    K: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    Ki: 1024,
    Mi: 1024 ** 2,
    Gi: 1024 ** 3,
    Ti: 1024 ** 4,
  };
  return n * (unit[m[2]!] ?? 1);
}
const requests = (p: KObject): { cpu: number; memory: number } =>
  (Array.isArray(p.spec?.containers) ? p.spec.containers : []).reduce(
    (a: { cpu: number; memory: number }, c: { resources?: { requests?: { cpu?: unknown; memory?: unknown } } }) => ({
      cpu: a.cpu + quantity(c?.resources?.requests?.cpu),
      memory: a.memory + quantity(c?.resources?.requests?.memory),
    }),
    { cpu: 0, memory: 0 },
  );
const cpuText = (c: number): string => (c < 1 ? `${Math.round(c * 1000)}m` : `${Math.round(c * 100) / 100}`);
const memText = (b: number): string => `${Math.round(b / 1024 ** 2)}Mi`;

// ---------------------------------------------------------------- what no check covers

const CONTROLLER =
  /(application-controller|applicationset-controller|source-controller|kustomize-controller|helm-controller|notification-controller|image-(reflector|automation)-controller|^cert-manager$|local-path-provisioner|-operator$|controller-manager$|^flux$|^kyverno$|^gatekeeper-controller-manager$|^external-secrets$|^velero$)/;
const INGRESS = /(ingress|traefik|gateway|haproxy|contour|envoy|kong|nginx)/;

function own(snap: Snapshot, h: Hypothesis, now: Date, checks: Check[]): Prediction[] {
  const down = new Set(h.nodes);
  const nodes = snap.of(R.nodes);
  const out: Prediction[] = [];
  const on = (p: KObject): boolean => down.has(p.spec?.nodeName);
  const ws = workloads(snap);
  const podsVisible = !snap.gap(R.pods);

  // WI07: no API server left (K3s/RKE2 servers, kubeadm's static pods)
  const d = detectDistribution(snap).distribution;
  const apiNodes =
    d === 'K3s' || d === 'RKE2'
      ? nodes
          .filter(
            (n) =>
              n.metadata.labels?.['node-role.kubernetes.io/control-plane'] === 'true' ||
              n.metadata.labels?.['node-role.kubernetes.io/master'] === 'true',
          )
          .map((n) => n.metadata.name)
      : snap
          .of(R.pods)
          .filter((p) => p.metadata.namespace === 'kube-system' && p.metadata.labels?.component === 'kube-apiserver')
          .map((p) => String(p.spec?.nodeName));
  const noApi = apiNodes.length > 0 && apiNodes.every((n) => down.has(n));
  if (noApi)
    out.push({
      contract: 'door',
      code: 'ARCH-WI07',
      from: 'what-if',
      severity: 'critical',
      title: `no API server is left: ${apiNodes.join(', ')} ${apiNodes.length === 1 ? 'is' : 'are'} every API server there is`,
      message: `The door closes: nothing can be read or written, no controller reconciles and no pod is rescheduled until an API server is back${h.remove ? ' — and with them removed, there is none to come back' : ''}.`,
      objects: apiNodes.map((n) => ({ kind: 'Node', name: n })),
      why: 'The API server is the only door to the cluster state; without one, the cluster runs on as it is, blind and frozen.',
      fix: [
        d === 'K3s' || d === 'RKE2'
          ? 'add a server before taking this one down (3 servers for etcd quorum), or plan a window with nothing relying on the API'
          : 'keep another control-plane node up while this one is down',
      ],
    });

  // WI01: workloads with every ready pod there
  for (const w of ws.values()) {
    const ready = w.pods.filter(running);
    if (!ready.length || ready.some((p) => !on(p))) continue;
    const many = w.replicas > 1 || ready.length > 1;
    out.push({
      contract: 'workloads',
      code: 'ARCH-WI01',
      from: 'what-if',
      severity: many ? 'error' : 'warning',
      title: `${text(w.ref)} goes down: ${many ? `all ${count(ready.length, 'ready pod')} run there` : 'its one replica runs there'}`,
      message: `${ready.map((p) => `${p.metadata.name} on ${p.spec?.nodeName}`).join(', ')}. It serves nothing until ${many ? 'they run' : 'it runs'} elsewhere${noApi ? ' — and with no API server left, nothing reschedules them' : ` (after the node is drained, or ${h.remove ? 'at once' : 'about 5 minutes after the node stops answering'})`}.`,
      objects: [w.ref],
      why: many
        ? 'Replicas are there to survive a node; all of them on one set of nodes survives nothing.'
        : 'A single replica is down whenever its node is: fine for a batch job, an outage for a service.',
      fix: [
        many
          ? `spread them: a topologySpreadConstraint (topologyKey kubernetes.io/hostname) or pod anti-affinity on ${text(w.ref)}, then let them reschedule before the maintenance`
          : `if it must stay up: kubectl -n ${w.ref.namespace} scale ${w.ref.kind.toLowerCase()} ${w.ref.name} --replicas 2, with anti-affinity`,
      ],
    });
  }

  // WI02: PodDisruptionBudgets the drain cannot satisfy
  for (const pdb of snap.of(R.pdbs)) {
    const sel = (pdb.spec?.selector?.matchLabels ?? {}) as Record<string, string>;
    if (!Object.keys(sel).length) continue;
    const evict = snap
      .of(R.pods)
      .filter(
        (p) =>
          p.metadata.namespace === pdb.metadata.namespace && on(p) && Object.entries(sel).every(([k, v]) => p.metadata.labels?.[k] === v),
      );
    const allowed = typeof pdb.status?.disruptionsAllowed === 'number' ? pdb.status.disruptionsAllowed : undefined;
    if (!evict.length || allowed === undefined || evict.length <= allowed) continue;
    out.push({
      contract: 'workloads',
      code: 'ARCH-WI02',
      from: 'what-if',
      severity: 'error',
      title: `kubectl drain would wait on PodDisruptionBudget ${pdb.metadata.namespace}/${pdb.metadata.name}: it allows ${allowed} disruption${allowed === 1 ? '' : 's'}, the drain needs ${evict.length}`,
      message: `Evicting ${evict.map((p) => p.metadata.name).join(', ')} would violate the budget (${pdb.spec?.minAvailable !== undefined ? `minAvailable ${pdb.spec.minAvailable}` : `maxUnavailable ${pdb.spec?.maxUnavailable}`}, disruptionsAllowed ${allowed}): kubectl drain retries "Cannot evict pod as it would violate the pod's disruption budget" until its timeout.`,
      objects: [{ kind: 'PodDisruptionBudget', apiVersion: 'policy/v1', namespace: pdb.metadata.namespace, name: pdb.metadata.name }],
      why: 'A budget that allows no disruption protects the pods from every voluntary eviction — the drain of a node included.',
      fix: [
        'give the workload one more replica on another node first (then the budget allows the eviction)',
        `or, knowing the cost (those pods go down meanwhile), relax the budget for the window: kubectl -n ${pdb.metadata.namespace} edit pdb ${pdb.metadata.name}`,
      ],
    });
  }

  // WI03: pods pinned to a volume on those nodes
  const pvcs = new Map(snap.of(R.persistentvolumeclaims).map((c) => [`${c.metadata.namespace}/${c.metadata.name}`, c] as const));
  const pvs = new Map(snap.of(R.persistentvolumes).map((p) => [p.metadata.name, p] as const));
  const pinned = new Set<string>();
  const pvNode = (pv: KObject): string | undefined => {
    for (const t of pv.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? [])
      for (const e of t?.matchExpressions ?? [])
        if (
          ['kubernetes.io/hostname', 'topology.kubernetes.io/hostname'].includes(e?.key) &&
          e?.operator === 'In' &&
          e.values?.length === 1
        )
          return e.values[0];
    return undefined;
  };
  for (const p of snap.of(R.pods)) {
    if (!on(p) || (p.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet')) continue;
    for (const v of Array.isArray(p.spec?.volumes) ? p.spec.volumes : []) {
      const claim = v?.persistentVolumeClaim?.claimName;
      const pvc = claim ? pvcs.get(`${p.metadata.namespace}/${claim}`) : undefined;
      const pv = pvc?.spec?.volumeName ? pvs.get(pvc.spec.volumeName) : undefined;
      const node = pv ? pvNode(pv) : undefined;
      if (!pv || !node || !down.has(node)) continue;
      pinned.add(`${p.metadata.namespace}/${p.metadata.name}`);
      out.push({
        contract: 'interfaces',
        code: 'ARCH-WI03',
        from: 'what-if',
        severity: 'error',
        title: `${text(refOf(p))} cannot move: its volume ${pv.metadata.name} lives on ${node}`,
        message: `Claim ${claim} is bound to ${pv.metadata.name} (${(pv.spec?.storageClassName ?? pv.spec?.hostPath) ? `${pv.spec?.storageClassName ?? 'hostPath'}` : 'local'}), which only ${node} can mount (nodeAffinity). A replacement pod stays Pending with "volume node affinity conflict"${h.remove ? `, and the data goes with ${node}` : ` until ${node} is back; its data stays there`}.`,
        objects: [refOf(p), { kind: 'PersistentVolume', name: pv.metadata.name }, ...(pvc ? [refOf(pvc)] : [])],
        why: 'Node-local storage (local-path, local PVs) is the node: the pod can only run where its data is.',
        fix: h.remove
          ? [
              `move the data off ${node} before removing it (a backup and restore into a claim on shared storage), or accept losing it: its claim must then be deleted for the pod to start elsewhere`,
            ]
          : [
              `plan for the pod being down while ${node} is; for a replicated store (Elasticsearch, databases) let the others take over first`,
            ],
      });
    }
  }

  // WI04: do the pods to move fit on the nodes left?
  const left = nodes.filter((n) => !down.has(n.metadata.name) && !n.spec?.unschedulable && isReady(n));
  const moving = snap
    .of(R.pods)
    .filter(
      (p) =>
        on(p) &&
        p.status?.phase !== 'Succeeded' &&
        p.status?.phase !== 'Failed' &&
        !(p.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet' || o.kind === 'Node') &&
        !p.metadata.annotations?.['kubernetes.io/config.mirror'] &&
        !pinned.has(`${p.metadata.namespace}/${p.metadata.name}`) &&
        !toleratesAll(p),
    );
  const withAlloc = left.filter((n) => n.status?.allocatable?.cpu || n.status?.allocatable?.memory);
  if (moving.length && podsVisible && withAlloc.length === left.length && left.length) {
    const free = new Map(
      left.map((n) => {
        const used = snap
          .of(R.pods)
          .filter((p) => p.spec?.nodeName === n.metadata.name && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed')
          .map(requests)
          .reduce((a, b) => ({ cpu: a.cpu + b.cpu, memory: a.memory + b.memory }), { cpu: 0, memory: 0 });
        const room: { cpu: number; memory: number } = {
          cpu: quantity(n.status.allocatable.cpu) - used.cpu,
          memory: quantity(n.status.allocatable.memory) - used.memory,
        };
        return [n, room] as [KObject, { cpu: number; memory: number }];
      }),
    );
    const unfit: Array<{ p: KObject; need: { cpu: number; memory: number } }> = [];
    for (const p of [...moving].sort((a, b) => requests(b).cpu - requests(a).cpu || requests(b).memory - requests(a).memory)) {
      const need = requests(p);
      if (!need.cpu && !need.memory) continue;
      const taintsOk = (n: KObject): boolean =>
        (Array.isArray(n.spec?.taints) ? n.spec.taints : []).every(
          (t: { key?: string; effect?: string }) => t.effect === 'PreferNoSchedule' || tolerates(p, t),
        );
      const spot = [...free].find(([n, f]) => taintsOk(n) && f.cpu >= need.cpu && f.memory >= need.memory);
      if (spot) {
        spot[1].cpu -= need.cpu;
        spot[1].memory -= need.memory;
      } else unfit.push({ p, need });
    }
    if (unfit.length) {
      const most = [...free.values()].reduce((a, b) => (b.cpu > a.cpu ? b : a), { cpu: 0, memory: 0 });
      const cpuShort = unfit.some((u) => u.need.cpu > most.cpu);
      out.push({
        contract: 'workloads',
        code: 'ARCH-WI04',
        from: 'what-if',
        severity: 'error',
        title: `${count(unfit.length, 'pod')} would not fit on the ${count(left.length, 'schedulable node')} left (${cpuShort ? 'cpu' : 'memory'})`,
        message: `${unfit.map((u) => `${u.p.metadata.namespace}/${u.p.metadata.name} (requests cpu ${cpuText(u.need.cpu)}, memory ${memText(u.need.memory)})`).join('; ')}. The most free on a node left: cpu ${cpuText(Math.max(0, most.cpu))}, memory ${memText(Math.max(0, most.memory))}. They stay Pending ("Insufficient ${cpuShort ? 'cpu' : 'memory'}") until the node is back.`,
        objects: unfit.map((u) => refOf(u.p)),
        why: 'The scheduler places pods by their requests; what the nodes left cannot hold waits.',
        fix: ['add a node, or lower the requests that are larger than needed, before the maintenance'],
      });
    }
  }

  // WI05: controllers with no running pod left
  const leases = snap.of(R.leases).filter((l) => l.metadata.namespace !== 'kube-node-lease' && l.spec?.holderIdentity);
  for (const w of ws.values()) {
    const holds = leases.some((l) => w.pods.some((p) => String(l.spec.holderIdentity).startsWith(p.metadata.name)));
    if (!CONTROLLER.test(w.ref.name) && !holds) continue;
    const run = w.pods.filter((p) => p.status?.phase === 'Running');
    if (!run.length) continue;
    if (run.every(on)) {
      const stuck = run.some(toleratesAll);
      out.push({
        contract: 'loops',
        code: 'ARCH-WI05',
        from: 'what-if',
        severity: 'error',
        title: `${text(w.ref)} stops reconciling: ${run.length === 1 ? 'its only running pod is' : 'all its running pods are'} there`,
        message: `${run.map((p) => `${p.metadata.name} on ${p.spec?.nodeName}`).join(', ')}. Until it runs again, what it reconciles does not change (syncs, certificates, volumes, releases wait).${stuck ? ' Its pod tolerates every taint, so it is never evicted: it does not move while the node is down, it waits there.' : ''}`,
        objects: [w.ref],
        why: 'Everything but the state is a reconcile loop; a loop whose controller is gone stops quietly.',
        fix: [
          stuck
            ? `give ${w.ref.name} tolerations for the taints it needs only (not operator: Exists), so that it moves; or run 2 replicas with leader election`
            : `run ${w.ref.name} with 2 replicas and leader election, or keep it off these nodes for the window`,
        ],
      });
    } else if (run.some(on) && leases.some((l) => run.some((p) => on(p) && String(l.spec.holderIdentity).startsWith(p.metadata.name))))
      out.push({
        contract: 'loops',
        code: 'ARCH-WI05',
        from: 'what-if',
        severity: 'info',
        title: `${text(w.ref)}'s leader is there: another replica takes over`,
        message: 'Its leader-election lease expires and a replica on another node becomes leader (seconds).',
        objects: [w.ref],
      });
  }

  // WI06: load-balancer Services with no ready backend left
  const eps = (ns: string, name: string): Array<{ node?: string; pod?: string }> => {
    const ep = snap.of(R.endpoints).find((e) => e.metadata.namespace === ns && e.metadata.name === name);
    if (ep)
      return (ep.subsets ?? []).flatMap((s: { addresses?: Array<{ nodeName?: string; targetRef?: { name?: string } }> }) =>
        (s?.addresses ?? []).map((a) => ({ node: a.nodeName, pod: a.targetRef?.name })),
      );
    return snap
      .of(R.endpointslices)
      .filter((e) => e.metadata.namespace === ns && e.metadata.labels?.['kubernetes.io/service-name'] === name)
      .flatMap((e) =>
        (e.endpoints ?? [])
          .filter((x: { conditions?: { ready?: boolean } }) => x?.conditions?.ready !== false)
          .map((x: { nodeName?: string; targetRef?: { name?: string } }) => ({ node: x.nodeName, pod: x.targetRef?.name })),
      );
  };
  const podNode = new Map(
    snap.of(R.pods).map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, p.spec?.nodeName as string | undefined] as const),
  );
  for (const s of snap.of(R.services)) {
    if (s.spec?.type !== 'LoadBalancer' && !INGRESS.test(s.metadata.name)) continue;
    const ready = eps(s.metadata.namespace!, s.metadata.name);
    if (!ready.length) continue;
    const nodeOf = (e: { node?: string; pod?: string }): string | undefined => e.node ?? podNode.get(`${s.metadata.namespace}/${e.pod}`);
    if (!ready.every((e) => down.has(nodeOf(e) ?? ''))) continue;
    const owner = [...ws.values()].find((w) =>
      w.pods.some((p) => ready.some((e) => e.pod === p.metadata.name && p.metadata.namespace === s.metadata.namespace)),
    );
    out.push({
      contract: 'interfaces',
      code: 'ARCH-WI06',
      from: 'what-if',
      severity: 'error',
      title: `${s.spec?.type === 'LoadBalancer' ? 'load balancer' : 'ingress'} ${s.metadata.namespace}/${s.metadata.name} has no ready backend left${owner ? ` (${text(owner.ref)})` : ''}`,
      message: `Every ready endpoint of Service ${s.metadata.namespace}/${s.metadata.name} is on ${[...new Set(ready.map(nodeOf))].join(', ')}: traffic from outside stops until its pods run elsewhere.`,
      objects: owner ? [owner.ref, refOf(s)] : [refOf(s)],
      why: 'The ingress is the interface between the cluster and its users; with no backend, every route behind it fails.',
      fix: [`run ${owner ? owner.ref.name : 'its pods'} with replicas on other nodes before the maintenance`],
    });
  }

  // WI08: --remove takes the only local etcd snapshots with it
  if (h.remove && checks.some((c) => c.id === 'etcd-backups')) {
    const files = snap.of(R.etcdSnapshotFiles).filter((f) => f.status?.readyToUse === true);
    const s3 = files.some((f) => String(f.spec?.location ?? '').startsWith('s3://'));
    const local = files.filter((f) => !String(f.spec?.location ?? '').startsWith('s3://'));
    if (local.length && !s3 && local.every((f) => down.has(f.spec?.nodeName)))
      out.push({
        contract: 'state',
        code: 'ARCH-WI08',
        from: 'what-if',
        severity: 'error',
        title: `the only etcd snapshots are on ${[...new Set(local.map((f) => String(f.spec?.nodeName)))].join(', ')}, which you remove`,
        message: `${count(local.length, 'snapshot file')}, all on the removed servers' disks and none on S3: after the removal nothing could bring the cluster state back.`,
        objects: [...new Set(local.map((f) => String(f.spec?.nodeName)))].map((n) => ({ kind: 'Node', name: n })),
        why: 'A snapshot is the only way back after a lost quorum; it must outlive the servers it was taken on.',
        fix: ['copy the newest snapshot off the servers first (k3s etcd-snapshot save on a server that stays, or to S3)'],
      });
  }
  // one fault, one finding: a workload whose pods cannot move is said once, by WI03 (it goes down and stays down)
  return out.filter(
    (p) =>
      p.code !== 'ARCH-WI01' ||
      !ws
        .get(`${p.objects[0]!.kind}/${p.objects[0]!.namespace}/${p.objects[0]!.name}`)
        ?.pods.filter(on)
        .every((x) => pinned.has(`${x.metadata.namespace}/${x.metadata.name}`)),
  );
}

// ---------------------------------------------------------------- the whole prediction

export interface WhatIfResult {
  hypothesis: Hypothesis;
  predictions: Prediction[];
  /** For several nodes: whether taking them one at a time is safe where all at once is not (null for one node). */
  oneAtATime: { safe: boolean; each: Array<{ node: string; worst: Severity | null }> } | null;
  notes: string[];
  /** The cluster as it would be and every check's result on it (what `what-if -o html` draws); not in -o json. */
  asItWouldBe: { snapshot: Snapshot; results: CheckResult[] };
}

const contractOf = (checks: Check[], id: string): WhatIfContract => checks.find((c) => c.id === id)?.map[0]?.contract ?? 'workloads';

function predictOnce(
  snap: Snapshot,
  h: Hypothesis,
  now: Date,
  checks: Check[],
  base = runChecks(checks, snap, { now }),
): { predictions: Prediction[]; asItWouldBe: WhatIfResult['asItWouldBe'] } {
  const hyp = hypothesize(snap, h, now);
  const before = new Map(base.flatMap((r) => r.findings.map((f) => [faultKey(f), f] as const)));
  const objs = (f: Finding): Set<string> => new Set(f.objects.map((o) => `${o.kind}/${o.namespace ?? ''}/${o.name}`));
  // the same fault already reported, as it is: the same code on some of the same objects (its object list can shrink
  // with the nodes), or the same objects under a milder code of the same check (an orphan that stops running)
  const known = (f: Finding): boolean =>
    base.some((r) =>
      r.findings.some((b) => {
        if (rank(b.severity) < rank(f.severity)) return false;
        const a = objs(b);
        const shared = [...objs(f)].some((x) => a.has(x));
        return (
          (b.code === f.code && (shared || (!a.size && !f.objects.length))) ||
          (b.checkId === f.checkId && shared && faultKey(b) !== faultKey(f) && a.size === objs(f).size)
        );
      }),
    );
  const predicted: Prediction[] = [];
  // quorum findings end with the count as it would be; removing several members says how to do it safely
  let quorumAfter: string | undefined;
  const afterLine = (): string => (quorumAfter ??= quorumView(hyp, now).verdictLine);
  const membersRemoved = h.remove ? quorumView(snap, now).members.filter((m) => m.node && h.nodes.includes(m.node)).length : 0;
  const results = runChecks(checks, hyp, { now });
  for (const r of results) {
    for (const f of r.findings) {
      if (RESTATES.has(f.code)) continue;
      const was = before.get(faultKey(f));
      if (was && rank(was.severity) >= rank(f.severity)) continue;
      if (known(f)) continue;
      const severity = severityIf(f);
      const quorum = f.checkId === 'etcd-quorum';
      predicted.push({
        contract: contractOf(checks, r.id),
        code: f.code,
        from: r.id,
        severity,
        title: f.title,
        message:
          !quorum || `${f.title} ${f.message}`.includes(afterLine())
            ? f.message
            : `${f.message} After this: ${afterLine()}.${
                membersRemoved > 1
                  ? ' Remove the servers one at a time: delete one node (its etcd member goes with it), wait until the others report healthy, then the next — never stop two before removing them.'
                  : ''
              }`,
        objects: f.objects,
        ...(f.why ? { why: f.why } : {}),
        ...(f.code === 'ARCH-EQ02'
          ? {
              // a planned reboot of one server of three: the advice is for the window, not for repairing
              fix: [
                `while ${h.nodes.join(', ')} ${h.nodes.length === 1 ? 'is' : 'are'} down, take no other server down: one more failure loses quorum`,
                'afterwards, wait until kubectl arch quorum says HEALTHY again before the next server',
              ],
            }
          : f.fix
            ? { fix: f.fix }
            : {}),
      });
    }
  }
  return {
    predictions: [...predicted, ...own(snap, h, now, checks)].sort((a, b) => rank(b.severity) - rank(a.severity)),
    asItWouldBe: { snapshot: hyp, results },
  };
}

export function whatIf(snap: Snapshot, h: Hypothesis, now: Date, checks: Check[]): WhatIfResult {
  const base = runChecks(checks, snap, { now });
  const { predictions, asItWouldBe } = predictOnce(snap, h, now, checks, base);
  const notes: string[] = [];
  if (snap.gap(R.pods)) notes.push('pods are not visible: workloads, volumes and capacity are not predicted');
  if (snap.gap(R.pdbs)) notes.push('PodDisruptionBudgets are not visible: whether kubectl drain would wait is not predicted');
  const left = snap.of(R.nodes).filter((n) => !h.nodes.includes(n.metadata.name) && !n.spec?.unschedulable);
  if (left.length && left.some((n) => !n.status?.allocatable))
    notes.push("the nodes' allocatable resources are not visible: whether the pods to move fit is not predicted");
  const d = detectDistribution(snap).distribution;
  if (d === 'EKS' || d === 'GKE' || d === 'AKS')
    notes.push(`${d} runs etcd and the API servers itself: the state and the door are the provider's, not predicted`);
  let oneAtATime: WhatIfResult['oneAtATime'] = null;
  if (h.nodes.length > 1) {
    const each = h.nodes.map((node) => {
      const p = predictOnce(snap, { nodes: [node], remove: h.remove }, now, checks, base).predictions;
      const w = p.reduce<Severity | null>((a, x) => (!a || rank(x.severity) > rank(a) ? x.severity : a), null);
      return { node, worst: w };
    });
    oneAtATime = { safe: each.every((e) => !e.worst || rank(e.worst) < rank('error')), each };
  }
  return { hypothesis: h, predictions, oneAtATime, notes, asItWouldBe };
}
