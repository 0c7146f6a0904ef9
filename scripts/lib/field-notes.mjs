// The field-notes K3s cluster as Kubernetes objects, with switches for the failure cases.
// Used by scripts/gen-example.mjs (the embedded example) and e2e/gen-scenarios.mjs (real-cluster scenarios).
export const CAPTURED = Date.parse('2026-08-13T09:00:00Z');
const ago = (ms) => new Date(CAPTURED - ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const MIN = 60_000, HOUR = 60 * MIN, DAY = 24 * HOUR;
export function buildFieldNotes({ corednsLoop = true, deletedBlog = true, servers: serverCount = 3 } = {}) {
let uidN = 0;
const uid = () => `0b5e${(++uidN).toString(16).padStart(4, '0')}-5a1f-4e12-9d0a-${(1e11 + uidN).toString(16).padStart(12, '0')}`;
const meta = (name, namespace, extra = {}) => ({ name, ...(namespace ? { namespace } : {}), uid: uid(), creationTimestamp: ago(400 * DAY), ...extra });

const servers = [['lemuel', '192.168.219.101'], ['ilwon', '192.168.219.102'], ['solomon', '192.168.219.103']].slice(3 - serverCount);
const agents = [['david', '192.168.219.111'], ['louise', '192.168.219.112'], ['isagal', '192.168.219.113']];

const nodes = [...servers.map(([n, ip]) => node(n, ip, true)), ...agents.map(([n, ip]) => node(n, ip, false))];
function node(name, ip, server) {
  const labels = { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'node.kubernetes.io/instance-type': 'k3s' };
  const annotations = {
    'flannel.alpha.coreos.com/backend-type': 'vxlan',
    'flannel.alpha.coreos.com/public-ip': ip,
    'k3s.io/node-args': JSON.stringify(server ? ['server', ...(corednsLoop ? ['--cluster-dns', '169.254.20.10'] : [])] : ['agent']),
    'k3s.io/internal-ip': ip,
  };
  const conditions = [
    { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: ago(20_000), lastTransitionTime: ago(30 * DAY) },
    { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', lastHeartbeatTime: ago(20_000), lastTransitionTime: ago(30 * DAY) },
  ];
  if (server) {
    Object.assign(labels, { 'node-role.kubernetes.io/control-plane': 'true', 'node-role.kubernetes.io/master': 'true', 'node-role.kubernetes.io/etcd': 'true' });
    Object.assign(annotations, { 'etcd.k3s.cattle.io/node-name': `${name}-a1b2c3d4`, 'etcd.k3s.cattle.io/node-address': ip });
    conditions.push({ type: 'EtcdIsVoter', status: 'True', reason: 'MemberNotLearner', message: 'Node is a voting etcd member', lastHeartbeatTime: ago(2 * MIN), lastTransitionTime: ago(120 * DAY) });
  }
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: meta(name, undefined, { labels, annotations }),
    spec: { podCIDR: `10.42.${servers.concat(agents).findIndex(([n]) => n === name)}.0/24`, providerID: `k3s://${name}`, ...(name === 'lemuel' ? { unschedulable: true, taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] } : {}) },
    status: {
      addresses: [{ type: 'InternalIP', address: ip }, { type: 'Hostname', address: name }],
      conditions,
      nodeInfo: { kubeletVersion: 'v1.35.4+k3s1', kubeProxyVersion: 'v1.35.4+k3s1', containerRuntimeVersion: 'containerd://2.2.3-k3s1', osImage: 'Ubuntu 24.04.3 LTS', kernelVersion: '6.8.0-88-generic', architecture: 'amd64', operatingSystem: 'linux' },
    },
  };
}

// 45 namespaces: the four K3s creates, argocd, and 40 application namespaces
const appNs = ['blog', 'homepage', 'grafana', 'prometheus', 'loki', 'gitea', 'nextcloud', 'vaultwarden', 'immich', 'jellyfin',
  'paperless', 'home-assistant', 'mosquitto', 'zigbee2mqtt', 'pihole', 'uptime-kuma', 'minio', 'postgres', 'redis', 'n8n',
  'wiki', 'bookstack', 'freshrss', 'miniflux', 'syncthing', 'calibre', 'navidrome', 'audiobookshelf', 'linkding', 'excalidraw',
  'drawio', 'plantuml', 'code-server', 'registry', 'harbor-lite', 'cert-manager', 'ingress', 'backup', 'cron-jobs', 'sandbox'];
const nsNames = ['default', 'kube-system', 'kube-public', 'kube-node-lease', 'argocd', ...appNs];
const namespaces = nsNames.map((n) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: meta(n, undefined, { labels: { 'kubernetes.io/metadata.name': n } }), spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }));

