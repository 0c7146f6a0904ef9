// What the cluster is: distribution, version, nodes and roles, runtimes. Heads every report.
// Says "unknown" rather than guess. Signals: K3s/RKE2/k0s kubelet version suffixes and providerIDs, managed-cloud
// node labels (eks.amazonaws.com/nodegroup, cloud.google.com/gke-nodepool, kubernetes.azure.com/cluster), Talos
// pods managed-by Talos, kubeadm-config and kubeadm.kubernetes.io annotations, OpenShift's etcd operator.
import type { KObject } from './model.js';
import { CONFIGMAPS, R } from './resources.js';
import type { Snapshot } from './snapshot/snapshot.js';

export type Distribution = 'K3s' | 'RKE2' | 'kubeadm' | 'k0s' | 'OpenShift' | 'Talos' | 'EKS' | 'GKE' | 'AKS' | 'unknown';

export interface Fingerprint {
  distribution: Distribution;
  /** Which signals identified the distribution. */
  evidence: string[];
  serverVersion: string;
  nodes: {
    total: number;
    summary: string;
    byRole: Array<{ roles: string[]; count: number; names: string[] }>;
    notReady: string[];
    cordoned: string[];
  };
  runtimes: Array<{ runtime: string; count: number }>;
  /** Where the control plane runs, as far as the API shows it. */
  controlPlane: string;
  cni: string;
  namespaces: number | null;
  /** What could not be seen for the fingerprint. */
  gaps: string[];
}

const label = (o: KObject, k: string): string | undefined => o.metadata.labels?.[k];

export { isReady } from './lib/k8s.js';
import { isReady } from './lib/k8s.js';
import { byText } from './lib/order.js';

export function nodeRoles(node: KObject): string[] {
  const roles = Object.keys(node.metadata.labels ?? {})
    .filter((k) => k.startsWith('node-role.kubernetes.io/'))
    .map((k) => k.slice('node-role.kubernetes.io/'.length))
    .filter((r) => r !== '');
  // "master" is the legacy spelling of control-plane; show it only when it stands alone
  const set = new Set(roles.includes('control-plane') ? roles.filter((r) => r !== 'master') : roles);
  return [...set].sort();
}

