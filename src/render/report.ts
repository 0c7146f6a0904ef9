// The report model shared by all renderers, with a versioned schema (see README "JSON/YAML schema").
import type { CheckResult, Severity } from '../model.js';
import { worstRank } from '../model.js';
import type { Fingerprint } from '../fingerprint.js';

export const REPORT_API_VERSION = 'kubectl-arch/v1';

export interface Report {
  apiVersion: typeof REPORT_API_VERSION;
  kind: 'Report';
  command: string;
  source: { type: 'cluster' | 'snapshot'; context?: string; server?: string; path?: string; capturedAt?: string; namespace?: string };
  fingerprint: Fingerprint;
  summary: { checks: number; passed: number; withFindings: number; skipped: number; findings: Record<Severity, number> };
  checks: CheckResult[];
}

export const worst = (results: CheckResult[]): number => worstRank(results.flatMap((r) => r.findings));

export function summarize(checks: CheckResult[]): Report['summary'] {
  const findings: Record<Severity, number> = { critical: 0, error: 0, warning: 0, info: 0 };
  for (const c of checks) for (const f of c.findings) findings[f.severity]++;
  return {
    checks: checks.length,
    passed: checks.filter((c) => c.status === 'passed').length,
    withFindings: checks.filter((c) => c.status === 'findings').length,
    skipped: checks.filter((c) => c.status === 'skipped').length,
    findings,
  };
}

/** Order for reading: checks with the worst findings first, then passed, then skipped. */
export function orderChecks(checks: CheckResult[]): CheckResult[] {
  const rank = (c: CheckResult): number => (c.status === 'findings' ? 10 + worstRank(c.findings) : c.status === 'passed' ? 1 : 0);
  return [...checks].sort((a, b) => rank(b) - rank(a));
}