const allNodes = [...servers, ...agents].map(([n]) => n);
const workNodes = ['ilwon', 'solomon', ...agents.map(([n]) => n)];
const pods = [];
const pod = (name, ns, nodeName, labels = {}, owner, extra = {}) => {
  pods.push({
    apiVersion: 'v1', kind: 'Pod',
    metadata: meta(name, ns, { labels, creationTimestamp: ago(20 * DAY), ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: owner.kind, name: owner.name, uid: owner.uid, controller: true }] } : {}), ...extra }),
    spec: { nodeName, containers: [{ name: 'main', image: `${labels.app ?? labels['k8s-app'] ?? name}:stable` }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], podIP: `10.42.${allNodes.indexOf(nodeName)}.${(pods.length % 250) + 2}` },
  });
};

const deployments = [], daemonsets = [], replicasets = [], services = [], endpoints = [], configmaps = [], ingresses = [];
const objectset = (addon) => ({
  'objectset.rio.cattle.io/id': '', 'objectset.rio.cattle.io/owner-gvk': 'k3s.cattle.io/v1, Kind=Addon',
  'objectset.rio.cattle.io/owner-name': addon, 'objectset.rio.cattle.io/owner-namespace': 'kube-system',
});
function deployment(name, ns, replicas, labels, annotations = {}, nodesFor = workNodes) {
  const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta(name, ns, { labels, annotations, generation: 3 }),
    spec: { replicas, selector: { matchLabels: { app: labels.app ?? labels['k8s-app'] ?? name } }, template: { metadata: { labels: { app: labels.app ?? labels['k8s-app'] ?? name } }, spec: { containers: [{ name, image: `${name}:stable` }] } } },
    status: { replicas, readyReplicas: replicas, availableReplicas: replicas, observedGeneration: 3 } };
  deployments.push(d);
  const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: meta(`${name}-7d9f8c6b5`, ns, { labels: d.spec.selector.matchLabels, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: d.metadata.uid, controller: true }] }),
    spec: { replicas, selector: d.spec.selector, template: d.spec.template }, status: { replicas, readyReplicas: replicas } };
  replicasets.push(rs);
  for (let i = 0; i < replicas; i++) pod(`${name}-7d9f8c6b5-${'abcdefghij'[i]}x${i}q${i}`, ns, nodesFor[i % nodesFor.length], d.spec.selector.matchLabels, { kind: 'ReplicaSet', name: rs.metadata.name, uid: rs.metadata.uid });
  return d;
}
function daemonset(name, ns, labels) {
  const d = { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: meta(name, ns, { labels }),
    spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name, image: `${name}:stable` }] } } },
    status: { currentNumberScheduled: allNodes.length, numberMisscheduled: 0, desiredNumberScheduled: allNodes.length, numberReady: allNodes.length } };
  daemonsets.push(d);
  for (const n of allNodes) pod(`${name}-${n.slice(0, 3)}${n.length}`, ns, n, labels, { kind: 'DaemonSet', name, uid: d.metadata.uid });
}
function service(name, ns, selector, clusterIP, annotations = {}, labels = {}, ports = [{ name: 'http', port: 80, protocol: 'TCP' }]) {
  const s = { apiVersion: 'v1', kind: 'Service', metadata: meta(name, ns, { labels, annotations }), spec: { type: 'ClusterIP', clusterIP, clusterIPs: [clusterIP], selector, ports, ipFamilies: ['IPv4'] } };
  services.push(s);
  const ready = pods.filter((p) => p.metadata.namespace === ns && Object.entries(selector ?? {}).every(([k, v]) => p.metadata.labels?.[k] === v));
  endpoints.push({ apiVersion: 'v1', kind: 'Endpoints', metadata: meta(name, ns, { labels }), subsets: ready.length ? [{ addresses: ready.map((p) => ({ ip: p.status.podIP, nodeName: p.spec.nodeName, targetRef: { kind: 'Pod', namespace: ns, name: p.metadata.name } })), ports: ports.map((p) => ({ name: p.name, port: p.targetPort ?? p.port, protocol: p.protocol })) }] : [] });
  return s;
}

