// Human output of `kubectl arch quorum`: the members table and the verdict line, or the direct
// probe's endpoints. Strings from the cluster or from etcd are escaped (lib/safe.ts).
import type { ProbeResult } from '../etcd/probe.js';
import type { QuorumView } from '../etcd/quorum.js';
import type { Finding } from '../model.js';
import { termSafeDeep } from '../lib/safe.js';
import { columns } from './table.js';

const table = (rows: string[][]): string => columns(rows).join('\n') + '\n';

export function renderProbe(probe: ProbeResult): string {
  const res = termSafeDeep(probe, false);
  const v = res.view;
  const answered = res.endpoints.filter((e) => e.ok).length;
  let out = `etcd probe — ${answered} of ${res.endpoints.length} endpoints answer${res.clusterId ? `, cluster ${res.clusterId}` : ''}\n\n`;
  out += table([
    ['NAME', 'ID', 'ROLE', 'HEALTH', 'CLIENT URL', 'EVIDENCE'],
    ...res.members.map((m, i) => [
      m.name,
      m.id,
      m.isLearner ? 'learner' : 'voter',
      v.members[i]!.health,
      m.clientURLs[0] ?? '-',
      v.members[i]!.evidence,
    ]),
  ]);
  out +=
    '\n' +
    table([
      ['ENDPOINT', 'STATUS', 'LEADER', 'RAFT TERM', 'RAFT INDEX', 'DB SIZE (IN USE)'],
      ...res.endpoints.map((e) => [
        e.endpoint,
        e.ok ? `ok (v${e.version ?? '?'})` : `not answering (${e.error})`,
        e.leader ?? (e.ok ? 'none' : '-'),
        e.raftTerm ?? '-',
        e.raftIndex ?? '-',
        e.dbSize !== undefined ? `${(e.dbSize / 1048576).toFixed(1)} MiB (${((e.dbSizeInUse ?? 0) / 1048576).toFixed(1)})` : '-',
      ]),
    ]);
  out += `\nleader: ${res.leaderAgreed ? res.leader : `not agreed (${[...new Set(res.endpoints.filter((e) => e.ok).map((e) => e.leader ?? 'none'))].join(', ') || 'no answers'})`}`;
  out += `; raft term spread ${res.raftTermSpread ?? '-'}, index spread ${res.raftIndexSpread ?? '-'}`;
  out += `\nalarms: ${res.alarmsError ? `unknown (${res.alarmsError})` : res.alarms.length ? res.alarms.map((a) => `${a.alarm} on ${a.memberID}`).join(', ') : 'none'}\n`;
  out += `\n${v.verdictLine}\n`;
  return out;
}

export function renderQuorum(view: QuorumView, found: Array<Pick<Finding, 'code' | 'severity' | 'title'>>): string {
  const v = termSafeDeep(view, false);
  const findings = termSafeDeep(found, false);
  let out = `etcd quorum — ${v.distribution}${v.source && v.source !== 'none' ? `, from ${v.source}` : ''}\n\n`;
  if (v.members.length) {
    out +=
      table([['NAME', 'WHERE', 'ROLE', 'HEALTH', 'EVIDENCE'], ...v.members.map((m) => [m.name, m.where, m.role, m.health, m.evidence])]) +
      '\n';
  }
  out += `readyz etcd: ${v.readyzEtcd}; live API servers (identity leases): ${v.apiServers ?? 'not visible'}\n`;
  for (const n of v.notes) out += `note: ${n}\n`;
  for (const f of findings) out += `${f.severity.toUpperCase()} ${f.code} ${f.title}\n`;
  out += `\n${v.verdictLine}\n`;
  return out;
}
