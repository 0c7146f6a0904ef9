// Well-known resource types the checks ask for. Discovery is only needed for the orphan scan,
// which reads every listable type; every other check names its types here.
import type { KObject, Need } from './model.js';

const t = (group: string, version: string, resource: string, kind: string, namespaced: boolean): Need => ({
  group, version, resource, kind, namespaced,
});

/** Pods: checks read metadata, the node, the phase, readiness and restarts — not the (large) spec. */
const trimPod = (o: KObject): KObject => ({
  apiVersion: o.apiVersion, kind: o.kind, metadata: o.metadata,
  spec: { nodeName: o.spec?.nodeName },
  status: {
    phase: o.status?.phase,
    conditions: o.status?.conditions,
    containerStatuses: (o.status?.containerStatuses ?? []).map((c: { name?: string; ready?: boolean; restartCount?: number }) => ({ name: c.name, ready: c.ready, restartCount: c.restartCount })),
    podIP: o.status?.podIP,
  },
});

/** Events: only warnings (where rejections are reported) and the K3s deploy/helm controllers' events
 *  (their Normal "AppliedManifest" shows a failure healed) are ever read. */
const keepEvent = (o: KObject): boolean => {
  const kind = o.involvedObject?.kind ?? o.regarding?.kind;
  return o.type === 'Warning' || kind === 'Addon' || kind === 'HelmChart';
};

export const R = {
  nodes: t('', 'v1', 'nodes', 'Node', false),
  namespaces: t('', 'v1', 'namespaces', 'Namespace', false),
  pods: { ...t('', 'v1', 'pods', 'Pod', true), trim: trimPod },
  /** Pods as most checks need them: metadata, whether Running, and full bodies only for control-plane pods. */
  podsLean: {
    ...t('', 'v1', 'pods', 'Pod', true), metadataOnly: true, runningPhase: true, trim: trimPod,
    bodiesFor: (m) => m.namespace === 'kube-system' && (m.labels?.tier === 'control-plane' || m.labels?.component === 'etcd'),
  } as Need,
  services: t('', 'v1', 'services', 'Service', true),
  endpoints: t('', 'v1', 'endpoints', 'Endpoints', true),
  configmaps: t('', 'v1', 'configmaps', 'ConfigMap', true),
  events: { ...t('', 'v1', 'events', 'Event', true), keep: keepEvent,
    fieldSelectors: ['type=Warning', 'type!=Warning,involvedObject.kind=Addon', 'type!=Warning,involvedObject.kind=HelmChart'] },
  persistentvolumes: t('', 'v1', 'persistentvolumes', 'PersistentVolume', false),
  persistentvolumeclaims: t('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true),
  eventsV1: { ...t('events.k8s.io', 'v1', 'events', 'Event', true), keep: keepEvent,
    fieldSelectors: ['type=Warning', 'type!=Warning,regarding.kind=Addon', 'type!=Warning,regarding.kind=HelmChart'] },
  endpointslices: t('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', true),
  deployments: t('apps', 'v1', 'deployments', 'Deployment', true),
  daemonsets: t('apps', 'v1', 'daemonsets', 'DaemonSet', true),
  statefulsets: t('apps', 'v1', 'statefulsets', 'StatefulSet', true),
  ingresses: t('networking.k8s.io', 'v1', 'ingresses', 'Ingress', true),
  httproutes: t('gateway.networking.k8s.io', 'v1', 'httproutes', 'HTTPRoute', true),
  leases: t('coordination.k8s.io', 'v1', 'leases', 'Lease', true),
  crds: t('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false),
  addons: t('k3s.cattle.io', 'v1', 'addons', 'Addon', true),
  helmcharts: t('helm.cattle.io', 'v1', 'helmcharts', 'HelmChart', true),
  argoApplications: { ...t('argoproj.io', 'v1alpha1', 'applications', 'Application', true), clusterWide: true },
  fluxKustomizations: { ...t('kustomize.toolkit.fluxcd.io', 'v1', 'kustomizations', 'Kustomization', true), clusterWide: true },
  fluxHelmReleases: { ...t('helm.toolkit.fluxcd.io', 'v2', 'helmreleases', 'HelmRelease', true), clusterWide: true },
  k0sEtcdMembers: t('etcd.k0sproject.io', 'v1beta1', 'etcdmembers', 'EtcdMember', false),
  openshiftEtcds: t('operator.openshift.io', 'v1', 'etcds', 'Etcd', false),
} as const;

/** ConfigMaps are listed metadata-only (they can be large and many); only these few are read in full:
 *  argocd-cm (Argo CD tracking settings), kube-system/cluster-dns (K3s original cluster DNS),
 *  kube-system/kubeadm-config (kubeadm etcd topology). */
export const CONFIGMAPS: Need = {
  ...R.configmaps,
  metadataOnly: true,
  bodiesFor: (m) => m.name === 'argocd-cm' || (m.namespace === 'kube-system' && (m.name === 'cluster-dns' || m.name === 'kubeadm-config')),
};
