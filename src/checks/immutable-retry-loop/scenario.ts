// The field notes' outage: K3s started with `cluster-dns: 169.254.20.10`, so the CoreDNS addon re-applies the
// kube-dns Service with a new clusterIP every 15 s, and the API server rejects it every time.
import { MIN, HOUR } from '../../../scenarios/builder.js';
import type { Scenario } from '../../../scenarios/index.js';

export const scenarios: Scenario[] = [
  {
    name: 'coredns-retry-loop',
    summary: 'K3s cluster-dns changed after install: the CoreDNS addon fails to apply every 15 s for six hours',
    base: 'field-notes',
    example: true,
    build(c) {
      for (const n of c.all('Node')) {
        if (n.metadata.annotations?.['k3s.io/node-args']?.includes('"server"'))
          n.metadata.annotations['k3s.io/node-args'] = JSON.stringify(['server', '--cluster-dns', '169.254.20.10']);
      }
      const addon = c.get('Addon', 'coredns', 'kube-system')!;
      addon.spec.checksum = '7e0b3c1a9f8d6e5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c';
      const involved = {
        apiVersion: 'k3s.cattle.io/v1',
        kind: 'Addon',
        namespace: 'kube-system',
        name: 'coredns',
        uid: addon.metadata.uid,
      };
      // client-go's spam filter lets a burst of 25 through, then about one per 5 minutes: 25 + 6 h × 12 ≈ 97 recorded
      c.event('coredns.18a2f3c4d5e6f708', 'kube-system', involved, {
        reason: 'ApplyManifestFailed',
        type: 'Warning',
        count: 97,
        first: 6 * HOUR,
        last: MIN,
        component: 'deploy',
        host: 'lemuel',
        message:
          'Applying manifest at "/var/lib/rancher/k3s/server/manifests/coredns.yaml" failed: failed to update kube-system/kube-dns /v1, Kind=Service for Addon kube-system/coredns: Service "kube-dns" is invalid: spec.clusterIPs[0]: Invalid value: ["169.254.20.10"]: may not change once set',
      });
      c.event('coredns.18a2f3c4d5e6f709', 'kube-system', involved, {
        reason: 'ApplyingManifest',
        type: 'Normal',
        count: 97,
        first: 6 * HOUR,
        last: MIN,
        component: 'deploy',
        host: 'lemuel',
        message: 'Applying manifest at "/var/lib/rancher/k3s/server/manifests/coredns.yaml"',
      });
    },
    expect: {
      findings: [{ code: 'ARCH-RL03', severity: 'error', title: '/clusterIP 169\\.254\\.20\\.10 \\(live: 10\\.43\\.0\\.10\\)/' }],
      exitCode: 1,
    },
  },
];
