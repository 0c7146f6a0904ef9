// Runs checks against a snapshot: judge from what is visible, skip only when nothing is. A check none of whose
// subjects is visible (RBAC, not captured) is skipped with the reasons; one that sees some of its inputs runs on
// them, and a clean result that lacks a subject or an evidence input is "partial" — never "passed". The runner,
// not the checks, writes a "not visible" note for every input it lacks (from each need's `lost`) and stamps each
// finding with its check's id.
import { fingerprintOf, gkKey, refText, type CheckResult, type Finding } from '../model.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { DEFAULT_SETTINGS, type Check, type CheckNeed, type Draft, type NeedRole, type Settings } from './types.js';

export function evidenceTime(snap: Snapshot): Date {
  const t = snap.header.capturedAt ? Date.parse(snap.header.capturedAt) : NaN;
  return Number.isNaN(t) ? new Date() : new Date(t);
}

/** A check's finding as the report carries it. */
export const stamp = (c: Pick<Check, 'id'>, f: Draft): Finding => {
  const { code, ...rest } = f;
  return { code, checkId: c.id, ...rest, fingerprint: fingerprintOf(f) };
};

/** Objects whose bodies a check reads but which could not be fetched: the check saw only their metadata. */
function unreadBodyNotes(c: Check, snap: Snapshot): string[] {
  const kinds = new Set(c.needs.filter((n) => n.bodiesFor).map((n) => n.kind));
  return (snap.header.unreadBodies ?? [])
    .filter((u) => kinds.has(u.kind))
    .map((u) => `${refText(u)} could not be read (${u.reason}): its settings were not used`);
}

const typeName = (n: CheckNeed): string => gkKey(n.group, n.kind);
const roleOf = (n: CheckNeed, snap: Snapshot): NeedRole => n.roleHere?.(snap) ?? n.role;

/** The reason of a partial result: what was found clean, and what it could not see. */
export const partialReason = (passed: string | undefined, unjudged: string[]): string =>
  `${passed ?? 'no problem found'} — in what was visible; not judged without ${unjudged.join(', ')}`;

/** The inputs a check cannot see (not captured, forbidden, failed), each with what that costs it. */
export function gapsOf(c: Check, snap: Snapshot): Array<{ need: CheckNeed; role: NeedRole; reason: string }> {
  const seen = new Set<string>();
  const out: Array<{ need: CheckNeed; role: NeedRole; reason: string }> = [];
  for (const need of c.needs) {
    if (need.relevant && !need.relevant(snap)) continue;
    if (need.or && !snap.gap({ ...need.or, resource: '' })) continue;
    const u = snap.gap(need);
    if (!u || seen.has(typeName(need))) continue;
    seen.add(typeName(need));
    out.push({ need, role: roleOf(need, snap), reason: u.reason });
  }
  return out;
}

export function runChecks(
  checks: Check[],
  snap: Snapshot,
  opts: { deep?: boolean; now?: Date; settings?: Partial<Settings> } = {},
): CheckResult[] {
  const now = opts.now ?? evidenceTime(snap);
  const settings: Settings = { ...DEFAULT_SETTINGS, ...opts.settings };
  return checks.map((c) => {
    const base = { id: c.id, title: c.title };
    const gaps = gapsOf(c, snap);
    const notesOf = (xs: typeof gaps): string[] => xs.map((g) => `${typeName(g.need)}: ${g.reason} — ${g.need.lost}`);
    const subjects = c.needs.filter((n) => roleOf(n, snap) === 'subject');
    const blindSubjects = gaps.filter((g) => g.role === 'subject');
    if (subjects.length > 0 && blindSubjects.length === new Set(subjects.map(typeName)).size) {
      const reason = blindSubjects.map((g) => `${typeName(g.need)}: ${g.reason}`).join('; ');
      return { ...base, status: 'skipped', reason, findings: [], notes: notesOf(gaps.filter((g) => g.role !== 'subject')) };
    }
    try {
      const out = c.run({ snap, now, deep: Boolean(opts.deep), settings });
      const notes = [...notesOf(gaps), ...(out.notes ?? []), ...unreadBodyNotes(c, snap)];
      const unjudged = [...new Set([...gaps.filter((g) => g.role !== 'context').map((g) => typeName(g.need)), ...(out.unjudged ?? [])])];
      const more = unjudged.length ? { unjudged } : {};
      if (out.findings.length > 0) return { ...base, status: 'findings', findings: out.findings.map((f) => stamp(c, f)), notes, ...more };
      if (out.skipped)
        return {
          ...base,
          status: 'skipped',
          reason: out.skipped,
          findings: [],
          notes,
          ...more,
          ...(out.undecided ? { undecided: true } : {}),
        };
      if (unjudged.length) return { ...base, status: 'partial', reason: partialReason(out.passed, unjudged), findings: [], notes, ...more };
      return { ...base, status: 'passed', reason: out.passed ?? 'no problem found', findings: [], notes };
    } catch (e) {
      // a bug in one check must not hide the others; say so instead of passing
      return { ...base, status: 'skipped', reason: `internal error in check: ${(e as Error).message}`, findings: [], notes: [] };
    }
  });
}
