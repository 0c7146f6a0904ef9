// metrics-server uninstalled (its Deployment and Service removed by hand), its APIService left behind: the
// aggregator marks it Available=False ServiceNotFound and discovery is incomplete for every client.
import type { Scenario } from '../../../scenarios/index.js';

export const scenarios: Scenario[] = [
  {
    name: 'metrics-apiservice-left-behind',
    summary: 'metrics-server removed but v1beta1.metrics.k8s.io still registered: the aggregated API is unavailable',
    base: 'field-notes',
    build(c) {
      c.remove(
        (o) =>
          o.metadata.namespace === 'kube-system' &&
          ((['Deployment', 'ReplicaSet', 'Pod'].includes(o.kind ?? '') && o.metadata.name.startsWith('metrics-server')) ||
            (o.kind === 'Service' && o.metadata.name === 'metrics-server')),
      );
      const api = c.get('APIService', 'v1beta1.metrics.k8s.io')!;
      // as kube-aggregator's availability controller writes it
      api.status = {
        conditions: [
          {
            type: 'Available',
            status: 'False',
            reason: 'ServiceNotFound',
            message: 'service/metrics-server in "kube-system" is not present',
            lastTransitionTime: c.ago(2 * 3_600_000),
          },
        ],
      };
    },
    expect: {
      findings: [{ code: 'ARCH-API01', severity: 'error', title: 'APIService v1beta1.metrics.k8s.io is not available (ServiceNotFound)' }],
      exitCode: 1,
    },
  },
];
