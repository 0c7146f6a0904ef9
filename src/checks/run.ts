// Runs checks against a snapshot. A check whose required types are not visible is skipped with the
// reason (RBAC, CRD absent, not captured); it is never reported as passed. The runner, not the checks,
// writes the "not visible" notes (from each need's `lost`) and stamps each finding with its check's id.
import { refText, type CheckResult, type Finding } from '../model.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { DEFAULT_SETTINGS, type Check, type Draft, type Settings } from './types.js';

export function evidenceTime(snap: Snapshot): Date {
  const t = snap.header.capturedAt ? Date.parse(snap.header.capturedAt) : NaN;
  return Number.isNaN(t) ? new Date() : new Date(t);
}

/** A check's finding as the report carries it. */
export const stamp = (c: Pick<Check, 'id'>, f: Draft): Finding => {
  const { code, ...rest } = f;
  return { code, checkId: c.id, ...rest };
};

/** What each optional need that is not visible takes away from the check (declared with the need). */
function declaredNotes(c: Check, snap: Snapshot): string[] {
  const out: string[] = [];
  for (const n of c.needs) {
    if (!n.optional || !n.lost) continue;
    const v = snap.visibility(n);
    if (v) out.push(`${n.group ? `${n.kind}.${n.group}` : n.kind}: ${v.reason} — ${n.lost}`);
  }
  return out;
}

/** Objects whose bodies a check reads but which could not be fetched: the check saw only their metadata. */
function unreadBodyNotes(c: Check, snap: Snapshot): string[] {
  const kinds = new Set(c.needs.filter((n) => n.bodiesFor).map((n) => n.kind));
  return (snap.header.unreadBodies ?? [])
    .filter((u) => kinds.has(u.kind))
    .map((u) => `${refText(u)} could not be read (${u.reason}): its settings were not used`);
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
    const missing = c.needs
      .filter((n) => !n.optional)
      .map((n) => snap.visibility(n))
      .filter((u) => u !== null);
    if (missing.length > 0) {
      return { ...base, status: 'skipped', reason: missing.map((u) => u.reason).join('; '), findings: [], notes: [] };
    }
    try {
      const out = c.run({ snap, now, deep: Boolean(opts.deep), settings });
      const notes = [...declaredNotes(c, snap), ...(out.notes ?? []), ...unreadBodyNotes(c, snap)];
      if (out.findings.length > 0) return { ...base, status: 'findings', findings: out.findings.map((f) => stamp(c, f)), notes };
      if (out.skipped) return { ...base, status: 'skipped', reason: out.skipped, findings: [], notes };
      return { ...base, status: 'passed', reason: out.passed ?? 'no problem found', findings: [], notes };
    } catch (e) {
      // a bug in one check must not hide the others; say so instead of passing
      return { ...base, status: 'skipped', reason: `internal error in check: ${(e as Error).message}`, findings: [], notes: [] };
    }
  });
}
