// State lives only in etcd, and a cluster without a recent, good etcd snapshot is one disk away from losing it.
// Where the API shows backups (K3s/RKE2 ETCDSnapshotFile objects or their older ConfigMap, OpenShift's feature-gated
// EtcdBackup objects), judge them against the schedule each server runs with; where backups are made outside the API
// (kubeadm, k0s, Talos, managed clouds), say so with the command to check by hand — never "no backup".
// Facts (k3s-io/api k3s.cattle.io/v1 types.go, k3s-io/k3s pkg/etcd/snapshot*.go, pkg/nodeconfig): one object per
// snapshot file, `local-…` or `s3-…`; status.readyToUse, status.error {time, message}; failed records are deleted 24 h
// after their error; every etcd server runs its own cron (default `0 */12 * * *`), keeps 5 locally; S3 copies are
// cluster-wide and not retried; node-args hold config.yaml values since v1.21.1, secrets masked (not all of them:
// only the flags named here are ever printed).
import { detectDistribution, type Distribution } from '../../fingerprint.js';
import { longestGapMs } from '../../lib/cron.js';
import { condition, refOf } from '../../lib/k8s.js';
import { human } from '../../lib/time.js';
import { gkKey, type KObject, type ObjectRef } from '../../model.js';
import { CONFIGMAPS, R } from '../../resources.js';
import { defineCheck, finding, onlyOn, type CheckContext, type Draft } from '../types.js';
import { command } from '../../lib/shell.js';

const CODES = {
  'ARCH-BK01': 'etcd snapshots are disabled on the servers (--etcd-disable-snapshots)',
  'ARCH-BK02': 'no good etcd snapshot within two schedule intervals (stale, none at all, or a schedule that never fires)',
  'ARCH-BK03': 'the latest etcd snapshot of a server or of S3 failed (its error named)',
  'ARCH-BK04': "etcd snapshots only on the servers' own disks: losing the servers loses the backups",
  'ARCH-BK05': 'local etcd snapshots from only one server of several',
} as const;
type Code = keyof typeof CODES;

const DEFAULT_CRON = '0 */12 * * *';

/** The server flags recorded on a node, read for the few flags this check uses (never printing any other value). */
export interface ServerFlags {
  node: string;
  disabled: boolean;
  cron: string;
  cronGiven: boolean;
  s3: boolean;
  retention?: string;
  datastore: boolean;
}

const boolFlag = (args: string[], name: string): boolean => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== 'false';
};
const valueOf = (args: string[], name: string): string | undefined => {
  const i = args.lastIndexOf(name);
  const v = i >= 0 ? args[i + 1] : args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
  return v !== undefined && !v.startsWith('--') ? v : undefined;
};

export function serverFlags(n: KObject, program: 'k3s' | 'rke2'): ServerFlags | null {
  const raw = n.metadata.annotations?.[`${program}.io/node-args`];
  let args: unknown;
  try {
    args = raw ? JSON.parse(raw) : null;
  } catch {
    args = null;
  }
  if (!Array.isArray(args)) return null;
  const a = args.map(String);
  const cron = valueOf(a, '--etcd-snapshot-schedule-cron');
  return {
    node: n.metadata.name,
    disabled: boolFlag(a, '--etcd-disable-snapshots'),
    cron: cron ?? DEFAULT_CRON,
    cronGiven: cron !== undefined,
    s3: boolFlag(a, '--etcd-s3') || a.includes('--etcd-s3-config-secret'),
    retention: valueOf(a, '--etcd-snapshot-retention'),
    datastore: a.includes('--datastore-endpoint'),
  };
}

/** One snapshot file as the API records it, from an ETCDSnapshotFile or a legacy ConfigMap entry. */
interface SnapFile {
  name: string;
  ref: ObjectRef;
  node: string;
  storage: 'local' | 's3';
  created?: number;
  ok: boolean;
  error?: string;
  errorAt?: number;
}

const time = (s: unknown): number | undefined => {
  const t = typeof s === 'string' ? Date.parse(s) : NaN;
  return Number.isNaN(t) ? undefined : t;
};

