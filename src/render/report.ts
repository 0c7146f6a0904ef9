// The report model shared by all renderers, with a versioned schema (see README "JSON/YAML schema").
import type { ReportSource } from '../model.js';
import type { CheckResult, Severity } from '../model.js';
import { worstRank } from '../model.js';
import type { Fingerprint } from '../fingerprint.js';
import type { FileRisks, IgnoreRule, SuppressedFinding } from '../config/accepted.js';

export const REPORT_API_VERSION = 'kubectl-arch/v1';

export interface Report {
  apiVersion: typeof REPORT_API_VERSION;
  kind: 'Report';
  command: string;
  source: ReportSource;
  fingerprint: Fingerprint;
  summary: {
    checks: number;
    passed: number;
    withFindings: number;
    /** Clean in what was visible, but an input they judge by was not: never counted as passed. */
    partial: number;
    skipped: number;
    findings: Record<Severity, number>;
    /** Findings silenced by accepted-risk rules (listed in `suppressed`). */
    suppressed?: number;
  };
  checks: Array<CheckResult & { suppressed?: number }>;
  /** Findings silenced by accepted-risk rules, each with its rule: counted and listed, never dropped. */
  suppressed?: SuppressedFinding[];
  /** The config files read and the rules past their expiry date (which suppress nothing). */
  acceptedRisks?: AcceptedRisksInfo;
}

export interface AcceptedRisksInfo {
  files: string[];
  rules: number;
  expired: IgnoreRule[];
  /** Per file read: rules in force and findings suppressed in this report. */
  byFile: FileRisks[];
  /** The working directory's .kubectl-arch.yaml, present but not read: its directory is not trusted. */
  untrusted: string[];
}

/** One context of a multi-context run, as the summary table shows it. */
export interface ContextRow {
  context: string;
  server?: string;
  status: 'ok' | 'failed';
  distribution?: string;
  serverVersion?: string;
  findings?: Record<Severity, number>;
  suppressed?: number;
  /** Worst severity reported, 'none', or for a failed context what failed. */
  worst: string;
  durationMs: number;
  exitCode: number;
  error?: { message: string; hint?: string; exitCode: number };
}

/** `-o json|yaml` of a run over several contexts: one row per context, then each context's report. */
export interface ReportList {
  apiVersion: typeof REPORT_API_VERSION;
  kind: 'ReportList';
  command: string;
  summary: {
    contexts: number;
    reached: number;
    failed: number;
    findings: Record<Severity, number>;
    suppressed: number;
    exitCode: number;
    durationMs: number;
  };
  contexts: ContextRow[];
  /** The reports of the contexts reached (kind Report, OrphanReport or Quorum), in the order of `contexts`. */
  items: unknown[];
}

export const countBySeverity = (findings: Iterable<{ severity: Severity }>): Record<Severity, number> => {
  const out: Record<Severity, number> = { critical: 0, error: 0, warning: 0, info: 0 };
  for (const f of findings) out[f.severity]++;
  return out;
};

export const worst = (results: CheckResult[]): number => worstRank(results.flatMap((r) => r.findings));

export function summarize(checks: CheckResult[], suppressed?: number): Report['summary'] {
  const findings = countBySeverity(checks.flatMap((c) => c.findings));
  return {
    checks: checks.length,
    passed: checks.filter((c) => c.status === 'passed').length,
    withFindings: checks.filter((c) => c.status === 'findings').length,
    partial: checks.filter((c) => c.status === 'partial').length,
    skipped: checks.filter((c) => c.status === 'skipped').length,
    findings,
    ...(suppressed !== undefined ? { suppressed } : {}),
  };
}

/** Order for reading: checks with the worst findings first, then partial, then passed, then skipped. */
export function orderChecks(checks: CheckResult[]): CheckResult[] {
  const rank = (c: CheckResult): number =>
    c.status === 'findings' ? 10 + worstRank(c.findings) : c.status === 'partial' ? 2 : c.status === 'passed' ? 1 : 0;
  return [...checks].sort((a, b) => rank(b) - rank(a));
}
