// The accepted-risk rules of a run, and what the run says about them on stderr: which files were read and how
// many findings each suppressed (a CI job reads only the exit code and the log: a silenced finding must show),
// a working directory's file left unread (its directory is not trusted), expired rules, and rules too broad to
// silence the critical findings they match.
import { CHECKS } from '../checks/registry.js';
import {
  byFile,
  expiredText,
  fileRisksText,
  loadAcceptedRisks,
  NO_RISKS,
  unscopedCritical,
  type AcceptedRisks,
  type RunPlace,
  type SuppressedFinding,
} from '../config/accepted.js';
import type { Finding } from '../model.js';
import type { AcceptedRisksInfo } from '../render/report.js';
import { termSafe } from '../lib/safe.js';
import type { Acquired, GlobalArgs } from './common.js';
import { dirname } from 'node:path';

export const placeOf = (source: Acquired['source']): RunPlace => ({
  context: source.context,
  cluster: source.cluster,
  server: source.server,
});

/** The rules as a report carries them, with what they suppressed in that report. */
export const risksInfo = (r: AcceptedRisks, suppressed: readonly SuppressedFinding[]): AcceptedRisksInfo => ({
  files: r.files,
  rules: r.rules.length,
  expired: r.expired,
  byFile: byFile(r, suppressed),
  untrusted: r.untrusted,
});

const say = (line: string): void => {
  process.stderr.write(`${termSafe(line)}\n`);
};

/** The accepted-risk rules for this run (none with --no-config); expired rules and unread files are said on stderr. */
export function acceptedRisks(args: GlobalArgs): AcceptedRisks {
  const known = new Set(CHECKS.flatMap((c) => Object.keys(c.codes)));
  const risks = args.config === false ? NO_RISKS : loadAcceptedRisks(args.config, known);
  for (const r of risks.expired) say(`warning: ${expiredText(r)}`);
  for (const f of risks.untrusted) {
    say(`note: ${f} was not read: ${dirname(f)} is not listed under trust: in ${risks.userFile} (or pass --config ${f})`);
  }
  return risks;
}

/** After the run: per file read, the findings it suppressed (over every context); rules that could not silence a
 *  critical finding for want of a namespace or name. reported: each context's findings left, with its place. */
export function sayRisks(
  risks: AcceptedRisks,
  suppressed: readonly SuppressedFinding[],
  reported: ReadonlyArray<{ findings: readonly Finding[]; place: RunPlace }>,
): void {
  for (const f of byFile(risks, suppressed)) say(`note: accepted risks: ${fileRisksText(f)}`);
  const refused = new Map<(typeof risks.rules)[number], number>();
  for (const r of reported)
    for (const { rule, findings } of unscopedCritical(r.findings, risks, r.place)) refused.set(rule, (refused.get(rule) ?? 0) + findings);
  for (const [r, n] of refused)
    say(
      `warning: accepted-risk rule ${r.code} (${r.file}, ignore #${r.index}) names no namespace or name: it suppresses no critical finding (${n} reported)`,
    );
}
