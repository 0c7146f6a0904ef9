// The short text a tool answers with beside its JSON: what was read, the counts, and the findings one line each,
// for an assistant to quote. Text from the cluster is escaped as on a terminal (lib/safe.ts).
import type { CheckResult } from '../model.js';
import type { Acquired } from '../commands/common.js';
import type { Runs } from '../commands/fleet.js';
import { countBySeverity } from '../render/report.js';
import { termSafe } from '../lib/safe.js';
import { argvText } from '../lib/shell.js';

const MAX_LINES = 20;

export const where = (s: Acquired['source']): string =>
  s.type === 'snapshot'
    ? `snapshot ${s.path ?? ''}${s.capturedAt ? `, captured ${s.capturedAt}` : ''}`
    : `context ${s.context ?? ''}${s.server ? ` (${s.server})` : ''}`;

function counts(checks: CheckResult[]): string {
  const sev = countBySeverity(checks.flatMap((c) => c.findings));
  const by = (['critical', 'error', 'warning', 'info'] as const).filter((k) => sev[k]).map((k) => `${sev[k]} ${k}`);
  const n = (s: CheckResult['status']): number => checks.filter((c) => c.status === s).length;
  return `${checks.length} check${checks.length === 1 ? '' : 's'}: ${n('findings')} with findings${by.length ? ` (${by.join(', ')})` : ''}, ${n('passed')} passed, ${n('partial') ? `${n('partial')} partial, ` : ''}${n('skipped')} skipped`;
}

/** Which findings the summary lists (a tool's filter); all by default. */
export type Shown = (checkId: string, code: string) => boolean;

function findingLines(checks: CheckResult[], shown: Shown, budget: { left: number }, indent: string): string[] {
  const out: string[] = [];
  let more = 0;
  for (const c of checks) {
    for (const f of c.findings) {
      if (!shown(c.id, f.code)) continue;
      if (budget.left <= 0) {
        more++;
        continue;
      }
      budget.left--;
      out.push(`${indent}${f.severity.toUpperCase()} ${f.code} ${termSafe(f.title)}`);
    }
    if (c.status === 'skipped' || c.status === 'partial') out.push(`${indent}${c.status} ${c.id}: ${termSafe(c.reason ?? '')}`);
  }
  if (more) out.push(`${indent}… and ${more} more finding${more === 1 ? '' : 's'} (in the JSON)`);
  return out;
}

/** doctor, orphans, quorum: one context (counts, then each finding) or many (a line per context, then findings). */
export function runsSummary(runs: Runs, shown: Shown = () => true): string {
  const budget = { left: MAX_LINES };
  if (!runs.contexts) {
    const o = runs.done[0]!.outcome!;
    const supp = o.suppressed.length ? `; ${o.suppressed.length} suppressed as accepted risks` : '';
    return [
      `${argvText(['kubectl', 'arch', runs.command])} — ${termSafe(where(o.source))}`,
      `${counts(o.checks)}${supp}`,
      ...findingLines(o.checks, shown, budget, '  '),
    ].join('\n');
  }
  const failed = runs.done.filter((d) => !d.outcome).length;
  const lines = [
    `${argvText(['kubectl', 'arch', runs.command])} — ${runs.done.length} contexts: ${runs.done.length - failed} reached, ${failed} failed`,
  ];
  for (const d of runs.done) {
    if (!d.outcome) {
      lines.push(
        `${termSafe(d.context)}: error: ${termSafe(d.error?.message ?? '')}${d.error?.hint ? ` (hint: ${termSafe(d.error.hint)})` : ''}`,
      );
      continue;
    }
    lines.push(`${termSafe(d.context)}: ${counts(d.outcome.checks)}`);
    lines.push(...findingLines(d.outcome.checks, shown, budget, '  '));
  }
  return lines.join('\n');
}
