// Runs checks against a snapshot. A check whose required types are not visible is skipped with the
// reason (RBAC, CRD absent, not captured); it is never reported as passed.
import type { CheckResult } from '../model.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import type { Check } from './types.js';

export function evidenceTime(snap: Snapshot): Date {
  const t = snap.header.capturedAt ? Date.parse(snap.header.capturedAt) : NaN;
  return Number.isNaN(t) ? new Date() : new Date(t);
}

/** Objects whose bodies a check reads but which could not be fetched: the check saw only their metadata. */
function unreadBodyNotes(c: Check, snap: Snapshot): string[] {
  const kinds = new Set(c.needs.filter((n) => n.bodiesFor).map((n) => n.kind));
  return (snap.header.unreadBodies ?? []).filter((u) => kinds.has(u.kind))
    .map((u) => `${u.kind} ${u.namespace ? u.namespace + '/' : ''}${u.name} could not be read (${u.reason}): its settings were not used`);
}

export function runChecks(checks: Check[], snap: Snapshot, opts: { deep?: boolean; now?: Date } = {}): CheckResult[] {
  const now = opts.now ?? evidenceTime(snap);
  return checks.map((c) => {
    const base = { id: c.id, title: c.title };
    const missing = c.needs.filter((n) => !n.optional).map((n) => snap.visibility(n)).filter((u) => u !== null);
    if (missing.length > 0) {
      return { ...base, status: 'skipped', reason: missing.map((u) => u.reason).join('; '), findings: [], notes: [] };
    }
    try {
      const out = c.run({ snap, now, deep: Boolean(opts.deep) });
      const notes = [...(out.notes ?? []), ...unreadBodyNotes(c, snap)];
      if (out.findings.length > 0) return { ...base, status: 'findings', findings: out.findings, notes };
      if (out.skipped) return { ...base, status: 'skipped', reason: out.skipped, findings: [], notes };
      return { ...base, status: 'passed', reason: out.passed ?? 'no problem found', findings: [], notes };
    } catch (e) {
      // a bug in one check must not hide the others; say so instead of passing
      return { ...base, status: 'skipped', reason: `internal error in check: ${(e as Error).message}`, findings: [], notes: [] };
    }
  });
}
