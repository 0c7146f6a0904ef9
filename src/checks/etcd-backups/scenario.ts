// The field-notes K3s and its etcd snapshots: as the base has them (each server's own 5, and S3 copies), and as they
// go wrong — only on the servers' disks (the example), stale, failing, disabled.
import type { Scenario } from '../../../scenarios/index.js';

const S3 = (name: string): boolean => name.startsWith('s3-');

export const scenarios: Scenario[] = [
  {
    name: 'etcd-snapshots-local-only',
    summary: "etcd snapshots taken on schedule, but only on the servers' own disks (no S3)",
    base: 'field-notes',
    example: true,
    build(c) {
      c.remove((o) => o.kind === 'ETCDSnapshotFile' && S3(o.metadata.name));
    },
    expect: { findings: [{ code: 'ARCH-BK04', severity: 'warning' }], absent: ['ARCH-BK01', 'ARCH-BK02', 'ARCH-BK03'] },
  },
  {
    name: 'etcd-snapshots-stale',
    summary: 'the scheduled etcd snapshots stopped three days ago',
    base: 'field-notes',
    build(c) {
      // what K3s keeps once no run succeeds: the last files, now old (its retention deletes only on a new snapshot)
      for (const f of c.all('ETCDSnapshotFile')) {
        const t = new Date(Date.parse(f.status.creationTime) - 3 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
        f.status.creationTime = t;
        f.metadata.creationTimestamp = t;
      }
    },
    expect: { findings: [{ code: 'ARCH-BK02', severity: 'error' }], exitCode: 1 },
  },
  {
    name: 'etcd-snapshot-upload-failed',
    summary: 'the last S3 upload of an etcd snapshot failed (K3s does not retry it)',
    base: 'field-notes',
    build(c) {
      const last = c
        .all('ETCDSnapshotFile')
        .filter((f) => S3(f.metadata.name))
        .sort((a, b) => Date.parse(b.status.creationTime) - Date.parse(a.status.creationTime))[0]!;
      last.status = {
        readyToUse: false,
        size: '0',
        error: {
          time: last.status.creationTime,
          message: `Put "https://s3.home.arpa/k3s-etcd-snapshots/field-notes/${last.spec.snapshotName}": dial tcp 192.168.219.20:443: i/o timeout`,
        },
      };
    },
    expect: { findings: [{ code: 'ARCH-BK03', severity: 'error' }], exitCode: 1 },
  },
  {
    name: 'etcd-snapshots-disabled',
    summary: 'every K3s server runs with --etcd-disable-snapshots',
    base: 'field-notes',
    build(c) {
      for (const n of c.all('Node'))
        if (n.metadata.labels?.['node-role.kubernetes.io/etcd'] === 'true')
          n.metadata.annotations!['k3s.io/node-args'] = JSON.stringify(['server', '--etcd-disable-snapshots']);
      c.remove((o) => o.kind === 'ETCDSnapshotFile');
    },
    expect: { findings: [{ code: 'ARCH-BK01', severity: 'error' }], exitCode: 1 },
  },
];