function fromObjects(files: KObject[]): SnapFile[] {
  return files.map((f) => {
    const s3 = Boolean(f.spec?.s3) || String(f.spec?.location ?? '').startsWith('s3://');
    return {
      name: String(f.spec?.snapshotName ?? f.metadata.name),
      ref: refOf(f),
      node: String(f.spec?.nodeName ?? '?'),
      storage: s3 ? 's3' : 'local',
      created: time(f.status?.creationTime),
      ok: f.status?.readyToUse === true && !f.status?.error,
      error: typeof f.status?.error?.message === 'string' ? f.status.error.message : undefined,
      errorAt: time(f.status?.error?.time),
    };
  });
}

/** k3s-etcd-snapshots / rke2-etcd-snapshots: keys are `local-<name>` / `s3-<name>`, values the record as JSON, its
 *  error message base64-encoded. */
function fromConfigMap(cm: KObject): SnapFile[] {
  const out: SnapFile[] = [];
  for (const [key, v] of Object.entries((cm.data ?? {}) as Record<string, string>)) {
    let j: Record<string, any>;
    try {
      j = JSON.parse(v);
    } catch {
      continue;
    }
    const s3 = key.startsWith('s3-') || String(j.location ?? '').startsWith('s3://') || j.nodeName === 's3';
    let error: string | undefined;
    if (j.message) {
      try {
        error = Buffer.from(String(j.message), 'base64').toString('utf8');
      } catch {
        error = String(j.message);
      }
    }
    out.push({
      name: String(j.name ?? key),
      ref: { kind: 'ConfigMap', namespace: cm.metadata.namespace, name: cm.metadata.name },
      node: String(j.nodeName ?? '?'),
      storage: s3 ? 's3' : 'local',
      created: time(j.createdAt),
      ok: j.status ? j.status === 'successful' : true,
      error,
    });
  }
  return out;
}

/** Where backups are made outside the API, and how to check them by hand. */
const OUTSIDE: Partial<Record<Distribution, string>> = {
  kubeadm:
    'kubeadm clusters back up etcd outside the API (etcdctl snapshot save by hand or from a CronJob or timer, or a tool such as Velero): check by hand on a control-plane node that a recent file exists and is good — etcdutl snapshot status <file> -w table (or etcdctl snapshot status), and that it leaves the machine',
  k0s: 'k0s backs up etcd outside the API (k0s backup): check by hand on a controller — ls -l the --save-path of your k0s backup runs, and that the newest archive is recent',
  Talos:
    'Talos backs up etcd outside the API (talosctl etcd snapshot, or Omni): check by hand — talosctl -n <control-plane node> etcd snapshot <file> makes one; look where your scheduled ones are written',
  EKS: 'EKS runs etcd inside its managed control plane and backs it up itself: nothing to check through the Kubernetes API (back up your workloads, e.g. with Velero)',
  GKE: 'GKE runs etcd inside its managed control plane and backs it up itself: nothing to check through the Kubernetes API (back up your workloads, e.g. with Backup for GKE)',
  AKS: 'AKS runs etcd inside its managed control plane and backs it up itself: nothing to check through the Kubernetes API (back up your workloads, e.g. with AKS Backup)',
};

/** ETCDSnapshotFile came with the October 2023 patch releases (v1.25.15, v1.26.10, v1.27.7, v1.28.3): before them the
 *  ConfigMap is the record, from them on a missing type is a gap, not an absence of snapshots. */
function servesSnapshotFiles(version: string | undefined): boolean {
  const m = /^v1\.(\d+)\.(\d+)/.exec(version ?? '');
  if (!m) return true;
  const [minor, patch] = [Number(m[1]), Number(m[2])];
  const since: Record<number, number> = { 25: 15, 26: 10, 27: 7, 28: 3 };
  return minor > 28 || (since[minor] !== undefined && patch >= since[minor]!);
}

