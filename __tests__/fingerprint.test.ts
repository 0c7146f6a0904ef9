import { describe, expect, test } from '@jest/globals';
import { fingerprint } from '../src/fingerprint.js';
import { loadSnapshot } from '../src/snapshot/load.js';
import { EXAMPLE, node, obj, snapshotOf } from './helpers/fixtures.js';

describe('cluster fingerprint', () => {
  test('the field-notes K3s cluster', () => {
    const fp = fingerprint(loadSnapshot(EXAMPLE));
    expect(fp.distribution).toBe('K3s');
    expect(fp.serverVersion).toBe('v1.35.4+k3s1');
    expect(fp.nodes.summary).toBe('6 nodes: 3 servers (control-plane, etcd), 3 agents');
    expect(fp.nodes.cordoned).toEqual(['lemuel']);
    expect(fp.nodes.notReady).toEqual([]);
    expect(fp.runtimes).toEqual([{ runtime: 'containerd://2.2.3-k3s1', count: 6 }]);
    expect(fp.cni).toBe('flannel (vxlan)');
    expect(fp.controlPlane).toMatch(/k3s server/);
    expect(fp.namespaces).toBe(45);
  });

  test.each([
    ['RKE2', [node('a', { kubelet: 'v1.33.1+rke2r1' })], []],
    ['k0s', [node('a', { kubelet: 'v1.33.1+k0s' })], []],
    [
      'EKS',
      [
        node('a', {
          kubelet: 'v1.33.1-eks-1234',
          providerID: 'aws:///eu-west-1a/i-0abc',
          labels: { 'eks.amazonaws.com/nodegroup': 'ng1' },
        }),
      ],
      [],
    ],
    ['GKE', [node('a', { labels: { 'cloud.google.com/gke-nodepool': 'default-pool' }, providerID: 'gce://p/z/n' })], []],
    ['AKS', [node('a', { labels: { 'kubernetes.azure.com/cluster': 'MC_rg' }, providerID: 'azure:///x' })], []],
    ['kubeadm', [node('cp1', { roles: ['control-plane'] })], [obj('v1', 'ConfigMap', 'kubeadm-config', 'kube-system')]],
    [
      'Talos',
      [node('t1')],
      [
        obj('v1', 'Pod', 'kube-apiserver-t1', 'kube-system', {
          metadata: { name: 'kube-apiserver-t1', labels: { 'app.kubernetes.io/managed-by': 'Talos' } },
        }),
      ],
    ],
    ['OpenShift', [node('m1')], [obj('operator.openshift.io/v1', 'Etcd', 'cluster')]],
    ['unknown', [node('a'), node('b')], []],
  ])('%s', (dist, nodes, others) => {
    const fp = fingerprint(snapshotOf([...nodes, ...others]));
    expect(fp.distribution).toBe(dist);
    if (dist !== 'unknown') expect(fp.evidence.length).toBeGreaterThan(0);
  });

  test('kubeadm roles, NotReady and runtimes', () => {
    const fp = fingerprint(
      snapshotOf([
        node('cp1', { roles: ['control-plane'] }),
        node('w1', { ready: false, runtime: 'cri-o://1.30.0' }),
        node('w2', { cordoned: true }),
        obj('v1', 'ConfigMap', 'kubeadm-config', 'kube-system'),
      ]),
    );
    expect(fp.nodes.summary).toBe('3 nodes: 1 control-plane, 2 workers');
    expect(fp.nodes.notReady).toEqual(['w1']);
    expect(fp.nodes.cordoned).toEqual(['w2']);
    expect(fp.runtimes).toContainEqual({ runtime: 'cri-o://1.30.0', count: 1 });
  });

  test('nodes not visible: says unknown rather than guess', () => {
    const fp = fingerprint(snapshotOf([]));
    expect(fp.nodes.summary).toMatch(/unknown/);
    expect(fp.gaps.join()).toMatch(/nodes/);
    expect(fp.distribution).toBe('unknown');
  });
});