// kube-system, as measured: coredns x2, node-local-dns x6, node-self-healer x6, local-path-provisioner, metrics-server
deployment('coredns', 'kube-system', 2, { 'k8s-app': 'kube-dns' }, objectset('coredns'));
const kubeDns = service('kube-dns', 'kube-system', { 'k8s-app': 'kube-dns' }, '10.43.0.10',
  { ...objectset('coredns'), 'objectset.rio.cattle.io/applied': '{"apiVersion":"v1","kind":"Service","metadata":{"name":"kube-dns","namespace":"kube-system"},"spec":{"clusterIP":"10.43.0.10"}}', 'prometheus.io/port': '9153' },
  { 'k8s-app': 'kube-dns', 'kubernetes.io/name': 'CoreDNS', 'objectset.rio.cattle.io/hash': 'bce283298811743a0386ab510f2f67ef74240c57' },
  [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, protocol: 'TCP' }, { name: 'metrics', port: 9153, protocol: 'TCP' }]);
void kubeDns;
daemonset('node-local-dns', 'kube-system', { 'k8s-app': 'node-local-dns' });
service('kube-dns-upstream', 'kube-system', { 'k8s-app': 'kube-dns' }, '10.43.12.40', {}, { 'k8s-app': 'kube-dns-upstream' }, [{ name: 'dns', port: 53, protocol: 'UDP' }]);
daemonset('node-self-healer', 'kube-system', { app: 'node-self-healer' });
deployment('local-path-provisioner', 'kube-system', 1, { app: 'local-path-provisioner' }, objectset('local-storage'));
deployment('metrics-server', 'kube-system', 1, { 'k8s-app': 'metrics-server' }, objectset('metrics-server'));
service('metrics-server', 'kube-system', { 'k8s-app': 'metrics-server' }, '10.43.81.7', objectset('metrics-server'), {}, [{ name: 'https', port: 443, protocol: 'TCP' }]);
configmaps.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('cluster-dns', 'kube-system'), data: { clusterDNS: '10.43.0.10', clusterDomain: 'cluster.local' } });
configmaps.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('coredns', 'kube-system', { annotations: objectset('coredns') }), data: { Corefile: '.:53 {\n    errors\n    health\n    ready\n    kubernetes cluster.local in-addr.arpa ip6.arpa {\n      pods insecure\n      fallthrough in-addr.arpa ip6.arpa\n    }\n    forward . /etc/resolv.conf\n    cache 30\n}\n' } });
configmaps.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('node-local-dns', 'kube-system', { labels: { 'k8s-app': 'node-local-dns' } }), data: { Corefile: 'cluster.local:53 {\n    bind 169.254.20.10 10.43.0.10\n    forward . __PILLAR__CLUSTER__DNS__\n}\n' } });

