// wgpolicyk8s.io/v1alpha2 PolicyReport and ClusterPolicyReport objects (the Policy Report API of the
// Kubernetes Policy working group, which Policy Reporter and Kyverno's tooling display), printed as YAML for
// `kubectl apply -f -`. The plugin itself stays read-only: it prints; a person or a CronJob with a narrow role
// applies them.
//
// One PolicyReport per namespace that holds an object of a finding, one ClusterPolicyReport for cluster-scoped
// objects, findings without objects, and each check's pass/skip. policy = check id, rule = finding code;
// critical/error findings are `fail`, warning/info `warn`, a skipped check `skip`, a suppressed finding `skip`
// with the accepted-risk reason. Severity: critical→critical, error→high, warning→medium, info→info. Named per
// context (reportName). A context that could not be analysed is a ClusterPolicyReport with one `error` result.
import { createHash } from 'node:crypto';
import { dump } from 'js-yaml';
import { fileRisksText } from '../../config/accepted.js';
import type { Finding, ObjectRef, Severity } from '../../model.js';
import type { FormatOptions, FormatRun } from './model.js';
import { byText } from '../../lib/order.js';
import { shownDeep, wellFormed, wellFormedDeep } from '../../lib/safe.js';
import { argvText } from '../../lib/shell.js';

export const POLICY_REPORT_API = 'wgpolicyk8s.io/v1alpha2';
/** OpenReports (openreports.io/v1alpha1 Report, ClusterReport), where Kyverno, Policy Reporter and Kubewarden moved:
 *  the same results, and the report's own `source`. */
export const OPEN_REPORTS_API = 'openreports.io/v1alpha1';

export type ReportFlavor = 'policyreport' | 'openreports';
const KINDS: Record<ReportFlavor, { api: string; cluster: string; namespaced: string }> = {
  policyreport: { api: POLICY_REPORT_API, cluster: 'ClusterPolicyReport', namespaced: 'PolicyReport' },
  openreports: { api: OPEN_REPORTS_API, cluster: 'ClusterReport', namespaced: 'Report' },
};

type Result = 'pass' | 'fail' | 'warn' | 'error' | 'skip';
const RESULT: Record<Severity, Result> = { critical: 'fail', error: 'fail', warning: 'warn', info: 'warn' };
const SEVERITY: Record<Severity, string> = { critical: 'critical', error: 'high', warning: 'medium', info: 'info' };

interface PRResult {
  source: string;
  policy: string;
  rule?: string;
  category: string;
  result: Result;
  severity?: string;
  scored: boolean;
  message: string;
  timestamp: { seconds: number; nanos: number };
  resources?: Array<{ apiVersion?: string; kind: string; namespace?: string; name: string }>;
  properties?: Record<string, string>;
}

const resourceRef = (o: ObjectRef) => ({
  ...(o.apiVersion ? { apiVersion: o.apiVersion } : {}),
  kind: o.kind,
  ...(o.namespace ? { namespace: o.namespace } : {}),
  name: o.name,
});

/** Object names must be DNS subdomains: lower-case letters, digits and dashes here, at most `max` long. */
const dnsPart = (s: string, max: number): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, max)
    .replace(/^-+|-+$/g, '');

/**
 * The reports' name for one context: kubectl-arch-<command>-<context>-<hash>. Per context, as each context's
 * reports are applied to its own cluster and `kubectl apply` of one name keeps only the last; the hash of the
 * exact context name tells apart names a DNS name cannot hold apart (prod_eu, PROD-EU, prod-eu); the same from
 * run to run, so each run replaces its own reports.
 */
export function reportName(command: string, context: string): string {
  // hashed as UTF-16 code units: two names differing only in lone surrogates are two names (UTF-8 has no form for them)
  const hash = createHash('sha256').update(Buffer.from(context, 'utf16le')).digest('hex').slice(0, 8);
  const ctx = dnsPart(context, 60);
  return `kubectl-arch-${dnsPart(command, 20) || 'run'}-${ctx ? `${ctx}-` : ''}${hash}`;
}

