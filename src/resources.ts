// Well-known resource types the checks ask for. Discovery is only needed for the orphan scan,
// which reads every listable type; every other check names its types here.
import type { KObject, Need } from './model.js';

const t = (group: string, version: string, resource: string, kind: string, namespaced: boolean): Need => ({
  group,
  version,
  resource,
  kind,
  namespaced,
});

interface Terminated {
  exitCode?: number;
  reason?: string;
  message?: string;
  startedAt?: string;
  finishedAt?: string;
}
interface ContainerStatus {
  name?: string;
  ready?: boolean;
  restartCount?: number;
  state?: { running?: { startedAt?: string }; waiting?: { reason?: string }; terminated?: Terminated };
  lastState?: { terminated?: Terminated };
}
/** How a container's run ended; its message (the termination log: helm's last line) cut to 2,000 characters. */
const terminated = (t: Terminated): Terminated => ({
  exitCode: t.exitCode,
  reason: t.reason,
  ...(typeof t.message === 'string' ? { message: t.message.slice(0, 2000) } : {}),
  startedAt: t.startedAt,
  finishedAt: t.finishedAt,
});

/** Pods: checks read metadata, the node, the phase, readiness and restarts — not the (large) spec; what-if also the
 *  requests, tolerations and claims (never env, commands or images). */
const trimPod = (o: KObject): KObject => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  metadata: o.metadata,
  spec: {
    nodeName: o.spec?.nodeName,
    ...(Array.isArray(o.spec?.tolerations)
      ? { tolerations: o.spec.tolerations.map((t: Record<string, unknown>) => ({ key: t.key, operator: t.operator, effect: t.effect })) }
      : {}),
    ...(Array.isArray(o.spec?.volumes) && o.spec.volumes.some((v: { persistentVolumeClaim?: unknown }) => v?.persistentVolumeClaim)
      ? {
          volumes: o.spec.volumes
            .filter((v: { persistentVolumeClaim?: unknown }) => v?.persistentVolumeClaim)
            .map((v: { name?: string; persistentVolumeClaim: { claimName?: string } }) => ({
              name: v.name,
              persistentVolumeClaim: { claimName: v.persistentVolumeClaim.claimName },
            })),
        }
      : {}),
    ...(Array.isArray(o.spec?.containers)
      ? {
          containers: o.spec.containers.map((c: { name?: string; resources?: { requests?: Record<string, unknown> } }) => ({
            name: c.name,
            ...(c.resources?.requests
              ? { resources: { requests: { cpu: c.resources.requests.cpu, memory: c.resources.requests.memory } } }
              : {}),
          })),
        }
      : {}),
  },
  status: {
    phase: o.status?.phase,
    conditions: o.status?.conditions,
    containerStatuses: (Array.isArray(o.status?.containerStatuses) ? o.status.containerStatuses : []).map((c: ContainerStatus) => ({
      name: c?.name,
      ready: c?.ready,
      restartCount: c?.restartCount,
      // when it started: a control plane just restarted is still finishing its post-start hooks
      ...(c?.state?.running?.startedAt ? { state: { running: { startedAt: c.state.running.startedAt } } } : {}),
      // why it waits (CrashLoopBackOff) and how its last run ended: a job that fails on every attempt says so here
      ...(c?.state?.waiting?.reason ? { state: { waiting: { reason: c.state.waiting.reason } } } : {}),
      ...(c?.state?.terminated ? { state: { terminated: terminated(c.state.terminated) } } : {}),
      ...(c?.lastState?.terminated ? { lastState: { terminated: terminated(c.lastState.terminated) } } : {}),
    })),
    startTime: o.status?.startTime,
    podIP: o.status?.podIP,
  },
});

/** Nodes: checks read labels, annotations, roles, taints, conditions and nodeInfo — not the image list. */
const trimNode = (o: KObject): KObject => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  metadata: o.metadata,
  spec: { providerID: o.spec?.providerID, unschedulable: o.spec?.unschedulable, taints: o.spec?.taints, podCIDR: o.spec?.podCIDR },
  status: {
    conditions: o.status?.conditions,
    nodeInfo: o.status?.nodeInfo,
    addresses: o.status?.addresses,
    ...(o.status?.allocatable
      ? { allocatable: { cpu: o.status.allocatable.cpu, memory: o.status.allocatable.memory, pods: o.status.allocatable.pods } }
      : {}),
  },
});