// K3s addons (manifests in /var/lib/rancher/k3s/server/manifests)
const addon = (name, ok = true) => ({ apiVersion: 'k3s.cattle.io/v1', kind: 'Addon', metadata: meta(name, 'kube-system'),
  spec: { source: `/var/lib/rancher/k3s/server/manifests/${name}.yaml`, checksum: ok ? 'a5c1d8f0e3b24b9e8f7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a' : '7e0b3c1a9f8d6e5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c' } });
const addons = [addon('ccm'), addon('coredns', !corednsLoop), addon('local-storage'), addon('metrics-server'), addon('rolebindings'), addon('runtimes')];

// Argo CD: live apps (some without a cascading finalizer) and the leftovers of the deleted `blog`
const argoNs = 'argocd';
deployment('argocd-server', argoNs, 1, { 'app.kubernetes.io/name': 'argocd-server', app: 'argocd-server' });
deployment('argocd-repo-server', argoNs, 1, { 'app.kubernetes.io/name': 'argocd-repo-server', app: 'argocd-repo-server' });
pod('argocd-application-controller-0', argoNs, 'david', { app: 'argocd-application-controller' });
configmaps.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('argocd-cm', argoNs, { labels: { 'app.kubernetes.io/part-of': 'argocd' } }), data: { 'application.resourceTrackingMethod': 'annotation+label' } });
const apps = [];
const application = (name, ns, finalizers, extra = {}) => {
  const a = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: meta(name, argoNs, { finalizers, creationTimestamp: ago(200 * DAY) }),
    spec: { project: 'default', source: { repoURL: 'https://git.home.arpa/infra/apps.git', path: `apps/${name}`, targetRevision: 'main' }, destination: { server: 'https://kubernetes.default.svc', namespace: ns }, syncPolicy: { automated: { prune: true, selfHeal: true } } },
    status: { sync: { status: 'Synced', revision: '4f1c2a9' }, health: { status: 'Healthy' }, operationState: { phase: 'Succeeded', message: 'successfully synced (all tasks run)', startedAt: ago(3 * HOUR), finishedAt: ago(3 * HOUR) } }, ...extra };
  apps.push(a);
  return a;
};
const tracked = (app, group, kind, ns, name) => ({
  labels: { 'app.kubernetes.io/instance': app },
  annotations: { 'argocd.argoproj.io/tracking-id': `${app}:${group}/${kind}:${ns}/${name}` },
});
const withTracking = (obj, app) => {
  const g = obj.apiVersion.includes('/') ? obj.apiVersion.split('/')[0] : '';
  const t = tracked(app, g, obj.kind, obj.metadata.namespace ?? app, obj.metadata.name);
  obj.metadata.labels = { ...(obj.metadata.labels ?? {}), ...t.labels };
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), ...t.annotations };
  return obj;
};
for (const [name, fin] of [['homepage', true], ['grafana', true], ['uptime-kuma', false], ['gitea', true], ['vaultwarden', true]]) {
  application(name, name, fin ? ['resources-finalizer.argocd.argoproj.io'] : undefined);
  withTracking(deployment(name, name, 1, { app: name }), name);
  withTracking(service(name, name, { app: name }, `10.43.${100 + apps.length}.${20 + apps.length}`), name);
}
// blog: its Application was deleted without resources-finalizer.argocd.argoproj.io
const pvcs = [];
const pvs = [];
const clusterroles = [];
if (deletedBlog) {
  withTracking(deployment('blog-web', 'blog', 2, { app: 'blog-web' }), 'blog');
  withTracking(service('blog-web', 'blog', { app: 'blog-web' }, '10.43.77.14'), 'blog');
  ingresses.push(withTracking({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: meta('blog', 'blog'),
    spec: { ingressClassName: 'traefik', rules: [{ host: 'blog.home.arpa', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'blog-web', port: { number: 80 } } } }] } }] },
    status: { loadBalancer: { ingress: [{ ip: '192.168.219.101' }] } } }, 'blog'));
  configmaps.push(withTracking({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('blog-config', 'blog'), data: { SITE_URL: 'https://blog.home.arpa' } }, 'blog'));
  pvcs.push(withTracking({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: meta('blog-data', 'blog'), spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'local-path', volumeName: 'pvc-3f6b1c2e-blog-data', resources: { requests: { storage: '5Gi' } } }, status: { phase: 'Bound' } }, 'blog'));
  pvs.push(withTracking({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: meta('pvc-3f6b1c2e-blog-data', undefined, { annotations: { 'pv.kubernetes.io/provisioned-by': 'rancher.io/local-path' } }),
    spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', storageClassName: 'local-path', claimRef: { kind: 'PersistentVolumeClaim', namespace: 'blog', name: 'blog-data' }, hostPath: { path: '/var/lib/rancher/k3s/storage/pvc-3f6b1c2e_blog_blog-data' } },
    status: { phase: 'Bound' } }, 'blog'));
  clusterroles.push(withTracking({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: meta('blog-reader'), rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] }, 'blog'));
}