export function policyReportObjects(
  run0: FormatRun,
  flavor: ReportFlavor = 'policyreport',
  extraLabels: Record<string, string> = {},
): Array<Record<string, unknown>> {
  const k = KINDS[flavor];
  const own = flavor === 'openreports' ? { source: 'kubectl-arch' } : {};
  // every string well-formed: a lone surrogate has no UTF-8 form (YAML would carry it as an escape the API rejects)
  const run = { ...shownDeep(wellFormedDeep(run0)), startedAt: run0.startedAt };
  const ts = { seconds: Math.floor(run.startedAt.getTime() / 1000), nanos: 0 };
  const cluster: PRResult[] = [];
  const byNs = new Map<string, PRResult[]>();
  const add = (ns: string | undefined, r: PRResult): void => {
    if (!ns) cluster.push(r);
    else byNs.set(ns, [...(byNs.get(ns) ?? []), r]);
  };
  const forFinding = (f: Finding & { suppressedBy?: { reason: string; file: string; expires?: string } }): void => {
    const base = (objects: ObjectRef[]): PRResult => ({
      source: 'kubectl-arch',
      policy: f.checkId,
      rule: f.code,
      category: run.command === 'doctor' ? 'kubectl-arch' : `kubectl-arch ${run.command}`,
      result: f.suppressedBy ? 'skip' : RESULT[f.severity],
      severity: SEVERITY[f.severity],
      scored: true,
      message: `${f.title}: ${f.message}`,
      timestamp: ts,
      ...(objects.length ? { resources: objects.map(resourceRef) } : {}),
      properties: {
        severity: f.severity,
        ...(f.baseline ? { baseline: f.baseline } : {}),
        ...(f.fix?.length ? { fix: f.fix.join('\n') } : {}),
        ...(f.suppressedBy
          ? {
              suppressedBy: f.suppressedBy.reason,
              suppressedIn: f.suppressedBy.file,
              ...(f.suppressedBy.expires ? { expires: f.suppressedBy.expires } : {}),
            }
          : {}),
      },
    });
    const namespaces = [...new Set(f.objects.map((o) => o.namespace ?? ''))];
    if (namespaces.length === 0) return add(undefined, base([]));
    for (const ns of namespaces) add(ns || undefined, base(f.objects.filter((o) => (o.namespace ?? '') === ns)));
  };
  // a run that could not analyse the cluster is a report that says so (an `error` result), never an empty file
  if (run.error)
    cluster.push({
      source: 'kubectl-arch',
      policy: 'kubectl-arch',
      category: 'kubectl-arch',
      result: 'error',
      scored: true,
      message: `not analysed: ${run.error.message}`,
      timestamp: ts,
      properties: { exitCode: String(run.error.exitCode) },
    });
  for (const c of run.checks) {
    for (const f of c.findings) forFinding(f);
    if (c.status === 'passed' || c.status === 'skipped' || c.status === 'partial')
      cluster.push({
        source: 'kubectl-arch',
        policy: c.id,
        category: 'kubectl-arch',
        result: c.status === 'passed' ? 'pass' : 'skip',
        scored: true,
        message: `${c.title}: ${c.status === 'passed' ? '' : `${c.status}: `}${c.reason ?? ''}`,
        timestamp: ts,
      });
  }
  for (const f of run.suppressed) forFinding(f);
  const summary = (rs: PRResult[]) => {
    const s = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
    for (const r of rs) s[r.result]++;
    return s;
  };
  const name = reportName(run.command, run0.context);
  const meta = (ns?: string) => ({
    name,
    ...(ns ? { namespace: ns } : {}),
    labels: { ...extraLabels, 'app.kubernetes.io/managed-by': 'kubectl-arch', 'app.kubernetes.io/name': 'kubectl-arch' },
    annotations: {
      'kubectl-arch/context': run.context,
      'kubectl-arch/command': run.command,
      ...(run.acceptedRisks?.byFile.length
        ? { 'kubectl-arch/accepted-risks': run.acceptedRisks.byFile.map(fileRisksText).join('; ') }
        : {}),
    },
  });
  const out: Array<Record<string, unknown>> = [
    { apiVersion: k.api, kind: k.cluster, metadata: meta(), ...own, summary: summary(cluster), results: cluster },
  ];
  for (const [ns, rs] of [...byNs].sort(([a], [b]) => byText(a, b)))
    out.push({ apiVersion: k.api, kind: k.namespaced, metadata: meta(ns), ...own, summary: summary(rs), results: rs });
  return out;
}

export function renderPolicyReports(runs: FormatRun[], opts: FormatOptions, flavor: ReportFlavor = 'policyreport'): string {
  const docs: string[] = [];
  const line = (s: string): string => wellFormed(s).replace(/[\r\n\u2028\u2029]+/g, ' ');
  for (const run of runs) {
    if (run.error) docs.push(`# context ${line(run.context)}: not analysed: ${line(run.error.message)}\n`);
    else if (runs.length > 1)
      docs.push(`# context ${line(run.context)}: apply with ${argvText(['kubectl', '--context', run.context, 'apply', '-f', '-'])}\n`);
    for (const o of policyReportObjects(run, flavor, opts.reportLabels)) docs.push(`---\n${dump(o, { lineWidth: -1, noRefs: true })}`);
  }
  return docs.join('');
}