const without = (o: unknown, keys: string[]): unknown => {
  if (!o || typeof o !== 'object' || Array.isArray(o)) return o;
  const out = { ...(o as Record<string, unknown>) };
  for (const k of keys) delete out[k];
  return out;
};

/** Argo CD Applications: the status parts no check reads (history repeats every past source). Sources, wherever
 *  Argo CD copies them, are cut to where they are by the scrub (snapshot/scrub.ts), which sees every copy. */
const trimApplication = (o: KObject): KObject => {
  const status = without(o.status, ['history', 'summary', 'sourceHydrator']) as Record<string, unknown> | undefined;
  // which objects it manages (orphans: an Application that manages something is live), not their diffs
  if (status && Array.isArray(status.resources))
    status.resources = status.resources.map((r: Record<string, unknown>) => ({
      group: r?.group,
      version: r?.version,
      kind: r?.kind,
      namespace: r?.namespace,
      name: r?.name,
      status: r?.status,
    }));
  return { ...o, status };
};

/** Flux: HelmRelease values and post-renderer patches, Kustomization patches and post-build substitutions can hold
 *  credentials; no check reads them. */
const trimFlux = (o: KObject): KObject => ({
  ...o,
  spec:
    o.spec && typeof o.spec === 'object'
      ? {
          ...(without(o.spec, ['values', 'postRenderers', 'patches', 'patchesStrategicMerge', 'patchesJson6902']) as object),
          ...(o.spec.postBuild ? { postBuild: without(o.spec.postBuild, ['substitute']) } : {}),
        }
      : o.spec,
});

/** Jobs: which they are, their limits and how their runs went — not their pod template (commands, env). */
const trimJob = (o: KObject): KObject => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  metadata: o.metadata,
  spec: {
    backoffLimit: o.spec?.backoffLimit,
    suspend: o.spec?.suspend,
    ...(o.spec?.template?.metadata ? { template: { metadata: o.spec.template.metadata } } : {}),
  },
  status: o.status,
});

/** CustomResourceDefinitions: which kinds they add and their scope, not their schemas (often megabytes). */
const trimCrd = (o: KObject): KObject => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  metadata: o.metadata,
  spec: {
    group: o.spec?.group,
    names: o.spec?.names,
    scope: o.spec?.scope,
    versions: Array.isArray(o.spec?.versions)
      ? o.spec.versions.map((v: { name?: string; served?: boolean; storage?: boolean }) => ({
          name: v?.name,
          served: v?.served,
          storage: v?.storage,
        }))
      : undefined,
  },
});

/** K3s HelmCharts: values and the chart tarball are not read (and values can hold credentials). */
const trimHelmChart = (o: KObject): KObject => ({ ...o, spec: without(o.spec, ['valuesContent', 'set', 'chartContent', 'valuesSecrets']) });

/** Events: only warnings (where rejections are reported) and the K3s deploy/helm controllers' events
 *  (their Normal "AppliedManifest" shows a failure healed) are ever read. */
const keepEvent = (o: KObject): boolean => {
  const kind = o.involvedObject?.kind ?? o.regarding?.kind;
  return o.type === 'Warning' || kind === 'Addon' || kind === 'HelmChart';
};

