// `kubectl arch quorum`: etcd members and the verdict, through the API or (opt-in) etcd itself.
import { etcdQuorum, quorumFindings } from '../checks/etcd-quorum/check.js';
import { partition } from '../config/accepted.js';
import { EXIT, InputError } from '../errors.js';
import { FINGERPRINT_NEEDS } from '../fingerprint.js';
import { evidenceTime, stamp } from '../checks/run.js';
import { SEVERITY_RANK, worstRank, type CheckResult } from '../model.js';
import { quorumView } from '../etcd/quorum.js';
import { isMachineFormat } from '../render/formats/model.js';
import { REPORT_API_VERSION } from '../render/report.js';
import { acquire, exitFor, parseDuration, runDeadline, type GlobalArgs } from './common.js';
import { renderProbe, renderQuorum } from '../render/quorum.js';
import { printStructured } from './output.js';
import { execute, fleetContexts, type PerContext } from './fleet.js';
import { placeOf, risksInfo } from './risks.js';
import { forTerminal, terminalWidth } from '../render/style.js';

export interface QuorumArgs extends GlobalArgs {
  'etcd-endpoints'?: string;
  'etcd-cacert'?: string;
  'etcd-cert'?: string;
  'etcd-key'?: string;
  'etcd-timeout'?: string;
}

export const quorumOne: PerContext = async (args, risks) => {
  const { snap, source } = await acquire(args, [...FINGERPRINT_NEEDS, ...etcdQuorum.needs]);
  const now = evidenceTime(snap);
  const v = quorumView(snap, now);
  const all = v.visible ? quorumFindings(v, now).map((f) => stamp(etcdQuorum, f)) : [];
  const { kept: findings, suppressed } = partition(all, risks, placeOf(source));
  // as the check says it: unknown is never passed
  const check: CheckResult & { suppressed?: number } = {
    id: etcdQuorum.id,
    title: etcdQuorum.title,
    status: findings.length ? 'findings' : !v.visible || v.verdict === 'UNKNOWN' ? 'skipped' : 'passed',
    ...(findings.length ? {} : { reason: v.visible ? `${v.verdictLine} (${v.source})` : (v.reason ?? 'etcd members not visible') }),
    findings,
    notes: v.notes,
    ...(suppressed.length ? { suppressed: suppressed.length } : {}),
  };
  return {
    structured: {
      apiVersion: REPORT_API_VERSION,
      kind: 'Quorum',
      command: 'quorum',
      ...v,
      source,
      evidenceSource: v.source,
      findings,
      suppressed,
      acceptedRisks: risksInfo(risks, suppressed),
    },
    text: async (s) => {
      const { afterTitle, renderSuppressed, risksHeader } = await import('../render/text.js');
      const info = risksInfo(risks, suppressed);
      const tail = renderSuppressed(suppressed, info, s);
      return afterTitle(renderQuorum(v, findings, s.width), risksHeader(info, s.width)) + (tail.length ? `\n${tail.join('\n')}\n` : '');
    },
    checks: [check],
    suppressed,
    worstRank: worstRank(findings),
    source,
    distribution: v.distribution,
    serverVersion: snap.header.serverVersion?.gitVersion,
  };
};

export async function quorum(args: QuorumArgs): Promise<number> {
  if (args['etcd-endpoints']) {
    if (await fleetContexts(args))
      throw new InputError('--etcd-endpoints probes one etcd cluster; it cannot be used with --contexts or --all-contexts');
    if (isMachineFormat(args.output))
      throw new InputError(`-o ${args.output} is not available with --etcd-endpoints`, 'use -o table, json or yaml');
    // the probe reports members and a verdict, no findings: there is nothing a baseline could be compared with
    if (args.baseline)
      throw new InputError(
        '--baseline is not available with --etcd-endpoints',
        'compare quorum reports read through the API: leave out --etcd-endpoints',
      );
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
      deadline: await runDeadline(args),
    });
    const v = res.view;
    const alarmSev = res.alarms.some((a) => a.alarm === 'CORRUPT' || a.alarm === 'NOSPACE');
    if (args.output !== 'table') {
      await printStructured({ apiVersion: REPORT_API_VERSION, kind: 'QuorumProbe', command: 'quorum', ...res }, args.output);
    } else {
      process.stdout.write(renderProbe(res, terminalWidth()));
    }
    // nothing answered, or what answered cannot decide: not judged, as for a cluster that cannot be reached (exit 3) —
    // unknown is never "passed"; an alarm that corrupts or fills etcd is still critical
    if (v.verdict === 'UNKNOWN' && !alarmSev) return EXIT.UNREACHABLE;
    const sev =
      v.verdict === 'LOST' || alarmSev
        ? SEVERITY_RANK.critical
        : v.verdict === 'DEGRADED'
          ? SEVERITY_RANK.error
          : v.voters > 1 && v.voters % 2 === 0
            ? SEVERITY_RANK.warning
            : -1;
    return exitFor(sev, args['fail-on']);
  }
  return execute('quorum', args, forTerminal(quorumOne));
}
