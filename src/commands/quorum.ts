// `kubectl arch quorum`: etcd members and the verdict, through the API or (opt-in) etcd itself.
import { etcdQuorum, quorumFindings } from '../checks/etcd-quorum.js';
import { FINGERPRINT_NEEDS } from '../fingerprint.js';
import { evidenceTime, stamp } from '../checks/run.js';
import { SEVERITY_RANK, worstRank } from '../model.js';
import { quorumView } from '../etcd/quorum.js';
import { REPORT_API_VERSION } from '../render/report.js';
import { acquire, exitFor, parseDuration, type GlobalArgs } from './common.js';
import { renderProbe, renderQuorum } from '../render/quorum.js';
import { printStructured } from './output.js';

export interface QuorumArgs extends GlobalArgs {
  'etcd-endpoints'?: string;
  'etcd-cacert'?: string;
  'etcd-cert'?: string;
  'etcd-key'?: string;
  'etcd-timeout'?: string;
}

export async function quorum(args: QuorumArgs): Promise<number> {
  if (args['etcd-endpoints']) {
    const { probeEtcd } = await import('../etcd/probe.js');
    const res = await probeEtcd({
      endpoints: args['etcd-endpoints']
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      cacert: args['etcd-cacert'],
      cert: args['etcd-cert'],
      key: args['etcd-key'],
      timeoutMs: parseDuration(args['etcd-timeout'], 2000, '--etcd-timeout'),
    });
    const v = res.view;
    const alarmSev = res.alarms.some((a) => a.alarm === 'CORRUPT' || a.alarm === 'NOSPACE');
    if (args.output !== 'table') {
      await printStructured({ apiVersion: REPORT_API_VERSION, kind: 'QuorumProbe', ...res }, args.output);
    } else {
      process.stdout.write(renderProbe(res));
    }
    const sev =
      v.verdict === 'LOST' || alarmSev
        ? SEVERITY_RANK.critical
        : v.verdict === 'DEGRADED'
          ? SEVERITY_RANK.error
          : v.voters > 1 && v.voters % 2 === 0
            ? SEVERITY_RANK.warning
            : v.verdict === 'UNKNOWN'
              ? SEVERITY_RANK.warning
              : -1;
    return exitFor(sev, args['fail-on']);
  }
  const { snap, source } = await acquire(args, [...FINGERPRINT_NEEDS, ...etcdQuorum.needs]);
  const now = evidenceTime(snap);
  const v = quorumView(snap, now);
  const findings = v.visible ? quorumFindings(v, now).map((f) => stamp(etcdQuorum, f)) : [];
  if (args.output !== 'table') {
    await printStructured(
      { apiVersion: REPORT_API_VERSION, kind: 'Quorum', ...v, source, evidenceSource: v.source, findings },
      args.output,
    );
  } else {
    process.stdout.write(renderQuorum(v, findings));
  }
  return exitFor(worstRank(findings), args['fail-on']);
}
