// The one catalogue of codes (#45): every code kubectl-arch reports — each check's (src/checks/registry.ts, the only
// list of checks), what-if's predictions (src/whatif/predictions/registry.ts) and a change's (src/change/codes.ts) —
// with what it means and who reports it. Each declares its codes where it predicts them; renderers, formats and
// completion read them here, never from the registries themselves (a renderer knows no check).
import type { CheckDocs } from './checks/types.js';
import { CHECKS } from './checks/registry.js';
import type { Severity } from './model.js';
import { CHANGE_CODES } from './change/codes.js';
import { UNITS } from './whatif/predictions/registry.js';

export interface CodeEntry {
  code: string;
  /** One line: what the code means. */
  meaning: string;
  /** Who reports it: a check's id, or "what-if" (the node hypotheses and a change). */
  by: string;
  /** A check's docs and its default severity (what-if's codes are judged per prediction). */
  docs?: CheckDocs;
  severity?: Severity;
}

const entries: CodeEntry[] = [
  ...CHECKS.flatMap((c) =>
    Object.entries(c.codes).map(([code, meaning]) => ({ code, meaning: String(meaning), by: c.id, docs: c.docs, severity: c.severity })),
  ),
  ...UNITS.map((u) => ({ code: u.code, meaning: u.title, by: 'what-if' })),
  ...Object.entries(CHANGE_CODES).map(([code, meaning]) => ({ code, meaning, by: 'what-if' })),
];

/** Every code, once (a code is never reused for another meaning). */
export const CATALOGUE: ReadonlyMap<string, CodeEntry> = new Map(entries.map((e) => [e.code, e]));

/** The codes one check (or what-if) reports, in the order it declares them. */
export const codesBy = (by: string): CodeEntry[] => entries.filter((e) => e.by === by);
