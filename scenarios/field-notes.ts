// The field-notes cluster, healthy: K3s v1.35.4+k3s1, 3 servers (embedded etcd) + 3 agents, 45 namespaces,
// 295 pods, Argo CD with five live Applications, NodeLocal DNSCache. Failure cases are added by each check's
// scenario file (src/checks/<id>/scenario.ts). CoreDNS carries the labels of K3s's own manifest
// (k3s-io/k3s manifests/coredns.yaml: Deployment and pods `k8s-app: kube-dns`, the kube-dns Service selecting it).
import type { KObject } from '../src/model.js';
import { createHash } from 'node:crypto';
import { ClusterBuilder, DAY, HOUR, MIN } from './builder.js';

export const CAPTURED = Date.parse('2026-08-13T09:00:00Z');

export const SERVERS: Array<[string, string]> = [
  ['lemuel', '192.168.219.101'],
  ['ilwon', '192.168.219.102'],
  ['solomon', '192.168.219.103'],
];
const AGENTS: Array<[string, string]> = [
  ['david', '192.168.219.111'],
  ['louise', '192.168.219.112'],
  ['isagal', '192.168.219.113'],
];

const APP_NS = [
  'blog',
  'homepage',
  'grafana',
  'prometheus',
  'loki',
  'gitea',
  'nextcloud',
  'vaultwarden',
  'immich',
  'jellyfin',
  'paperless',
  'home-assistant',
  'mosquitto',
  'zigbee2mqtt',
  'pihole',
  'uptime-kuma',
  'minio',
  'postgres',
  'redis',
  'n8n',
  'wiki',
  'bookstack',
  'freshrss',
  'miniflux',
  'syncthing',
  'calibre',
  'navidrome',
  'audiobookshelf',
  'linkding',
  'excalidraw',
  'drawio',
  'plantuml',
  'code-server',
  'registry',
  'harbor-lite',
  'cert-manager',
  'ingress',
  'backup',
  'cron-jobs',
  'sandbox',
];

/** K3s/wrangler annotations on objects an Addon applied. */
export const objectset = (addon: string): Record<string, string> => ({
  'objectset.rio.cattle.io/id': '',
  'objectset.rio.cattle.io/owner-gvk': 'k3s.cattle.io/v1, Kind=Addon',
  'objectset.rio.cattle.io/owner-name': addon,
  'objectset.rio.cattle.io/owner-namespace': 'kube-system',
});

/** Argo CD's tracking on an object (annotation+label, as argocd-cm of the field-notes cluster says). */
export function withTracking(o: KObject, app: string): KObject {
  const g = o.apiVersion?.includes('/') ? o.apiVersion.split('/')[0] : '';
  o.metadata.labels = { ...(o.metadata.labels ?? {}), 'app.kubernetes.io/instance': app };
  o.metadata.annotations = {
    ...(o.metadata.annotations ?? {}),
    'argocd.argoproj.io/tracking-id': `${app}:${g}/${o.kind}:${o.metadata.namespace ?? app}/${o.metadata.name}`,
  };
  return o;
}

/**
 * A claim of the K3s local-path provisioner for a Deployment's pods, bound to a PV that only the pod's node can mount
 * (the provisioner writes nodeAffinity kubernetes.io/hostname In [node] and a hostPath under
 * /var/lib/rancher/k3s/storage), and the claim mounted by the Deployment's template and its pods.
 */
