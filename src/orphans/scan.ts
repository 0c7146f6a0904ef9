// The orphan scan: objects whose GitOps owner (Argo CD Application, Flux Kustomization/HelmRelease) no longer
// exists, grouped by that former owner, with liveness through every chain and confidence; objects tracked by an
// owner that is not in this cluster (cannot be judged here); Applications being deleted; kept-on-purpose
// objects; live Applications at risk; dangling ownerReferences. Pure: snapshot in, report out.
// Steps: owners (what can be judged) → claims (who says each object is theirs) → groups → liveness and
// namespace safety → risks and deletions.
import { condition, refOf } from '../lib/k8s.js';
import { groupOf, refText, type KObject, type Need, type ObjectRef } from '../model.js';
import { R } from '../resources.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { buildIndex, liveness, type LiveIndex, type Liveness } from './liveness.js';
import {
  argoConfig,
  CASCADING_FINALIZERS,
  claim,
  isRoot,
  keptReason,
  renderedByHelmTemplate,
  type ArgoConfig,
  type Attribution,
  type Confidence,
  type Signal,
} from './tracking.js';
import { byText } from '../lib/order.js';

export { parseTrackingId } from './tracking.js';
export type { Confidence, Signal } from './tracking.js';
export type { Liveness } from './liveness.js';

export interface OrphanObject extends ObjectRef {
  signal: Signal;
  created?: string;
}

export interface NamespacePlan {
  name: string;
  /** Every object in it belongs to the group (or is derived from it), so deleting the namespace is safe. */
  deletable: boolean;
  /** What else lives there, when not deletable. */
  others: string[];
}

export interface StorageNote {
  kind: string;
  namespace?: string;
  name: string;
  volume?: string;
  reclaimPolicy?: string;
}

export interface OrphanGroup {
  owner: { tool: 'Argo CD' | 'Flux'; kind: string; namespace?: string; name: string };
  /** The owner exists, but deploys to another cluster now: what it left here is no longer its (where it deploys). */
  movedTo?: string;
  objects: OrphanObject[];
  namespaced: number;
  clusterScoped: number;
  confidence: Confidence;
  signals: Signal[];
  caveats: string[];
  oldest?: string;
  liveness: Liveness;
  namespaces: NamespacePlan[];
  storage: StorageNote[];
}

/** Objects tracked by an owner whose controller does not run in this cluster: cannot be judged here. */
export interface ElsewhereGroup {
  tool: 'Argo CD' | 'Flux';
  owners: string[];
  /** Owners named only by the instance label (weak evidence: Helm charts and other tools set it too). */
  labelOnly: string[];
  installationIDs: string[];
  objects: OrphanObject[];
  confidence: Confidence;
  liveness: Liveness;
}

export interface KeptObject extends ObjectRef {
  owner: string;
  reason: string;
}

export interface Risk {
  kind: 'no-cascading-finalizer' | 'app-of-apps-parent';
  app: ObjectRef;
  trackedObjects: number;
  children?: string[];
}

export interface Deleting {
  app: ObjectRef;
  since: string;
  ageSeconds?: number;
  finalizers: string[];
  condition?: string;
  controllerRunning: boolean | null;
}

export interface Dangling extends ObjectRef {
  ownerKind: string;
  ownerName: string;
  ownerUid: string;
}

/** An Argo CD Application whose owner (an ApplicationSet) is gone while it carries the resources finalizer: the
 *  garbage collector will delete it, and Argo CD then deletes everything it deployed. */
export interface ComingDeletion {
  ownerKind: string;
  ownerName: string;
  apps: Array<{ app: ObjectRef; finalizer: string; trackedObjects: number }>;
}

export type OwnerState = 'listed' | 'not-installed' | 'not-visible';

