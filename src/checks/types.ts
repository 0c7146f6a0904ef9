import type { Finding, Need, Severity } from '../model.js';
import type { Snapshot } from '../snapshot/snapshot.js';

export interface CheckContext {
  snap: Snapshot;
  /** The time the evidence was captured (snapshot header), else now: "recent" is relative to it. */
  now: Date;
  deep: boolean;
}

export interface CheckOutput {
  findings: Finding[];
  /** One line for a clean result: what was looked at. */
  passed?: string;
  /** Set when nothing could be evaluated. */
  skipped?: string;
  /** What could not be seen (partial visibility). */
  notes?: string[];
}

export interface CheckDocs {
  what: string;
  why: string;
  fix: string;
  /** What the evidence can and cannot prove. */
  limits?: string;
}

/** One file per check: a stable id, what it needs, its documentation and a pure function. */
export interface Check {
  id: string;
  title: string;
  /** The worst severity it can report. */
  severity: Severity;
  /** Finding codes it can emit, with their meaning (stable, never reused). */
  codes: Record<string, string>;
  needs: Need[];
  /** Also read every listable type the API server offers (discovery), metadata only. */
  allTypes?: boolean;
  /** Needs used only with --deep. */
  deepNeeds?: Need[];
  docs: CheckDocs;
  run(ctx: CheckContext): CheckOutput;
}