export function localPathVolume(c: ClusterBuilder, d: KObject, claim: string, app?: string): void {
  const ns = d.metadata.namespace!;
  const pods = c.all('Pod').filter((p) => p.metadata.namespace === ns && p.metadata.labels?.app === d.spec.selector.matchLabels.app);
  const node = String(pods[0]?.spec?.nodeName);
  const id = createHash('sha256').update(`${ns}/${claim}`).digest('hex');
  const pv = `pvc-${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20, 32)}`;
  const volume = { name: 'data', persistentVolumeClaim: { claimName: claim } };
  d.spec.template.spec.volumes = [volume];
  for (const p of pods) p.spec.volumes = [volume];
  const pvc = c.add({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: c.meta(claim, ns, {
      annotations: {
        'pv.kubernetes.io/bind-completed': 'yes',
        'volume.kubernetes.io/selected-node': node,
        'volume.kubernetes.io/storage-provisioner': 'rancher.io/local-path',
      },
    }),
    spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'local-path', volumeName: pv, resources: { requests: { storage: '2Gi' } } },
    status: { phase: 'Bound', capacity: { storage: '2Gi' } },
  });
  if (app) withTracking(pvc, app);
  c.add({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: c.meta(pv, undefined, {
      annotations: { 'local.path.provisioner/selected-node': node, 'pv.kubernetes.io/provisioned-by': 'rancher.io/local-path' },
    }),
    spec: {
      capacity: { storage: '2Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: 'local-path',
      claimRef: { kind: 'PersistentVolumeClaim', namespace: ns, name: claim },
      hostPath: { path: `/var/lib/rancher/k3s/storage/${pv}_${ns}_${claim}`, type: 'DirectoryOrCreate' },
      nodeAffinity: {
        required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] },
      },
    },
    status: { phase: 'Bound' },
  });
}

export function k3sNode(c: ClusterBuilder, name: string, ip: string, server: boolean, podCidrIndex: number): KObject {
  const labels: Record<string, string> = {
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'node.kubernetes.io/instance-type': 'k3s',
  };
  const annotations: Record<string, string> = {
    'flannel.alpha.coreos.com/backend-type': 'vxlan',
    'flannel.alpha.coreos.com/public-ip': ip,
    'k3s.io/node-args': JSON.stringify(server ? ['server'] : ['agent']),
    'k3s.io/internal-ip': ip,
  };
  const conditions: unknown[] = [
    {
      type: 'Ready',
      status: 'True',
      reason: 'KubeletReady',
      message: 'kubelet is posting ready status',
      lastHeartbeatTime: c.ago(20_000),
      lastTransitionTime: c.ago(30 * DAY),
    },
    {
      type: 'MemoryPressure',
      status: 'False',
      reason: 'KubeletHasSufficientMemory',
      lastHeartbeatTime: c.ago(20_000),
      lastTransitionTime: c.ago(30 * DAY),
    },
  ];
  if (server) {
    Object.assign(labels, {
      'node-role.kubernetes.io/control-plane': 'true',
      'node-role.kubernetes.io/master': 'true',
      'node-role.kubernetes.io/etcd': 'true',
    });
    Object.assign(annotations, { 'etcd.k3s.cattle.io/node-name': `${name}-a1b2c3d4`, 'etcd.k3s.cattle.io/node-address': ip });
    conditions.push({
      type: 'EtcdIsVoter',
      status: 'True',
      reason: 'MemberNotLearner',
      message: 'Node is a voting member of the etcd cluster',
      lastHeartbeatTime: c.ago(2 * MIN),
      lastTransitionTime: c.ago(120 * DAY),
    });
  }
  return c.add({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: c.meta(name, undefined, { labels, annotations }),
    spec: {
      podCIDR: `10.42.${podCidrIndex}.0/24`,
      providerID: `k3s://${name}`,
      ...(name === 'lemuel' ? { unschedulable: true, taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] } : {}),
    },
    status: {
      addresses: [
        { type: 'InternalIP', address: ip },
        { type: 'Hostname', address: name },
      ],
      conditions,
      // home-lab mini PCs: servers 4 cores / 16 GiB, agents 8 / 32 (allocatable: what pods may request)
      allocatable: server ? { cpu: '4', memory: '16318864Ki', pods: '110' } : { cpu: '8', memory: '32637728Ki', pods: '110' },
      nodeInfo: {
        kubeletVersion: 'v1.35.4+k3s1',
        kubeProxyVersion: 'v1.35.4+k3s1',
        containerRuntimeVersion: 'containerd://2.2.3-k3s1',
        osImage: 'Ubuntu 24.04.3 LTS',
        kernelVersion: '6.8.0-88-generic',
        architecture: 'amd64',
        operatingSystem: 'linux',
      },
    },
  });
}

