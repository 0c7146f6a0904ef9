// What the machine formats (SARIF, JUnit, Prometheus, PolicyReport) are made from: one run per context (one
// for a single run), each with its check results after the accepted-risk rules and the findings they silenced.
// A context that could not be reached is a run with its error and no checks.
import type { SuppressedFinding } from '../../config/accepted.js';
import type { BaselineResult, CheckResult, Finding, ObjectRef, Severity } from '../../model.js';
import { SEVERITY_RANK } from '../../model.js';
import type { AcceptedRisksInfo, Report } from '../report.js';

export const MACHINE_FORMATS = ['sarif', 'junit', 'prometheus', 'policyreport', 'openreports'] as const;
export type MachineFormat = (typeof MACHINE_FORMATS)[number];
/** Pages and pictures: html for map and doctor, mermaid and dot for map. */
export const PICTURE_FORMATS = ['html', 'mermaid', 'dot'] as const;
export const OUTPUTS = ['table', 'json', 'yaml', ...MACHINE_FORMATS, ...PICTURE_FORMATS] as const;
export type Output = (typeof OUTPUTS)[number];
export const isMachineFormat = (o: string): o is MachineFormat => (MACHINE_FORMATS as readonly string[]).includes(o);

export interface FormatRun {
  command: string;
  /** The kubeconfig context, or for a snapshot the context it was captured from (else its path). */
  context: string;
  source?: Report['source'];
  distribution?: string;
  serverVersion?: string;
  checks: CheckResult[];
  suppressed: SuppressedFinding[];
  startedAt: Date;
  durationMs: number;
  /** The config files read for this run and what each suppressed in it (every format says so). */
  acceptedRisks?: AcceptedRisksInfo;
  /** With --baseline: new and unchanged counts, and the baseline's findings that are gone. */
  baseline?: BaselineResult;
  /** Set when the context could not be analysed (no checks then). */
  error?: { message: string; exitCode: number };
  exitCode: number;
}

export interface FormatOptions {
  failOn: 'none' | 'warning' | 'error';
  version: string;
  /** SARIF: also write what is not open (accepted risks, and with --baseline what is fixed): --sarif-all. */
  sarifAll?: boolean;
  /** PolicyReport, OpenReports: labels every report carries besides ours (--report-label). */
  reportLabels?: Record<string, string>;
}

/** A finding counts as a failure (JUnit, SARIF "error"/"warning" vs the exit code) at or above --fail-on — with
 *  --baseline, only when it is new. */
export const failing = (f: { severity: Severity; baseline?: 'new' | 'unchanged' }, failOn: FormatOptions['failOn']): boolean =>
  failOn !== 'none' && SEVERITY_RANK[f.severity] >= SEVERITY_RANK[failOn] && f.baseline !== 'unchanged';

export const objectPath = (o: ObjectRef): string => `${o.namespace ?? '_cluster'}/${o.kind}/${o.name}`;

export const findingsOf = (run: FormatRun): Finding[] => run.checks.flatMap((c) => c.findings);

/** The kinds a finding is about, most at fault first: the owner that declares it, then what serves traffic. */
const AT_FAULT = ['Application', 'ApplicationSet', 'Kustomization', 'HelmRelease', 'HelmChart', 'Addon', 'Ingress', 'HTTPRoute', 'Service'];

/** The finding's objects with the one at fault first (the owner, or the Service), the rest in their order. */
export function atFaultFirst(objects: ObjectRef[]): ObjectRef[] {
  const rank = (o: ObjectRef): number => {
    const i = AT_FAULT.indexOf(o.kind);
    return i < 0 ? AT_FAULT.length : i;
  };
  const best = objects.reduce<number>((b, o, i) => (b < 0 || rank(o) < rank(objects[b]!) ? i : b), -1);
  return best <= 0 ? objects : [objects[best]!, ...objects.slice(0, best), ...objects.slice(best + 1)];
}
