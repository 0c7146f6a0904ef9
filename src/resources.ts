// Well-known resource types the checks ask for. Discovery is only needed for the orphan scan,
// which reads every listable type; every other check names its types here.
import type { KObject, Need } from './model.js';
import { CORE_EVENT_FIELDS, V1_EVENT_FIELDS } from './lib/events.js';

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
/** A pod's last lines from its container (helm's reason for a failed install): cut to 2,000 characters at the door. */
const cutTerminated = (t: Terminated | undefined): Terminated | undefined =>
  t && typeof t.message === 'string' && t.message.length > 2000 ? { ...t, message: t.message.slice(0, 2000) } : t;

/** Pods: a value narrowed before the projection (the fields kept are in R.pods.fields). */
const narrowPod = (o: KObject): KObject => {
  const cs = o.status?.containerStatuses;
  if (!Array.isArray(cs)) return o;
  return {
    ...o,
    status: {
      ...o.status,
      containerStatuses: cs.map((c: ContainerStatus) =>
        c && typeof c === 'object'
          ? {
              ...c,
              ...(c.state ? { state: { ...c.state, terminated: cutTerminated(c.state.terminated) } } : {}),
              ...(c.lastState ? { lastState: { ...c.lastState, terminated: cutTerminated(c.lastState.terminated) } } : {}),
            }
          : c,
      ),
    },
  };
};

/** Events: only warnings (where rejections are reported) and the K3s deploy/helm controllers' events
 *  (their Normal "AppliedManifest" shows a failure healed) are ever read. */
const keepEvent = (o: KObject): boolean => {
  const kind = o.involvedObject?.kind ?? o.regarding?.kind;
  return o.type === 'Warning' || kind === 'Addon' || kind === 'HelmChart';
};

/** Through which API version an object was last written, where some release removes that version for its kind
 *  (what-if --upgrade): each managedFields entry's apiVersion and who wrote through it, and the apiVersion of the
 *  manifest kubectl last applied. The door (src/snapshot/scrub.ts, writtenThrough in lib/removed-apis.ts) keeps only
 *  the managedFields entries of removed versions and computes metadata.lastAppliedApiVersion from the
 *  last-applied-configuration annotation, which is itself never kept (it holds the whole manifest: env, secrets). */
export const WRITTEN_FIELDS = [
  'metadata.managedFields[].apiVersion',
  'metadata.managedFields[].manager',
  'metadata.managedFields[].operation',
  'metadata.managedFields[].time',
  'metadata.lastAppliedApiVersion',
] as const;

/** What every object keeps, whatever its type (the orphan scan reads every listable type this way; identity —
 *  apiVersion, kind, metadata.name and namespace — is always kept): who owns it and whether it is going. Labels are
 *  names and selectors match them; of the annotations only those the checks read. */
export const METADATA_FIELDS = [
  'metadata.uid',
  'metadata.labels',
  'metadata.ownerReferences',
  'metadata.finalizers',
  'metadata.creationTimestamp',
  'metadata.deletionTimestamp',
  'metadata.annotations["argocd.argoproj.io/tracking-id"]',
  'metadata.annotations["argocd.argoproj.io/installation-id"]',
  'metadata.annotations["argocd.argoproj.io/sync-options"]',
  'metadata.annotations["helm.sh/resource-policy"]',
  'metadata.annotations["meta.helm.sh/release-name"]',
  'metadata.annotations["meta.helm.sh/release-namespace"]',
  'metadata.annotations["kustomize.toolkit.fluxcd.io/prune"]',
  'metadata.annotations["objectset.rio.cattle.io/owner-gvk"]',
  'metadata.annotations["objectset.rio.cattle.io/owner-name"]',
  'metadata.annotations["objectset.rio.cattle.io/owner-namespace"]',
  ...WRITTEN_FIELDS,
] as const;

