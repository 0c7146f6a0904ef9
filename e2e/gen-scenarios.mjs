// Generates e2e/scenarios/: plain Kubernetes YAML for the real-cluster suite. Output is committed.
// Run: node e2e/gen-scenarios.mjs
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dump } from 'js-yaml';
import { buildFieldNotes, CAPTURED } from '../scripts/lib/field-notes.mjs';

const OUT = 'e2e/scenarios';
const crd = (group, kind, plural, scope = 'Namespaced') => ({
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${plural}.${group}` },
  spec: { group, scope, names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
    versions: [{ name: group === 'argoproj.io' ? 'v1alpha1' : 'v1', served: true, storage: true,
      schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
});
const CRDS = [crd('argoproj.io', 'Application', 'applications'), crd('k3s.cattle.io', 'Addon', 'addons'), crd('helm.cattle.io', 'HelmChart', 'helmcharts')];

function write(name, lists) {
  const dir = `${OUT}/${name}`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/00-crds.yaml`, CRDS.map((c) => dump(c, { lineWidth: -1 })).join('---\n'));
  for (const [file, items] of Object.entries(lists)) {
    if (items.length) writeFileSync(`${dir}/${file}`, dump({ apiVersion: 'v1', kind: 'List', metadata: {}, items }, { lineWidth: -1, noRefs: true }));
  }
}

const iso = (ms) => new Date(CAPTURED - ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
function kubeadmDegraded() {
  let n = 0;
  const uid = () => `c0de${String(++n).padStart(4, '0')}-0000-4000-8000-000000000000`;
  const node = (name, cp) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, uid: uid(), labels: { 'kubernetes.io/hostname': name, ...(cp ? { 'node-role.kubernetes.io/control-plane': '' } : {}) } },
    spec: { providerID: '' }, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: iso(20_000), lastTransitionTime: iso(86_400_000) }],
      nodeInfo: { kubeletVersion: 'v1.35.4', kubeProxyVersion: 'v1.35.4', containerRuntimeVersion: 'containerd://2.1.4', osImage: 'Debian GNU/Linux 13', kernelVersion: '6.12.0', architecture: 'amd64', operatingSystem: 'linux' } } });
  const nodes = ['cp-1', 'cp-2', 'cp-3'].map((x) => node(x, true)).concat(['w-1', 'w-2'].map((x) => node(x, false)));
  const staticPod = (component, nodeName, ready, restarts = 0) => ({ apiVersion: 'v1', kind: 'Pod',
    metadata: { name: `${component}-${nodeName}`, namespace: 'kube-system', uid: uid(), labels: { component, tier: 'control-plane' },
      annotations: { 'kubernetes.io/config.mirror': 'a1b2c3', 'kubernetes.io/config.source': 'file', ...(component === 'etcd' ? { 'kubeadm.kubernetes.io/etcd.advertise-client-urls': `https://10.0.0.${nodeName.slice(-1)}:2379` } : { 'kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint': `10.0.0.${nodeName.slice(-1)}:6443` }) } },
    spec: { nodeName, containers: [{ name: component, image: `registry.k8s.io/${component}:${component === 'etcd' ? '3.6.4-0' : 'v1.35.4'}` }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }], containerStatuses: [{ name: component, ready, restartCount: restarts, image: 'x', imageID: '', started: ready, state: ready ? { running: { startedAt: iso(3_600_000) } } : { waiting: { reason: 'CrashLoopBackOff' } } }] } });
  const pods = [staticPod('etcd', 'cp-1', true), staticPod('etcd', 'cp-2', true), staticPod('etcd', 'cp-3', false, 14),
    staticPod('kube-apiserver', 'cp-1', true), staticPod('kube-apiserver', 'cp-2', true), staticPod('kube-apiserver', 'cp-3', true)];
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kubeadm-config', namespace: 'kube-system', uid: uid() },
    data: { ClusterConfiguration: 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.35.4\ncontrolPlaneEndpoint: cp.example.internal:6443\netcd:\n  local:\n    dataDir: /var/lib/etcd\nnetworking:\n  serviceSubnet: 10.96.0.0/12\n' } };
  return { 'nodes.yaml': nodes, 'pods.yaml': pods, 'config.yaml': [cm] };
}

rmSync(OUT, { recursive: true, force: true });
write('field-notes-healthy', buildFieldNotes({ corednsLoop: false, deletedBlog: false }).lists);
write('coredns-retry-loop', buildFieldNotes({ corednsLoop: true, deletedBlog: false }).lists);
write('deleted-argo-app', buildFieldNotes({ corednsLoop: false, deletedBlog: true }).lists);
write('k3s-two-servers', buildFieldNotes({ corednsLoop: false, deletedBlog: false, servers: 2 }).lists);
write('kubeadm-degraded-etcd', kubeadmDegraded());
writeFileSync(`${OUT}/REFERENCE_TIME`, new Date(CAPTURED).toISOString() + '\n');
console.log(`wrote ${OUT}`);
