// Is what an owner left behind still doing something? Liveness follows every chain a leftover can hide
// work behind: ownerReferences (Deployment → ReplicaSet → Pod, an operator's custom resource → its
// StatefulSet → Pods), a leftover Flux HelmRelease → the release objects helm-controller still reconciles,
// a leftover Argo CD Application → the objects it still tracks; then Services with ready endpoints among
// them, and Ingresses/HTTPRoutes that route to those Services.
import { groupOf, refText, type KObject } from '../model.js';
import { R } from '../resources.js';
import type { Snapshot } from '../snapshot/snapshot.js';

export interface Liveness {
  servingTraffic: boolean;
  runningPods: number;
  readyEndpoints: number;
  /** Applications among the leftovers (or reached through them) that still sync resources. */
  activeApps: string[];
  routes: string[];
  boundVolumes: string[];
  /** Owners the work was found through, e.g. "HelmRelease podinfo/podinfo". */
  via: string[];
  summary: string;
}

export interface LiveIndex {
  childrenOf: Map<string, KObject[]>;
  /** "namespace/name" of a HelmRelease or Kustomization → the objects its controller applied. */
  fluxApplied: Map<string, KObject[]>;
  /** "namespace/name" of an Application → the objects it tracks (filled by the scan). */
  argoTracked: Map<string, KObject[]>;
  endpoints: Map<string, KObject>;
  slices: Map<string, KObject[]>;
  ingresses: KObject[];
  httproutes: KObject[];
}

const push = <K, V>(m: Map<K, V[]>, k: K, v: V): void => {
  const cur = m.get(k);
  if (cur) cur.push(v);
  else m.set(k, [v]);
};

/** Built once per scan: liveness must not be O(groups × objects). */
export function buildIndex(snap: Snapshot): LiveIndex {
  const childrenOf = new Map<string, KObject[]>();
  const fluxApplied = new Map<string, KObject[]>();
  for (const o of snap.all()) {
    for (const r of o.metadata.ownerReferences ?? []) if (r.uid && r.kind !== 'Namespace') push(childrenOf, r.uid, o);
    const l = o.metadata.labels;
    if (l?.['helm.toolkit.fluxcd.io/name'])
      push(fluxApplied, `HelmRelease/${l['helm.toolkit.fluxcd.io/namespace']}/${l['helm.toolkit.fluxcd.io/name']}`, o);
    else if (l?.['kustomize.toolkit.fluxcd.io/name'])
      push(fluxApplied, `Kustomization/${l['kustomize.toolkit.fluxcd.io/namespace']}/${l['kustomize.toolkit.fluxcd.io/name']}`, o);
  }
  const endpoints = new Map(snap.of(R.endpoints).map((e) => [`${e.metadata.namespace}/${e.metadata.name}`, e] as const));
  const slices = new Map<string, KObject[]>();
  for (const sl of snap.of(R.endpointslices))
    push(slices, `${sl.metadata.namespace}/${sl.metadata.labels?.['kubernetes.io/service-name']}`, sl);
  return {
    childrenOf,
    fluxApplied,
    argoTracked: new Map(),
    endpoints,
    slices,
    ingresses: snap.of(R.ingresses),
    httproutes: snap.of(R.httproutes),
  };
}

const isOwnerKind = (o: KObject, kind: string, group: string): boolean => o.kind === kind && groupOf(o.apiVersion) === group;

/** Everything the objects still drive, through every chain; `via` names the GitOps owners crossed. */
export function reach(objs: KObject[], idx: LiveIndex): { all: KObject[]; via: string[] } {
  const seen = new Set<KObject>();
  const via: string[] = [];
  const queue = [...objs];
  while (queue.length) {
    const o = queue.pop()!;
    if (seen.has(o)) continue;
    seen.add(o);
    const uid = o.metadata.uid;
    if (uid) for (const c of idx.childrenOf.get(uid) ?? []) queue.push(c);
    const key = `${o.metadata.namespace}/${o.metadata.name}`;
    let more: KObject[] | undefined;
    if (isOwnerKind(o, 'HelmRelease', 'helm.toolkit.fluxcd.io')) more = idx.fluxApplied.get(`HelmRelease/${key}`);
    else if (isOwnerKind(o, 'Kustomization', 'kustomize.toolkit.fluxcd.io')) more = idx.fluxApplied.get(`Kustomization/${key}`);
    else if (isOwnerKind(o, 'Application', 'argoproj.io')) more = idx.argoTracked.get(key);
    if (more?.length) {
      via.push(`${o.kind} ${key}`);
      queue.push(...more);
    }
  }
  return { all: [...seen], via };
}

