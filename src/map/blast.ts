// What each part of the map takes down with it: its blast radius. Pure - the snapshot, the check results and the
// map in, a tree per part out; no I/O. What a part depends on (its chain: a webhook -> its Service -> its pods -> their
// nodes) and what depends on it (the requests a fail-closed webhook rejects, the discovery an APIService breaks,
// every pod for cluster DNS, quorum for an etcd member, every client for the API servers). A part with findings
// also names the objects they name. Used by the HTML map (src/render/html/map.ts).
import { quorumView, type Member, type QuorumView } from '../etcd/quorum.js';
import { detectDistribution, type Distribution } from '../fingerprint.js';
import { condition, isReady } from '../lib/k8s.js';
import { byText } from '../lib/order.js';
import { refText, type CheckResult, type KObject, type ObjectRef } from '../model.js';
import { R } from '../resources.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import type { ArchMap, MapLine } from './build.js';

export interface BlastNode {
  text: string;
  children?: BlastNode[];
}

export interface BlastRadius {
  /** A check has a finding on the part: what it takes is broken now, not only at risk. */
  now: boolean;
  /** One line: what it takes down when it fails (or has taken, when now). */
  summary: string;
  /** What it works through: a failure anywhere in this chain is a failure of the part. */
  chain: BlastNode[];
  /** What depends on it. */
  takes: BlastNode[];
  /** Other parts of the map that depend on it (keys from partKey). */
  parts: string[];
}

/** The key of a part: its section and line index in the map (stable for one map). */
export const partKey = (section: number, line: number): string => `p${section}-${line}`;

const MAX = 8;
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
const list = (xs: string[], max = MAX): string =>
  xs.length > max ? `${xs.slice(0, max).join(', ')}, +${xs.length - max} more` : xs.join(', ');
/** At most MAX children, the rest counted. */
const capped = (nodes: BlastNode[], what = 'more'): BlastNode[] =>
  nodes.length > MAX ? [...nodes.slice(0, MAX), { text: `+${nodes.length - MAX} ${what}` }] : nodes;

/** A Service selector (a plain map) selects these labels; an empty or missing one selects nothing. */
const mapSelects = (sel: unknown, labels: Record<string, string> | undefined): boolean => {
  if (!sel || typeof sel !== 'object') return false;
  const entries = Object.entries(sel as Record<string, unknown>);
  return entries.length > 0 && entries.every(([k, v]) => labels?.[k] === v);
};