export function addon(c: ClusterBuilder, name: string, ok = true): KObject {
  return c.add({
    apiVersion: 'k3s.cattle.io/v1',
    kind: 'Addon',
    metadata: c.meta(name, 'kube-system'),
    spec: {
      source: `/var/lib/rancher/k3s/server/manifests/${name}.yaml`,
      checksum: ok
        ? 'a5c1d8f0e3b24b9e8f7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a'
        : '7e0b3c1a9f8d6e5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c',
    },
  });
}

/** The healthy field-notes cluster, before the pod filler and the Endpoints (see fillFieldNotes). */
export function fieldNotesBase(c: ClusterBuilder, opts: { servers?: number } = {}): void {
  const servers = SERVERS.slice(SERVERS.length - (opts.servers ?? 3));
  [...servers, ...AGENTS].forEach(([n, ip], i) =>
    k3sNode(
      c,
      n,
      ip,
      servers.some(([s]) => s === n),
      i,
    ),
  );
  for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease', 'argocd', ...APP_NS]) c.namespace(n);
  const work = ['ilwon', 'solomon', ...AGENTS.map(([n]) => n)];
  // kube-system as measured: coredns ×2, node-local-dns ×6, node-self-healer ×6, local-path-provisioner, metrics-server
  c.deployment('coredns', 'kube-system', 2, { 'k8s-app': 'kube-dns' }, { annotations: objectset('coredns'), nodes: work });
  c.service('kube-dns', 'kube-system', { 'k8s-app': 'kube-dns' }, '10.43.0.10', {
    annotations: {
      ...objectset('coredns'),
      'objectset.rio.cattle.io/applied':
        '{"apiVersion":"v1","kind":"Service","metadata":{"name":"kube-dns","namespace":"kube-system"},"spec":{"clusterIP":"10.43.0.10"}}',
      'prometheus.io/port': '9153',
    },
    labels: {
      'k8s-app': 'kube-dns',
      'kubernetes.io/cluster-service': 'true',
      'kubernetes.io/name': 'CoreDNS',
      'objectset.rio.cattle.io/hash': 'bce283298811743a0386ab510f2f67ef74240c57',
    },
    ports: [
      { name: 'dns', port: 53, protocol: 'UDP' },
      { name: 'dns-tcp', port: 53, protocol: 'TCP' },
      { name: 'metrics', port: 9153, protocol: 'TCP' },
    ],
  });
  c.daemonset('node-local-dns', 'kube-system', { 'k8s-app': 'node-local-dns' });
  c.service('kube-dns-upstream', 'kube-system', { 'k8s-app': 'kube-dns' }, '10.43.12.40', {
    labels: { 'k8s-app': 'kube-dns-upstream' },
    ports: [{ name: 'dns', port: 53, protocol: 'UDP' }],
  });
  c.daemonset('node-self-healer', 'kube-system', { app: 'node-self-healer' });
  c.deployment(
    'local-path-provisioner',
    'kube-system',
    1,
    { app: 'local-path-provisioner' },
    { annotations: objectset('local-storage'), nodes: work },
  );
  c.deployment(
    'metrics-server',
    'kube-system',
    1,
    { 'k8s-app': 'metrics-server' },
    { annotations: objectset('metrics-server'), nodes: work },
  );
  c.service('metrics-server', 'kube-system', { 'k8s-app': 'metrics-server' }, '10.43.81.7', {
    annotations: objectset('metrics-server'),
    ports: [{ name: 'https', port: 443, protocol: 'TCP' }],
  });
  c.configmap('cluster-dns', 'kube-system', { clusterDNS: '10.43.0.10', clusterDomain: 'cluster.local' });
  c.configmap(
    'coredns',
    'kube-system',
    {
      Corefile:
        '.:53 {\n    errors\n    health\n    ready\n    kubernetes cluster.local in-addr.arpa ip6.arpa {\n      pods insecure\n      fallthrough in-addr.arpa ip6.arpa\n    }\n    forward . /etc/resolv.conf\n    cache 30\n}\n',
    },
    { annotations: objectset('coredns') },
  );
  c.configmap(
    'node-local-dns',
    'kube-system',
    { Corefile: 'cluster.local:53 {\n    bind 169.254.20.10 10.43.0.10\n    forward . __PILLAR__CLUSTER__DNS__\n}\n' },
    { labels: { 'k8s-app': 'node-local-dns' } },
  );
  // K3s addons (manifests in /var/lib/rancher/k3s/server/manifests)
  for (const a of ['ccm', 'coredns', 'local-storage', 'metrics-server', 'rolebindings', 'runtimes']) addon(c, a);
  // Argo CD with five live Applications (uptime-kuma without a cascading finalizer)
  c.deployment(
    'argocd-server',
    'argocd',
    1,
    { 'app.kubernetes.io/name': 'argocd-server', app: 'argocd-server' },
    { nodes: work, podLabels: { app: 'argocd-server' } },
  );
  c.deployment(
    'argocd-repo-server',
    'argocd',
    1,
    { 'app.kubernetes.io/name': 'argocd-repo-server', app: 'argocd-repo-server' },
    { nodes: work, podLabels: { app: 'argocd-repo-server' } },
  );
  c.pod('argocd-application-controller-0', 'argocd', 'david', { app: 'argocd-application-controller' });
  c.configmap(
    'argocd-cm',
    'argocd',
    { 'application.resourceTrackingMethod': 'annotation+label' },
    { labels: { 'app.kubernetes.io/part-of': 'argocd' } },
  );
  let apps = 0;
  for (const [name, fin] of [
    ['homepage', true],
    ['grafana', true],
    ['uptime-kuma', false],
    ['gitea', true],
    ['vaultwarden', true],
  ] as const) {
    application(c, name, name, fin ? ['resources-finalizer.argocd.argoproj.io'] : undefined);
    apps++;
    const d = withTracking(c.deployment(name, name, 1, { app: name }, { nodes: work }), name);
    withTracking(c.service(name, name, { app: name }, `10.43.${100 + apps}.${20 + apps}`), name);
    // stateful apps keep their data on local-path volumes, on the node where their pod first ran
    if (name === 'gitea' || name === 'vaultwarden') localPathVolume(c, d, `${name}-data`, name);
  }
  c.event(
    'metrics-server.18a2f3c4d5e6f710',
    'kube-system',
    { apiVersion: 'k3s.cattle.io/v1', kind: 'Addon', namespace: 'kube-system', name: 'metrics-server' },
    {
      reason: 'AppliedManifest',
      type: 'Normal',
      count: 1,
      message: 'Applied manifest at "/var/lib/rancher/k3s/server/manifests/metrics-server.yaml"',
      first: 40 * MIN,
      last: 40 * MIN,
      component: 'deploy',
      host: 'lemuel',
    },
  );
  door(c);
  // API server identity leases (one per k3s server) and the component leader leases
  for (const [n] of servers) {
    c.add({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: c.meta(`apiserver-${n}-6b3d`, 'kube-system', {
        labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': n },
      }),
      spec: {
        holderIdentity: `apiserver-${n}-6b3d_${c.uid()}`,
        leaseDurationSeconds: 3600,
        renewTime: c.ago(4_000).replace('Z', '.000000Z'),
      },
    });
  }
  for (const l of ['kube-scheduler', 'kube-controller-manager']) {
    c.add({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: c.meta(l, 'kube-system'),
      spec: { holderIdentity: `ilwon_${c.uid()}`, leaseDurationSeconds: 15, renewTime: c.ago(2_000).replace('Z', '.000000Z') },
    });
  }
  etcdSnapshots(
    c,
    servers.map(([n]) => n),
  );
}

