// Who says an object belongs to a GitOps owner: Argo CD's tracking-id annotation and instance label (as
// argocd-cm configures them), Flux's toolkit labels. Facts (argoproj/argo-cd util/argo/resource_tracking.go,
// controller/state.go isSelfReferencedObj, common/common.go; fluxcd kustomize-controller, helm-controller):
// - tracking-id = `<app>:<group>/<kind>:<namespace>/<name>`, app `<ns>_<name>` for apps in any namespace;
//   an id that does not name the object itself was copied and is ignored;
// - with installationID set, only objects carrying the same argocd.argoproj.io/installation-id are claimed;
// - resourceTrackingMethod unset means `label` in Argo CD 2.x and `annotation` in 3.x; after a switch, objects
//   keep only the old tracking until their next sync (argoproj/argo-cd#17361): label-only leftovers are real;
// - Helm CLI releases set the same instance label but also meta.helm.sh/release-* annotations; Argo CD only runs
//   `helm template`, so its Helm apps carry app.kubernetes.io/managed-by: Helm without those annotations.
import { groupOf, type KObject } from '../model.js';
import { R } from '../resources.js';
import type { Snapshot } from '../snapshot/snapshot.js';

export type Signal = 'annotation+label' | 'annotation' | 'label' | 'flux-labels';
export type Confidence = 'high' | 'medium' | 'low';

export const TRACKING = 'argocd.argoproj.io/tracking-id';
export const INSTALLATION = 'argocd.argoproj.io/installation-id';
export const CASCADING_FINALIZERS = [
  'resources-finalizer.argocd.argoproj.io',
  'resources-finalizer.argocd.argoproj.io/foreground',
  'resources-finalizer.argocd.argoproj.io/background',
];

export interface ArgoConfig {
  namespace?: string;
  trackingMethod: string;
  instanceLabelKey: string;
  installationID?: string;
  read: boolean;
}