/** What every object of a type no check names keeps besides its metadata: a workload's wanted count, whatever its
 *  kind (a Rollout, an operator's cluster: what-if reads it of the controller at the top of a pod's owners). */
export const ANY_TYPE_FIELDS = ['spec.replicas', 'spec.instances'] as const;

/** Every in-tree volume source a PersistentVolume can name (which one it is can never change: what-if -f). */
export const PV_SOURCES = [
  'azureDisk',
  'azureFile',
  'cephfs',
  'cinder',
  'fc',
  'flexVolume',
  'flocker',
  'gcePersistentDisk',
  'glusterfs',
  'hostPath',
  'iscsi',
  'local',
  'nfs',
  'photonPersistentDisk',
  'portworxVolume',
  'quobyte',
  'rbd',
  'scaleIO',
  'storageos',
  'vsphereVolume',
];

/** A condition list as the API writes it (type, status, reason, message, times). */
const CONDITIONS = 'status.conditions';

/** Pods: metadata, where they run, whether ready and how their containers ended, their IPs (what serves an address a
 *  Service lists by hand); what-if also their requests, tolerations, claims and where they may be scheduled
 *  (nodeSelector, required node affinity) — never env, commands or images. */
const POD_FIELDS = [
  'metadata.annotations["kubeadm.kubernetes.io/*"]',
  'metadata.annotations["kubernetes.io/config.mirror"]',
  'spec.nodeName',
  'spec.tolerations[].key',
  'spec.tolerations[].operator',
  'spec.tolerations[].effect',
  'spec.volumes[].persistentVolumeClaim.claimName',
  'spec.containers[].resources.requests.cpu',
  'spec.containers[].resources.requests.memory',
  'spec.nodeSelector',
  'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution',
  'status.phase',
  CONDITIONS,
  'status.startTime',
  'status.podIP',
  'status.podIPs[].ip',
  'status.containerStatuses[].name',
  'status.containerStatuses[].restartCount',
  'status.containerStatuses[].state',
  'status.containerStatuses[].lastState.terminated.exitCode',
  'status.containerStatuses[].lastState.terminated.reason',
  'status.containerStatuses[].lastState.terminated.message',
];

/** Events of both APIs (core/v1 and events.k8s.io/v1 name the same things differently). */

/** Flux Kustomizations and HelmReleases: how they reconcile and where — never values, patches or substitutions. */
const FLUX_FIELDS = [
  'spec.interval',
  'spec.retryInterval',
  'spec.suspend',
  'spec.targetNamespace',
  'spec.kubeConfig.secretRef.name',
  CONDITIONS,
];

/** Admission webhooks: what each matches, how it fails and where its backend is (a caBundle is certificates). */
const WEBHOOK_FIELDS = [
  'webhooks[].name',
  'webhooks[].failurePolicy',
  'webhooks[].namespaceSelector',
  'webhooks[].objectSelector',
  'webhooks[].rules[].apiGroups',
  'webhooks[].rules[].operations',
  'webhooks[].rules[].resources',
  'webhooks[].clientConfig.service.name',
  'webhooks[].clientConfig.service.namespace',
  'webhooks[].clientConfig.url',
  'webhooks[].clientConfig.caBundle',
  'webhooks[].admissionReviewVersions',
];

