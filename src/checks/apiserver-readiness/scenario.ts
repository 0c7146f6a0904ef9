// The field-notes cluster on a bad day: the API server answers, but its readiness says etcd is failing.
import type { Scenario } from '../../../scenarios/index.js';

export const scenarios: Scenario[] = [
  {
    name: 'readyz-etcd-failing',
    summary: "the API server's /readyz reports etcd failing: nothing can be written",
    base: 'field-notes',
    offlineOnly: "the readiness text is the API server's own; e2e/realcluster.e2e.test.ts kills etcd under a real one and reads it",
    readyz:
      '[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n[+]poststarthook/start-kube-apiserver-admission-initializer ok\nreadyz check failed\n',
    expect: {
      findings: [
        { code: 'ARCH-RZ01', severity: 'critical' },
        { code: 'ARCH-EQ01', severity: 'critical' },
      ],
      exitCode: 1,
    },
  },
];