export function liveness(objs: KObject[], idx: LiveIndex): Liveness {
  const { all, via } = reach(objs, idx);
  const running = all.filter((o) => o.kind === 'Pod' && o.status?.phase === 'Running');
  const activeApps = all
    .filter(
      (o) =>
        o.kind === 'Application' &&
        groupOf(o.apiVersion) === 'argoproj.io' &&
        !o.metadata.deletionTimestamp &&
        ['Healthy', 'Progressing', 'Degraded'].includes(o.status?.health?.status) &&
        Array.isArray(o.status?.resources) &&
        o.status.resources.length > 0,
    )
    .map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
  const services = all.filter((o) => o.kind === 'Service' && groupOf(o.apiVersion) === '');
  let readyEndpoints = 0;
  const svcReady = new Set<string>();
  for (const s of services) {
    const key = `${s.metadata.namespace}/${s.metadata.name}`;
    const ep = idx.endpoints.get(key);
    let n = (Array.isArray(ep?.subsets) ? ep.subsets : []).reduce(
      (k: number, sub: { addresses?: unknown[] }) => k + (Array.isArray(sub?.addresses) ? sub.addresses.length : 0),
      0,
    );
    if (!ep) {
      for (const sl of idx.slices.get(key) ?? [])
        n += (Array.isArray(sl.endpoints) ? sl.endpoints : []).filter(
          (e: { conditions?: { ready?: boolean } }) => e?.conditions?.ready !== false,
        ).length;
    }
    readyEndpoints += n;
    if (n > 0) svcReady.add(key);
  }
  // routes into a ready service (the route itself may be a leftover too, or not)
  const routes: string[] = [];
  for (const ing of idx.ingresses) {
    const backends: string[] = [];
    const def = ing.spec?.defaultBackend?.service?.name;
    if (def) backends.push(def);
    for (const rule of Array.isArray(ing.spec?.rules) ? ing.spec.rules : []) {
      for (const p of Array.isArray(rule?.http?.paths) ? rule.http.paths : [])
        if (p?.backend?.service?.name) backends.push(p.backend.service.name);
    }
    const hit = backends.find((b) => svcReady.has(`${ing.metadata.namespace}/${b}`));
    if (hit)
      routes.push(
        `Ingress ${ing.metadata.namespace}/${ing.metadata.name}${ing.spec?.rules?.[0]?.host ? ` (${ing.spec.rules[0].host})` : ''} → ${hit}`,
      );
  }
  for (const rt of idx.httproutes) {
    for (const rule of Array.isArray(rt.spec?.rules) ? rt.spec.rules : []) {
      const hit = (Array.isArray(rule?.backendRefs) ? rule.backendRefs : []).find(
        (b: { name?: string; namespace?: string; kind?: string }) =>
          (!b?.kind || b.kind === 'Service') && svcReady.has(`${b?.namespace ?? rt.metadata.namespace}/${b?.name}`),
      );
      if (hit) {
        routes.push(`HTTPRoute ${rt.metadata.namespace}/${rt.metadata.name} → ${hit.name}`);
        break;
      }
    }
  }
  const boundVolumes = all
    .filter(
      (o) =>
        (o.kind === 'PersistentVolume' || o.kind === 'PersistentVolumeClaim') &&
        groupOf(o.apiVersion) === '' &&
        o.status?.phase === 'Bound',
    )
    .map((o) => refText({ kind: o.kind, ...o.metadata }));
  const servingTraffic = routes.length > 0;
  const parts: string[] = [];
  if (servingTraffic) parts.push(`serving traffic: ${routes.join(', ')}`);
  if (running.length) parts.push(`${running.length} pod${running.length === 1 ? '' : 's'} Running`);
  if (activeApps.length)
    parts.push(`${activeApps.length} Application${activeApps.length === 1 ? '' : 's'} still syncing resources (${activeApps.join(', ')})`);
  if (readyEndpoints) parts.push(`${readyEndpoints} ready endpoint${readyEndpoints === 1 ? '' : 's'}`);
  if (boundVolumes.length) parts.push(`${boundVolumes.length} bound volume${boundVolumes.length === 1 ? '' : 's'} holding data`);
  const summary = parts.length
    ? `${parts.join('; ')}${via.length ? ` (through ${via.join(', ')})` : ''}`
    : 'idle (no running pods, endpoints or bound volumes)';
  return { servingTraffic, runningPods: running.length, readyEndpoints, activeApps, routes, boundVolumes, via, summary };
}
