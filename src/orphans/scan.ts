// The orphan scan: objects whose GitOps owner (Argo CD Application, Flux Kustomization/HelmRelease)
// no longer exists, grouped by that former owner, with liveness and confidence. Pure: snapshot in.
// Facts: REFERENCE.md §2 (tracking-id format, instance label, tracking method, installationID,
// kept-on-purpose markers, cascading finalizers).
import { groupOf, type KObject, type ObjectRef } from '../model.js';
import { R } from '../resources.js';
import type { Snapshot } from '../snapshot/snapshot.js';

export type Confidence = 'high' | 'medium' | 'low';
export type Signal = 'annotation+label' | 'annotation' | 'label' | 'flux-labels';

export interface OrphanObject extends ObjectRef {
  signal: Signal;
  created?: string;
  /** Human detail for liveness, e.g. "2/2 pods Running". */
  live?: string;
}

export interface Liveness {
  servingTraffic: boolean;
  runningPods: number;
  readyEndpoints: number;
  routes: string[];
  boundVolumes: string[];
  summary: string;
}

export interface OrphanGroup {
  owner: { tool: 'Argo CD' | 'Flux'; kind: string; namespace?: string; name: string };
  objects: OrphanObject[];
  namespaced: number;
  clusterScoped: number;
  confidence: Confidence;
  signals: Signal[];
  oldest?: string;
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

export interface Dangling extends ObjectRef {
  ownerKind: string;
  ownerName: string;
  ownerUid: string;
}

export interface OrphanReport {
  argo: { visible: boolean; reason?: string; namespace?: string; trackingMethod: string; instanceLabelKey: string; installationID?: string; apps: number };
  flux: { visible: boolean; reason?: string; kustomizations: number; helmReleases: number };
  groups: OrphanGroup[];
  kept: KeptObject[];
  risks: Risk[];
  dangling: Dangling[];
  ignoredCopiedAnnotations: number;
  scanned: number;
  notes: string[];
}

export const CASCADING_FINALIZERS = ['resources-finalizer.argocd.argoproj.io', 'resources-finalizer.argocd.argoproj.io/foreground', 'resources-finalizer.argocd.argoproj.io/background'];
const TRACKING = 'argocd.argoproj.io/tracking-id';
const INSTALLATION = 'argocd.argoproj.io/installation-id';

interface ArgoConfig { namespace?: string; trackingMethod: string; instanceLabelKey: string; installationID?: string }

function argoConfig(snap: Snapshot): ArgoConfig {
  const cm = snap.of(R.configmaps).find((c) => c.metadata.name === 'argocd-cm' && (c.metadata.labels?.['app.kubernetes.io/part-of'] === 'argocd' || c.data));
  const data = (cm?.data ?? {}) as Record<string, string>;
  return {
    namespace: cm?.metadata.namespace,
    trackingMethod: data['application.resourceTrackingMethod'] || '',
    instanceLabelKey: data['application.instanceLabelKey'] || 'app.kubernetes.io/instance',
    installationID: data.installationID || undefined,
  };
}

/** `<app>:<group>/<kind>:<namespace>/<name>`; the app may be `<ns>_<name>` (apps in any namespace). */
export function parseTrackingId(v: string): { app: string; group: string; kind: string; namespace: string; name: string } | null {
  const parts = v.split(':');
  if (parts.length !== 3) return null;
  const [app, gk, nsn] = parts as [string, string, string];
  const slash = gk.indexOf('/');
  const nsl = nsn.indexOf('/');
  if (slash < 0 || nsl < 0 || !app) return null;
  return { app, group: gk.slice(0, slash), kind: gk.slice(slash + 1), namespace: nsn.slice(0, nsl), name: nsn.slice(nsl + 1) };
}

function appKey(app: string, controllerNs: string | undefined): { namespace?: string; name: string } {
  const u = app.indexOf('_');
  if (u > 0) return { namespace: app.slice(0, u), name: app.slice(u + 1) };
  return { namespace: controllerNs, name: app };
}

const ref = (o: KObject): ObjectRef => ({ kind: o.kind ?? '?', apiVersion: o.apiVersion, namespace: o.metadata.namespace, name: o.metadata.name });

function keptReason(o: KObject): string | null {
  const a = o.metadata.annotations ?? {};
  if (/(^|,)\s*Delete=false\s*(,|$)/.test(a['argocd.argoproj.io/sync-options'] ?? '')) return 'argocd.argoproj.io/sync-options: Delete=false';
  if (a['helm.sh/resource-policy'] === 'keep') return 'helm.sh/resource-policy: keep';
  if (o.kind === 'CustomResourceDefinition') return 'CRDs are kept on delete';
  if (a['kustomize.toolkit.fluxcd.io/prune'] === 'disabled' || o.metadata.labels?.['kustomize.toolkit.fluxcd.io/prune'] === 'disabled') return 'kustomize.toolkit.fluxcd.io/prune: disabled';
  return null;
}

interface Attribution { tool: 'Argo CD' | 'Flux'; kind: string; namespace?: string; name: string; signal: Signal }

interface LiveIndex {
  /** owner uid → pods / ReplicaSets / Jobs it owns */
  childrenOf: Map<string, KObject[]>;
  endpoints: Map<string, KObject>;
  slices: Map<string, KObject[]>;
  ingresses: KObject[];
  httproutes: KObject[];
}

/** Built once per scan: liveness must not be O(groups × objects). */
function buildIndex(snap: Snapshot): LiveIndex {
  const childrenOf = new Map<string, KObject[]>();
  for (const list of [snap.of(R.pods), snap.list('apps', 'ReplicaSet'), snap.list('batch', 'Job')]) {
    for (const o of list) {
      for (const r of o.metadata.ownerReferences ?? []) {
        const cur = childrenOf.get(r.uid);
        if (cur) cur.push(o); else childrenOf.set(r.uid, [o]);
      }
    }
  }
  const endpoints = new Map(snap.of(R.endpoints).map((e) => [`${e.metadata.namespace}/${e.metadata.name}`, e] as const));
  const slices = new Map<string, KObject[]>();
  for (const sl of snap.of(R.endpointslices)) {
    const k = `${sl.metadata.namespace}/${sl.metadata.labels?.['kubernetes.io/service-name']}`;
    slices.set(k, [...(slices.get(k) ?? []), sl]);
  }
  return { childrenOf, endpoints, slices, ingresses: snap.of(R.ingresses), httproutes: snap.of(R.httproutes) };
}

function liveness(objs: KObject[], idx: LiveIndex): Liveness {
  // follow ownerReferences down: Deployment → ReplicaSet → Pod (children carry no tracking)
  const running: KObject[] = [];
  const seen = new Set<string>();
  const queue = objs.map((o) => o);
  while (queue.length) {
    const o = queue.pop()!;
    const uid = o.metadata.uid;
    if (!uid || seen.has(uid)) continue;
    seen.add(uid);
    if (o.kind === 'Pod' && o.status?.phase === 'Running') running.push(o);
    for (const c of idx.childrenOf.get(uid) ?? []) queue.push(c);
  }
  const services = objs.filter((o) => o.kind === 'Service' && groupOf(o.apiVersion) === '');
  let readyEndpoints = 0;
  const svcReady = new Set<string>();
  for (const s of services) {
    const key = `${s.metadata.namespace}/${s.metadata.name}`;
    const ep = idx.endpoints.get(key);
    let n = (ep?.subsets ?? []).reduce((k: number, sub: { addresses?: unknown[] }) => k + (sub.addresses?.length ?? 0), 0);
    if (!ep) {
      for (const sl of idx.slices.get(key) ?? []) n += (sl.endpoints ?? []).filter((e: { conditions?: { ready?: boolean } }) => e.conditions?.ready !== false).length;
    }
    readyEndpoints += n;
    if (n > 0) svcReady.add(`${s.metadata.namespace}/${s.metadata.name}`);
  }
  // routes into a ready service of the group (the route itself may be an orphan too, or not)
  const routes: string[] = [];
  for (const ing of idx.ingresses) {
    const backends: string[] = [];
    const def = ing.spec?.defaultBackend?.service?.name;
    if (def) backends.push(def);
    for (const rule of ing.spec?.rules ?? []) for (const p of rule.http?.paths ?? []) if (p.backend?.service?.name) backends.push(p.backend.service.name);
    const hit = backends.find((b) => svcReady.has(`${ing.metadata.namespace}/${b}`));
    if (hit) routes.push(`Ingress ${ing.metadata.namespace}/${ing.metadata.name}${ing.spec?.rules?.[0]?.host ? ` (${ing.spec.rules[0].host})` : ''} → ${hit}`);
  }
  for (const rt of idx.httproutes) {
    for (const rule of rt.spec?.rules ?? []) {
      const hit = (rule.backendRefs ?? []).find((b: { name?: string; namespace?: string; kind?: string }) => (!b.kind || b.kind === 'Service') && svcReady.has(`${b.namespace ?? rt.metadata.namespace}/${b.name}`));
      if (hit) { routes.push(`HTTPRoute ${rt.metadata.namespace}/${rt.metadata.name} → ${hit.name}`); break; }
    }
  }
  const boundVolumes = objs.filter((o) => (o.kind === 'PersistentVolume' || o.kind === 'PersistentVolumeClaim') && groupOf(o.apiVersion) === '' && o.status?.phase === 'Bound')
    .map((o) => `${o.kind} ${o.metadata.namespace ? o.metadata.namespace + '/' : ''}${o.metadata.name}`);
  const servingTraffic = routes.length > 0;
  const parts: string[] = [];
  if (servingTraffic) parts.push(`serving traffic: ${routes.join(', ')}`);
  if (running.length) parts.push(`${running.length} pod${running.length === 1 ? '' : 's'} Running`);
  if (readyEndpoints) parts.push(`${readyEndpoints} ready endpoint${readyEndpoints === 1 ? '' : 's'}`);
  if (boundVolumes.length) parts.push(`${boundVolumes.length} bound volume${boundVolumes.length === 1 ? '' : 's'} holding data`);
  return { servingTraffic, runningPods: running.length, readyEndpoints, routes, boundVolumes, summary: parts.join('; ') || 'idle (no running pods, endpoints or bound volumes)' };
}

export function scanOrphans(snap: Snapshot): OrphanReport {
  const notes: string[] = [];
  const scope = snap.header.namespace;
  const cfg = argoConfig(snap);
  if (scope && !cfg.namespace) notes.push(`argocd-cm is outside namespace ${scope}: default tracking settings assumed`);
  const appsVis = snap.visibility(R.argoApplications);
  const apps = snap.of(R.argoApplications);
  const argoVisible = !appsVis;
  const argoReason = appsVis ? appsVis.reason : undefined;
  const controllerNs = cfg.namespace ?? (apps[0]?.metadata.namespace);
  const liveApps = new Set(apps.map((a) => `${a.metadata.namespace}/${a.metadata.name}`));
  const ksVis = snap.visibility(R.fluxKustomizations);
  const hrVis = snap.visibility(R.fluxHelmReleases);
  const liveKs = new Set(snap.of(R.fluxKustomizations).map((k) => `${k.metadata.namespace}/${k.metadata.name}`));
  const liveHr = new Set(snap.of(R.fluxHelmReleases).map((k) => `${k.metadata.namespace}/${k.metadata.name}`));
  const labelCounts = cfg.trackingMethod === '' || cfg.trackingMethod.includes('label');
  const annotationCounts = cfg.trackingMethod === '' || cfg.trackingMethod.includes('annotation');

  const groups = new Map<string, { attr: Attribution; objs: KObject[]; signals: Set<Signal> }>();
  const kept: KeptObject[] = [];
  const dangling: Dangling[] = [];
  const trackedByApp = new Map<string, number>();
  const childApps = new Map<string, string[]>();
  let copied = 0;
  let scanned = 0;
  const unjudged = { argo: 0, flux: 0 };
  const ownerTypeVisible = new Map<string, boolean>();
  const allUids = new Set<string>();
  for (const o of snap.all()) if (o.metadata.uid) allUids.add(o.metadata.uid);

  for (const o of snap.all()) {
    if (o.kind === 'Event' || o.kind === 'SnapshotHeader') continue;
    scanned++;
    const owners = o.metadata.ownerReferences ?? [];
    if (owners.length) {
      // secondary: owners that no longer exist (only when the owner's type was captured)
      for (const r of owners) {
        if (!r.uid || allUids.has(r.uid)) continue;
        const vk = `${r.apiVersion}|${r.kind}`;
        let visible = ownerTypeVisible.get(vk);
        if (visible === undefined) {
          visible = !snap.visibility({ group: groupOf(r.apiVersion), kind: r.kind, resource: r.kind.toLowerCase() + 's' });
          ownerTypeVisible.set(vk, visible);
        }
        if (!visible) continue;
        dangling.push({ ...ref(o), ownerKind: r.kind, ownerName: r.name, ownerUid: r.uid });
      }
      continue; // only root objects carry GitOps tracking
    }
    const a = o.metadata.annotations ?? {};
    const l = o.metadata.labels ?? {};
    let attr: Attribution | null = null;
    // Argo CD
    const tid = a[TRACKING];
    const t = tid ? parseTrackingId(tid) : null;
    const instance = l[cfg.instanceLabelKey];
    // with installationID set, Argo only claims objects carrying the same id (and vice versa)
    const foreignInstall = a[INSTALLATION] !== cfg.installationID;
    if (tid && annotationCounts && !foreignInstall) {
      const g = groupOf(o.apiVersion);
      const matches = t && t.kind === o.kind && t.group === g && t.name === o.metadata.name && (!o.metadata.namespace || t.namespace === o.metadata.namespace);
      if (t && matches) {
        const k = appKey(t.app, controllerNs);
        attr = { tool: 'Argo CD', kind: 'Application', namespace: k.namespace, name: k.name, signal: instance === t.app ? 'annotation+label' : 'annotation' };
      } else {
        copied++;
      }
    }
    if (!attr && instance && labelCounts && !tid && !foreignInstall) {
      // Helm sets the same label: if a Helm release of that name owns the object, it is Helm's, not Argo's
      const helmRelease = a['meta.helm.sh/release-name'];
      if (!(helmRelease === instance && l['app.kubernetes.io/managed-by'] === 'Helm' && !liveApps.has(`${controllerNs}/${instance}`))) {
        const k = appKey(instance, controllerNs);
        attr = { tool: 'Argo CD', kind: 'Application', namespace: k.namespace, name: k.name, signal: 'label' };
      }
    }
    // Flux
    if (!attr) {
      const kn = l['kustomize.toolkit.fluxcd.io/name'];
      const kns = l['kustomize.toolkit.fluxcd.io/namespace'];
      const hn = l['helm.toolkit.fluxcd.io/name'];
      const hns = l['helm.toolkit.fluxcd.io/namespace'];
      if (hn && hns) attr = { tool: 'Flux', kind: 'HelmRelease', namespace: hns, name: hn, signal: 'flux-labels' };
      else if (kn && kns) attr = { tool: 'Flux', kind: 'Kustomization', namespace: kns, name: kn, signal: 'flux-labels' };
    }
    if (!attr) continue;
    // -n: a cluster-scoped object belongs to the scope only if its tracking names that namespace
    if (scope && !o.metadata.namespace && t?.namespace !== scope) continue;
    const ownerKey = `${attr.namespace ?? ''}/${attr.name}`;
    let exists: boolean | null;
    if (attr.tool === 'Argo CD') exists = argoVisible ? liveApps.has(ownerKey) : null;
    else if (attr.kind === 'Kustomization') exists = ksVis ? null : liveKs.has(ownerKey);
    else exists = hrVis ? null : liveHr.has(ownerKey);
    if (attr.tool === 'Argo CD' && exists) {
      trackedByApp.set(ownerKey, (trackedByApp.get(ownerKey) ?? 0) + 1);
      if (o.kind === 'Application' && groupOf(o.apiVersion) === 'argoproj.io') childApps.set(ownerKey, [...(childApps.get(ownerKey) ?? []), `${o.metadata.namespace}/${o.metadata.name}`]);
    }
    if (exists === null && attr.signal !== 'label') unjudged[attr.tool === 'Argo CD' ? 'argo' : 'flux']++;
    if (exists !== false) continue; // owner alive, or cannot tell (reported in notes)
    const why = keptReason(o);
    if (why) {
      kept.push({ ...ref(o), owner: `${attr.kind} ${ownerKey}`, reason: why });
      continue;
    }
    const gk = `${attr.tool}|${attr.kind}|${ownerKey}`;
    const cur = groups.get(gk) ?? { attr, objs: [], signals: new Set<Signal>() };
    cur.objs.push(o);
    cur.signals.add(attr.signal);
    groups.set(gk, cur);
  }
  if (!argoVisible && appsVis?.status !== 404) notes.push(`Argo CD Applications not visible (${argoReason}): objects tracked by Argo CD cannot be judged`);
  if (ksVis && ksVis.status !== 404) notes.push(`Flux Kustomizations not visible (${ksVis?.reason})`);
  if (hrVis && hrVis.status !== 404) notes.push(`Flux HelmReleases not visible (${hrVis?.reason})`);
  // tracked objects whose owner type is not even installed: perhaps left behind by a removed Argo CD or Flux
  if (unjudged.argo && appsVis?.status === 404) notes.push(`${unjudged.argo} object${unjudged.argo === 1 ? ' carries' : 's carry'} Argo CD tracking annotations but Argo CD Applications are not served here: left from a removed Argo CD? (not judged)`);
  if (unjudged.flux && (ksVis?.status === 404 || hrVis?.status === 404)) notes.push(`${unjudged.flux} object${unjudged.flux === 1 ? ' carries' : 's carry'} Flux labels but Flux's APIs are not served here: left from a removed Flux? (not judged)`);
  if (snap.headerless || !snap.header.allTypes) notes.push('the scan covers the types present in the snapshot; a live scan reads every listable type through discovery');
  for (const e of snap.header.discoveryErrors ?? []) notes.push(e);
  // partial visibility: every type that could not be listed (not installed = 404 is not a gap)
  const unreadable = snap.unavailable().filter((u) => u.status !== 404 && u.group !== 'argoproj.io' && !u.group.endsWith('fluxcd.io'));
  if (unreadable.length) {
    const why = (u: { status?: number }): string => (u.status === 403 ? '403' : u.status ? String(u.status) : 'error');
    notes.push(`partial visibility: ${unreadable.length} type${unreadable.length === 1 ? '' : 's'} could not be listed, not scanned: ${unreadable.map((u) => `${u.resource ?? u.kind}${u.group ? '.' + u.group : ''} (${why(u)})`).join(', ')}`);
  }
  const secretsNote = 'Secrets are never read (not even metadata), so leftover Secrets are not listed';
  notes.push(secretsNote);

  const idx = buildIndex(snap);
  const order = (x: KObject): string => `${x.kind}\u0000${x.metadata.namespace ?? ''}\u0000${x.metadata.name}`;
  const out: OrphanGroup[] = [...groups.values()].map(({ attr, objs: unsorted, signals }) => {
    // deterministic order, whatever order the lists arrived in
    const objs = [...unsorted].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
    const sig = [...signals];
    const confidence: Confidence = sig.some((s) => s === 'annotation' || s === 'annotation+label' || s === 'flux-labels') ? 'high'
      : cfg.trackingMethod === 'label' ? 'medium' : 'low';
    const created = objs.map((o) => o.metadata.creationTimestamp).filter((x): x is string => Boolean(x)).sort();
    return {
      owner: { tool: attr.tool, kind: attr.kind, namespace: attr.namespace, name: attr.name },
      objects: objs.map((o) => ({ ...ref(o), signal: (o.metadata.annotations?.[TRACKING] ? (o.metadata.labels?.[cfg.instanceLabelKey] ? 'annotation+label' : 'annotation') : attr.tool === 'Flux' ? 'flux-labels' : 'label') as Signal, created: o.metadata.creationTimestamp })),
      namespaced: objs.filter((o) => o.metadata.namespace).length,
      clusterScoped: objs.filter((o) => !o.metadata.namespace).length,
      confidence,
      signals: sig,
      oldest: created[0],
      liveness: liveness(objs, idx),
    };
  }).sort((a, b) => Number(b.liveness.servingTraffic) - Number(a.liveness.servingTraffic) || b.liveness.runningPods - a.liveness.runningPods
    || (b.confidence === 'high' ? 1 : 0) - (a.confidence === 'high' ? 1 : 0) || a.owner.name.localeCompare(b.owner.name));

  const risks: Risk[] = [];
  for (const app of apps) {
    const key = `${app.metadata.namespace}/${app.metadata.name}`;
    const cascades = (app.metadata.finalizers ?? []).some((f) => CASCADING_FINALIZERS.includes(f));
    if (cascades || app.metadata.deletionTimestamp) continue;
    if (scope && app.spec?.destination?.namespace !== scope) continue;
    const children = childApps.get(key);
    risks.push({ kind: children?.length ? 'app-of-apps-parent' : 'no-cascading-finalizer', app: ref(app), trackedObjects: trackedByApp.get(key) ?? 0, children });
  }
  dangling.sort((a, b) => `${a.kind}/${a.namespace}/${a.name}`.localeCompare(`${b.kind}/${b.namespace}/${b.name}`));
  kept.sort((a, b) => `${a.kind}/${a.namespace}/${a.name}`.localeCompare(`${b.kind}/${b.namespace}/${b.name}`));
  return {
    argo: { visible: argoVisible, reason: argoReason, namespace: controllerNs, trackingMethod: cfg.trackingMethod || '(default)', instanceLabelKey: cfg.instanceLabelKey, installationID: cfg.installationID, apps: apps.length },
    flux: { visible: !ksVis || !hrVis, reason: ksVis?.reason, kustomizations: liveKs.size, helmReleases: liveHr.size },
    groups: out,
    kept,
    risks,
    dangling,
    ignoredCopiedAnnotations: copied,
    scanned,
    notes,
  };
}
