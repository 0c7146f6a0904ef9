// Well-known resource types the checks ask for. Discovery is only needed for the orphan scan,
// which reads every listable type; every other check names its types here.
import type { KObject, Need } from './model.js';
import { CORE_EVENT_FIELDS, V1_EVENT_FIELDS } from './lib/events.js';
import { digestOf, isDigest } from './snapshot/digest.js';

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

/** What a Pod's update may change (the API server's list): what-if -f keeps these whole, and the rest of the spec as
 *  one digest (src/change/rules/core.ts compares it; no value of it is kept). */
export const POD_UPDATABLE = [
  'activeDeadlineSeconds',
  'tolerations',
  'schedulingGates',
  'terminationGracePeriodSeconds',
  'nodeSelector',
  'affinity',
];
/** Where a snapshot keeps a Pod spec's fixed part, as one digest. */
export const POD_FIXED = 'kubectl-arch.io/fixed';
/** A Pod spec without what an update may change: the part that never changes (images too are left out). */
export function podFixedPart(spec: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...spec };
  for (const k of [...POD_UPDATABLE, POD_FIXED]) delete out[k];
  for (const k of ['containers', 'initContainers'])
    if (Array.isArray(out[k])) out[k] = (out[k] as Array<Record<string, unknown>>).map((c) => ({ ...c, image: undefined }));
  return out;
}

const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A Pod's spec with its fixed part as one digest (what-if -f: whether it changed, never what it holds): only from a
 *  whole spec, as the API server sends it; a snapshot's copy keeps the digest it has. */
function fixedDigest(o: KObject): KObject {
  const spec = o.spec;
  if (!isObj(spec) || isDigest(spec[POD_FIXED])) return o;
  if (!Array.isArray(spec.containers) || !spec.containers.every((c: { image?: unknown }) => typeof c?.image === 'string')) return o;
  return { ...o, spec: { ...spec, [POD_FIXED]: digestOf(podFixedPart(spec)) } };
}

/** A pod template's spec with what a rule may only compare as digests: every env value, every argument and command
 *  (containers', probes', hooks'): whether one changed is known, what it holds is not kept. */
export function digestPodSpec(v: unknown, key = ''): unknown {
  if (Array.isArray(v)) {
    if ((key === 'args' || key === 'command') && v.every((x) => typeof x === 'string'))
      return v.map((x: string) => (isDigest(x) ? x : digestOf(x)));
    if (key === 'env')
      return v.map((e) => (isObj(e) && 'value' in e ? { ...e, value: isDigest(e.value) ? e.value : digestOf(e.value) } : e));
    return v.map((x) => digestPodSpec(x));
  }
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, digestPodSpec(x, k)]));
  return v;
}

/** Each value of a map as a digest (a StorageClass's parameters: compared, never kept). */
const digestValues = (v: unknown): unknown =>
  isObj(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, isDigest(x) ? x : digestOf(x)])) : v;