export const R = {
  nodes: {
    ...t('', 'v1', 'nodes', 'Node', false),
    fields: [
      'metadata.annotations["k3s.io/node-args"]',
      'metadata.annotations["rke2.io/node-args"]',
      'metadata.annotations["flannel.alpha.coreos.com/backend-type"]',
      'spec.providerID',
      'spec.unschedulable',
      'spec.taints[].key',
      'spec.taints[].effect',
      CONDITIONS,
      'status.nodeInfo.kubeletVersion',
      'status.nodeInfo.osImage',
      'status.nodeInfo.containerRuntimeVersion',
      'status.nodeInfo.operatingSystem',
      'status.nodeInfo.kernelVersion',
      'metadata.annotations["kubeadm.alpha.kubernetes.io/cri-socket"]',
      'status.addresses[].type',
      'status.addresses[].address',
      'status.allocatable.cpu',
      'status.allocatable.memory',
    ],
  },
  namespaces: { ...t('', 'v1', 'namespaces', 'Namespace', false), fields: [CONDITIONS] },
  pods: { ...t('', 'v1', 'pods', 'Pod', true), narrow: narrowPod, fields: POD_FIELDS },
  /** Pods as most checks need them: metadata, whether Running, and full bodies only for control-plane pods. */
  podsLean: {
    ...t('', 'v1', 'pods', 'Pod', true),
    metadataOnly: true,
    runningPhase: true,
    narrow: narrowPod,
    fields: POD_FIELDS,
    bodiesFor: (m) => m.namespace === 'kube-system' && (m.labels?.tier === 'control-plane' || m.labels?.component === 'etcd'),
  } as Need,
  services: {
    ...t('', 'v1', 'services', 'Service', true),
    fields: [
      'metadata.annotations["objectset.rio.cattle.io/applied"]',
      'spec.type',
      'spec.clusterIP',
      'spec.clusterIPs',
      'spec.selector',
      'spec.ipFamilies',
      'spec.ipFamilyPolicy',
    ],
  },
  replicasets: { ...t('apps', 'v1', 'replicasets', 'ReplicaSet', true), metadataOnly: true, fields: [] } as Need,
  pdbs: {
    ...t('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget', true),
    fields: ['spec.minAvailable', 'spec.maxUnavailable', 'spec.selector', 'status.disruptionsAllowed'],
  },
  endpoints: {
    ...t('', 'v1', 'endpoints', 'Endpoints', true),
    fields: [
      'metadata.annotations["endpoints.kubernetes.io/last-change-trigger-time"]',
      'subsets[].addresses',
      'subsets[].notReadyAddresses',
    ],
  },
  configmaps: { ...t('', 'v1', 'configmaps', 'ConfigMap', true), fields: ['data'] },
  events: {
    ...t('', 'v1', 'events', 'Event', true),
    keep: keepEvent,
    fieldSelectors: ['type=Warning', 'type!=Warning,involvedObject.kind=Addon', 'type!=Warning,involvedObject.kind=HelmChart'],
    fields: CORE_EVENT_FIELDS,
  },
  persistentvolumes: {
    ...t('', 'v1', 'persistentvolumes', 'PersistentVolume', false),
    fields: [
      'spec.claimRef.name',
      'spec.claimRef.namespace',
      'spec.csi.driver',
      'spec.awsElasticBlockStore.volumeID',
      'spec.nodeAffinity.required',
      'spec.persistentVolumeReclaimPolicy',
      'spec.storageClassName',
      ...PV_SOURCES.map((x) => `spec.${x}`),
      'status.phase',
    ],
  },
  jobs: {
    ...t('batch', 'v1', 'jobs', 'Job', true),
    fields: [
      'spec.template.metadata.labels',
      'spec.template.metadata.annotations',
      CONDITIONS,
      'status.failed',
      'status.succeeded',
      'status.startTime',
    ],
  },
  persistentvolumeclaims: {
    ...t('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true),
    fields: [
      'metadata.annotations["volume.kubernetes.io/storage-provisioner"]',
      'metadata.annotations["volume.beta.kubernetes.io/storage-provisioner"]',
      'spec.storageClassName',
      'spec.volumeName',
      'spec.accessModes',
      'spec.resources.requests.storage',
      'status.phase',
      'status.capacity',
    ],
  },
  eventsV1: {
    ...t('events.k8s.io', 'v1', 'events', 'Event', true),
    keep: keepEvent,
    fieldSelectors: ['type=Warning', 'type!=Warning,regarding.kind=Addon', 'type!=Warning,regarding.kind=HelmChart'],
    fields: V1_EVENT_FIELDS,
  },
  endpointslices: {
    ...t('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', true),
    fields: ['addressType', 'endpoints[].addresses', 'endpoints[].conditions', 'endpoints[].nodeName', 'endpoints[].targetRef', 'ports'],
  },
  deployments: { ...t('apps', 'v1', 'deployments', 'Deployment', true), fields: ['spec.replicas', 'spec.selector'] },
  /** Only names and labels are read (their pod templates can hold literal env values). */
  daemonsets: { ...t('apps', 'v1', 'daemonsets', 'DaemonSet', true), metadataOnly: true, fields: ['spec.selector'] },
  statefulsets: {
    ...t('apps', 'v1', 'statefulsets', 'StatefulSet', true),
    fields: ['spec.replicas', 'spec.selector', 'spec.serviceName', 'spec.volumeClaimTemplates'],
  },
  ingresses: {
    ...t('networking.k8s.io', 'v1', 'ingresses', 'Ingress', true),
    fields: ['spec.ingressClassName', 'spec.defaultBackend', 'spec.rules[].host', 'spec.rules[].http.paths[].backend.service.name'],
  },
  httproutes: {
    ...t('gateway.networking.k8s.io', 'v1', 'httproutes', 'HTTPRoute', true),
    fields: ['spec.rules[].backendRefs[].kind', 'spec.rules[].backendRefs[].name', 'spec.rules[].backendRefs[].namespace'],
  },
  leases: {
    ...t('coordination.k8s.io', 'v1', 'leases', 'Lease', true),
    fields: ['spec.holderIdentity', 'spec.renewTime', 'spec.leaseDurationSeconds'],
  },
  /** Which kinds they add and their scope, not their schemas (often megabytes). */
  crds: {
    ...t('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false),
    fields: [
      'spec.group',
      'spec.names',
      'spec.scope',
      'spec.versions[].name',
      'spec.versions[].storage',
      'spec.conversion.strategy',
      'spec.conversion.webhook.conversionReviewVersions',
    ],
  },
  addons: { ...t('k3s.cattle.io', 'v1', 'addons', 'Addon', true), fields: [] },
  /** K3s HelmCharts: which chart and how it goes: never its values or the chart itself. */
  helmcharts: {
    ...t('helm.cattle.io', 'v1', 'helmcharts', 'HelmChart', true),
    fields: ['spec.version', 'spec.targetNamespace', 'spec.failurePolicy', CONDITIONS],
  },
  /** A packaged chart's user settings (same name and namespace): its failurePolicy is read, never its values. */
  helmchartconfigs: { ...t('helm.cattle.io', 'v1', 'helmchartconfigs', 'HelmChartConfig', true), fields: ['spec.failurePolicy'] },
  /** Argo CD Applications: where they deploy, how they sync and what they manage; never their sources (Helm values,
   *  parameters, plugin env: wherever Argo CD copies a source, it is not kept). */
  argoApplications: {
    ...t('argoproj.io', 'v1alpha1', 'applications', 'Application', true),
    clusterWide: true,
    fields: [
      'spec.destination.server',
      'spec.destination.namespace',
      'spec.syncPolicy.automated',
      'spec.syncPolicy.retry',
      'spec.syncPolicy.syncOptions',
      CONDITIONS,
      'status.health.status',
      'status.sync.status',
      'status.resources',
      'status.operationState.phase',
      'status.operationState.message',
      'status.operationState.startedAt',
      'status.operationState.finishedAt',
      'status.operationState.retryCount',
      'status.operationState.operation.retry.limit',
      'status.operationState.syncResult.resources[].group',
      'status.operationState.syncResult.resources[].version',
      'status.operationState.syncResult.resources[].kind',
      'status.operationState.syncResult.resources[].namespace',
      'status.operationState.syncResult.resources[].name',
      'status.operationState.syncResult.resources[].message',
    ],
  },
  fluxKustomizations: {
    ...t('kustomize.toolkit.fluxcd.io', 'v1', 'kustomizations', 'Kustomization', true),
    clusterWide: true,
    fields: [...FLUX_FIELDS, 'spec.prune', 'status.inventory.entries[].id', 'status.inventory.entries[].v'],
  },
  fluxHelmReleases: {
    ...t('helm.toolkit.fluxcd.io', 'v2', 'helmreleases', 'HelmRelease', true),
    clusterWide: true,
    fields: [...FLUX_FIELDS, 'spec.upgrade.remediation.retries'],
  },
  /** rancher/system-upgrade-controller: how K3s and RKE2 clusters are upgraded in place: which nodes a Plan takes, how
   *  many at once and to what; never its secrets, env or its steps' arguments. */
  sucPlans: {
    ...t('upgrade.cattle.io', 'v1', 'plans', 'Plan', true),
    clusterWide: true,
    fields: ['spec.concurrency', 'spec.nodeSelector', 'spec.version', 'spec.upgrade.image', 'status.applying'],
  },
  k0sEtcdMembers: {
    ...t('etcd.k0sproject.io', 'v1beta1', 'etcdmembers', 'EtcdMember', false),
    fields: [CONDITIONS, 'status.memberID', 'status.peerAddress'],
  },
  /** K3s/RKE2 (from the October 2023 patch releases): one per snapshot file, local or on S3 (k3s-io/api). */
  etcdSnapshotFiles: {
    ...t('k3s.cattle.io', 'v1', 'etcdsnapshotfiles', 'ETCDSnapshotFile', false),
    fields: [
      'spec.snapshotName',
      'spec.nodeName',
      'spec.location',
      'spec.s3.bucket',
      'spec.s3.endpoint',
      'status.creationTime',
      'status.readyToUse',
      'status.error.time',
      'status.error.message',
    ],
  },
  /** OpenShift, behind the AutomatedEtcdBackup feature gate: scheduled and one-time etcd backups. */
  openshiftEtcdBackupPolicies: {
    ...t('operator.openshift.io', 'v1alpha1', 'etcdbackuppolicies', 'EtcdBackupPolicy', false),
    fields: ['spec.schedule', CONDITIONS],
  },
  openshiftEtcdBackups: {
    ...t('operator.openshift.io', 'v1alpha1', 'etcdbackups', 'EtcdBackup', false),
    fields: [CONDITIONS, 'status.jobName'],
  },
  openshiftEtcds: { ...t('operator.openshift.io', 'v1', 'etcds', 'Etcd', false), fields: [CONDITIONS] },
  validatingWebhooks: {
    ...t('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', false),
    fields: WEBHOOK_FIELDS,
  },
  mutatingWebhooks: {
    ...t('admissionregistration.k8s.io', 'v1', 'mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', false),
    fields: WEBHOOK_FIELDS,
  },
  apiservices: {
    ...t('apiregistration.k8s.io', 'v1', 'apiservices', 'APIService', false),
    fields: ['spec.group', 'spec.version', 'spec.service.name', 'spec.service.namespace', CONDITIONS],
  },
  storageclasses: {
    ...t('storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', false),
    fields: ['metadata.annotations["storageclass.kubernetes.io/is-default-class"]', 'provisioner', 'allowVolumeExpansion'],
  },
  csidrivers: { ...t('storage.k8s.io', 'v1', 'csidrivers', 'CSIDriver', false), fields: [] },
  csinodes: { ...t('storage.k8s.io', 'v1', 'csinodes', 'CSINode', false), fields: ['spec.drivers[].name'] },
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
  fields: ['data', 'binaryData', 'immutable'],
  metadataOnly: true,
  bodiesFor: (m) => configMapKeys(m.name, m.namespace) !== null,
  narrow: trimConfigMap,
};