function k3sFindings(
  ctx: CheckContext,
  program: 'k3s' | 'rke2',
  notes: string[],
  unjudged: string[],
): { findings: Array<Draft<Code>>; passed?: string; skipped?: string } {
  const { snap, now } = ctx;
  const Prog = program === 'k3s' ? 'K3s' : 'RKE2';
  const nodesSeen = !snap.gap(R.nodes);
  const servers = snap.of(R.nodes).filter((n) => n.metadata.labels?.['node-role.kubernetes.io/etcd'] === 'true');
  if (!servers.length && nodesSeen) {
    const flags = snap
      .of(R.nodes)
      .map((n) => serverFlags(n, program))
      .filter((f): f is ServerFlags => f !== null);
    const external = flags.some((f) => f.datastore);
    return {
      findings: [],
      skipped: external
        ? `not etcd: this ${Prog} cluster keeps its state in an external datastore (--datastore-endpoint, kine on SQL) — back up that database with its own tooling, and keep the server token (/var/lib/rancher/${program}/server/token) with it`
        : `not etcd: no node has the etcd role, so this ${Prog} server keeps its state in SQLite (kine) — back up /var/lib/rancher/${program}/server/db/state.db (sqlite3 .backup, or a copy with ${program} stopped) together with the server token (/var/lib/rancher/${program}/server/token)`,
    };
  }
  const flagsOf = new Map(servers.map((n) => [n.metadata.name, serverFlags(n, program)] as const));
  const unread = servers.filter((n) => !flagsOf.get(n.metadata.name)).map((n) => n.metadata.name);
  if (unread.length)
    notes.push(`${unread.join(', ')}: ${program}.io/node-args not readable — the default schedule (${DEFAULT_CRON}) is assumed`);
  const flags = servers.map(
    (n) =>
      flagsOf.get(n.metadata.name) ?? {
        node: n.metadata.name,
        disabled: false,
        cron: DEFAULT_CRON,
        cronGiven: false,
        s3: false,
        datastore: false,
      },
  );
  const nodeRef = (name: string): ObjectRef => ({ kind: 'Node', name });

  // the records: ETCDSnapshotFile objects, else the older ConfigMap (only written for snapshots with extra metadata
  // since November 2023, so an empty one proves nothing there)
  // records: null when not visible — the ConfigMap alone proves nothing where ETCDSnapshotFile exists (it is written
  // only for snapshots with extra metadata since November 2023), so only that type's absence (404) makes it the record
  const objectsSeen = !snap.gap(R.etcdSnapshotFiles) && !snap.absent(R.etcdSnapshotFiles);
  const cm = snap.of(R.configmaps).find((c) => c.metadata.namespace === 'kube-system' && c.metadata.name === `${program}-etcd-snapshots`);
  const beforeObjects = !servesSnapshotFiles(servers[0]?.status?.nodeInfo?.kubeletVersion ?? snap.header.serverVersion?.gitVersion);
  const files: SnapFile[] | null = objectsSeen
    ? fromObjects(snap.of(R.etcdSnapshotFiles))
    : cm
      ? fromConfigMap(cm)
      : snap.absent(R.etcdSnapshotFiles) && beforeObjects && !snap.gap(R.configmaps)
        ? []
        : null;
  if (files === null && snap.absent(R.etcdSnapshotFiles)) unjudged.push(gkKey(R.etcdSnapshotFiles.group, R.etcdSnapshotFiles.kind));
  if (files === null)
    notes.push(
      `the snapshot records are not visible (ETCDSnapshotFile objects${snap.gap(R.configmaps) ? `, the ${program}-etcd-snapshots ConfigMap` : ''}): only the servers' snapshot settings are judged`,
    );
  const findings: Array<Draft<Code>> = [];

  if (!nodesSeen)
    notes.push("nodes are not visible: the servers' snapshot settings (schedule, disabled, S3) are not judged, only the records");

  // BK01: servers that take no scheduled snapshot
  const off = flags.filter((f) => f.disabled);
  if (off.length) {
    const all = off.length === flags.length;
    findings.push(
      finding(
        'ARCH-BK01',
        all ? 'error' : 'warning',
        all
          ? `etcd snapshots are disabled on every server (${off.map((f) => f.node).join(', ')})`
          : `etcd snapshots are disabled on ${off.map((f) => f.node).join(', ')}`,
        `${off.map((f) => f.node).join(', ')} run${off.length === 1 ? 's' : ''} with --etcd-disable-snapshots: ${all ? 'no scheduled snapshot is taken anywhere, so nothing could bring the cluster state back after a lost quorum or a lost disk' : 'those servers take no scheduled snapshot; the others still do'}.`,
        {
          objects: off.map((f) => nodeRef(f.node)),
          evidence: { servers: off.map((f) => f.node) },
          why: 'State lives only in etcd; a snapshot is the only way back after a quorum loss (cluster-reset needs one) or a lost server disk.',
          fix: [
            `remove etcd-disable-snapshots from /etc/rancher/${program}/config.yaml (or the --etcd-disable-snapshots flag) on ${off.map((f) => f.node).join(', ')} and restart ${program === 'k3s' ? 'k3s' : 'rke2-server'} one server at a time`,
            `meanwhile take one now: ${program} etcd-snapshot save`,
          ],
        },
      ),
    );
  }

  // BK02: the newest good snapshot against the schedule each server runs
  const running = flags.filter((f) => !f.disabled);
  const gaps = running.map((f) => ({ f, gap: longestGapMs(f.cron) }));
  const never = gaps.filter((g) => g.gap === null);
  const good = (files ?? []).filter((f) => f.ok && f.created !== undefined).sort((a, b) => b.created! - a.created!);
  const newest = good[0];
  const interval = Math.min(...gaps.map((g) => g.gap ?? Infinity));
  const age = newest ? now.getTime() - newest.created! : undefined;
  const oldestServer = Math.min(...servers.map((n) => time(n.metadata.creationTimestamp) ?? now.getTime()));
  if (never.length) {
    findings.push(
      finding(
        'ARCH-BK02',
        'error',
        `the etcd snapshot schedule of ${never.map((g) => g.f.node).join(', ')} never fires: "${never[0]!.f.cron}"`,
        `--etcd-snapshot-schedule-cron is "${never[0]!.f.cron}", which is not a schedule ${Prog} can read, so no scheduled snapshot is ever taken there — and ${Prog} says nothing about it. ${newest ? `The newest good snapshot is ${human(Math.round(age! / 1000))} old (${newest.name} on ${newest.node}).` : 'No good snapshot is recorded.'}`,
        {
          objects: never.map((g) => nodeRef(g.f.node)),
          evidence: { cron: never[0]!.f.cron, servers: never.map((g) => g.f.node), newest: newest?.name },
          why: 'An unreadable cron is ignored without an error: the cluster looks configured for backups and takes none.',
          fix: [
            `write the schedule without quotes or backslashes in /etc/rancher/${program}/config.yaml, e.g. etcd-snapshot-schedule-cron: "0 */6 * * *", and restart ${program === 'k3s' ? 'k3s' : 'rke2-server'} on ${never.map((g) => g.f.node).join(', ')}`,
            `meanwhile take one now: ${program} etcd-snapshot save`,
          ],
        },
      ),
    );
  } else if (
    files !== null &&
    running.length &&
    Number.isFinite(interval) &&
    (age === undefined ? now.getTime() - oldestServer > 2 * interval : age > 2 * interval)
  ) {
    findings.push(
      finding(
        'ARCH-BK02',
        'error',
        newest
          ? `the newest good etcd snapshot is ${human(Math.round(age! / 1000))} old — more than two schedule intervals (${human(interval / 1000)})`
          : 'no good etcd snapshot is recorded at all',
        `${newest ? `Newest good: ${newest.name} on ${newest.node} (${newest.storage}), taken ${new Date(newest.created!).toISOString()}.` : `No snapshot file is recorded as good${files.length ? ` (${files.length} recorded, none usable)` : ''}.`} The servers run the schedule "${running[0]!.cron}"${running[0]!.cronGiven ? '' : ' (the default)'}: a good snapshot should be at most ${human(interval / 1000)} old. Failed snapshots are kept on record only for a day, so older failures no longer show.`,
        {
          objects: running.map((f) => nodeRef(f.node)),
          evidence: {
            newest: newest ? { name: newest.name, node: newest.node, storage: newest.storage, ageMs: age } : null,
            intervalMs: interval,
            cron: running.map((f) => f.cron),
          },
          why: 'A restore brings the cluster back to the snapshot: everything changed since is lost, and without any snapshot there is nothing to restore.',
          fix: [
            command(['journalctl', '-u', program === 'k3s' ? 'k3s' : 'rke2-server'], {
              pipe: [['grep', '-i', 'snapshot']],
              say: 'on a server',
              note: 'why the scheduled runs fail or do not run',
            }),
            `take one now: ${program} etcd-snapshot save, then ${program} etcd-snapshot ls`,
          ],
        },
      ),
    );
  }

  // BK03: the latest record of each server and storage failed
  const latest = new Map<string, SnapFile>();
  for (const f of files ?? []) {
    const key = `${f.storage}|${f.node}`;
    const t = f.created ?? f.errorAt ?? 0;
    const cur = latest.get(key);
    if (!cur || t > (cur.created ?? cur.errorAt ?? 0)) latest.set(key, f);
  }
  const failed = [...latest.values()].filter((f) => !f.ok);
  for (const f of failed) {
    findings.push(
      finding(
        'ARCH-BK03',
        'error',
        `the latest ${f.storage === 's3' ? 'S3 ' : ''}etcd snapshot of ${f.node} failed: ${f.name}`,
        `${f.ref.kind} ${f.ref.name}: ${f.error ? `"${f.error}"` : 'not ready to use'}.${f.storage === 's3' ? ` ${Prog} does not retry an S3 upload: the copy is missing until the next scheduled snapshot succeeds.` : ''}`,
        {
          objects: [f.ref],
          evidence: { node: f.node, storage: f.storage, error: f.error ?? null },
          why: 'A snapshot that failed cannot be restored; the last good one is older than it looks.',
          fix: [
            f.storage === 's3'
              ? `fix what the error names (the endpoint, the bucket, the network to it), then take one now: ${program} etcd-snapshot save (uploads too when S3 is configured)`
              : `fix what the error names (the disk and the snapshot directory /var/lib/rancher/${program}/server/db/snapshots), then take one now: ${program} etcd-snapshot save`,
            `${program} etcd-snapshot ls   # what is there now`,
          ],
        },
      ),
    );
  }

  // BK04: no copy off the machines
  const s3Seen = (files ?? []).some((f) => f.storage === 's3');
  const s3Configured = flags.some((f) => f.s3);
  if (files?.length && !s3Seen && !failed.some((f) => f.storage === 's3')) {
    findings.push(
      finding(
        'ARCH-BK04',
        'warning',
        `etcd snapshots are only on the servers' own disks${s3Configured ? ' (S3 is configured, but no snapshot reached it)' : ''}`,
        `${files.length} snapshot file${files.length === 1 ? '' : 's'} recorded, all local (file://) on ${[...new Set(files.map((f) => f.node))].join(', ')}: a lost server disk, or losing the servers, loses the backups with the cluster.`,
        {
          objects: servers.map((n) => nodeRef(n.metadata.name)),
          evidence: { local: files.length, s3Configured },
          why: 'A backup on the machine it protects does not survive what it is for: a dead disk, a reinstalled server, a lost site.',
          fix: [
            `copy snapshots off the servers: in /etc/rancher/${program}/config.yaml set etcd-s3: true with etcd-s3-bucket, etcd-s3-endpoint (and credentials, or etcd-s3-config-secret), then restart one server at a time`,
            `or copy /var/lib/rancher/${program}/server/db/snapshots to other storage after each scheduled run`,
          ],
        },
      ),
    );
  }

  // BK05: several servers, local copies from one (S3 copies hold the whole cluster whoever uploaded them)
  const localBy = new Set(good.filter((f) => f.storage === 'local').map((f) => f.node));
  if (servers.length > 1 && localBy.size === 1 && !s3Seen) {
    const only = [...localBy][0]!;
    findings.push(
      finding(
        'ARCH-BK05',
        'warning',
        `local etcd snapshots come only from ${only}, one of ${servers.length} servers`,
        `Every good local snapshot is on ${only}'s disk; ${servers
          .filter((n) => n.metadata.name !== only)
          .map((n) => n.metadata.name)
          .join(', ')} record none. Losing ${only} loses every backup.`,
        {
          objects: [nodeRef(only)],
          evidence: { only, servers: servers.map((n) => n.metadata.name) },
          why: 'Each K3s/RKE2 server snapshots on its own schedule; one that records none has snapshots disabled, a learner member, or failing runs.',
          fix: [
            command(['journalctl', '-u', program === 'k3s' ? 'k3s' : 'rke2-server'], {
              pipe: [['grep', '-i', 'snapshot']],
              say: 'on the others',
            }),
          ],
        },
      ),
    );
  }
  const passed =
    files === null
      ? `snapshot settings of ${servers.length} server${servers.length === 1 ? '' : 's'} judged, schedule "${running[0]?.cron ?? DEFAULT_CRON}"`
      : newest
        ? `newest good etcd snapshot ${human(Math.round(age! / 1000))} old (${newest.name} on ${newest.node}, ${newest.storage}); ${good.length} good of ${files.length}; schedule "${running[0]?.cron ?? DEFAULT_CRON}"`
        : `no snapshot yet, within the first two schedule intervals`;
  return { findings, passed };
}