/** Pods: a value narrowed before the projection (the fields kept are in R.pods.fields). */
const narrowPod = (o0: KObject): KObject => {
  const o = fixedDigest(o0);
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

/** What what-if -f reads of a live object from a snapshot, per type (src/change/rules: the fields each kind's update
 *  rule compares with the live ones; src/change/predict.ts CHANGE_READS declares them): where a rule only compares
 *  values, their salted digests (src/snapshot/digest.ts) — a Pod spec's fixed part, a Job template's env values and
 *  arguments, an immutable ConfigMap's values, a ControllerRevision's data, a StorageClass's parameters, an inline
 *  volume of a VolumeAttachment. A field a rule allows to change is not kept: a difference there is allowed unseen. */
export const CHANGE_FIELDS = {
  pods: [
    'spec.activeDeadlineSeconds',
    'spec.terminationGracePeriodSeconds',
    'spec.tolerations',
    'spec.schedulingGates',
    'spec.nodeSelector',
    'spec.affinity.nodeAffinity',
    `spec[${JSON.stringify(POD_FIXED)}]`,
  ],
  nodes: ['spec.podCIDR', 'spec.podCIDRs', 'spec.providerID'],
  /** Every field of a Service's spec takes part in its rules (clusterIP(s), families, type, ports, policies). */
  services: ['spec'],
  /** A workload's selector never changes, and the template must carry what it selects: the received object's template
   *  labels come from the live ones where an apply merges them. */
  replicasets: ['spec.selector', 'spec.template.metadata.labels'],
  daemonsets: ['spec.selector', 'spec.template.metadata.labels'],
  deployments: ['spec.selector', 'spec.template.metadata.labels'],
  statefulsets: [
    'spec.selector',
    'spec.template.metadata.labels',
    'spec.serviceName',
    'spec.volumeClaimTemplates',
    'spec.podManagementPolicy',
    'spec.revisionHistoryLimit',
    'spec.ordinals',
  ],
  /** The whole spec (every field but a few is fixed), the template's env values and arguments as digests; whether it
   *  ever started. */
  jobs: ['spec', 'status.startTime', 'status.active', CONDITIONS],
  persistentvolumeclaims: ['metadata.annotations["volume.beta.kubernetes.io/storage-class"]', 'spec', 'status.phase', 'status.capacity'],
  persistentvolumes: [...PV_SOURCES.map((x) => `spec.${x}`), 'spec.csi', 'spec.volumeMode', 'spec.nodeAffinity'],
  storageclasses: ['provisioner', 'parameters', 'reclaimPolicy', 'volumeBindingMode', 'allowVolumeExpansion'],
  csidrivers: ['spec.attachRequired', 'spec.fsGroupPolicy', 'spec.podInfoOnMount', 'spec.volumeLifecycleModes'],
  csinodes: ['spec.drivers'],
  /** Which kinds they add; their versions whole but each schema as one digest (no rule judges a schema: an unchanged
   *  one must show no difference). */
  crds: ['spec.group', 'spec.names', 'spec.scope', 'spec.versions'],
  endpointslices: ['addressType'],
  controllerrevisions: ['data'],
  resourcequotas: ['spec.scopes', 'spec.scopeSelector'],
  rolebindings: ['roleRef'],
  clusterrolebindings: ['roleRef'],
  volumeattachments: ['spec'],
  csistoragecapacities: ['storageClassName', 'nodeTopology'],
  priorityclasses: ['value', 'preemptionPolicy'],
  runtimeclasses: ['handler'],
  ingressclasses: ['spec.controller'],
} as const;

/** Jobs: the template's env values and arguments as digests (what-if -f compares them; no value is kept). */
const narrowJob = (o: KObject): KObject =>
  isObj(o.spec) && isObj(o.spec.template) && isObj(o.spec.template.spec)
    ? { ...o, spec: { ...o.spec, template: { ...o.spec.template, spec: digestPodSpec(o.spec.template.spec) } } }
    : o;
/** ControllerRevisions: their data (whole pod templates) never changes, so one digest of it is what what-if -f needs. */
const narrowRevision = (o: KObject): KObject => (o.data === undefined || isDigest(o.data) ? o : { ...o, data: digestOf(o.data) });
const narrowStorageClass = (o: KObject): KObject => (isObj(o.parameters) ? { ...o, parameters: digestValues(o.parameters) } : o);
/** PersistentVolumes: a CSI volume's attributes and a flexVolume's options as digests (a source never changes). */
const narrowPv = (o: KObject): KObject => {
  if (!isObj(o.spec)) return o;
  const spec = { ...o.spec };
  if (isObj(spec.csi) && isObj(spec.csi.volumeAttributes))
    spec.csi = { ...spec.csi, volumeAttributes: digestValues(spec.csi.volumeAttributes) };
  if (isObj(spec.flexVolume) && isObj(spec.flexVolume.options))
    spec.flexVolume = { ...spec.flexVolume, options: digestValues(spec.flexVolume.options) };
  return { ...o, spec };
};
/** CustomResourceDefinitions: each version's schema (often megabytes) as one digest. */
const narrowCrd = (o: KObject): KObject =>
  isObj(o.spec) && Array.isArray(o.spec.versions)
    ? {
        ...o,
        spec: {
          ...o.spec,
          versions: o.spec.versions.map((v: unknown) =>
            isObj(v) && v.schema !== undefined && !isDigest(v.schema) ? { ...v, schema: digestOf(v.schema) } : v,
          ),
        },
      }
    : o;
/** VolumeAttachments: an inline volume (a whole PV spec) as one digest. */
const narrowAttachment = (o: KObject): KObject =>
  isObj(o.spec) && isObj(o.spec.source) && o.spec.source.inlineVolumeSpec !== undefined && !isDigest(o.spec.source.inlineVolumeSpec)
    ? { ...o, spec: { ...o.spec, source: { ...o.spec.source, inlineVolumeSpec: digestOf(o.spec.source.inlineVolumeSpec) } } }
    : o;

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
      ...CHANGE_FIELDS.nodes,
    ],
  },
  namespaces: { ...t('', 'v1', 'namespaces', 'Namespace', false), fields: [CONDITIONS] },
  pods: { ...t('', 'v1', 'pods', 'Pod', true), narrow: narrowPod, fields: [...POD_FIELDS, ...CHANGE_FIELDS.pods] },
  /** Pods as most checks need them: metadata, whether Running, and full bodies only for control-plane pods. */
  podsLean: {
    ...t('', 'v1', 'pods', 'Pod', true),
    metadataOnly: true,
    runningPhase: true,
    narrow: narrowPod,
    fields: [...POD_FIELDS, ...CHANGE_FIELDS.pods],
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
      ...CHANGE_FIELDS.services,
    ],
  },
  replicasets: {
    ...t('apps', 'v1', 'replicasets', 'ReplicaSet', true),
    metadataOnly: true,
    fields: [...CHANGE_FIELDS.replicasets],
  } as Need,
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
      ...CHANGE_FIELDS.persistentvolumes,
    ],
    narrow: narrowPv,
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
      ...CHANGE_FIELDS.jobs,
    ],
    narrow: narrowJob,
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
      ...CHANGE_FIELDS.persistentvolumeclaims,
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
    fields: [
      'addressType',
      'endpoints[].addresses',
      'endpoints[].conditions',
      'endpoints[].nodeName',
      'endpoints[].targetRef',
      'ports',
      ...CHANGE_FIELDS.endpointslices,
    ],
  },
  deployments: {
    ...t('apps', 'v1', 'deployments', 'Deployment', true),
    fields: ['spec.replicas', 'spec.selector', ...CHANGE_FIELDS.deployments],
  },
  /** Only names and labels are read (their pod templates can hold literal env values). */
  daemonsets: {
    ...t('apps', 'v1', 'daemonsets', 'DaemonSet', true),
    metadataOnly: true,
    fields: ['spec.selector', ...CHANGE_FIELDS.daemonsets],
  },
  statefulsets: {
    ...t('apps', 'v1', 'statefulsets', 'StatefulSet', true),
    fields: ['spec.replicas', 'spec.selector', 'spec.serviceName', 'spec.volumeClaimTemplates', ...CHANGE_FIELDS.statefulsets],
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
  /** Which kinds they add and their scope; their schemas (often megabytes) only as digests. */
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
      ...CHANGE_FIELDS.crds,
    ],
    narrow: narrowCrd,
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
    fields: [
      'metadata.annotations["storageclass.kubernetes.io/is-default-class"]',
      'provisioner',
      'allowVolumeExpansion',
      ...CHANGE_FIELDS.storageclasses,
    ],
    narrow: narrowStorageClass,
  },
  csidrivers: { ...t('storage.k8s.io', 'v1', 'csidrivers', 'CSIDriver', false), fields: [...CHANGE_FIELDS.csidrivers] },
  csinodes: { ...t('storage.k8s.io', 'v1', 'csinodes', 'CSINode', false), fields: ['spec.drivers[].name', ...CHANGE_FIELDS.csinodes] },
  /** what-if -f's kinds (src/change/needs.ts): what their update rules compare with the live object. */
  controllerrevisions: {
    ...t('apps', 'v1', 'controllerrevisions', 'ControllerRevision', true),
    narrow: narrowRevision,
    fields: CHANGE_FIELDS.controllerrevisions,
  },
  resourcequotas: { ...t('', 'v1', 'resourcequotas', 'ResourceQuota', true), fields: CHANGE_FIELDS.resourcequotas },
  rolebindings: { ...t('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding', true), fields: CHANGE_FIELDS.rolebindings },
  clusterrolebindings: {
    ...t('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', 'ClusterRoleBinding', false),
    fields: CHANGE_FIELDS.clusterrolebindings,
  },
  volumeattachments: {
    ...t('storage.k8s.io', 'v1', 'volumeattachments', 'VolumeAttachment', false),
    narrow: narrowAttachment,
    fields: CHANGE_FIELDS.volumeattachments,
  },
  csistoragecapacities: {
    ...t('storage.k8s.io', 'v1', 'csistoragecapacities', 'CSIStorageCapacity', true),
    fields: CHANGE_FIELDS.csistoragecapacities,
  },
  priorityclasses: { ...t('scheduling.k8s.io', 'v1', 'priorityclasses', 'PriorityClass', false), fields: CHANGE_FIELDS.priorityclasses },
  runtimeclasses: { ...t('node.k8s.io', 'v1', 'runtimeclasses', 'RuntimeClass', false), fields: CHANGE_FIELDS.runtimeclasses },
  ingressclasses: { ...t('networking.k8s.io', 'v1', 'ingressclasses', 'IngressClass', false), fields: CHANGE_FIELDS.ingressclasses },
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
  // what-if -f (a snapshot that lists bodies): whether it is immutable, and then each value as a digest — never a value
  if (!keys && (o.data !== undefined || o.binaryData !== undefined || o.immutable !== undefined))
    return {
      apiVersion: o.apiVersion,
      kind: o.kind,
      metadata: o.metadata,
      immutable: o.immutable === true,
      ...(o.immutable === true
        ? {
            ...(o.data !== undefined ? { data: digestValues(o.data) } : {}),
            ...(o.binaryData !== undefined ? { binaryData: digestValues(o.binaryData) } : {}),
          }
        : {}),
    };
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
