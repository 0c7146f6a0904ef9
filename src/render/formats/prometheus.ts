// Prometheus text exposition format (version 0.0.4), for node-exporter's textfile collector or a
// Pushgateway: gauges only, no timestamps (the Pushgateway rejects them), every metric family once with
// HELP and TYPE, label values escaped as the format requires. Validated with Prometheus's own parser and
// linter (prometheus/common expfmt, client_golang promlint) in the tests.
import type { Severity } from '../../model.js';
import type { FormatOptions, FormatRun } from './model.js';
import { wellFormed } from '../../lib/safe.js';

const SEVERITIES: Severity[] = ['critical', 'error', 'warning', 'info'];
const STATUSES = ['passed', 'findings', 'partial', 'skipped'] as const;

/** Label value escaping: backslash, double quote and line feed (on well-formed text: label values are UTF-8). */
const esc = (v: string): string => wellFormed(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/** Each run's context label: its name, well-formed; should two still be alike (a name spelt as another's escape),
 *  the later one is told apart by its position, as one series per context is what the format requires. */
function contextLabels(runs: FormatRun[]): string[] {
  const seen = new Set<string>();
  return runs.map((r, i) => {
    let l = wellFormed(r.context);
    if (seen.has(l)) l = `${l} (${i + 1})`;
    seen.add(l);
    return l;
  });
}
const labels = (l: Record<string, string>): string =>
  `{${Object.entries(l)
    .map(([k, v]) => `${k}="${esc(v)}"`)
    .join(',')}}`;

interface Family {
  name: string;
  help: string;
  samples: Array<[Record<string, string>, number]>;
}

export function renderPrometheus(runs: FormatRun[], opts: FormatOptions): string {
  const fam = (name: string, help: string): Family => ({ name, help, samples: [] });
  const up = fam(
    'kubectl_arch_up',
    'Whether the context could be analysed (1) or not (0: unreachable, rejected credentials, bad kubeconfig entry).',
  );
  const exit = fam(
    'kubectl_arch_exit_code',
    'The exit code kubectl-arch gives for this context alone (0 clean, 1 findings at or above --fail-on, 2 bad input, 3 unreachable, 4 internal error).',
  );
  const duration = fam('kubectl_arch_run_duration_seconds', 'Wall time of the run for this context, in seconds.');
  const last = fam('kubectl_arch_last_run_timestamp_seconds', 'When the run for this context started, in seconds since the Unix epoch.');
  const status = fam(
    'kubectl_arch_check_status',
    'Status of each check: 1 for its current status (passed, findings, skipped), 0 for the others.',
  );
  const bySev = fam(
    'kubectl_arch_check_findings',
    'Findings reported by each check, by severity (suppressed findings excluded; zero included).',
  );
  const byCode = fam('kubectl_arch_findings', 'Findings reported, by check, finding code and severity (suppressed findings excluded).');
  const suppressed = fam(
    'kubectl_arch_suppressed_findings',
    'Findings silenced by accepted-risk rules, by check, finding code and severity.',
  );
  const byFile = fam(
    'kubectl_arch_config_file_suppressed_findings',
    'Findings silenced by the accepted-risk rules of each config file read (zero included).',
  );
  const vsBaseline = fam(
    'kubectl_arch_baseline_findings',
    'With --baseline: findings new since the baseline, unchanged, and the baseline findings now gone (fixed).',
  );
  const names = contextLabels(runs);
  for (const [i, run] of runs.entries()) {
    const base = { command: run.command, context: names[i]! };
    for (const f of run.acceptedRisks?.byFile ?? []) byFile.samples.push([{ ...base, file: f.file }, f.suppressed]);
    up.samples.push([base, run.error ? 0 : 1]);
    if (run.baseline)
      for (const [state, n] of [
        ['new', run.baseline.new],
        ['unchanged', run.baseline.unchanged],
        ['fixed', run.baseline.fixed.length],
      ] as const)
        vsBaseline.samples.push([{ ...base, state }, n]);
    exit.samples.push([base, run.exitCode]);
    duration.samples.push([base, run.durationMs / 1000]);
    last.samples.push([base, Math.floor(run.startedAt.getTime() / 1000)]);
    for (const c of run.checks) {
      for (const st of STATUSES) status.samples.push([{ ...base, check: c.id, status: st }, c.status === st ? 1 : 0]);
      for (const sev of SEVERITIES)
        bySev.samples.push([{ ...base, check: c.id, severity: sev }, c.findings.filter((f) => f.severity === sev).length]);
      const counts = new Map<string, number>();
      for (const f of c.findings) counts.set(`${f.code}\t${f.severity}`, (counts.get(`${f.code}\t${f.severity}`) ?? 0) + 1);
      for (const [k, n] of [...counts].sort()) {
        const [code, severity] = k.split('\t') as [string, string];
        byCode.samples.push([{ ...base, check: c.id, code, severity }, n]);
      }
    }
    const sup = new Map<string, number>();
    for (const f of run.suppressed) {
      const k = `${f.checkId}\t${f.code}\t${f.severity}`;
      sup.set(k, (sup.get(k) ?? 0) + 1);
    }
    for (const [k, n] of [...sup].sort()) {
      const [check, code, severity] = k.split('\t') as [string, string, string];
      suppressed.samples.push([{ ...base, check, code, severity }, n]);
    }
  }
  // like every family, one series per command and context: several runs' files side by side in one textfile
  // directory (doctor, orphans, quorum) must not repeat a series, which node-exporter refuses ("collected before")
  const info = fam('kubectl_arch_build_info', 'kubectl-arch version and the --fail-on threshold of this run (always 1).');
  for (const [i, run] of runs.entries())
    info.samples.push([{ command: run.command, context: names[i]!, version: opts.version, fail_on: opts.failOn }, 1]);
  const L: string[] = [];
  for (const f of [up, exit, duration, last, status, bySev, byCode, suppressed, byFile, vsBaseline, info]) {
    if (f === vsBaseline && !f.samples.length) continue;
    L.push(`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} gauge`);
    for (const [l, v] of f.samples) L.push(`${f.name}${labels(l)} ${Number.isInteger(v) ? v : v.toFixed(3)}`);
  }
  return L.join('\n') + '\n';
}
