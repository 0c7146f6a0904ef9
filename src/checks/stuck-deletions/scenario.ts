// A backup tool uninstalled before the objects it guards: a ConfigMap keeps Velero's finalizer and has been deleting
// for two hours, since no Velero controller runs to remove it.
import type { Scenario } from '../../../scenarios/index.js';

export const scenarios: Scenario[] = [
  {
    name: 'finalizer-without-controller',
    summary: "an object deleting for two hours: its finalizer's controller (Velero) was uninstalled first",
    base: 'field-notes',
    offlineOnly:
      'the API server sets deletionTimestamp itself when the object is deleted; e2e/contracts.e2e.test.ts deletes such an object and waits past --stuck-after',
    build(c) {
      c.add({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: c.meta('restic-settings', 'blog', { finalizers: ['restic.velero.io/cleanup'], deletionTimestamp: c.ago(2 * 3_600_000) }),
        data: {},
      });
    },
    expect: { findings: [{ code: 'ARCH-DEL01', severity: 'warning' }], exitCode: 0 },
  },
];
