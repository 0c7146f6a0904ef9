// `kubectl arch quorum`: etcd members and the verdict, through the API or (opt-in) etcd itself.
import { quorumFindings } from '../checks/etcd-quorum.js';
import { evidenceTime } from '../checks/run.js';
import { SEVERITY_RANK } from '../model.js';
import { quorumView } from '../etcd/quorum.js';
import { CONFIGMAPS, R } from '../resources.js';
import { REPORT_API_VERSION } from '../render/report.js';
import { acquire, exitFor, parseDuration, type GlobalArgs } from './common.js';
import { columns } from '../render/table.js';
import { printStructured } from './output.js';

export interface QuorumArgs extends GlobalArgs {
  'etcd-endpoints'?: string;
  'etcd-cacert'?: string;
  'etcd-cert'?: string;
  'etcd-key'?: string;
  'etcd-timeout'?: string;
}

const table = (rows: string[][]): string => columns(rows).join('\n') + '\n';

export async function quorum(args: QuorumArgs): Promise<number> {
  if (args['etcd-endpoints']) {
    const { probeEtcd } = await import('../etcd/probe.js');
    const res = await probeEtcd({
      endpoints: args['etcd-endpoints'].split(',').map((s) => s.trim()).filter(Boolean),
      cacert: args['etcd-cacert'], cert: args['etcd-cert'], key: args['etcd-key'],
      timeoutMs: parseDuration(args['etcd-timeout'], 2000),
    });
    const v = res.view;
    const alarmSev = res.alarms.some((a) => a.alarm === 'CORRUPT' || a.alarm === 'NOSPACE');
    if (args.output !== 'table') {
      await printStructured({ apiVersion: REPORT_API_VERSION, kind: 'QuorumProbe', ...res }, args.output);
    } else {
      const answered = res.endpoints.filter((e) => e.ok).length;
      let out = `etcd probe — ${answered} of ${res.endpoints.length} endpoints answer${res.clusterId ? `, cluster ${res.clusterId}` : ''}\n\n`;
      out += table([['NAME', 'ID', 'ROLE', 'HEALTH', 'CLIENT URL', 'EVIDENCE'],
        ...res.members.map((m, i) => [m.name, m.id, m.isLearner ? 'learner' : 'voter', v.members[i]!.health, m.clientURLs[0] ?? '-', v.members[i]!.evidence])]);
      out += '\n' + table([['ENDPOINT', 'STATUS', 'LEADER', 'RAFT TERM', 'RAFT INDEX', 'DB SIZE (IN USE)'],
        ...res.endpoints.map((e) => [e.endpoint, e.ok ? `ok (v${e.version ?? '?'})` : `no answer: ${e.error}`, e.leader ?? (e.ok ? 'none' : '-'), e.raftTerm ?? '-', e.raftIndex ?? '-',
          e.dbSize !== undefined ? `${(e.dbSize / 1048576).toFixed(1)} MiB (${((e.dbSizeInUse ?? 0) / 1048576).toFixed(1)})` : '-'])]);
      out += `\nleader: ${res.leaderAgreed ? res.leader : `not agreed (${[...new Set(res.endpoints.filter((e) => e.ok).map((e) => e.leader ?? 'none'))].join(', ') || 'no answers'})`}`;
      out += `; raft term spread ${res.raftTermSpread ?? '-'}, index spread ${res.raftIndexSpread ?? '-'}`;
      out += `\nalarms: ${res.alarmsError ? `unknown (${res.alarmsError})` : res.alarms.length ? res.alarms.map((a) => `${a.alarm} on ${a.memberID}`).join(', ') : 'none'}\n`;
      out += `\n${v.verdictLine}\n`;
      process.stdout.write(out);
    }
    const sev = v.verdict === 'LOST' || alarmSev ? SEVERITY_RANK.critical : v.verdict === 'DEGRADED' ? SEVERITY_RANK.error
      : v.voters > 1 && v.voters % 2 === 0 ? SEVERITY_RANK.warning : v.verdict === 'UNKNOWN' ? SEVERITY_RANK.warning : -1;
    return exitFor(sev, args['fail-on']);
  }
  const { snap, source } = await acquire(args, [R.nodes, R.podsLean, CONFIGMAPS, R.namespaces, { ...R.leases, optional: true }, { ...R.k0sEtcdMembers, optional: true }, { ...R.openshiftEtcds, optional: true }]);
  const now = evidenceTime(snap);
  const v = quorumView(snap, now);
  const findings = v.visible ? quorumFindings(v, now) : [];
  if (args.output !== 'table') {
    await printStructured({ apiVersion: REPORT_API_VERSION, kind: 'Quorum', ...v, source, evidenceSource: v.source, findings }, args.output);
  } else {
    let out = `etcd quorum — ${v.distribution}${v.source && v.source !== 'none' ? `, from ${v.source}` : ''}\n\n`;
    if (v.members.length) {
      out += table([['NAME', 'WHERE', 'ROLE', 'HEALTH', 'EVIDENCE'], ...v.members.map((m) => [m.name, m.where, m.role, m.health, m.evidence])]) + '\n';
    }
    out += `readyz etcd: ${v.readyzEtcd}; live API servers (identity leases): ${v.apiServers ?? 'not visible'}\n`;
    for (const n of v.notes) out += `note: ${n}\n`;
    for (const f of findings) out += `${f.severity.toUpperCase()} ${f.code} ${f.title}\n`;
    out += `\n${v.verdictLine}\n`;
    process.stdout.write(out);
  }
  const worst = Math.max(-1, ...findings.map((f) => SEVERITY_RANK[f.severity]));
  return exitFor(worst, args['fail-on']);
}
