// ARCH-WI08: --remove takes the only local etcd snapshots with it (K3s/RKE2 keep them on each server's disk).
import { R } from '../../../resources.js';
import { count, definePrediction, input } from '../../types.js';

const s3 = (f: { spec?: { location?: unknown } }): boolean => String(f.spec?.location ?? '').startsWith('s3://');

export default definePrediction({
  id: 'etcd-snapshots',
  code: 'ARCH-WI08',
  title: "the only etcd snapshots are on the servers being removed' disks",
  contract: 'state',
  needs: [
    input(R.etcdSnapshotFiles, 'evidence', 'where the etcd snapshots are kept', {
      relevant: (c) =>
        (c.distribution === 'K3s' || c.distribution === 'RKE2') &&
        c.snap.of(R.nodes).some((n) => c.down.has(n.metadata.name) && n.metadata.labels?.['node-role.kubernetes.io/etcd'] === 'true'),
      fields: ['spec.location', 'spec.nodeName', 'status.readyToUse'],
    }),
  ],
  applies: (h) => h.remove,
  docs: {
    what: 'With --remove: the ETCDSnapshotFile objects ready to use, when none is on S3 and every local one is on the servers being removed — after the removal, nothing could bring the cluster state back.',
    why: 'A snapshot is the only way back after a lost quorum; it must outlive the servers it was taken on.',
    limits:
      'Snapshots copied off the servers by other means (a CronJob, Velero) are not seen. Before October 2023 K3s recorded snapshots in a ConfigMap: those are not read here.',
  },
  predict(c) {
    const files = c.snap.of(R.etcdSnapshotFiles).filter((f) => f.status?.readyToUse === true);
    const local = files.filter((f) => !s3(f));
    if (!local.length || files.some(s3) || !local.every((f) => c.down.has(String(f.spec?.nodeName ?? '')))) return { predictions: [] };
    const where = [...new Set(local.map((f) => String(f.spec?.nodeName)))];
    return {
      predictions: [
        {
          contract: 'state',
          code: 'ARCH-WI08',
          from: 'what-if',
          severity: 'error',
          title: `the only etcd snapshots are on ${where.join(', ')}, which you remove`,
          message: `${count(local.length, 'snapshot file')}, all on the removed servers' disks and none on S3: after the removal nothing could bring the cluster state back.`,
          objects: where.map((n) => ({ kind: 'Node', name: n })),
          why: 'A snapshot is the only way back after a lost quorum; it must outlive the servers it was taken on.',
          fix: ['copy the newest snapshot off the servers first (k3s etcd-snapshot save on a server that stays, or to S3)'],
        },
      ],
    };
  },
});
