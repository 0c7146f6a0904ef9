// Longhorn uninstalled while a volume it provisioned is still bound: the PersistentVolume names the CSI driver
// driver.longhorn.io, which no node registers any more, so the pod using it cannot mount after a restart.
import { DAY } from '../../../scenarios/builder.js';
import type { Scenario } from '../../../scenarios/index.js';

export const scenarios: Scenario[] = [
  {
    name: 'longhorn-driver-gone',
    summary: 'a bound Longhorn volume after Longhorn was uninstalled: its CSI driver is registered on no node',
    base: 'field-notes',
    build(c) {
      const claim = c.add({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: c.meta('library', 'immich', { annotations: { 'volume.kubernetes.io/storage-provisioner': 'driver.longhorn.io' } }),
        spec: {
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'longhorn',
          volumeName: 'pvc-5d0c2a1e-immich-library',
          resources: { requests: { storage: '200Gi' } },
        },
        status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '200Gi' } },
      });
      c.add({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: c.meta('pvc-5d0c2a1e-immich-library', undefined, {
          annotations: { 'pv.kubernetes.io/provisioned-by': 'driver.longhorn.io' },
          creationTimestamp: c.ago(90 * DAY),
        }),
        spec: {
          capacity: { storage: '200Gi' },
          accessModes: ['ReadWriteOnce'],
          persistentVolumeReclaimPolicy: 'Retain',
          storageClassName: 'longhorn',
          claimRef: { kind: 'PersistentVolumeClaim', namespace: 'immich', name: 'library', uid: claim.metadata.uid },
          csi: { driver: 'driver.longhorn.io', volumeHandle: 'pvc-5d0c2a1e-immich-library', fsType: 'ext4' },
        },
        status: { phase: 'Bound' },
      });
    },
    expect: {
      findings: [{ code: 'ARCH-CSI01', severity: 'error', title: 'CSI driver driver.longhorn.io is not installed' }],
      exitCode: 1,
    },
  },
];
