// A K3s server that has not restarted for eleven months: K3s's cert monitor warns that its certificates expire
// in 20 days (a restart renews them).
import { DAY, MIN } from '../../../scenarios/builder.js';
import type { Scenario } from '../../../scenarios/index.js';

export const scenarios: Scenario[] = [
  {
    name: 'k3s-node-certificates-expiring',
    summary: "K3s's CertificateExpirationWarning on server lemuel: its certificates expire in 20 days",
    base: 'field-notes',
    build(c) {
      const at = new Date(c.captured + 20 * DAY).toISOString().replace(/\.\d{3}Z$/, 'Z');
      c.event(
        'lemuel.18a3c7d2e1f0a9b8',
        'default',
        { apiVersion: 'v1', kind: 'Node', name: 'lemuel' },
        {
          reason: 'CertificateExpirationWarning',
          type: 'Warning',
          count: 70,
          first: 70 * 60 * MIN,
          last: 40 * MIN,
          component: 'k3s-cert-monitor',
          host: 'lemuel',
          message: `Node certificates require attention - restart k3s on this node to trigger automatic rotation: admin/client-admin.crt: certificate CN=system:admin,O=system:masters will expire within 90 days at ${at}, apiserver/serving-kube-apiserver.crt: certificate CN=kube-apiserver will expire within 90 days at ${at}, etcd/server-client.crt: certificate CN=etcd-server will expire within 90 days at ${at}`,
        },
      );
    },
    expect: {
      findings: [
        {
          code: 'ARCH-CERT03',
          severity: 'warning',
          title: '/^node lemuel: 3 K3s certificates expire in (19|20) days \\(\\d{4}-\\d{2}-\\d{2}\\)$/',
        },
      ],
      absent: ['ARCH-CERT01'],
      exitCode: 0,
    },
  },
];