/** A LabelSelector (matchLabels, matchExpressions) selects these labels; a missing one selects everything. */
function labelSelects(sel: any, labels: Record<string, string>): boolean {
  if (!sel || typeof sel !== 'object') return true;
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of Array.isArray(sel.matchExpressions) ? sel.matchExpressions : []) {
    const has = e?.key in labels;
    const values: unknown[] = Array.isArray(e?.values) ? e.values : [];
    if (e?.operator === 'In' && !(has && values.includes(labels[e.key]))) return false;
    if (e?.operator === 'NotIn' && has && values.includes(labels[e.key])) return false;
    if (e?.operator === 'Exists' && !has) return false;
    if (e?.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

class Reader {
  private readonly nodes: Map<string, KObject>;
  readonly pods: KObject[];
  constructor(
    readonly snap: Snapshot,
    readonly now: Date,
  ) {
    this.nodes = new Map(snap.of(R.nodes).map((n) => [n.metadata.name, n]));
    this.pods = snap.of(R.pods);
  }

  service(ns: string, name: string): KObject | undefined {
    return this.snap.of(R.services).find((s) => s.metadata.namespace === ns && s.metadata.name === name);
  }

  /** The pods behind a Service: its selector, else the pods its EndpointSlices name. */
  podsOf(ns: string, name: string): KObject[] {
    const svc = this.service(ns, name);
    if (svc?.spec?.selector && Object.keys(svc.spec.selector).length)
      return this.pods.filter((p) => p.metadata.namespace === ns && mapSelects(svc.spec.selector, p.metadata.labels));
    const named = new Set(
      this.snap
        .of(R.endpointslices)
        .filter((e) => e.metadata.namespace === ns && e.metadata.labels?.['kubernetes.io/service-name'] === name)
        .flatMap((e) => (Array.isArray(e.endpoints) ? e.endpoints : []))
        .map((e) => (e?.targetRef?.kind === 'Pod' ? e.targetRef.name : undefined))
        .filter(Boolean),
    );
    return this.pods.filter((p) => p.metadata.namespace === ns && named.has(p.metadata.name));
  }

  nodeText(name: string): string {
    const n = this.nodes.get(name);
    if (!n) return `node ${name}`;
    const state = [isReady(n) ? 'Ready' : 'not Ready', ...(n.spec?.unschedulable ? ['cordoned'] : [])].join(', ');
    return `node ${name} (${state})`;
  }

  /** Service ns/name -> its pods -> their nodes. */
  serviceChain(ns: string, name: string, what = 'Service'): BlastNode {
    const svc = this.service(ns, name);
    if (!svc && !this.snap.gap(R.services)) return { text: `${what} ${ns}/${name} — not found` };
    const pods = this.podsOf(ns, name);
    const ready = pods.filter(isReady).length;
    const byNode = new Map<string, KObject[]>();
    for (const p of pods) {
      const n = p.spec?.nodeName ?? '(not scheduled)';
      byNode.set(n, [...(byNode.get(n) ?? []), p]);
    }
    return {
      text: `${what} ${ns}/${name} → ${pods.length ? `${plural(pods.length, 'pod')}, ${ready} ready` : 'no pod behind it'}`,
      children: capped(
        pods
          .sort((a, b) => byText(a.metadata.name, b.metadata.name))
          .map((p) => ({
            text: `pod ${p.metadata.name} — ${isReady(p) ? 'ready' : `not ready (${p.status?.phase ?? 'phase unknown'})`}`,
            children: [{ text: p.spec?.nodeName ? this.nodeText(p.spec.nodeName) : 'not scheduled on a node' }],
          })),
        'more pods',
      ),
    };
  }

  podsSummary(pods: KObject[]): string {
    const ns = new Set(pods.map((p) => p.metadata.namespace));
    const nodes = new Set(pods.map((p) => p.spec?.nodeName).filter(Boolean));
    return `${plural(pods.length, 'pod')} in ${plural(ns.size, 'namespace')} on ${plural(nodes.size, 'node')}`;
  }
}

const ops = (xs: unknown): string => (Array.isArray(xs) && xs.length ? xs.map(String).join('/') : '*');
function ruleText(r: any): string {
  const groups: string[] = Array.isArray(r?.apiGroups) ? r.apiGroups.map(String) : [];
  const res: string[] = Array.isArray(r?.resources) ? r.resources.map(String) : [];
  const g = groups.map((x) => (x === '' ? 'core' : x === '*' ? 'every API group' : x));
  return `${ops(r?.operations)} ${res.join(', ') || '(no resources)'}${g.length ? ` of ${g.join(', ')}` : ''}`;
}

/** A webhook's rules and the namespaces they reach, as the requests it decides. */
function requestsOf(w: any, namespaces: KObject[]): string {
  const rules = (Array.isArray(w?.rules) ? w.rules : []).map(ruleText);
  const sel = w?.namespaceSelector;
  const any = !sel || (!Object.keys(sel.matchLabels ?? {}).length && !(sel.matchExpressions ?? []).length);
  let where = 'in every namespace (and cluster-scoped objects)';
  if (!any && namespaces.length) {
    const hit = namespaces.filter((n) => labelSelects(sel, n.metadata.labels ?? { 'kubernetes.io/metadata.name': n.metadata.name }));
    where = `in ${hit.length} of ${plural(namespaces.length, 'namespace')}${hit.some((n) => n.metadata.name === 'kube-system') ? ', kube-system included' : ''} (and cluster-scoped objects)`;
  } else if (!any) where = 'in the namespaces its selector matches';
  return `${rules.join('; ') || 'no rules'} ${where}${w?.objectSelector && Object.keys(w.objectSelector).length ? ', objects its objectSelector matches' : ''}`;
}

function webhookRadius(r: Reader, cfg: KObject): Omit<BlastRadius, 'now' | 'parts'> {
  const hooks: any[] = Array.isArray(cfg.webhooks) ? cfg.webhooks : [];
  const namespaces = r.snap.of(R.namespaces);
  const chain: BlastNode[] = [];
  const takes: BlastNode[] = [];
  for (const w of hooks) {
    const closed = (w?.failurePolicy ?? 'Fail') === 'Fail';
    const name = String(w?.name ?? '?');
    const svc = w?.clientConfig?.service;
    const target: BlastNode =
      svc?.namespace && svc?.name
        ? r.serviceChain(String(svc.namespace), String(svc.name))
        : { text: `URL ${String(w?.clientConfig?.url ?? '?')} — outside the cluster's Services` };
    chain.push({ text: `webhook ${name} (${closed ? 'fails closed' : 'fails open'})`, children: [target] });
    takes.push(
      closed
        ? { text: `rejects, while its backend cannot answer: ${requestsOf(w, namespaces)}` }
        : { text: `fails open: while it cannot answer, ${requestsOf(w, namespaces)} pass unchecked (nothing is rejected)` },
    );
  }
  const closed = hooks.filter((w) => (w?.failurePolicy ?? 'Fail') === 'Fail');
  return {
    summary: closed.length
      ? `every request its ${plural(closed.length, 'fail-closed webhook')} match${closed.length === 1 ? 'es' : ''} is rejected while the backend is down`
      : 'nothing is rejected when it is down (it fails open): requests pass unchecked',
    chain,
    takes,
  };
}

function apiServiceRadius(r: Reader, a: KObject): Omit<BlastRadius, 'now' | 'parts'> {
  const gv = `${a.spec?.group ?? '?'}/${a.spec?.version ?? '?'}`;
  const svc = a.spec?.service;
  const available = condition(a, 'Available');
  const stuck = r.snap
    .of(R.namespaces)
    .filter((n) => n.metadata.deletionTimestamp && condition(n, 'NamespaceDeletionDiscoveryFailure')?.status === 'True')
    .map((n) => n.metadata.name);
  const takes: BlastNode[] = [
    {
      text: `discovery of ${gv}: kubectl api-resources, kubectl get and every client that discovers all groups report "unable to retrieve the complete list of server APIs: ${gv}"`,
    },
    {
      text: `namespace deletion: the namespace controller cannot list ${gv} in a deleting namespace, so it stays Terminating${stuck.length ? ` (now: ${list(stuck)})` : ''}`,
    },
    { text: `the garbage collector and quota controllers cannot watch ${gv}'s types: dependents of them are not collected` },
  ];
  if (a.spec?.group === 'metrics.k8s.io')
    takes.push({ text: 'HorizontalPodAutoscalers on CPU or memory and kubectl top have no metrics: autoscaling stops' });
  return {
    summary: `discovery of ${gv} breaks: kubectl, namespace deletion and the garbage collector stumble on it`,
    chain: [
      {
        text: `APIService ${a.metadata.name} — Available=${available?.status ?? '?'}${available?.reason ? ` (${available.reason})` : ''}`,
        children: svc?.namespace && svc?.name ? [r.serviceChain(String(svc.namespace), String(svc.name))] : [],
      },
    ],
    takes,
  };
}

function memberRadius(v: QuorumView, m: Member, distribution: Distribution): Omit<BlastRadius, 'now' | 'parts'> {
  let after: string;
  if (m.role === 'learner') after = 'a learner does not vote: losing it leaves quorum as it is (it was on its way to become a voter)';
  // "quorum: already down" read as if quorum were lost: it is the member that is down
  else if (m.health === 'unhealthy')
    after = `the member is already down: quorum rests on the ${v.healthyVoters} healthy voters and needs ${v.quorum}`;
  else if (m.health === 'unknown' || m.role === 'unknown') after = `its health is unknown: quorum needs ${v.quorum} of ${v.voters} voters`;
  else if (v.unknownVoters) {
    // the others' health is not visible: never counted as down, never as healthy
    const left = v.healthyVoters - 1;
    const unknown = v.unknownVoters;
    after =
      left >= v.quorum
        ? `without it: ${left} of ${v.voters} voters healthy (and ${unknown} of unknown health), quorum ${v.quorum} holds`
        : left + unknown >= v.quorum
          ? `without it: ${left} of ${v.voters} voters known healthy and ${unknown} of unknown health — quorum ${v.quorum} holds only if ${unknown === 1 ? 'that one is' : 'enough of them are'} healthy`
          : `without it: ${left} of ${v.voters} voters healthy and ${unknown} of unknown health, quorum needs ${v.quorum} — QUORUM LOST: the API servers can no longer write (or, past their cache, read) state, and every loop stops`;
  } else {
    const left = v.healthyVoters - 1;
    after =
      left >= v.quorum
        ? `without it: ${left} of ${v.voters} voters healthy, quorum ${v.quorum} holds — ${left - v.quorum === 0 ? 'no further failure tolerated' : `tolerates ${plural(left - v.quorum, 'more failure')}`}`
        : `without it: ${left} of ${v.voters} voters healthy, quorum needs ${v.quorum} — QUORUM LOST: the API servers can no longer write (or, past their cache, read) state, and every loop stops`;
  }
  const where =
    m.node && (distribution === 'K3s' || distribution === 'RKE2')
      ? `runs on node ${m.node}, in the ${distribution === 'K3s' ? '`k3s server` process' : '`rke2 server` static pods'} with that node's API server, controller manager and scheduler`
      : m.node
        ? `runs on node ${m.node}`
        : `runs at ${m.where}`;
  return {
    summary: `quorum: ${after.split(':')[0]}`,
    chain: [{ text: where }, { text: `evidence: ${m.evidence}` }],
    takes: [{ text: `quorum — ${after}` }],
  };
}

/** The objects of a line's findings (their union), for "named in its findings". */
function findingObjects(line: MapLine, results: CheckResult[]): ObjectRef[] {
  const seen = new Set<string>();
  const out: ObjectRef[] = [];
  for (const c of line.checks)
    for (const i of c.indexes ?? [])
      for (const o of results.find((x) => x.id === c.id)?.findings[i]?.objects ?? []) {
        const k = refText(o);
        if (!seen.has(k)) (seen.add(k), out.push(o));
      }
  return out;
}

/** Every part's blast radius, by partKey. */
export function blastRadii(snap: Snapshot, results: CheckResult[], map: ArchMap, now: Date): Record<string, BlastRadius> {
  const r = new Reader(snap, now);
  const { distribution } = detectDistribution(snap);
  const v = quorumView(snap, now);
  const keys = (contract: string, pred: (l: MapLine) => boolean = () => true): string[] =>
    map.sections.flatMap((s, si) => (s.contract === contract ? s.lines.flatMap((l, li) => (pred(l) ? [partKey(si, li)] : [])) : []));
  const out: Record<string, BlastRadius> = {};
  map.sections.forEach((sec, si) => {
    let parent: MapLine | undefined;
    sec.lines.forEach((line, li) => {
      if (!line.indent) parent = line;
      const key = partKey(si, li);
      const obj = line.objects?.[0];
      let b: Omit<BlastRadius, 'now' | 'parts'> | null = null;
      let parts: string[] = [];
      if (sec.contract === 'state') {
        if (!line.indent) {
          b = {
            summary: v.visible
              ? `every read and write of state — ${v.verdictLine}`
              : 'every read and write of state (members not visible here)',
            chain: v.members.map((m) => ({ text: `member ${m.name} — ${m.role}, ${m.health} (${m.where})` })),
            takes: [
              { text: 'the door: every API server reads and writes through it; without quorum no write succeeds' },
              { text: 'through the door, every loop (controllers, GitOps, operators) and every kubectl and kubelet request' },
            ],
          };
          parts = [...keys('door'), ...keys('loops')];
        } else {
          const m = v.members.find((x) => x.name === line.name);
          if (m) b = memberRadius(v, m, distribution);
          parts = keys('state', (l) => !l.indent);
        }
      } else if (sec.contract === 'door') {
        if (line.name === 'API servers') {
          const leases = snap.of(R.leases).filter((l) => l.metadata.namespace !== 'kube-node-lease' && l.spec?.holderIdentity).length;
          const kubelets = snap.of(R.nodes).length;
          b = {
            summary: 'every client of the cluster: nothing is read or changed but through them',
            chain: [{ text: `the kubernetes Service in default, and the state behind them (etcd)` }],
            takes: [
              { text: 'kubectl, CI and every user' },
              { text: `every controller (the loops: ${plural(leases, 'leader-election lease')} held)` },
              { text: `the kubelets of ${plural(kubelets, 'node')}: pod status, node heartbeats, new pods` },
              { text: 'admission webhooks and aggregated APIs, which only it calls' },
            ],
          };
          parts = [...keys('loops'), ...keys('door', (l) => l !== line)];
        } else if (line.name === 'serving certificate') {
          const until = snap.header.tls?.serving?.notAfter?.slice(0, 10) ?? '?';
          b = {
            summary: `every client that verifies the API server's certificate, from ${until} on`,
            chain: [{ text: `issued by ${snap.header.tls?.serving?.issuer ?? '?'}, valid until ${until}` }],
            takes: [{ text: `after ${until}: kubectl with this kubeconfig, kubelets and in-cluster clients fail TLS verification` }],
          };
          parts = keys('door', (l) => l.name === 'API servers');
        } else if (obj && /WebhookConfiguration$/.test(obj.kind)) {
          const cfg = [...snap.of(R.validatingWebhooks), ...snap.of(R.mutatingWebhooks)].find(
            (h) => h.kind === obj.kind && h.metadata.name === obj.name,
          );
          if (cfg) b = webhookRadius(r, cfg);
        } else if (obj?.kind === 'APIService') {
          const a = snap.of(R.apiservices).find((x) => x.metadata.name === obj.name);
          if (a) b = apiServiceRadius(r, a);
          parts = keys('loops', (l) => l.name === 'finalizers' || l.name === 'control plane');
        } else if (line.name === 'admission webhooks' || line.name === 'aggregated APIs') {
          const kids = sec.lines.slice(li + 1).filter((l, i, a) => l.indent && a.slice(0, i).every((x) => x.indent));
          b = {
            summary: kids.length ? `what its ${plural(kids.length, 'part')} below take (select each)` : 'none in the request path',
            chain: [],
            takes: kids.map((l) => ({ text: `${l.name}: ${l.detail}` })),
          };
        }
      } else if (sec.contract === 'loops') {
        b = loopRadius(r, line, parent, distribution);
      } else if (sec.contract === 'interfaces') {
        b = interfaceRadius(r, line, results);
        if (line.name === 'CNI') parts = keys('interfaces', (l) => ['DNS', 'ingress', 'load balancers'].includes(l.name));
        if (line.name === 'CRI') parts = keys('interfaces', (l) => l.name !== 'CRI');
      }
      b ??= { summary: '', chain: [], takes: [] };
      const named = findingObjects(line, results);
      if (named.length) b.takes.push({ text: 'named in its findings', children: capped(named.map((o) => ({ text: refText(o) }))) });
      out[key] = { now: line.checks.some((c) => c.status === 'findings'), ...b, parts };
    });
  });
  return out;
}

const CORE_LEADERS: Record<string, string> = {
  'kube-scheduler': 'new pods are not scheduled: they stay Pending (what runs keeps running)',
  'kube-controller-manager':
    'Deployments, ReplicaSets, Jobs, endpoints, node lifecycle, namespace deletion and garbage collection stop (what runs keeps running)',
  'cloud-controller-manager': 'LoadBalancer Services, routes and node addresses from the cloud stop being reconciled',
};

function loopRadius(r: Reader, line: MapLine, parent: MapLine | undefined, distribution: Distribution): Omit<BlastRadius, 'now' | 'parts'> {
  const snap = r.snap;
  if (line.name === 'control plane') {
    const k3s = distribution === 'K3s';
    return {
      summary: 'the built-in loops: scheduling, ReplicaSets, endpoints, garbage collection',
      chain: [{ text: line.detail }],
      takes: [
        { text: CORE_LEADERS['kube-scheduler']! },
        { text: CORE_LEADERS['kube-controller-manager']! },
        ...(k3s
          ? [
              {
                text: 'on K3s one `k3s server` process holds an API server, an etcd member and these loops: losing a server loses all three there',
              },
            ]
          : []),
      ],
    };
  }
  if (line.indent && parent?.name === 'control plane') {
    const pending = r.pods.filter((p) => p.status?.phase === 'Pending').length;
    const what = CORE_LEADERS[line.name] ?? 'what its controller reconciles stops changing while no one holds the lease';
    return {
      summary: what,
      chain: [{ text: line.detail }],
      takes: [{ text: what }, ...(line.name === 'kube-scheduler' ? [{ text: `pods Pending now: ${pending}` }] : [])],
    };
  }
  if (line.name === 'K3s deploy controller') {
    const owned = [...snap.all()].filter((o) => /Kind=Addon$/.test(o.metadata.annotations?.['objectset.rio.cattle.io/owner-gvk'] ?? ''));
    const addons = snap.of(R.addons);
    return {
      summary: `the objects of ${plural(addons.length, 'Addon')}: changes to their manifests wait for it`,
      chain: [{ text: 'the manifests in /var/lib/rancher/k3s/server/manifests on each server' }],
      takes: capped(
        addons.map((a) => {
          const mine = owned.filter((o) => o.metadata.annotations?.['objectset.rio.cattle.io/owner-name'] === a.metadata.name);
          return {
            text: `Addon ${a.metadata.name}: ${plural(mine.length, 'object')} in the snapshot`,
            children: capped(
              mine.map((o) => ({ text: refText({ kind: o.kind ?? '?', namespace: o.metadata.namespace, name: o.metadata.name }) })),
            ),
          };
        }),
        'more Addons',
      ),
    };
  }
  if (line.name === 'K3s helm controller') {
    const charts = snap.of(R.helmcharts);
    return {
      summary: `the releases of ${plural(charts.length, 'HelmChart')}: installs and upgrades wait for it`,
      chain: [],
      takes: capped(charts.map((c) => ({ text: `HelmChart ${c.metadata.namespace}/${c.metadata.name}` }))),
    };
  }
  if (line.name === 'Argo CD') {
    const apps = snap.of(R.argoApplications);
    const all = [...snap.all()];
    return {
      summary: `the objects of ${plural(apps.length, 'Application')}: drift is not corrected and syncs wait while it is down`,
      chain: [{ text: line.detail }],
      takes: capped(
        apps.map((a) => {
          const n = all.filter(
            (o) =>
              o !== a &&
              ((o.metadata.annotations?.['argocd.argoproj.io/tracking-id'] ?? '').startsWith(`${a.metadata.name}:`) ||
                o.metadata.labels?.['app.kubernetes.io/instance'] === a.metadata.name),
          ).length;
          return { text: `Application ${a.metadata.namespace}/${a.metadata.name}: ${plural(n, 'tracked object')} in the snapshot` };
        }),
        'more Applications',
      ),
    };
  }
  if (line.name === 'Flux') {
    const ks = snap.of(R.fluxKustomizations);
    const hr = snap.of(R.fluxHelmReleases);
    return {
      summary: `the objects of ${plural(ks.length, 'Kustomization')} and ${plural(hr.length, 'HelmRelease')}`,
      chain: [],
      takes: capped([...ks, ...hr].map((o) => ({ text: `${o.kind} ${o.metadata.namespace}/${o.metadata.name}` }))),
    };
  }
  if (line.name === 'finalizers') {
    const deleting = [...snap.all()].filter((o) => o.metadata.deletionTimestamp);
    return {
      summary: deleting.length ? `${plural(deleting.length, 'deletion')} waiting on finalizers` : 'nothing is deleting',
      chain: [],
      takes: capped(
        deleting.map((o) => ({
          text: `${refText({ kind: o.kind ?? '?', namespace: o.metadata.namespace, name: o.metadata.name })} waits for ${list(o.metadata.finalizers ?? []) || 'no finalizer'}`,
        })),
        'more deletions',
      ),
    };
  }
  // an operator by its leader-election lease
  return {
    summary: 'what its controller reconciles stops changing while no one holds the lease',
    chain: [{ text: line.detail }],
    takes: [{ text: 'the objects its controller reconciles (not named by the lease)' }],
  };
}

function interfaceRadius(r: Reader, line: MapLine, results: CheckResult[]): Omit<BlastRadius, 'now' | 'parts'> {
  const snap = r.snap;
  const pods = r.pods;
  if (line.name === 'CRI') {
    const byNode = new Map<string, number>();
    for (const p of pods) if (p.spec?.nodeName) byNode.set(p.spec.nodeName, (byNode.get(p.spec.nodeName) ?? 0) + 1);
    return {
      summary: `every container: ${r.podsSummary(pods)}`,
      chain: [{ text: line.detail }],
      takes: capped(
        [...byNode].sort((a, b) => byText(a[0], b[0])).map(([n, c]) => ({ text: `${r.nodeText(n)}: ${plural(c, 'pod')}` })),
        'more nodes',
      ),
    };
  }
  if (line.name === 'CNI') {
    return {
      summary: `every pod's network (host-network pods aside): ${r.podsSummary(pods)}`,
      chain: [{ text: line.detail }],
      takes: [{ text: 'Service traffic, cluster DNS, ingress and load balancers ride on it' }],
    };
  }
  if (line.name === 'CSI') {
    const pvs = snap.of(R.persistentvolumes);
    const byDriver = new Map<string, KObject[]>();
    for (const pv of pvs) {
      const d = pv.spec?.csi?.driver ?? (pv.spec?.hostPath || pv.spec?.local ? 'node-local (hostPath/local, no CSI)' : 'in-tree or other');
      byDriver.set(d, [...(byDriver.get(d) ?? []), pv]);
    }
    return {
      summary: `${plural(pvs.length, 'PersistentVolume')}: the pods that mount them cannot start where their driver is missing`,
      chain: [{ text: line.detail }],
      takes: [...byDriver].map(([d, vs]) => ({
        text: `${d}: ${plural(vs.length, 'volume')}`,
        children: capped(
          vs.map((pv) => ({
            text: `PersistentVolume ${pv.metadata.name}${pv.spec?.claimRef ? ` → claim ${pv.spec.claimRef.namespace}/${pv.spec.claimRef.name}` : ''}`,
          })),
          'more volumes',
        ),
      })),
    };
  }
  if (line.name === 'DNS') {
    const dnsCheck = results.find((x) => x.id === 'cluster-dns');
    const svc =
      r.service('kube-system', 'kube-dns') ??
      snap.of(R.services).find((s) => s.metadata.namespace === 'kube-system' && s.metadata.labels?.['k8s-app'] === 'kube-dns');
    return {
      summary: `every pod that resolves names through it: ${r.podsSummary(pods)}`,
      chain: svc ? [r.serviceChain('kube-system', svc.metadata.name, 'cluster DNS Service')] : [{ text: 'cluster DNS Service not found' }],
      takes: [
        {
          text: `every pod with dnsPolicy ClusterFirst (the default): ${r.podsSummary(pods)} — Service names stop resolving, so service-to-service calls, webhooks' callers and controllers reaching Services by name fail`,
        },
        ...(dnsCheck?.status === 'findings' ? [{ text: `now: ${dnsCheck.findings[0]?.title ?? ''}` }] : []),
      ],
    };
  }
  if (line.name === 'ingress') {
    const ings = snap.of(R.ingresses);
    return {
      summary: `${plural(ings.length, 'Ingress', 'Ingresses')}: their hosts are unreachable from outside when the controller is down`,
      chain: [{ text: line.detail }],
      takes: capped(
        ings.map((i) => {
          const hosts = (Array.isArray(i.spec?.rules) ? i.spec.rules : []).map((x: any) => String(x?.host ?? '*'));
          return { text: `Ingress ${i.metadata.namespace}/${i.metadata.name}: ${list(hosts) || 'no host'}` };
        }),
        'more Ingresses',
      ),
    };
  }
  if (line.name === 'load balancers') {
    const lbs = snap.of(R.services).filter((s) => s.spec?.type === 'LoadBalancer');
    return {
      summary: `${plural(lbs.length, 'Service')} of type LoadBalancer: reachable from outside only through it`,
      chain: [{ text: line.detail }],
      takes: capped(lbs.map((s) => ({ text: `Service ${s.metadata.namespace}/${s.metadata.name}` }))),
    };
  }
  return { summary: '', chain: [], takes: [] };
}

export interface ControlPlaneLayout {
  /** How the control plane runs here, as the page writes it around the door, state and loops. */
  kind: 'server process' | 'static pods' | 'managed' | 'unknown';
  text: string;
  nodes: string[];
}

/** Where the door, state and the control-plane loops really run on this distribution. */
export function controlPlaneLayout(snap: Snapshot, now: Date): ControlPlaneLayout {
  const { distribution } = detectDistribution(snap);
  const v = quorumView(snap, now);
  const servers = [
    ...new Set([
      ...v.members.map((m) => m.node).filter((n): n is string => Boolean(n)),
      ...snap
        .of(R.nodes)
        .filter((n) =>
          Object.keys(n.metadata.labels ?? {}).some(
            (k) => k === 'node-role.kubernetes.io/control-plane' || k === 'node-role.kubernetes.io/master',
          ),
        )
        .map((n) => n.metadata.name),
    ]),
  ];
  const staticPods = snap.of(R.pods).filter((p) => p.metadata.namespace === 'kube-system' && p.metadata.labels?.tier === 'control-plane');
  switch (distribution) {
    case 'K3s':
      return {
        kind: 'server process',
        text: `K3s: one \`k3s server\` process on each server (${list(servers) || 'servers not visible'}) holds the door, its etcd member and the control-plane loops`,
        nodes: servers,
      };
    case 'RKE2':
      return {
        kind: 'static pods',
        text: `RKE2: \`rke2 server\` on each server (${list(servers) || 'servers not visible'}) runs the API server, etcd and the control-plane loops as static pods`,
        nodes: servers,
      };
    case 'k0s':
      return { kind: 'server process', text: 'k0s: controller processes, not visible as pods or nodes', nodes: [] };
    case 'EKS':
    case 'GKE':
    case 'AKS':
      return {
        kind: 'managed',
        text: `${distribution}: the door, state and control-plane loops are managed by the provider — not visible`,
        nodes: [],
      };
    default: {
      if (staticPods.length) {
        const nodes = [...new Set(staticPods.map((p) => p.spec?.nodeName).filter(Boolean))] as string[];
        return {
          kind: 'static pods',
          text: `${distribution === 'unknown' ? 'static pods' : `${distribution}: static pods`} in kube-system on ${list(nodes) || '?'} (${list(
            [...new Set(staticPods.map((p) => p.metadata.labels?.component ?? p.metadata.name))].sort(),
          )})`,
          nodes,
        };
      }
      return {
        kind: 'unknown',
        text: `${distribution === 'unknown' ? 'the distribution' : distribution}: where the control plane runs is not visible`,
        nodes: [],
      };
    }
  }
}
