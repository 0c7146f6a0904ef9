// A kubeadm cluster, healthy: 3 stacked control-plane nodes (etcd, kube-apiserver static pods), 2 workers.
import { ClusterBuilder, DAY, HOUR } from './builder.js';

export function kubeadmBase(c: ClusterBuilder): void {
  const nodes: Array<[string, boolean]> = [
    ['cp-1', true],
    ['cp-2', true],
    ['cp-3', true],
    ['w-1', false],
    ['w-2', false],
  ];
  for (const [name, cp] of nodes) {
    c.add({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: c.meta(name, undefined, {
        labels: { 'kubernetes.io/hostname': name, ...(cp ? { 'node-role.kubernetes.io/control-plane': '' } : {}) },
      }),
      spec: { providerID: '' },
      status: {
        conditions: [
          { type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: c.ago(20_000), lastTransitionTime: c.ago(DAY) },
        ],
        allocatable: { cpu: '2', memory: '7923216Ki', pods: '110' },
        nodeInfo: {
          kubeletVersion: 'v1.35.4',
          kubeProxyVersion: 'v1.35.4',
          containerRuntimeVersion: 'containerd://2.1.4',
          osImage: 'Debian GNU/Linux 13',
          kernelVersion: '6.12.0',
          architecture: 'amd64',
          operatingSystem: 'linux',
        },
      },
    });
  }
  for (const [name, cp] of nodes) {
    if (!cp) continue;
    for (const component of ['etcd', 'kube-apiserver']) {
      const ip = `10.0.0.${name.slice(-1)}`;
      c.add({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: c.meta(`${component}-${name}`, 'kube-system', {
          labels: { component, tier: 'control-plane' },
          annotations: {
            'kubernetes.io/config.mirror': 'a1b2c3',
            'kubernetes.io/config.source': 'file',
            ...(component === 'etcd'
              ? { 'kubeadm.kubernetes.io/etcd.advertise-client-urls': `https://${ip}:2379` }
              : { 'kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint': `${ip}:6443` }),
          },
        }),
        spec: {
          nodeName: name,
          containers: [{ name: component, image: `registry.k8s.io/${component}:${component === 'etcd' ? '3.6.4-0' : 'v1.35.4'}` }],
        },
        status: {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'True' }],
          containerStatuses: [
            {
              name: component,
              ready: true,
              restartCount: 0,
              image: 'x',
              imageID: '',
              started: true,
              state: { running: { startedAt: c.ago(HOUR) } },
            },
          ],
        },
      });
    }
  }
  // CoreDNS as kubeadm installs it: Deployment and pods labelled k8s-app=kube-dns, the kube-dns Service at .10
  for (const n of ['kube-system', 'default', 'kube-public', 'kube-node-lease']) c.namespace(n);
  c.deployment('coredns', 'kube-system', 2, { 'k8s-app': 'kube-dns' }, { nodes: ['w-1', 'w-2'] });
  c.service('kube-dns', 'kube-system', { 'k8s-app': 'kube-dns' }, '10.96.0.10', {
    labels: { 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' },
    ports: [
      { name: 'dns', port: 53, protocol: 'UDP' },
      { name: 'dns-tcp', port: 53, protocol: 'TCP' },
      { name: 'metrics', port: 9153, protocol: 'TCP' },
    ],
  });
  c.configmap('kubeadm-config', 'kube-system', {
    ClusterConfiguration:
      'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.35.4\ncontrolPlaneEndpoint: cp.example.internal:6443\netcd:\n  local:\n    dataDir: /var/lib/etcd\nnetworking:\n  serviceSubnet: 10.96.0.0/12\n',
  });
}