export interface OrphanReport {
  argo: {
    visible: boolean;
    state: OwnerState;
    reason?: string;
    namespace?: string;
    trackingMethod: string;
    instanceLabelKey: string;
    installationID?: string;
    apps: number;
  };
  flux: { visible: boolean; state: OwnerState; reason?: string; kustomizations: number; helmReleases: number };
  groups: OrphanGroup[];
  elsewhere: ElsewhereGroup[];
  deleting: Deleting[];
  kept: KeptObject[];
  risks: Risk[];
  dangling: Dangling[];
  comingDeletions: ComingDeletion[];
  ignoredCopiedAnnotations: number;
  scanned: number;
  notes: string[];
}

const nsName = (o: { namespace?: string; name: string }): string => `${o.namespace ?? ''}/${o.name}`;

/** listed: existence can be judged; not-installed: the API is not served here (404, or absent from a full capture). */
function ownerState(snap: Snapshot, need: Need): { state: OwnerState; reason?: string } {
  const v = snap.visibility(need);
  if (!v) return { state: 'listed' };
  if (
    v.status === 404 ||
    (snap.header.allTypes && v.status === undefined && !snap.unavailable().some((u) => u.group === need.group && u.kind === need.kind))
  ) {
    return { state: 'not-installed', reason: `${need.resource}.${need.group} is not served here` };
  }
  return { state: 'not-visible', reason: v.reason };
}

/** Kinds the live scan does not list (cluster/discovery.ts SKIP_TYPES); skipped in files too, so both agree. */
const NOT_SCANNED = new Set([
  'Event',
  'SnapshotHeader',
  'Endpoints',
  'EndpointSlice',
  'Lease',
  'ControllerRevision',
  'ComponentStatus',
  'Secret',
]);

/** Objects a namespace holds that say nothing about its owner (created by Kubernetes itself). */
const DERIVED = new Set(['Event', 'Endpoints', 'EndpointSlice', 'ControllerRevision', 'Lease', 'PodMetrics']);
const isDefault = (o: KObject): boolean =>
  (o.kind === 'ServiceAccount' && o.metadata.name === 'default') || (o.kind === 'ConfigMap' && o.metadata.name === 'kube-root-ca.crt');

