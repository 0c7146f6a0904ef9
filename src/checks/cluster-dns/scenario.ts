// Cluster DNS with no backend: CoreDNS's pods carry `app: kube-dns` while the kube-dns Service selects
// `k8s-app: kube-dns` (what the example cluster itself had until the labels were fixed), so its Endpoints are empty.
import type { Scenario } from '../../../scenarios/index.js';

export const scenarios: Scenario[] = [
  {
    name: 'coredns-label-mismatch',
    summary: 'CoreDNS pods labelled app=kube-dns; the kube-dns Service selects k8s-app=kube-dns: DNS has no endpoint',
    base: 'field-notes',
    build(c) {
      const d = c.get('Deployment', 'coredns', 'kube-system')!;
      d.spec.selector.matchLabels = { app: 'kube-dns' };
      d.spec.template.metadata.labels = { app: 'kube-dns' };
      for (const o of c.objects) {
        if (
          (o.kind === 'Pod' || o.kind === 'ReplicaSet') &&
          o.metadata.namespace === 'kube-system' &&
          o.metadata.name.startsWith('coredns-')
        ) {
          o.metadata.labels = { app: 'kube-dns' };
          // the ReplicaSet's selector too: the API server rejects one that does not match its template's labels
          if (o.kind === 'ReplicaSet') o.spec.selector = { matchLabels: { app: 'kube-dns' } };
        }
      }
    },
    expect: {
      findings: [
        {
          code: 'ARCH-DNS01',
          severity: 'critical',
          title: '/cluster DNS \\(Service kube-system\\/kube-dns, 10\\.43\\.0\\.10\\) has no ready endpoint/',
        },
      ],
      exitCode: 1,
    },
  },
];