export function detectDistribution(snap: Snapshot): { distribution: Distribution; evidence: string[] } {
  const nodes = snap.of(R.nodes);
  const version = snap.header.serverVersion?.gitVersion ?? '';
  const kubelet = (n: KObject): string => n.status?.nodeInfo?.kubeletVersion ?? '';
  const provider = (n: KObject): string => n.spec?.providerID ?? '';
  const some = (pred: (n: KObject) => boolean): KObject | undefined => nodes.find(pred);
  const pods = snap.of(R.pods);
  const configmaps = snap.of(R.configmaps);

  if (snap.of(R.openshiftEtcds).length > 0) return { distribution: 'OpenShift', evidence: ['etcds.operator.openshift.io exists'] };
  if (snap.of(R.namespaces).some((n) => n.metadata.name === 'openshift-etcd'))
    return { distribution: 'OpenShift', evidence: ['namespace openshift-etcd'] };
  let n = some((x) => kubelet(x).includes('+k3s') || provider(x).startsWith('k3s://'));
  if (n || version.includes('+k3s'))
    return {
      distribution: 'K3s',
      evidence: [
        n
          ? `node ${n.metadata.name}: kubelet ${kubelet(n)}${provider(n) ? `, providerID ${provider(n)}` : ''}`
          : `server version ${version}`,
      ],
    };
  n = some((x) => kubelet(x).includes('+rke2') || provider(x).startsWith('rke2://'));
  if (n || version.includes('+rke2'))
    return { distribution: 'RKE2', evidence: [n ? `node ${n.metadata.name}: kubelet ${kubelet(n)}` : `server version ${version}`] };
  n = some((x) => kubelet(x).includes('+k0s'));
  if (n || version.includes('+k0s'))
    return { distribution: 'k0s', evidence: [n ? `node ${n.metadata.name}: kubelet ${kubelet(n)}` : `server version ${version}`] };
  // a control plane of its own (kubeadm-config, etcd or kube-apiserver static pods, control-plane nodes) is never a
  // managed one, whatever the version says: EKS Anywhere runs EKS-D (v1.28.3-eks-…) on kubeadm with its own etcd
  const cm = configmaps.find((c) => c.metadata.namespace === 'kube-system' && c.metadata.name === 'kubeadm-config');
  const cpPod = pods.find(
    (p) => p.metadata.namespace === 'kube-system' && ['etcd', 'kube-apiserver'].includes(String(p.metadata.labels?.component ?? '')),
  );
  const cpNode = some(
    (x) => label(x, 'node-role.kubernetes.io/control-plane') !== undefined || label(x, 'node-role.kubernetes.io/master') !== undefined,
  );
  const own = cm
    ? 'ConfigMap kube-system/kubeadm-config'
    : cpPod
      ? `pod kube-system/${cpPod.metadata.name} (${cpPod.metadata.labels?.component})`
      : cpNode
        ? `control-plane node ${cpNode.metadata.name}`
        : undefined;
  const eksd = /-eks-/.test(version) || nodes.some((x) => kubelet(x).includes('-eks-'));
  if (own && eksd)
    return { distribution: 'kubeadm', evidence: [`EKS-D ${version || 'kubelet'} with a control plane of its own (EKS Anywhere): ${own}`] };
  // managed needs positive evidence: the provider's node labels or provider IDs, or its version with nodes visible and
  // no control plane among them
  const noControlPlane = !own && !snap.gap(R.nodes) && nodes.length > 0;
  n = some((x) => label(x, 'eks.amazonaws.com/nodegroup') !== undefined || (/^aws:\/\//.test(provider(x)) && kubelet(x).includes('-eks-')));
  if (!own && (n || (eksd && noControlPlane)))
    return {
      distribution: 'EKS',
      evidence: [n ? `node ${n.metadata.name}: EKS node labels/providerID` : `server version ${version}, no control plane among the nodes`],
    };
  n = some((x) => label(x, 'cloud.google.com/gke-nodepool') !== undefined);
  if (!own && (n || (/-gke\./.test(version) && noControlPlane)))
    return {
      distribution: 'GKE',
      evidence: [
        n ? `node ${n.metadata.name}: label cloud.google.com/gke-nodepool` : `server version ${version}, no control plane among the nodes`,
      ],
    };
  n = some((x) => label(x, 'kubernetes.azure.com/cluster') !== undefined);
  if (n && !own) return { distribution: 'AKS', evidence: [`node ${n.metadata.name}: label kubernetes.azure.com/cluster`] };
  const talosPod = pods.find((p) => label(p, 'app.kubernetes.io/managed-by') === 'Talos');
  n = some((x) => (x.status?.nodeInfo?.osImage ?? '').startsWith('Talos'));
  if (talosPod || n)
    return {
      distribution: 'Talos',
      evidence: [
        talosPod
          ? `pod ${talosPod.metadata.namespace}/${talosPod.metadata.name} managed-by Talos`
          : `node ${n!.metadata.name}: osImage ${n!.status.nodeInfo.osImage}`,
      ],
    };
  if (configmaps.some((c) => c.metadata.namespace === 'kube-system' && c.metadata.name === 'kubeadm-config')) {
    return { distribution: 'kubeadm', evidence: ['ConfigMap kube-system/kubeadm-config'] };
  }
  const kubeadmPod = pods.find((p) => Object.keys(p.metadata.annotations ?? {}).some((k) => k.startsWith('kubeadm.kubernetes.io/')));
  if (kubeadmPod)
    return {
      distribution: 'kubeadm',
      evidence: [`pod ${kubeadmPod.metadata.namespace}/${kubeadmPod.metadata.name} has kubeadm.kubernetes.io annotations`],
    };
  return { distribution: 'unknown', evidence: [] };
}

function controlPlaneOf(d: Distribution, snap: Snapshot): string {
  const cpPods = snap.of(R.pods).filter((p) => p.metadata.namespace === 'kube-system' && label(p, 'tier') === 'control-plane');
  switch (d) {
    case 'K3s':
      return cpPods.length ? `${cpPods.length} control-plane pods` : 'embedded in each `k3s server` process (no control-plane pods)';
    case 'k0s':
      return 'k0s controller processes (not visible as pods or nodes)';
    case 'EKS':
    case 'GKE':
    case 'AKS':
      return 'managed by the provider (not visible)';
    default:
      return cpPods.length ? `${cpPods.length} static pods in kube-system (component=..., tier=control-plane)` : 'unknown';
  }
}

function cniOf(snap: Snapshot): string {
  const nodes = snap.of(R.nodes);
  const flannel = nodes.map((n) => n.metadata.annotations?.['flannel.alpha.coreos.com/backend-type']).find(Boolean);
  if (flannel) return `flannel (${flannel})`;
  const pods = snap.of(R.pods);
  const has = (re: RegExp): boolean =>
    pods.some((p) => re.test(p.metadata.name) || re.test(label(p, 'k8s-app') ?? '') || re.test(label(p, 'app') ?? ''));
  for (const [name, re] of [
    ['cilium', /^cilium(-|$)/],
    ['calico', /^calico-node/],
    ['flannel', /flannel/],
    ['weave', /^weave-net/],
    ['kube-router', /^kube-router/],
  ] as const) {
    if (has(re)) return name;
  }
  return 'unknown';
}

export function fingerprint(snap: Snapshot): Fingerprint {
  const { distribution, evidence } = detectDistribution(snap);
  const nodes = snap.of(R.nodes);
  const gaps: string[] = [];
  const nodesVis = snap.visibility(R.nodes);
  if (nodesVis) gaps.push(`nodes: ${nodesVis.reason}`);
  if (snap.header.fromCache)
    gaps.push("everything below was listed from the API server's watch cache because its readiness failed: possibly stale");
  if (snap.duplicates)
    gaps.push(
      `${snap.duplicates} object${snap.duplicates === 1 ? ' was' : 's were'} given more than once in the snapshot files and counted once`,
    );
  const groups = new Map<string, { roles: string[]; count: number; names: string[] }>();
  for (const n of nodes) {
    const roles = nodeRoles(n);
    const key = roles.join(',');
    const g = groups.get(key) ?? { roles, count: 0, names: [] };
    g.count++;
    g.names.push(n.metadata.name);
    groups.set(key, g);
  }
  const byRole = [...groups.values()].sort((a, b) => b.roles.length - a.roles.length || byText(a.roles.join(), b.roles.join()));
  const serverWord = distribution === 'K3s' || distribution === 'RKE2';
  const parts = byRole.map((g) => {
    if (g.roles.length === 0)
      return `${g.count} ${serverWord ? (g.count === 1 ? 'agent' : 'agents') : g.count === 1 ? 'worker' : 'workers'}`;
    const isServer = g.roles.includes('control-plane') || g.roles.includes('master');
    const noun = serverWord && isServer ? (g.count === 1 ? 'server' : 'servers') : '';
    return noun ? `${g.count} ${noun} (${g.roles.join(', ')})` : `${g.count} ${g.roles.join(', ')}`;
  });
  const summary = nodesVis
    ? 'unknown (nodes not visible)'
    : `${nodes.length} node${nodes.length === 1 ? '' : 's'}${parts.length ? ': ' + parts.join(', ') : ''}`;
  const rt = new Map<string, number>();
  for (const n of nodes) {
    const v = n.status?.nodeInfo?.containerRuntimeVersion ?? 'unknown';
    rt.set(v, (rt.get(v) ?? 0) + 1);
  }
  const nsVis = snap.visibility(R.namespaces);
  return {
    distribution,
    evidence,
    serverVersion: snap.header.serverVersion?.gitVersion ?? 'unknown',
    nodes: {
      total: nodes.length,
      summary,
      byRole,
      notReady: nodes.filter((n) => !isReady(n)).map((n) => n.metadata.name),
      cordoned: nodes.filter((n) => n.spec?.unschedulable === true).map((n) => n.metadata.name),
    },
    runtimes: [...rt.entries()].map(([runtime, count]) => ({ runtime, count })),
    controlPlane: controlPlaneOf(distribution, snap),
    cni: cniOf(snap),
    namespaces: nsVis ? null : snap.of(R.namespaces).length,
    gaps,
  };
}

/** Types the fingerprint reads; fetched with every report. */
/** What the fingerprint reads (and distribution detection, which every check's onlyOn uses). */
export const FINGERPRINT_NEEDS = [
  {
    ...R.nodes,
    fields: [
      'metadata.annotations["flannel.alpha.coreos.com/backend-type"]',
      'metadata.annotations["k3s.io/node-args"]',
      'metadata.annotations["rke2.io/node-args"]',
      'spec.providerID',
      'spec.unschedulable',
      'status.conditions',
      'status.nodeInfo.containerRuntimeVersion',
      'status.nodeInfo.kubeletVersion',
      'status.nodeInfo.osImage',
    ],
  },
  { ...R.namespaces, fields: [] },
  { ...R.podsLean, fields: ['metadata.annotations["kubeadm.kubernetes.io/*"]', 'status.phase'] },
  { ...CONFIGMAPS, fields: [] },
  { ...R.openshiftEtcds, optional: true, fields: ['status.conditions'] },
];