export function scanOrphans(snap: Snapshot): OrphanReport {
  const notes: string[] = [];
  const scope = snap.header.namespace;
  const cfg: ArgoConfig = argoConfig(snap);
  if (scope && !cfg.namespace) notes.push(`argocd-cm is outside namespace ${scope}: default tracking settings assumed`);

  // ---- owners: what exists, and which owner types can be judged at all
  const argo = ownerState(snap, R.argoApplications);
  const ks = ownerState(snap, R.fluxKustomizations);
  const hr = ownerState(snap, R.fluxHelmReleases);
  const apps = snap.of(R.argoApplications);
  const controllerNs = cfg.namespace ?? apps[0]?.metadata.namespace;
  const liveApps = new Set(apps.map((a) => nsName(a.metadata)));
  const liveKs = new Set(snap.of(R.fluxKustomizations).map((k) => nsName(k.metadata)));
  const liveHr = new Set(snap.of(R.fluxHelmReleases).map((k) => nsName(k.metadata)));
  const stateOf = (a: Attribution): OwnerState => (a.tool === 'Argo CD' ? argo.state : a.kind === 'Kustomization' ? ks.state : hr.state);
  const exists = (a: Attribution): boolean => {
    const k = nsName(a);
    return a.tool === 'Argo CD' ? liveApps.has(k) : a.kind === 'Kustomization' ? liveKs.has(k) : liveHr.has(k);
  };

  // ---- owners that deploy to another cluster now: what they track here was left behind (a moved destination). This
  // cluster is the in-cluster address, the server it was read through, or an address its API server answers on (the
  // default/kubernetes endpoints, its serving certificate's names); a destination by cluster name other than in-cluster
  // cannot be resolved without Argo CD's cluster Secrets, which are never read: it is said, not judged.
  const here = new Set<string>(['kubernetes.default.svc', 'kubernetes.default.svc.cluster.local']);
  const hostOf = (u: string): string => {
    try {
      return new URL(u).hostname.replace(/^\[|\]$/g, '');
    } catch {
      return '';
    }
  };
  if (snap.header.server) here.add(hostOf(snap.header.server));
  for (const n of snap.header.tls?.serving?.dnsNames ?? []) here.add(n);
  for (const e of snap.of(R.endpoints))
    if (e.metadata.namespace === 'default' && e.metadata.name === 'kubernetes')
      for (const sub of Array.isArray(e.subsets) ? e.subsets : [])
        for (const a of Array.isArray(sub?.addresses) ? sub.addresses : []) if (a?.ip) here.add(String(a.ip));
  const appObjects = new Map(apps.map((a) => [nsName(a.metadata), a] as const));
  const fluxObjects = new Map(
    [...snap.of(R.fluxKustomizations), ...snap.of(R.fluxHelmReleases)].map((o) => [`${o.kind}|${nsName(o.metadata)}`, o] as const),
  );
  const byName = new Map<string, { app: string; cluster: string; objects: number }>();
  /** Where the owner deploys when that is another cluster, with the evidence; undefined for this cluster (or when it
   *  cannot be told: a destination by cluster name, noted). */
  const elsewhereNow = (a: Attribution): string | undefined => {
    if (a.tool === 'Argo CD') {
      const d = appObjects.get(nsName(a))?.spec?.destination;
      if (!d || typeof d !== 'object') return undefined;
      if (typeof d.server === 'string' && d.server !== '') {
        const host = hostOf(d.server);
        return host && !here.has(host)
          ? `${d.server} (spec.destination.server; this cluster answers on ${[...here].filter(Boolean).join(', ')})`
          : undefined;
      }
      if (typeof d.name === 'string' && d.name !== '' && d.name !== 'in-cluster') {
        const k = nsName(a);
        const cur = byName.get(k) ?? { app: k, cluster: d.name, objects: 0 };
        cur.objects++;
        byName.set(k, cur);
      }
      return undefined;
    }
    const kc = fluxObjects.get(`${a.kind}|${nsName(a)}`)?.spec?.kubeConfig;
    if (kc && typeof kc === 'object') {
      const ref = kc.secretRef?.name ?? kc.configMapRef?.name;
      return `a remote cluster (spec.kubeConfig${ref ? `, ${kc.secretRef ? 'Secret' : 'ConfigMap'} ${ref}` : ''})`;
    }
    return undefined;
  };
  const moved = new Map<string, string>();

  // ---- claims
  const idx = buildIndex(snap);
  const groups = new Map<
    string,
    { attr: Attribution; objs: KObject[]; signals: Set<Signal>; caveats: Set<string>; confidence: Confidence }
  >();
  const elsewhere = new Map<
    string,
    {
      tool: 'Argo CD' | 'Flux';
      owners: Set<string>;
      strong: Set<string>;
      ids: Set<string>;
      objs: KObject[];
      confidence: Confidence;
    }
  >();
  const kept: KeptObject[] = [];
  const dangling: Dangling[] = [];
  const trackedByApp = new Map<string, number>();
  const childApps = new Map<string, string[]>();
  const allUids = new Set<string>();
  for (const o of snap.all()) if (o.metadata.uid) allUids.add(o.metadata.uid);
  const ownerTypeVisible = new Map<string, boolean>();
  let copied = 0;
  let foreign = 0;
  let scanned = 0;
  const unjudged = { argo: 0, flux: 0 };

  for (const o of snap.all()) {
    // derived objects (Endpoints copy their Service's labels) and events are not owned: the live scan never lists them
    if (NOT_SCANNED.has(o.kind ?? '')) continue;
    scanned++;
    for (const r of o.metadata.ownerReferences ?? []) {
      // owners that no longer exist (only when the owner's type was captured)
      if (!r.uid || allUids.has(r.uid)) continue;
      const vk = `${r.apiVersion}|${r.kind}`;
      let visible = ownerTypeVisible.get(vk);
      if (visible === undefined) {
        visible = !snap.visibility({ group: groupOf(r.apiVersion), kind: r.kind, resource: r.kind.toLowerCase() + 's' });
        ownerTypeVisible.set(vk, visible);
      }
      if (visible) dangling.push({ ...refOf(o), ownerKind: r.kind, ownerName: r.name, ownerUid: r.uid });
    }
    if (!isRoot(o)) continue;
    const c = claim(o, cfg, controllerNs, liveApps);
    if (!c) continue;
    if ('copied' in c) {
      copied++;
      continue;
    }
    if ('foreignInstall' in c) {
      foreign++;
      continue;
    }
    const attr = c.attr;
    // -n: a cluster-scoped object belongs to the scope only if its tracking names that namespace
    if (scope && !o.metadata.namespace && attr.trackedNamespace !== scope) continue;
    const key = nsName(attr);
    const st = stateOf(attr);
    // an Application tracked by a parent is one Argo CD reads here, whatever the parent's destination (app of apps)
    const away =
      st === 'listed' && exists(attr) && !(o.kind === 'Application' && groupOf(o.apiVersion) === 'argoproj.io')
        ? elsewhereNow(attr)
        : undefined;
    if (away) moved.set(`${attr.tool}|${attr.kind}|${key}`, away);
    if (st === 'listed' && exists(attr) && !away) {
      if (attr.tool === 'Argo CD') {
        trackedByApp.set(key, (trackedByApp.get(key) ?? 0) + 1);
        const list = idx.argoTracked.get(key);
        if (list) list.push(o);
        else idx.argoTracked.set(key, [o]);
        if (o.kind === 'Application' && groupOf(o.apiVersion) === 'argoproj.io')
          childApps.set(key, [...(childApps.get(key) ?? []), nsName(o.metadata)]);
      }
      continue;
    }
    if (st === 'not-visible') {
      if (attr.signal !== 'label') unjudged[attr.tool === 'Argo CD' ? 'argo' : 'flux']++;
      continue;
    }
    if (st === 'not-installed') {
      // tracked by a GitOps tool that does not run here (e.g. Argo CD in a management cluster): it cannot be judged,
      // and the owners are named — those known only by the instance label as such (weak: Helm charts set it too,
      // except where `helm template` rendered the object, as Argo CD does)
      const ek = attr.tool;
      const cur = elsewhere.get(ek) ?? {
        tool: attr.tool,
        owners: new Set<string>(),
        strong: new Set<string>(),
        ids: new Set<string>(),
        objs: [],
        confidence: attr.confidence,
      };
      cur.owners.add(refText(attr));
      if (attr.signal !== 'label' || renderedByHelmTemplate(o)) cur.strong.add(refText(attr));
      const id = o.metadata.annotations?.['argocd.argoproj.io/installation-id'];
      if (id) cur.ids.add(id);
      cur.objs.push(o);
      if (attr.confidence === 'high') cur.confidence = 'high';
      elsewhere.set(ek, cur);
      continue;
    }
    const why = keptReason(o);
    if (why) {
      kept.push({ ...refOf(o), owner: `${attr.kind} ${key}`, reason: why });
      continue;
    }
    const gk = `${attr.tool}|${attr.kind}|${key}`;
    const cur = groups.get(gk) ?? { attr, objs: [], signals: new Set<Signal>(), caveats: new Set<string>(), confidence: attr.confidence };
    cur.objs.push(o);
    cur.signals.add(attr.signal);
    if (attr.caveat) cur.caveats.add(attr.caveat);
    if (rank(attr.confidence) > rank(cur.confidence)) cur.confidence = attr.confidence;
    groups.set(gk, cur);
  }

  // ---- notes: what could not be judged, and why
  if (argo.state === 'not-visible')
    notes.push(`Argo CD Applications not visible (${argo.reason}): objects tracked by Argo CD cannot be judged`);
  if (ks.state === 'not-visible') notes.push(`Flux Kustomizations not visible (${ks.reason})`);
  if (hr.state === 'not-visible') notes.push(`Flux HelmReleases not visible (${hr.reason})`);
  if (unjudged.argo || unjudged.flux)
    notes.push(
      `${unjudged.argo + unjudged.flux} tracked object${unjudged.argo + unjudged.flux === 1 ? '' : 's'} not judged: their owner type could not be listed`,
    );
  if (foreign)
    notes.push(
      `${foreign} object${foreign === 1 ? ' belongs' : 's belong'} to another Argo CD installation (installation-id differs): not judged here`,
    );
  if (snap.headerless || !snap.header.allTypes)
    notes.push('the scan covers the types present in the snapshot; a live scan reads every listable type through discovery');
  for (const e of snap.header.discoveryErrors ?? []) notes.push(e);
  const unreadable = snap.unavailable().filter((u) => u.status !== 404 && u.group !== 'argoproj.io' && !u.group.endsWith('fluxcd.io'));
  if (unreadable.length) {
    const why = (u: { status?: number }): string => (u.status === 403 ? '403' : u.status ? String(u.status) : 'error');
    notes.push(
      `partial visibility: ${unreadable.length} type${unreadable.length === 1 ? '' : 's'} could not be listed, not scanned: ${unreadable.map((u) => `${u.resource ?? u.kind}${u.group ? '.' + u.group : ''} (${why(u)})`).join(', ')}`,
    );
  }
  for (const b of byName.values())
    notes.push(
      `Argo CD Application ${b.app} deploys to cluster "${b.cluster}" by name: whether that is this cluster cannot be told (Argo CD's cluster Secrets are never read); if it is another, the ${b.objects} object${b.objects === 1 ? '' : 's'} here that it tracks were left behind by a moved destination`,
    );
  notes.push('Secrets are never read (not even metadata), so leftover Secrets are not listed');

  // ---- groups: liveness, namespace safety, storage
  const byNamespace = new Map<string, KObject[]>();
  for (const o of snap.all()) {
    const ns = o.metadata.namespace;
    if (!ns || DERIVED.has(o.kind ?? '') || isDefault(o)) continue;
    const cur = byNamespace.get(ns);
    if (cur) cur.push(o);
    else byNamespace.set(ns, [o]);
  }
  const pvs = new Map(snap.of(R.persistentvolumes).map((p) => [p.metadata.name, p] as const));
  const order = (x: KObject): string => `${x.kind}\u0000${x.metadata.namespace ?? ''}\u0000${x.metadata.name}`;
  const sortObjs = (objs: KObject[]): KObject[] => [...objs].sort((a, b) => byText(order(a), order(b)));
  const toOrphan = (o: KObject, signal: Signal): OrphanObject => ({ ...refOf(o), signal, created: o.metadata.creationTimestamp });
  const signalOf = (o: KObject, attrSignal: Signal): Signal =>
    o.metadata.annotations?.['argocd.argoproj.io/tracking-id']
      ? o.metadata.labels?.[cfg.instanceLabelKey]
        ? 'annotation+label'
        : 'annotation'
      : attrSignal;

  const out: OrphanGroup[] = [...groups.values()]
    .map(({ attr, objs: unsorted, signals, caveats, confidence }) => {
      const objs = sortObjs(unsorted);
      const created = objs
        .map((o) => o.metadata.creationTimestamp)
        .filter((x): x is string => Boolean(x))
        .sort();
      const live = liveness(objs, idx);
      const away = moved.get(`${attr.tool}|${attr.kind}|${nsName(attr)}`);
      return {
        owner: { tool: attr.tool, kind: attr.kind, namespace: attr.namespace, name: attr.name },
        ...(away ? { movedTo: away } : {}),
        objects: objs.map((o) => toOrphan(o, signalOf(o, attr.signal))),
        namespaced: objs.filter((o) => o.metadata.namespace).length,
        clusterScoped: objs.filter((o) => !o.metadata.namespace).length,
        confidence,
        signals: [...signals],
        caveats: [...caveats],
        oldest: created[0],
        liveness: live,
        namespaces: namespacePlans(objs, idx, byNamespace),
        storage: storageNotes(objs, pvs),
      };
    })
    .sort(
      (a, b) =>
        Number(b.liveness.servingTraffic) - Number(a.liveness.servingTraffic) ||
        b.liveness.runningPods - a.liveness.runningPods ||
        (b.confidence === 'high' ? 1 : 0) - (a.confidence === 'high' ? 1 : 0) ||
        byText(a.owner.name, b.owner.name),
    );

  const elsewhereOut: ElsewhereGroup[] = [...elsewhere.values()].map((e) => {
    const objs = sortObjs(e.objs);
    return {
      tool: e.tool,
      owners: [...e.owners].sort(),
      labelOnly: [...e.owners].filter((o) => !e.strong.has(o)).sort(),
      installationIDs: [...e.ids].sort(),
      objects: objs.map((o) => toOrphan(o, signalOf(o, e.tool === 'Flux' ? 'flux-labels' : 'label'))),
      confidence: e.confidence,
      liveness: liveness(objs, idx),
    };
  });

  // ---- live Applications: being deleted, or at risk of orphaning on delete
  const now = Date.parse(snap.header.capturedAt ?? '') || Date.now();
  const controllerRunning = argoControllerRunning(snap, controllerNs);
  const deleting: Deleting[] = [];
  const risks: Risk[] = [];
  // a dangling ownerReference is a coming deletion: an Application the garbage collector will delete takes what it
  // deployed with it when it carries the resources finalizer (an ApplicationSet deleted without orphaning)
  const comingDeletions: ComingDeletion[] = [];
  const appsByUid = new Map(apps.map((a) => [a.metadata.uid, a] as const));
  for (const d of [...dangling]) {
    if (d.kind !== 'Application' || groupOf(d.apiVersion) !== 'argoproj.io') continue;
    const app = apps.find((a) => a.metadata.name === d.name && a.metadata.namespace === d.namespace);
    if (!app || !appsByUid.has(app.metadata.uid)) continue;
    // already being deleted: that is ARCH-OR08's story, not a second finding
    if (app.metadata.deletionTimestamp) {
      dangling.splice(dangling.indexOf(d), 1);
      continue;
    }
    const finalizer = (app.metadata.finalizers ?? []).find((f) => CASCADING_FINALIZERS.includes(f));
    if (!finalizer) continue;
    dangling.splice(dangling.indexOf(d), 1);
    // one gone owner, one finding: its Applications together
    let c = comingDeletions.find((x) => x.ownerKind === d.ownerKind && x.ownerName === d.ownerName);
    if (!c) comingDeletions.push((c = { ownerKind: d.ownerKind, ownerName: d.ownerName, apps: [] }));
    c.apps.push({ app: refOf(app), finalizer, trackedObjects: trackedByApp.get(nsName(app.metadata)) ?? 0 });
  }
  for (const app of apps) {
    const key = nsName(app.metadata);
    const finalizers = (app.metadata.finalizers ?? []).filter((f) => f.includes('argocd.argoproj.io'));
    if (app.metadata.deletionTimestamp) {
      const t = Date.parse(app.metadata.deletionTimestamp);
      const cond = condition(app, 'DeletionError');
      deleting.push({
        app: refOf(app),
        since: app.metadata.deletionTimestamp,
        ageSeconds: Number.isNaN(t) ? undefined : Math.max(0, Math.round((now - t) / 1000)),
        finalizers,
        condition: typeof cond?.message === 'string' ? cond.message : undefined,
        controllerRunning,
      });
      continue;
    }
    const cascades = (app.metadata.finalizers ?? []).some((f) => CASCADING_FINALIZERS.includes(f));
    if (cascades) continue;
    if (scope && app.spec?.destination?.namespace !== scope) continue;
    const children = childApps.get(key);
    risks.push({
      kind: children?.length ? 'app-of-apps-parent' : 'no-cascading-finalizer',
      app: refOf(app),
      trackedObjects: trackedByApp.get(key) ?? 0,
      children,
    });
  }
  dangling.sort((a, b) => byText(`${a.kind}/${a.namespace}/${a.name}`, `${b.kind}/${b.namespace}/${b.name}`));
  kept.sort((a, b) => byText(`${a.kind}/${a.namespace}/${a.name}`, `${b.kind}/${b.namespace}/${b.name}`));
  return {
    argo: {
      visible: argo.state === 'listed',
      state: argo.state,
      reason: argo.reason,
      namespace: controllerNs,
      trackingMethod: cfg.trackingMethod || '(default)',
      instanceLabelKey: cfg.instanceLabelKey,
      installationID: cfg.installationID,
      apps: apps.length,
    },
    flux: {
      visible: ks.state === 'listed' || hr.state === 'listed',
      state:
        ks.state === 'listed' || hr.state === 'listed'
          ? 'listed'
          : ks.state === 'not-visible' || hr.state === 'not-visible'
            ? 'not-visible'
            : 'not-installed',
      reason: ks.reason ?? hr.reason,
      kustomizations: liveKs.size,
      helmReleases: liveHr.size,
    },
    groups: out,
    elsewhere: elsewhereOut,
    deleting,
    kept,
    risks,
    dangling,
    comingDeletions,
    ignoredCopiedAnnotations: copied,
    scanned,
    notes,
  };
}