/**
 * The etcd snapshots a K3s of this age has: every server runs the default schedule (twice a day at 00:00 and 12:00, a few seconds of
 * jitter) and keeps 5 on its own disk; each run is copied to S3, where retention (5) counts the whole cluster. Named as
 * K3s names them (pkg/etcd/snapshot/types.go): `local-`/`s3-` + the file name + the first 6 hex of
 * sha256(node + location).
 */
export function etcdSnapshots(c: ClusterBuilder, servers: string[], opts: { s3?: boolean } = { s3: true }): KObject[] {
  const out: KObject[] = [];
  const runs = [0, 1, 2, 3, 4].map((i) => Math.floor((CAPTURED - 9 * HOUR - i * 12 * HOUR) / 1000)); // 00:00 and 12:00 UTC
  const file = (node: string, unix: number, s3: boolean, jitter: number): KObject => {
    const snapshotName = `etcd-snapshot-${node}-${unix + jitter}`;
    const location = s3
      ? `s3://k3s-etcd-snapshots/field-notes/${snapshotName}`
      : `file:///var/lib/rancher/k3s/server/db/snapshots/${snapshotName}`;
    const hash = createHash('sha256')
      .update(node + location)
      .digest('hex')
      .slice(0, 6);
    return c.add({
      apiVersion: 'k3s.cattle.io/v1',
      kind: 'ETCDSnapshotFile',
      metadata: c.meta(`${s3 ? 's3' : 'local'}-${snapshotName}-${hash}`, undefined, {
        creationTimestamp: new Date((unix + jitter + 3) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        labels: { 'etcd.k3s.cattle.io/snapshot-storage-node': s3 ? 's3' : node },
      }),
      spec: {
        snapshotName,
        nodeName: node,
        location,
        ...(s3 ? { s3: { endpoint: 's3.home.arpa', bucket: 'k3s-etcd-snapshots', prefix: 'field-notes', region: 'us-east-1' } } : {}),
      },
      status: {
        readyToUse: true,
        size: '18743328',
        creationTime: new Date((unix + jitter) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      },
    });
  };
  servers.forEach((node, k) => {
    for (const unix of runs) out.push(file(node, unix, false, 2 + k));
  });
  if (opts.s3)
    for (const [i, unix] of runs.slice(0, 2).entries())
      for (const [k, node] of servers.entries()) if (i * servers.length + k < 5) out.push(file(node, unix, true, 2 + k));
  return out;
}

/** A self-signed CA as cert-manager's cainjector puts in caBundle (generated once with openssl: valid 2026-03-05 to 2027-03-05). */
export const WEBHOOK_CA = Buffer.from(
  [
    '-----BEGIN CERTIFICATE-----',
    'MIIBdDCCARugAwIBAgIBATAKBggqhkjOPQQDAjAiMSAwHgYDVQQDDBdjZXJ0LW1h',
    'bmFnZXItd2ViaG9vay1jYTAeFw0yNjAzMDUxMDE1MDBaFw0yNzAzMDUxMDE1MDBa',
    'MCIxIDAeBgNVBAMMF2NlcnQtbWFuYWdlci13ZWJob29rLWNhMFkwEwYHKoZIzj0C',
    'AQYIKoZIzj0DAQcDQgAEn2tsqZ3JfxZS5wmpCnaiHbN4yVyCYqWyUUHgInL/vk7B',
    'PWToKbwv2CDFTjRjaQdj4uHGedsR52z/WYvkKhLfv6NCMEAwDwYDVR0TAQH/BAUw',
    'AwEB/zAOBgNVHQ8BAf8EBAMCAoQwHQYDVR0OBBYEFPJ4XzlkSiPQe8KGJM7+Egek',
    'HgoBMAoGCCqGSM49BAMCA0cAMEQCICdmOu+d5bIH3yCb9v3/A1jm2eIwOXNL6uIY',
    'ad2u63BPAiBhNXkl5E81QYq+M5KkQj4KPWrPK69lyCMKeTfjL5x1fA==',
    '-----END CERTIFICATE-----',
  ].join('\n') + '\n',
).toString('base64');

/** What stands at the door and at the interfaces: the APIServices K3s serves, metrics.k8s.io through metrics-server,
 *  cert-manager's webhooks, the local-path StorageClass and one CSINode per node (K3s registers no CSI driver). */
function door(c: ClusterBuilder): void {
  for (const [group, version] of [
    ['', 'v1'],
    ['apps', 'v1'],
    ['batch', 'v1'],
    ['networking.k8s.io', 'v1'],
    ['storage.k8s.io', 'v1'],
    ['coordination.k8s.io', 'v1'],
    ['k3s.cattle.io', 'v1'],
    ['helm.cattle.io', 'v1'],
    ['argoproj.io', 'v1alpha1'],
    ['cert-manager.io', 'v1'],
  ] as const) {
    const name = `${version}.${group}`; // the core group too: "v1."
    c.add({
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      // built-in groups are registered at start, CRD groups by the CRD registration controller
      metadata: c.meta(name, undefined, {
        labels: { 'kube-aggregator.kubernetes.io/automanaged': group.includes('.') && !group.endsWith('k8s.io') ? 'true' : 'onstart' },
      }),
      spec: { group, version, groupPriorityMinimum: 1000, versionPriority: 100 },
      status: {
        conditions: [
          {
            type: 'Available',
            status: 'True',
            reason: 'Local',
            message: 'Local APIServices are always available',
            lastTransitionTime: c.ago(30 * DAY),
          },
        ],
      },
    });
  }
  c.add({
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: c.meta('v1beta1.metrics.k8s.io', undefined, {
      labels: { 'k8s-app': 'metrics-server' },
      annotations: objectset('metrics-server'),
    }),
    spec: {
      group: 'metrics.k8s.io',
      version: 'v1beta1',
      service: { namespace: 'kube-system', name: 'metrics-server', port: 443 },
      insecureSkipTLSVerify: true,
      groupPriorityMinimum: 100,
      versionPriority: 100,
    },
    status: {
      conditions: [
        { type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed', lastTransitionTime: c.ago(30 * DAY) },
      ],
    },
  });
  // cert-manager's webhook: fail closed, scoped to its own API groups (as its chart installs it)
  const work = c.nodeNames().filter((n) => n !== 'lemuel');
  c.deployment('cert-manager-webhook', 'cert-manager', 1, { app: 'webhook', 'app.kubernetes.io/name': 'webhook' }, { nodes: work });
  c.service('cert-manager-webhook', 'cert-manager', { app: 'webhook', 'app.kubernetes.io/name': 'webhook' }, '10.43.200.17', {
    ports: [{ name: 'https', port: 443, protocol: 'TCP' }],
  });
  const hook = (name: string, resources: string[], ops: string[]) => ({
    name,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy: 'Fail',
    timeoutSeconds: 30,
    clientConfig: {
      service: { namespace: 'cert-manager', name: 'cert-manager-webhook', path: name.startsWith('m') ? '/mutate' : '/validate', port: 443 },
      caBundle: WEBHOOK_CA,
    },
    namespaceSelector: { matchExpressions: [{ key: 'cert-manager.io/disable-validation', operator: 'NotIn', values: ['true'] }] },
    rules: [{ apiGroups: ['cert-manager.io', 'acme.cert-manager.io'], apiVersions: ['v1'], operations: ops, resources, scope: '*' }],
  });
  c.add({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: c.meta('cert-manager-webhook', undefined, {
      annotations: { 'cert-manager.io/inject-ca-from-secret': 'cert-manager/cert-manager-webhook-ca' },
    }),
    webhooks: [hook('webhook.cert-manager.io', ['*/*'], ['CREATE', 'UPDATE'])],
  });
  c.add({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: c.meta('cert-manager-webhook', undefined, {
      annotations: { 'cert-manager.io/inject-ca-from-secret': 'cert-manager/cert-manager-webhook-ca' },
    }),
    webhooks: [hook('webhook.cert-manager.io', ['certificaterequests'], ['CREATE'])],
  });
  c.add({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: c.meta('local-path', undefined, {
      annotations: { ...objectset('local-storage'), 'storageclass.kubernetes.io/is-default-class': 'true' },
    }),
    provisioner: 'rancher.io/local-path',
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
  });
  for (const n of c.nodeNames())
    c.add({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSINode',
      metadata: c.meta(n, undefined, {
        annotations: {
          'storage.alpha.kubernetes.io/migrated-plugins':
            'kubernetes.io/aws-ebs,kubernetes.io/azure-disk,kubernetes.io/azure-file,kubernetes.io/cinder,kubernetes.io/gce-pd,kubernetes.io/vsphere-volume',
        },
      }),
      spec: { drivers: null },
    });
}

export function application(c: ClusterBuilder, name: string, ns: string, finalizers?: string[]): KObject {
  return c.add({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: c.meta(name, 'argocd', { ...(finalizers ? { finalizers } : {}), creationTimestamp: c.ago(200 * DAY) }),
    spec: {
      project: 'default',
      source: { repoURL: 'https://git.home.arpa/infra/apps.git', path: `apps/${name}`, targetRevision: 'main' },
      destination: { server: 'https://kubernetes.default.svc', namespace: ns },
      syncPolicy: { automated: { prune: true, selfHeal: true } },
    },
    status: {
      sync: { status: 'Synced', revision: '4f1c2a9' },
      health: { status: 'Healthy' },
      operationState: {
        phase: 'Succeeded',
        message: 'successfully synced (all tasks run)',
        startedAt: c.ago(3 * HOUR),
        finishedAt: c.ago(3 * HOUR),
      },
    },
  });
}

/** Ordinary workloads up to the measured 295 pods, then Endpoints: called after every scenario has added its objects. */
export function fillFieldNotes(c: ClusterBuilder): void {
  const work = ['ilwon', 'solomon', ...AGENTS.map(([n]) => n)];
  let k = 0;
  while (c.all('Pod').length < 295) {
    const ns = APP_NS[5 + (k % (APP_NS.length - 5))]!;
    const name = `${ns}-svc${Math.floor(k / (APP_NS.length - 5))}`;
    // the scheduler spreads replicas over the nodes that take work (its default topology spread by hostname)
    const nodes = [...work.slice(k % work.length), ...work.slice(0, k % work.length)];
    c.deployment(name, ns, c.all('Pod').length + 2 <= 295 ? 2 : 1, { app: name }, { nodes });
    k++;
  }
}

export const FIELD_NOTES_HEADER = {
  context: 'home-k3s',
  server: 'https://192.168.219.101:6443',
  serverVersion: { major: '1', minor: '35', gitVersion: 'v1.35.4+k3s1', platform: 'linux/amd64' },
  readyz: [
    '[+]ping ok',
    '[+]log ok',
    '[+]etcd ok',
    '[+]etcd-readiness ok',
    '[+]informer-sync ok',
    '[+]poststarthook/start-apiserver-admission-initializer ok',
    '[+]shutdown ok',
    'readyz check passed',
    '',
  ].join('\n'),
  // K3s's dynamiclistener serving certificate, issued at the last restart (K3s renews within 90 days of expiry on start)
  tls: {
    serving: {
      subject: 'k3s',
      issuer: 'k3s-server-ca@1721028300',
      notAfter: '2027-05-20T06:12:41.000Z',
      dnsNames: [
        'DNS:kubernetes',
        'DNS:kubernetes.default',
        'DNS:kubernetes.default.svc',
        'DNS:kubernetes.default.svc.cluster.local',
        'DNS:lemuel',
        'DNS:localhost',
        'IP Address:10.43.0.1',
        'IP Address:127.0.0.1',
        'IP Address:192.168.219.101',
      ],
    },
  },
  notInstalled: [
    ['kustomize.toolkit.fluxcd.io', 'Kustomization', 'kustomizations'],
    ['helm.toolkit.fluxcd.io', 'HelmRelease', 'helmreleases'],
    ['etcd.k0sproject.io', 'EtcdMember', 'etcdmembers'],
    ['operator.openshift.io', 'Etcd', 'etcds'],
    ['gateway.networking.k8s.io', 'HTTPRoute', 'httproutes'],
  ] as Array<[string, string, string]>,
};
