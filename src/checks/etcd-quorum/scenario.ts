// Quorum risk on two distributions: a K3s cluster with two servers (even: worse than one), and a kubeadm
// cluster whose third etcd member crash-loops (degraded: no failure left to tolerate).
import type { Scenario } from '../../../scenarios/index.js';

export const scenarios: Scenario[] = [
  {
    name: 'k3s-two-servers',
    summary: 'the field-notes cluster with two K3s servers: an even number of etcd voters',
    base: 'field-notes',
    baseOptions: { servers: 2 },
    expect: { findings: [{ code: 'ARCH-EQ03', severity: 'warning', title: '/even number of voters \\(2\\)/' }] },
  },
  {
    name: 'kubeadm-degraded-etcd',
    summary: 'kubeadm with three stacked control-plane nodes; the etcd member on cp-3 crash-loops',
    base: 'kubeadm',
    build(c) {
      const p = c.get('Pod', 'etcd-cp-3', 'kube-system')!;
      p.status.conditions = [{ type: 'Ready', status: 'False' }];
      p.status.containerStatuses = [
        {
          name: 'etcd',
          ready: false,
          restartCount: 14,
          image: 'x',
          imageID: '',
          started: false,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
        },
      ];
    },
    expect: {
      findings: [
        {
          code: 'ARCH-EQ02',
          severity: 'error',
          title: 'etcd is degraded: 3 voters, 2 healthy — quorum 2 — no failure tolerated — DEGRADED',
        },
      ],
      distribution: 'kubeadm',
      exitCode: 1,
    },
  },
];