// Fill the remaining namespaces with ordinary workloads up to the measured 295 pods
let k = 0;
while (pods.length < 295) {
  const ns = appNs[5 + (k % (appNs.length - 5))];
  const name = `${ns}-svc${Math.floor(k / (appNs.length - 5))}`;
  if (pods.length + 2 <= 295) deployment(name, ns, 2, { app: name }); else deployment(name, ns, 1, { app: name });
  k++;
}

// Events: the CoreDNS addon has failed to apply every 15 s for six hours (client-go's spam filter lets a
// burst of 25 through, then about one per 5 minutes: 25 + 6 h × 12 ≈ 97 recorded)
const addonCoredns = addons.find((a) => a.metadata.name === 'coredns');
const events = [
  ...(!corednsLoop ? [] : [{ apiVersion: 'v1', kind: 'Event', metadata: meta('coredns.18a2f3c4d5e6f708', 'kube-system', { creationTimestamp: ago(6 * HOUR) }),
    involvedObject: { apiVersion: 'k3s.cattle.io/v1', kind: 'Addon', namespace: 'kube-system', name: 'coredns', uid: addonCoredns.metadata.uid },
    reason: 'ApplyManifestFailed', type: 'Warning', count: 97,
    message: 'Applying manifest at "/var/lib/rancher/k3s/server/manifests/coredns.yaml" failed: failed to update kube-system/kube-dns /v1, Kind=Service for Addon kube-system/coredns: Service "kube-dns" is invalid: spec.clusterIPs[0]: Invalid value: ["169.254.20.10"]: may not change once set',
    firstTimestamp: ago(6 * HOUR), lastTimestamp: ago(1 * MIN), source: { component: 'deploy', host: 'lemuel' }, reportingComponent: 'deploy', reportingInstance: 'lemuel' },
  { apiVersion: 'v1', kind: 'Event', metadata: meta('coredns.18a2f3c4d5e6f709', 'kube-system', { creationTimestamp: ago(6 * HOUR) }),
    involvedObject: { apiVersion: 'k3s.cattle.io/v1', kind: 'Addon', namespace: 'kube-system', name: 'coredns', uid: addonCoredns.metadata.uid },
    reason: 'ApplyingManifest', type: 'Normal', count: 97, message: 'Applying manifest at "/var/lib/rancher/k3s/server/manifests/coredns.yaml"',
    firstTimestamp: ago(6 * HOUR), lastTimestamp: ago(1 * MIN), source: { component: 'deploy', host: 'lemuel' } }]),
  { apiVersion: 'v1', kind: 'Event', metadata: meta('metrics-server.18a2f3c4d5e6f710', 'kube-system', { creationTimestamp: ago(40 * MIN) }),
    involvedObject: { apiVersion: 'k3s.cattle.io/v1', kind: 'Addon', namespace: 'kube-system', name: 'metrics-server' },
    reason: 'AppliedManifest', type: 'Normal', count: 1, message: 'Applied manifest at "/var/lib/rancher/k3s/server/manifests/metrics-server.yaml"',
    firstTimestamp: ago(40 * MIN), lastTimestamp: ago(40 * MIN), source: { component: 'deploy', host: 'lemuel' } },
];