const rank = (c: Confidence): number => (c === 'high' ? 2 : c === 'medium' ? 1 : 0);

/** Is Argo CD's application controller running (a Running pod in its namespace)? null when pods are not visible. */
function argoControllerRunning(snap: Snapshot, ns: string | undefined): boolean | null {
  if (snap.visibility(R.pods)) return null;
  return snap
    .of(R.pods)
    .some(
      (p) =>
        (!ns || p.metadata.namespace === ns) &&
        p.status?.phase === 'Running' &&
        (p.metadata.labels?.['app.kubernetes.io/name'] === 'argocd-application-controller' ||
          /application-controller/.test(p.metadata.name)),
    );
}

/** A namespace may be deleted only when everything in it belongs to the group (or was made from it). */
function namespacePlans(objs: KObject[], idx: LiveIndex, byNamespace: Map<string, KObject[]>): NamespacePlan[] {
  const mine = new Set<KObject>();
  const queue = [...objs];
  while (queue.length) {
    const o = queue.pop()!;
    if (mine.has(o)) continue;
    mine.add(o);
    if (o.metadata.uid) queue.push(...(idx.childrenOf.get(o.metadata.uid) ?? []));
  }
  const names = new Set<string>();
  for (const o of objs) {
    if (o.metadata.namespace) names.add(o.metadata.namespace);
    if (o.kind === 'Namespace' && !o.metadata.namespace) names.add(o.metadata.name);
  }
  return [...names].sort().map((name) => {
    const others = (byNamespace.get(name) ?? []).filter((o) => !mine.has(o));
    return {
      name,
      deletable: others.length === 0,
      others: others
        .slice(0, 5)
        .map((o) => `${o.kind} ${o.metadata.name}`)
        .concat(others.length > 5 ? [`… ${others.length - 5} more`] : []),
    };
  });
}

function storageNotes(objs: KObject[], pvs: Map<string, KObject>): StorageNote[] {
  const out: StorageNote[] = [];
  for (const o of objs) {
    if (groupOf(o.apiVersion) !== '') continue;
    if (o.kind === 'PersistentVolume')
      out.push({ kind: o.kind, name: o.metadata.name, reclaimPolicy: o.spec?.persistentVolumeReclaimPolicy });
    if (o.kind === 'PersistentVolumeClaim') {
      const pv = typeof o.spec?.volumeName === 'string' ? pvs.get(o.spec.volumeName) : undefined;
      out.push({
        kind: o.kind,
        namespace: o.metadata.namespace,
        name: o.metadata.name,
        volume: o.spec?.volumeName,
        reclaimPolicy: pv?.spec?.persistentVolumeReclaimPolicy,
      });
    }
  }
  return out;
}