export const R = {
  nodes: { ...t('', 'v1', 'nodes', 'Node', false), trim: trimNode },
  namespaces: t('', 'v1', 'namespaces', 'Namespace', false),
  pods: { ...t('', 'v1', 'pods', 'Pod', true), trim: trimPod },
  /** Pods as most checks need them: metadata, whether Running, and full bodies only for control-plane pods. */
  podsLean: {
    ...t('', 'v1', 'pods', 'Pod', true),
    metadataOnly: true,
    runningPhase: true,
    trim: trimPod,
    bodiesFor: (m) => m.namespace === 'kube-system' && (m.labels?.tier === 'control-plane' || m.labels?.component === 'etcd'),
  } as Need,
  services: t('', 'v1', 'services', 'Service', true),
  replicasets: { ...t('apps', 'v1', 'replicasets', 'ReplicaSet', true), metadataOnly: true } as Need,
  pdbs: t('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget', true),
  endpoints: t('', 'v1', 'endpoints', 'Endpoints', true),
  configmaps: t('', 'v1', 'configmaps', 'ConfigMap', true),
  events: {
    ...t('', 'v1', 'events', 'Event', true),
    keep: keepEvent,
    fieldSelectors: ['type=Warning', 'type!=Warning,involvedObject.kind=Addon', 'type!=Warning,involvedObject.kind=HelmChart'],
  },
  persistentvolumes: t('', 'v1', 'persistentvolumes', 'PersistentVolume', false),
  jobs: { ...t('batch', 'v1', 'jobs', 'Job', true), trim: trimJob },
  persistentvolumeclaims: t('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true),
  eventsV1: {
    ...t('events.k8s.io', 'v1', 'events', 'Event', true),
    keep: keepEvent,
    fieldSelectors: ['type=Warning', 'type!=Warning,regarding.kind=Addon', 'type!=Warning,regarding.kind=HelmChart'],
  },
  endpointslices: t('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', true),
  deployments: t('apps', 'v1', 'deployments', 'Deployment', true),
  /** Only names and labels are read (their pod templates can hold literal env values). */
  daemonsets: { ...t('apps', 'v1', 'daemonsets', 'DaemonSet', true), metadataOnly: true },
  statefulsets: t('apps', 'v1', 'statefulsets', 'StatefulSet', true),
  ingresses: t('networking.k8s.io', 'v1', 'ingresses', 'Ingress', true),
  httproutes: t('gateway.networking.k8s.io', 'v1', 'httproutes', 'HTTPRoute', true),
  leases: t('coordination.k8s.io', 'v1', 'leases', 'Lease', true),
  crds: { ...t('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false), trim: trimCrd },
  addons: t('k3s.cattle.io', 'v1', 'addons', 'Addon', true),
  helmcharts: { ...t('helm.cattle.io', 'v1', 'helmcharts', 'HelmChart', true), trim: trimHelmChart },
  /** A packaged chart's user settings (same name and namespace): its failurePolicy is read, never its values. */
  helmchartconfigs: { ...t('helm.cattle.io', 'v1', 'helmchartconfigs', 'HelmChartConfig', true), trim: trimHelmChart },
  argoApplications: { ...t('argoproj.io', 'v1alpha1', 'applications', 'Application', true), clusterWide: true, trim: trimApplication },
  fluxKustomizations: {
    ...t('kustomize.toolkit.fluxcd.io', 'v1', 'kustomizations', 'Kustomization', true),
    clusterWide: true,
    trim: trimFlux,
  },
  fluxHelmReleases: { ...t('helm.toolkit.fluxcd.io', 'v2', 'helmreleases', 'HelmRelease', true), clusterWide: true, trim: trimFlux },
  k0sEtcdMembers: t('etcd.k0sproject.io', 'v1beta1', 'etcdmembers', 'EtcdMember', false),
  /** K3s/RKE2 (from the October 2023 patch releases): one per snapshot file, local or on S3 (k3s-io/api). */
  etcdSnapshotFiles: t('k3s.cattle.io', 'v1', 'etcdsnapshotfiles', 'ETCDSnapshotFile', false),
  /** OpenShift, behind the AutomatedEtcdBackup feature gate: scheduled and one-time etcd backups. */
  openshiftEtcdBackupPolicies: t('operator.openshift.io', 'v1alpha1', 'etcdbackuppolicies', 'EtcdBackupPolicy', false),
  openshiftEtcdBackups: t('operator.openshift.io', 'v1alpha1', 'etcdbackups', 'EtcdBackup', false),
  openshiftEtcds: t('operator.openshift.io', 'v1', 'etcds', 'Etcd', false),
  validatingWebhooks: t('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', false),
  mutatingWebhooks: t('admissionregistration.k8s.io', 'v1', 'mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', false),
  apiservices: t('apiregistration.k8s.io', 'v1', 'apiservices', 'APIService', false),
  storageclasses: t('storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', false),
  csidrivers: t('storage.k8s.io', 'v1', 'csidrivers', 'CSIDriver', false),
  csinodes: t('storage.k8s.io', 'v1', 'csinodes', 'CSINode', false),
} as const;

/** The few ConfigMaps whose bodies are read, and the only keys kept of each: argocd-cm can hold OIDC
 *  client secrets and repository credentials, kubeadm-config API server flags. */
const CONFIGMAP_KEYS = new Map<string, (ns: string | undefined) => readonly string[] | 'all' | null>([
  ['argocd-cm', () => ['application.resourceTrackingMethod', 'application.instanceLabelKey', 'installationID']],
  ['cluster-dns', (ns) => (ns === 'kube-system' ? ['clusterDNS', 'clusterDomain'] : null)],
  ['kubeadm-config', (ns) => (ns === 'kube-system' ? ['ClusterConfiguration'] : null)],
  // K3s/RKE2 before ETCDSnapshotFile: one key per snapshot, its record as JSON (K3s masks the S3 keys; the rest is cut
  // to what the backup check reads)
  ['k3s-etcd-snapshots', (ns) => (ns === 'kube-system' ? 'all' : null)],
  ['rke2-etcd-snapshots', (ns) => (ns === 'kube-system' ? 'all' : null)],
]);

/** The keys of a ConfigMap that checks read, or null when its body is not read at all. */
export const configMapKeys = (name: string, ns: string | undefined): readonly string[] | 'all' | null =>
  CONFIGMAP_KEYS.get(name)?.(ns) ?? null;

/** kubeadm's ClusterConfiguration: only the etcd section is read (apiServer.extraArgs can hold secrets). */
function etcdSectionOnly(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let inEtcd = false;
  for (const l of lines) {
    if (/^\S/.test(l)) inEtcd = /^etcd:/.test(l) || /^(apiVersion|kind):/.test(l);
    if (inEtcd) out.push(l);
  }
  return out.join('\n');
}

/** A K3s/RKE2 etcd snapshot record (JSON) with only what the backup check reads: not its extra metadata, which holds
 *  whatever the user put in k3s-etcd-snapshot-extra-metadata. */
function snapshotRecord(v: string): string | undefined {
  let j: unknown;
  try {
    j = JSON.parse(v);
  } catch {
    return undefined;
  }
  if (!j || typeof j !== 'object' || Array.isArray(j)) return undefined;
  const r = j as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of ['name', 'location', 'nodeName', 'createdAt', 'status', 'message']) if (r[k] !== undefined) out[k] = r[k];
  return JSON.stringify(out);
}

const trimConfigMap = (o: KObject): KObject => {
  const keys = configMapKeys(o.metadata.name, o.metadata.namespace);
  // no body (listed metadata-only): nothing to keep, and no empty data to read as "no keys"
  if (!keys || (o.data === undefined && o.binaryData === undefined)) return { ...o, data: undefined, binaryData: undefined };
  const data: Record<string, string> = {};
  if (keys === 'all') {
    for (const [k, v] of Object.entries((o.data as Record<string, unknown> | undefined) ?? {})) {
      const record = typeof v === 'string' ? snapshotRecord(v) : undefined;
      if (record !== undefined) data[k] = record;
    }
    return { apiVersion: o.apiVersion, kind: o.kind, metadata: o.metadata, data };
  }
  for (const k of keys) {
    const v = (o.data as Record<string, unknown> | undefined)?.[k];
    if (typeof v === 'string') data[k] = k === 'ClusterConfiguration' ? etcdSectionOnly(v) : v;
  }
  return { apiVersion: o.apiVersion, kind: o.kind, metadata: o.metadata, data };
};

/** ConfigMaps are listed metadata-only (they can be large and many); only these few are read in full:
 *  argocd-cm (Argo CD tracking settings), kube-system/cluster-dns (K3s original cluster DNS),
 *  kube-system/kubeadm-config (kubeadm etcd topology). */
export const CONFIGMAPS: Need = {
  ...R.configmaps,
  metadataOnly: true,
  bodiesFor: (m) => configMapKeys(m.name, m.namespace) !== null,
  trim: trimConfigMap,
};
