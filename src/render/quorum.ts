// Human output of `kubectl arch quorum`: the members table and the verdict line, or the direct
// probe's endpoints. Strings from the cluster or from etcd are escaped (lib/safe.ts).
import type { ProbeResult } from '../etcd/probe.js';
import type { QuorumView } from '../etcd/quorum.js';
import type { Finding } from '../model.js';
import { termSafeDeep } from '../lib/safe.js';
import { columns } from './table.js';
import { hang } from '../lib/wrap.js';

const table = (rows: string[][], width?: number): string => columns(rows, { width }).join('\n') + '\n';

/** With a width (the terminal's), tables and lines are laid out to fit it (render/wrap.ts). */
export function renderProbe(probe: ProbeResult, width?: number): string {
  const res = termSafeDeep(probe, false);
  const v = res.view;
  const answered = res.endpoints.filter((e) => e.ok).length;
  let out = `${hang('', `etcd probe — ${answered} of ${res.endpoints.length} endpoints answer${res.clusterId ? `, cluster ${res.clusterId}` : ''}`, width)}\n\n`;
  out += table(
    [
      ['NAME', 'ID', 'ROLE', 'HEALTH', 'CLIENT URL', 'EVIDENCE'],
      ...res.members.map((m, i) => [
        m.name,
        m.id,
        m.isLearner ? 'learner' : 'voter',
        v.members[i]!.health,
        m.clientURLs[0] ?? '-',
        v.members[i]!.evidence,
      ]),
    ],
    width,
  );
  out +=
    '\n' +
    table(
      [
        ['ENDPOINT', 'STATUS', 'LEADER', 'RAFT TERM', 'RAFT INDEX', 'DB SIZE (IN USE)'],
        ...res.endpoints.map((e) => [
          e.endpoint,
          e.ok ? `ok (v${e.version ?? '?'})` : `not answering (${e.error})`,
          e.leader ?? (e.ok ? 'none' : '-'),
          e.raftTerm ?? '-',
          e.raftIndex ?? '-',
          e.dbSize !== undefined ? `${(e.dbSize / 1048576).toFixed(1)} MiB (${((e.dbSizeInUse ?? 0) / 1048576).toFixed(1)})` : '-',
        ]),
      ],
      width,
    );
  const leader = `leader: ${res.leaderAgreed ? res.leader : `not agreed (${[...new Set(res.endpoints.filter((e) => e.ok).map((e) => e.leader ?? 'none'))].join(', ') || 'no answers'})`}`;
  out += `\n${hang('', `${leader}; raft term spread ${res.raftTermSpread ?? '-'}, index spread ${res.raftIndexSpread ?? '-'}`, width)}`;
  out += `\n${hang('alarms: ', res.alarmsError ? `unknown (${res.alarmsError})` : res.alarms.length ? res.alarms.map((a) => `${a.alarm} on ${a.memberID}`).join(', ') : 'none', width)}\n`;
  out += `\n${hang('', v.verdictLine, width)}\n`;
  return out;
}

export function renderQuorum(view: QuorumView, found: Array<Pick<Finding, 'code' | 'severity' | 'title'>>, width?: number): string {
  const v = termSafeDeep(view, false);
  const findings = termSafeDeep(found, false);
  let out = `${hang('', `etcd quorum — ${v.distribution}${v.source && v.source !== 'none' ? `, from ${v.source}` : ''}`, width)}\n\n`;
  if (v.members.length) {
    out +=
      table(
        [['NAME', 'WHERE', 'ROLE', 'HEALTH', 'EVIDENCE'], ...v.members.map((m) => [m.name, m.where, m.role, m.health, m.evidence])],
        width,
      ) + '\n';
  }
  out += `${hang('', `readyz etcd: ${v.readyzEtcd}; live API servers (identity leases): ${v.apiServers ?? 'not visible'}`, width)}\n`;
  for (const n of v.notes) out += `${hang('note: ', n, width)}\n`;
  for (const f of findings) out += `${hang(`${f.severity.toUpperCase()} ${f.code} `, f.title, width)}\n`;
  out += `\n${hang('', v.verdictLine, width)}\n`;
  return out;
}