export function argoConfig(snap: Snapshot): ArgoConfig {
  const cm = snap
    .of(R.configmaps)
    .find((c) => c.metadata.name === 'argocd-cm' && (c.metadata.labels?.['app.kubernetes.io/part-of'] === 'argocd' || c.data));
  const data = (cm?.data ?? {}) as Record<string, string>;
  return {
    namespace: cm?.metadata.namespace,
    trackingMethod: data['application.resourceTrackingMethod'] || '',
    instanceLabelKey: data['application.instanceLabelKey'] || 'app.kubernetes.io/instance',
    installationID: data.installationID || undefined,
    read: Boolean(cm?.data),
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

export function appKey(app: string, controllerNs: string | undefined): { namespace?: string; name: string } {
  const u = app.indexOf('_');
  if (u > 0) return { namespace: app.slice(0, u), name: app.slice(u + 1) };
  return { namespace: controllerNs, name: app };
}

export function keptReason(o: KObject): string | null {
  const a = o.metadata.annotations ?? {};
  const opts = a['argocd.argoproj.io/sync-options'] ?? '';
  if (/(^|,)\s*Delete=false\s*(,|$)/.test(opts)) return 'argocd.argoproj.io/sync-options: Delete=false';
  if (/(^|,)\s*Prune=false\s*(,|$)/.test(opts)) return 'argocd.argoproj.io/sync-options: Prune=false';
  if (a['helm.sh/resource-policy'] === 'keep') return 'helm.sh/resource-policy: keep';
  if (o.kind === 'CustomResourceDefinition') return 'CRDs are kept on delete';
  if (a['kustomize.toolkit.fluxcd.io/prune'] === 'disabled' || o.metadata.labels?.['kustomize.toolkit.fluxcd.io/prune'] === 'disabled')
    return 'kustomize.toolkit.fluxcd.io/prune: disabled';
  return null;
}

export interface Attribution {
  tool: 'Argo CD' | 'Flux';
  kind: 'Application' | 'Kustomization' | 'HelmRelease';
  namespace?: string;
  name: string;
  signal: Signal;
  confidence: Confidence;
  /** For label-only evidence: why it is weak. */
  caveat?: string;
  /** The tracking names a namespace (for -n scoping of cluster-scoped objects). */
  trackedNamespace?: string;
}

export type Claim = { attr: Attribution } | { copied: true } | { foreignInstall: true } | null;

/** Objects that controllers create carry copies of their owner's labels; only roots carry tracking. Knative-style
 *  "delete with the namespace" ownerReferences to a Namespace do not make an object a controller's child. */
export const isRoot = (o: KObject): boolean => (o.metadata.ownerReferences ?? []).every((r) => r.kind === 'Namespace');

export function claim(o: KObject, cfg: ArgoConfig, controllerNs: string | undefined, liveApps: Set<string>): Claim {
  const a = o.metadata.annotations ?? {};
  const l = o.metadata.labels ?? {};
  const tid = a[TRACKING];
  const instance = l[cfg.instanceLabelKey];
  if ((tid || instance) && (a[INSTALLATION] ?? undefined) !== cfg.installationID) return { foreignInstall: true };
  if (tid) {
    const t = parseTrackingId(tid);
    const g = groupOf(o.apiVersion);
    const self =
      t &&
      t.kind === o.kind &&
      t.group === g &&
      t.name === o.metadata.name &&
      (!o.metadata.namespace || t.namespace === o.metadata.namespace);
    if (!t || !self) return { copied: true };
    const k = appKey(t.app, controllerNs);
    return {
      attr: {
        tool: 'Argo CD',
        kind: 'Application',
        namespace: k.namespace,
        name: k.name,
        signal: instance === t.app ? 'annotation+label' : 'annotation',
        confidence: 'high',
        trackedNamespace: t.namespace,
      },
    };
  }
  // GitOps labels win over Helm's: Flux's helm-controller renders with Helm, so its objects carry Helm's labels and
  // annotations (and a chart's instance label) too — they belong to the HelmRelease, never to a "Helm CLI release"
  const flux = fluxClaim(l);
  if (flux) return flux;
  // Flux's own install manifests label everything app.kubernetes.io/instance: flux-system, part-of: flux
  if (instance && !tid && l['app.kubernetes.io/part-of'] === 'flux') return null;
  if (instance) {
    // a Helm release owns the object (the Helm CLI, K3s's helm-controller, which names the instance
    // `<release>-<namespace>` for traefik: traefik-kube-system): it is Helm's, not Argo CD's — Argo CD renders charts
    // with `helm template` and never writes meta.helm.sh annotations
    const release = a['meta.helm.sh/release-name'];
    const k = appKey(instance, controllerNs);
    if (release && !liveApps.has(`${k.namespace}/${k.name}`)) return null;
    const method = cfg.trackingMethod;
    const confidence: Confidence = method === 'label' ? 'medium' : 'low';
    const caveat =
      method === 'annotation' || method === 'annotation+label'
        ? `only the instance label, which tracking method ${method} does not use: left from before a switch of tracking method, or another tool's label`
        : 'only the instance label, which Helm charts and other tools set too';
    return { attr: { tool: 'Argo CD', kind: 'Application', namespace: k.namespace, name: k.name, signal: 'label', confidence, caveat } };
  }
  return null;
}

/** Flux's origin labels: the HelmRelease that released an object, else the Kustomization that applied it (a
 *  HelmRelease applied by a Kustomization carries both on the HelmRelease itself, not on what it released). */
function fluxClaim(l: Record<string, string>): Claim {
  const hn = l['helm.toolkit.fluxcd.io/name'];
  const hns = l['helm.toolkit.fluxcd.io/namespace'];
  if (hn && hns)
    return { attr: { tool: 'Flux', kind: 'HelmRelease', namespace: hns, name: hn, signal: 'flux-labels', confidence: 'high' } };
  const kn = l['kustomize.toolkit.fluxcd.io/name'];
  const kns = l['kustomize.toolkit.fluxcd.io/namespace'];
  if (kn && kns)
    return { attr: { tool: 'Flux', kind: 'Kustomization', namespace: kns, name: kn, signal: 'flux-labels', confidence: 'high' } };
  return null;
}

/** Rendered by `helm template` (as Argo CD does), not installed by the Helm CLI. */
export const renderedByHelmTemplate = (o: KObject): boolean =>
  o.metadata.labels?.['app.kubernetes.io/managed-by'] === 'Helm' && !o.metadata.annotations?.['meta.helm.sh/release-name'];