function openshiftFindings(ctx: CheckContext): { findings: Array<Draft<Code>>; passed?: string; skipped?: string } {
  const { snap, now } = ctx;
  const policies = snap.of(R.openshiftEtcdBackupPolicies);
  const backups = snap.of(R.openshiftEtcdBackups);
  if ((snap.absent(R.openshiftEtcdBackupPolicies) && snap.absent(R.openshiftEtcdBackups)) || (!policies.length && !backups.length))
    return {
      findings: [],
      skipped:
        'OpenShift backs up etcd with cluster-backup.sh on a control-plane node, outside the API (EtcdBackup and EtcdBackupPolicy exist only behind the AutomatedEtcdBackup feature gate): check by hand — oc debug node/<control-plane node> -- chroot /host ls -l <the directory you gave cluster-backup.sh>, for a recent snapshot_*.db and static_kuberesources_*.tar.gz',
    };
  const findings: Array<Draft<Code>> = [];
  for (const b of backups) {
    const failedC = condition(b, 'Failed');
    if (failedC?.status === 'True')
      findings.push(
        finding('ARCH-BK03', 'error', `etcd backup ${b.metadata.name} failed`, `${failedC.reason ?? ''}: ${failedC.message ?? ''}`.trim(), {
          objects: [refOf(b)],
          evidence: { condition: failedC },
          why: 'A backup that failed cannot be restored; the last good one is older than it looks.',
          fix: [
            command(['oc', 'get', 'etcdbackup', b.metadata.name, '-o', 'yaml']),
            ...(b.status?.jobName ? [command(['oc', '-n', 'openshift-etcd', 'logs', `job/${b.status.jobName}`])] : []),
          ],
        }),
      );
  }
  for (const p of policies) {
    const last = time(condition(p, 'LastSuccessfulTime')?.lastTransitionTime);
    const gap = typeof p.spec?.schedule === 'string' ? longestGapMs(p.spec.schedule) : null;
    if (gap && (last === undefined || now.getTime() - last > 2 * gap))
      findings.push(
        finding(
          'ARCH-BK02',
          'error',
          `EtcdBackupPolicy ${p.metadata.name}: ${last ? `the last good backup is ${human(Math.round((now.getTime() - last) / 1000))} old` : 'no good backup recorded'}`,
          `Schedule "${p.spec.schedule}": a good backup should be at most ${human(gap / 1000)} old.`,
          {
            objects: [refOf(p)],
            evidence: { schedule: p.spec.schedule, lastSuccessful: last ? new Date(last).toISOString() : null },
            why: 'A restore brings the cluster back to the backup: everything changed since is lost.',
            fix: [command(['oc', 'get', 'etcdbackuppolicy', p.metadata.name, '-o', 'yaml']), command(['oc', 'get', 'etcdbackup'])],
          },
        ),
      );
  }
  return {
    findings,
    passed: `${policies.length} backup polic${policies.length === 1 ? 'y' : 'ies'}, ${backups.length} backup${backups.length === 1 ? '' : 's'}: none failed, none stale`,
  };
}