// API server identity leases (one per k3s server) and the component leader leases
const leases = servers.map(([n]) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: meta(`apiserver-${n}-6b3d`, 'kube-system', { labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': n } }),
  spec: { holderIdentity: `apiserver-${n}-6b3d_${uid()}`, leaseDurationSeconds: 3600, renewTime: ago(4_000).replace('Z', '.000000Z') } }));
leases.push({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: meta('kube-scheduler', 'kube-system'), spec: { holderIdentity: `ilwon_${uid()}`, leaseDurationSeconds: 15, renewTime: ago(2_000).replace('Z', '.000000Z') } });
leases.push({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: meta('kube-controller-manager', 'kube-system'), spec: { holderIdentity: `ilwon_${uid()}`, leaseDurationSeconds: 15, renewTime: ago(2_000).replace('Z', '.000000Z') } });

const readyz = ['[+]ping ok', '[+]log ok', '[+]etcd ok', '[+]etcd-readiness ok', '[+]informer-sync ok', '[+]poststarthook/start-apiserver-admission-initializer ok', '[+]shutdown ok', 'readyz check passed', ''].join('\n');

const lists = {
  'nodes.yaml': nodes, 'namespaces.yaml': namespaces, 'pods.yaml': pods,
  'workloads.yaml': [...deployments, ...replicasets, ...daemonsets],
  'services.yaml': [...services, ...endpoints, ...ingresses],
  'config.yaml': [...configmaps],
  'storage.yaml': [...pvcs, ...pvs],
  'rbac.yaml': clusterroles,
  'k3s-addons.yaml': addons,
  'argocd-applications.yaml': apps,
  'events.yaml': events,
  'leases.yaml': leases,
};
const captured = ['Node', 'Namespace', 'Pod', 'Deployment.apps', 'ReplicaSet.apps', 'DaemonSet.apps', 'StatefulSet.apps', 'Service', 'Endpoints', 'Ingress.networking.k8s.io',
  'ConfigMap', 'PersistentVolumeClaim', 'PersistentVolume', 'ClusterRole.rbac.authorization.k8s.io', 'Addon.k3s.cattle.io', 'HelmChart.helm.cattle.io', 'Application.argoproj.io', 'Event', 'Event.events.k8s.io', 'Lease.coordination.k8s.io'];
const header = {
  apiVersion: 'kubectl-arch/v1', kind: 'SnapshotHeader', capturedAt: new Date(CAPTURED).toISOString(), context: 'home-k3s', server: 'https://192.168.219.101:6443',
  serverVersion: { major: '1', minor: '35', gitVersion: 'v1.35.4+k3s1', platform: 'linux/amd64' }, readyz, captured,
  unavailable: [
    { group: 'kustomize.toolkit.fluxcd.io', kind: 'Kustomization', resource: 'kustomizations', status: 404, reason: 'kustomizations.kustomize.toolkit.fluxcd.io is not served here (CRD not installed)' },
    { group: 'helm.toolkit.fluxcd.io', kind: 'HelmRelease', resource: 'helmreleases', status: 404, reason: 'helmreleases.helm.toolkit.fluxcd.io is not served here (CRD not installed)' },
    { group: 'etcd.k0sproject.io', kind: 'EtcdMember', resource: 'etcdmembers', status: 404, reason: 'etcdmembers.etcd.k0sproject.io is not served here (CRD not installed)' },
    { group: 'operator.openshift.io', kind: 'Etcd', resource: 'etcds', status: 404, reason: 'etcds.operator.openshift.io is not served here (CRD not installed)' },
  ],
};
  return { lists, header };
}
