// cert-manager's webhook with no backend: its Deployment scaled to zero (a failed upgrade, a node drain gone
// wrong), its webhook configurations still fail closed, so every Certificate create or update is rejected.
import type { Scenario } from '../../../scenarios/index.js';

export const scenarios: Scenario[] = [
  {
    name: 'cert-manager-webhook-down',
    summary: "cert-manager's webhook Deployment has no ready pod; its fail-closed webhooks reject cert-manager.io writes",
    base: 'field-notes',
    build(c) {
      const d = c.get('Deployment', 'cert-manager-webhook', 'cert-manager')!;
      d.spec.replicas = 0;
      d.status = { replicas: 0, readyReplicas: 0, availableReplicas: 0, observedGeneration: 3 };
      c.remove((o) => o.kind === 'Pod' && o.metadata.namespace === 'cert-manager' && o.metadata.name.startsWith('cert-manager-webhook-'));
    },
    expect: {
      findings: [
        {
          code: 'ARCH-WH01',
          severity: 'error',
          title: 'ValidatingWebhookConfiguration cert-manager-webhook fails closed with no backend: webhook.cert-manager.io',
        },
        {
          code: 'ARCH-WH01',
          severity: 'error',
          title: 'MutatingWebhookConfiguration cert-manager-webhook fails closed with no backend: webhook.cert-manager.io',
        },
      ],
      absent: ['ARCH-WH02'],
      exitCode: 1,
    },
  },
];