export const etcdBackups = defineCheck({
  id: 'etcd-backups',
  title: 'etcd backups that could bring the state back',
  severity: 'error',
  map: [{ contract: 'state', part: 'etcd backups' }],
  codes: CODES,
  proofs: {
    'ARCH-BK01': ['Node'],
    'ARCH-BK02': ['Node', 'ETCDSnapshotFile.k3s.cattle.io', 'ConfigMap'],
    'ARCH-BK03': ['ETCDSnapshotFile.k3s.cattle.io', 'ConfigMap', 'EtcdBackup.operator.openshift.io'],
    'ARCH-BK04': ['Node', 'ETCDSnapshotFile.k3s.cattle.io', 'ConfigMap'],
    'ARCH-BK05': ['Node', 'ETCDSnapshotFile.k3s.cattle.io', 'ConfigMap'],
  },
  needs: [
    {
      ...R.nodes,
      fields: [
        'metadata.annotations["k3s.io/node-args"]',
        'metadata.annotations["rke2.io/node-args"]',
        'spec.providerID',
        'status.nodeInfo.kubeletVersion',
        'status.nodeInfo.osImage',
      ],
      role: 'subject',
      lost: 'the distribution, the etcd servers and the schedule each runs cannot be read',
    },
    {
      ...R.etcdSnapshotFiles,
      fields: [
        'spec.location',
        'spec.nodeName',
        'spec.s3.bucket',
        'spec.s3.endpoint',
        'spec.snapshotName',
        'status.creationTime',
        'status.error.message',
        'status.error.time',
        'status.readyToUse',
      ],
      role: 'subject',
      lost: 'the snapshot files cannot be listed: only the older ConfigMap record is read, which newer releases fill only for snapshots with extra metadata',
      relevant: onlyOn('K3s', 'RKE2'),
    },
    {
      ...CONFIGMAPS,
      fields: ['data'],
      role: 'evidence',
      lost: 'the k3s/rke2-etcd-snapshots ConfigMap (the record before ETCDSnapshotFile) cannot be read',
      relevant: onlyOn('K3s', 'RKE2'),
    },
    {
      ...R.openshiftEtcdBackupPolicies,
      fields: ['spec.schedule', 'status.conditions'],
      role: 'subject',
      lost: 'OpenShift backup policies cannot be read',
      relevant: onlyOn('OpenShift'),
    },
    {
      ...R.openshiftEtcdBackups,
      fields: ['status.conditions', 'status.jobName'],
      role: 'subject',
      lost: 'OpenShift etcd backups cannot be read',
      relevant: onlyOn('OpenShift'),
    },
  ],
  docs: {
    summary:
      "whether the etcd state could be brought back: K3s/RKE2 snapshots (`ETCDSnapshotFile`, the older ConfigMap) against each server's schedule — disabled, stale, failed, only on the servers' own disks, only from one server; OpenShift's backup objects where they exist; elsewhere, how to check by hand",
    what: 'K3s and RKE2 with embedded etcd: the ETCDSnapshotFile objects (one per snapshot file, local or S3: node, location, creation time, readyToUse, error) — or, before October 2023, the k3s-etcd-snapshots / rke2-etcd-snapshots ConfigMap — against the server flags each node records (k3s.io/node-args, rke2.io/node-args: --etcd-disable-snapshots, --etcd-snapshot-schedule-cron (default twice a day), --etcd-snapshot-retention, --etcd-s3…). OpenShift: EtcdBackupPolicy and EtcdBackup objects, where the feature gate enables them. K3s with SQLite or an external datastore is not etcd: the check says what to back up instead. kubeadm, k0s, Talos and managed clouds back up etcd outside the API: the check says so, with the command to check by hand — it never says there is no backup.',
    why: 'State lives only in etcd. Quorum says whether etcd can write now; only a recent, good snapshot off the machine says whether the cluster could be brought back after a lost quorum (cluster-reset restores one) or a lost disk.',
    fix: 'Keep snapshots enabled and scheduled (the default: twice a day, 5 kept per server), copy them off the servers (etcd-s3 with a bucket), and watch the latest one: `k3s etcd-snapshot ls` (or rke2) shows them; `k3s etcd-snapshot save` takes one now. An unparsable cron is ignored silently: write it plainly in config.yaml.',
    limits:
      "Failed snapshot records are deleted a day after their error, so older failures show only as staleness. The schedule is read from node-args, which hold config.yaml values only since v1.21.1, and describe the running process (a later edit of config.yaml shows after a restart). Only the flags this check needs are ever printed (node-args can hold credentials). The servers' local time is taken as UTC for the schedule (gaps between runs do not change). Backups made by other tools (Velero, a CronJob) are not seen.",
  },
  run(ctx) {
    const notes: string[] = [];
    const d = detectDistribution(ctx.snap).distribution;
    const unjudged: string[] = [];
    if (d === 'K3s' || d === 'RKE2') return { ...k3sFindings(ctx, d === 'K3s' ? 'k3s' : 'rke2', notes, unjudged), notes, unjudged };
    if (d === 'OpenShift') return { ...openshiftFindings(ctx), notes };
    const outside = OUTSIDE[d];
    return {
      findings: [],
      notes,
      skipped:
        outside ??
        'the distribution cannot be told, and with it where etcd backups are made: check them where your etcd runs (etcdutl snapshot status <file>)',
    };
  },
});
