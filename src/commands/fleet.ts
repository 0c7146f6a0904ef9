// Running doctor, orphans or quorum on one context or many (--contexts a,b,c / --all-contexts), and printing the
// result in any output format. Many contexts run concurrently (--parallel, default 4), each with its own
// --request-timeout, all within the run's one --deadline (a context whose turn comes after it is a row saying it
// was not run); the response bodies they hold together are bounded (BodyBudget, src/cluster/client.ts). One
// summary table (context, distribution, version, findings by severity, suppressed, time, worst), then each report.
// A context that cannot be reached is a row with its error, never an abort. The exit code is the highest of the
// contexts' own exit codes.
import type { AcceptedRisks, SuppressedFinding } from '../config/accepted.js';
import { EXIT, InputError, UserError } from '../errors.js';
import { SEVERITY_RANK, worstRank, type CheckResult, type Severity } from '../model.js';
import { isMachineFormat, type FormatRun } from '../render/formats/model.js';
import { baselineCovers, baselineFor, markAgainst, readReport, sameCommand, type BaselineResult, type ReportFile } from './baseline.js';
import { baselineText } from '../render/baseline.js';
import { countBySeverity, REPORT_API_VERSION, type ContextRow, type ReportList } from '../render/report.js';
import { termSafe } from '../lib/safe.js';
import type { Style } from '../render/style.js';
import { columns } from '../render/table.js';
import { VERSION } from '../version.js';
import { exitFor, runDeadline, stdoutStyle, type Acquired, type GlobalArgs } from './common.js';
import type { Deadline } from '../lib/deadline.js';
import { printStructured, writeOut } from './output.js';
import { drawnElsewhere } from './pictures.js';
import { stopwatch } from '../lib/time.js';
import { acceptedRisks, placeOf, risksInfo, sayRisks } from './risks.js';
import { argvText } from '../lib/shell.js';

/** What one context's run gives, whatever the command. */
export interface Outcome {
  /** The command's JSON/YAML document (kind Report, OrphanReport or Quorum). */
  structured: Record<string, unknown>;
  text(s: Style): Promise<string>;
  /** Check results after the accepted-risk rules (for the machine formats and the summary). */
  checks: CheckResult[];
  suppressed: SuppressedFinding[];
  /** Worst severity rank of the findings reported (not suppressed), -1 for none. */
  worstRank: number;
  source: Acquired['source'];
  distribution?: string;
  serverVersion?: string;
  /** orphans: the cleanup plan (`--cleanup-plan`'s text), never run. */
  plan?: () => string;
  /** With --baseline: what is new, unchanged and fixed against it. */
  baseline?: BaselineResult;
}

export type PerContext = (args: GlobalArgs, risks: AcceptedRisks) => Promise<Outcome>;

export const DEFAULT_PARALLEL = 4;

const splitList = (s: string): string[] =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** The contexts of a multi-context run, or null for a single run. Usage errors here are raised before any request. */
export async function fleetContexts(args: GlobalArgs): Promise<string[] | null> {
  const named = args.contexts !== undefined;
  if (!named && !args['all-contexts']) return null;
  if (named && args['all-contexts']) throw new InputError('--contexts and --all-contexts cannot be used together');
  if (args.context) throw new InputError('--context names one context; with --contexts or --all-contexts leave it out');
  if (args.cluster || args.user)
    throw new InputError('--cluster and --user override one context; they cannot be used with --contexts or --all-contexts');
  if (args.snapshot) throw new InputError('--snapshot works on one snapshot; --contexts and --all-contexts read clusters');
  const { resolveConfig, kubeconfigNames } = await import('../cluster/kubeconfig.js');
  let list: string[];
  if (named) {
    list = [...new Set(splitList(String(args.contexts)))];
    if (list.length === 0) throw new InputError('--contexts needs at least one context name', 'e.g. --contexts prod-eu,prod-us');
  } else {
    list = kubeconfigNames({ kubeconfig: args.kubeconfig }, 'contexts');
    if (list.length === 0) throw new InputError('--all-contexts: the kubeconfig has no contexts', 'see: kubectl config get-contexts');
  }
  // every named context must exist before any request (a typo is a usage error, exit 2)
  for (const c of list) resolveConfig({ kubeconfig: args.kubeconfig, context: c, namespace: args.namespace });
  return list;
}

const SEVS: Severity[] = ['critical', 'error', 'warning', 'info'];
const worstName = (rank: number): string => SEVS.find((s) => SEVERITY_RANK[s] === rank) ?? 'none';

export interface Done {
  context: string;
  startedAt: Date;
  durationMs: number;
  outcome?: Outcome;
  error?: { message: string; hint?: string; exitCode: number };
  exitCode: number;
}

async function runContext(
  name: string,
  args: GlobalArgs,
  risks: AcceptedRisks,
  fn: PerContext,
  member: boolean,
  base?: ReportFile,
): Promise<Done> {
  const startedAt = new Date();
  const since = stopwatch();
  const a: GlobalArgs = member ? { ...args, context: name, fleetMember: name } : args;
  try {
    const outcome = await fn(a, risks);
    if (base) {
      // new or unchanged against the baseline's findings for this context; the gate counts the new ones
      const findings = outcome.checks.flatMap((c) => c.findings);
      outcome.baseline = markAgainst(findings, baselineFor(base, outcome.source.context ?? name), args.baseline!);
      outcome.worstRank = worstRank(findings.filter((f) => f.baseline === 'new'));
      outcome.structured.baseline = outcome.baseline;
    }
    return {
      context: name,
      startedAt,
      durationMs: since(),
      outcome,
      exitCode: exitFor(outcome.worstRank, args['fail-on']),
    };
  } catch (e) {
    // a single run reports its error as before — but a machine format still writes its document (a CI step that
    // uploads it always finds one that says the run failed and why: SARIF executionSuccessful false, a JUnit error,
    // kubectl_arch_up 0), with the same exit code and the same line on stderr
    if (!member && !(isMachineFormat(args.output) && e instanceof UserError)) throw e;
    const error =
      e instanceof UserError
        ? { message: e.message, ...(e.hint ? { hint: e.hint } : {}), exitCode: e.exitCode }
        : { message: `internal error: ${(e as Error)?.message ?? String(e)}`, exitCode: EXIT.INTERNAL };
    if (args.verbose && e instanceof Error && e.stack) process.stderr.write(`[${termSafe(name)}] ${termSafe(e.stack, true)}\n`);
    return { context: name, startedAt, durationMs: since(), error, exitCode: error.exitCode };
  }
}

/** A context whose turn came after the run's deadline: a row that says so, counted as not reached (exit 3). */
async function notRun(context: string, deadline: Deadline): Promise<Done> {
  return {
    context,
    startedAt: new Date(),
    durationMs: 0,
    error: { message: `not run: the run's deadline (${deadline.text()}) passed before its turn`, exitCode: EXIT.UNREACHABLE },
    exitCode: EXIT.UNREACHABLE,
  };
}

/** --parallel as typed: a whole number >= 1, named as given when it is not one. */
export function parseParallel(v: string | number | undefined): number {
  const text = v === undefined ? String(DEFAULT_PARALLEL) : String(v);
  const n = /^\d+$/.test(text.trim()) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new InputError(`--parallel must be a whole number >= 1, found ${JSON.stringify(text)}`);
  return n;
}

/** Runs fn over items with at most `limit` at once, keeping the order of items in the result. */
export async function pool<T, R>(items: T[], limit: number, fn: (t: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

const formatRun = (command: string, d: Done, risks: AcceptedRisks): FormatRun => ({
  command,
  context: d.context,
  acceptedRisks: risksInfo(risks, d.outcome?.suppressed ?? []),
  ...(d.outcome
    ? {
        source: d.outcome.source,
        distribution: d.outcome.distribution,
        serverVersion: d.outcome.serverVersion,
        checks: d.outcome.checks,
        suppressed: d.outcome.suppressed,
        ...(d.outcome.baseline ? { baseline: d.outcome.baseline } : {}),
      }
    : { checks: [], suppressed: [], error: d.error }),
  startedAt: d.startedAt,
  durationMs: d.durationMs,
  exitCode: d.exitCode,
});

/** A context name for the table: escaped, and "" shown as such rather than as nothing. */
const shownName = (name: string): string => (name === '' ? '""' : termSafe(name));

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

function row(d: Done): ContextRow {
  if (!d.outcome)
    return {
      context: d.context,
      status: 'failed',
      worst: d.error!.exitCode === EXIT.UNREACHABLE ? 'unreachable' : 'failed',
      durationMs: Math.round(d.durationMs),
      exitCode: d.exitCode,
      error: d.error,
    };
  const o = d.outcome;
  return {
    context: d.context,
    ...(o.source.server ? { server: o.source.server } : {}),
    status: 'ok',
    distribution: o.distribution,
    serverVersion: o.serverVersion,
    findings: countBySeverity(o.checks.flatMap((c) => c.findings)),
    suppressed: o.suppressed.length,
    worst: worstName(o.worstRank),
    durationMs: Math.round(d.durationMs),
    exitCode: d.exitCode,
  };
}

/** The summary table of a multi-context run; every string from a kubeconfig or a cluster is escaped. */
export function summaryTable(command: string, rows: ContextRow[], totalMs: number, s: Style): string {
  const failed = rows.filter((r) => r.status === 'failed').length;
  const head = `${s.bold(argvText(['kubectl', 'arch', command]))}${s.dim(` — ${rows.length} context${rows.length === 1 ? '' : 's'}: ${rows.length - failed} reached, ${failed} failed, ${seconds(totalMs)}`)}`;
  const n = (r: ContextRow, k: Severity): string => (r.findings ? String(r.findings[k]) : '-');
  const lines = columns(
    [
      ['CONTEXT', 'DISTRIBUTION', 'VERSION', 'CRITICAL', 'ERROR', 'WARNING', 'INFO', 'SUPPRESSED', 'TIME', 'WORST'],
      ...rows.map((r) => [
        shownName(r.context),
        termSafe(r.distribution ?? '-'),
        termSafe(r.serverVersion ?? '-'),
        n(r, 'critical'),
        n(r, 'error'),
        n(r, 'warning'),
        n(r, 'info'),
        r.suppressed === undefined ? '-' : String(r.suppressed),
        seconds(r.durationMs),
        r.error ? `${r.worst}: ${termSafe(r.error.message)}` : r.worst,
      ]),
    ],
    { maxWidth: 40 },
  );
  return [head, '', ...lines, ''].join('\n') + '\n';
}

/** The runs of doctor, orphans or quorum over one context or many, before anything is printed. */
export interface Runs {
  command: string;
  /** The contexts of a multi-context run; null for a single run. */
  contexts: string[] | null;
  done: Done[];
  exitCode: number;
  totalMs: number;
  /** The accepted-risk rules the run applied. */
  risks: AcceptedRisks;
}

/** doctor, orphans and quorum: one context or many, nothing printed (execute prints; the MCP server returns it). */
export async function runAll(command: string, args: GlobalArgs, fn: PerContext): Promise<Runs> {
  // read before any request: a baseline that cannot be read, or of another command or context, is a usage error
  const base = args.baseline ? readReport(args.baseline) : undefined;
  if (base) sameCommand(base, command, undefined, '--baseline');
  const contexts = await fleetContexts(args);
  if (base && contexts) baselineCovers(base, contexts);
  const risks = acceptedRisks(args);
  const since = stopwatch();
  const parallel = parseParallel(args.parallel);
  // one --deadline for the whole run: contexts share it, and one whose turn comes after it is not run
  const deadline = contexts ? await runDeadline(args) : undefined;
  const done = contexts
    ? await pool(contexts, parallel, (c) =>
        deadline!.passed() ? notRun(c, deadline!) : runContext(c, { ...args, runDeadline: deadline }, risks, fn, true, base),
      )
    : [await runContext(args.context ?? '', args, risks, fn, false, base)];
  const totalMs = since();
  // a single run is named by the context it resolved (or the snapshot); one that failed, by the kubeconfig's
  if (!contexts) done[0]!.context = done[0]!.outcome?.source.context ?? done[0]!.outcome?.source.path ?? (await failedName(args));
  return { command, contexts, done, exitCode: Math.max(...done.map((d) => d.exitCode)), totalMs, risks };
}

/** The context a single run that failed was meant for: --context, the snapshot, else the kubeconfig's current one. */
async function failedName(args: GlobalArgs): Promise<string> {
  if (args.context || args.snapshot) return args.context || args.snapshot || '';
  try {
    const { resolveConfig } = await import('../cluster/kubeconfig.js');
    return resolveConfig({ kubeconfig: args.kubeconfig, cluster: args.cluster, user: args.user }).contextName ?? '';
  } catch {
    return '';
  }
}

/** What -o json|yaml prints: the one context's document, or a ReportList over every context. */
export function structuredOf(r: Runs): Record<string, unknown> {
  const { command, done, exitCode } = r;
  if (!r.contexts) return done[0]!.outcome!.structured;
  const rows = done.map(row);
  const all = done.flatMap((d) => d.outcome?.checks.flatMap((c) => c.findings) ?? []);
  const list: ReportList = {
    apiVersion: REPORT_API_VERSION,
    kind: 'ReportList',
    command,
    summary: {
      contexts: rows.length,
      reached: rows.filter((x) => x.status === 'ok').length,
      failed: rows.filter((x) => x.status === 'failed').length,
      findings: countBySeverity(all),
      suppressed: done.reduce((n, d) => n + (d.outcome?.suppressed.length ?? 0), 0),
      exitCode,
      durationMs: Math.round(r.totalMs),
    },
    contexts: rows,
    items: done.flatMap((d) => (d.outcome ? [d.outcome.structured] : [])),
  };
  return list as unknown as Record<string, unknown>;
}

/** The label of a Kubernetes object: [prefix/]name, name at most 63 characters of [A-Za-z0-9_.-] starting and ending
 *  alphanumeric, prefix a DNS subdomain; the value the same as the name, or empty. */
const LABEL_NAME = /^[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/** --report-label KEY=VALUE..., checked as the API server would before any request; ours cannot be replaced. */
export function parseReportLabels(given: string[] | undefined, output: string): Record<string, string> | undefined {
  if (!given?.length) return undefined;
  if (output !== 'policyreport' && output !== 'openreports')
    throw new InputError('--report-label is for -o policyreport or -o openreports', 'add -o policyreport, or leave out --report-label');
  const out: Record<string, string> = {};
  for (const l of given.map(String)) {
    const i = l.indexOf('=');
    const [key, value] = i < 0 ? [l, undefined] : [l.slice(0, i), l.slice(i + 1)];
    const slash = key.lastIndexOf('/');
    const [prefix, name] = slash < 0 ? [undefined, key] : [key.slice(0, slash), key.slice(slash + 1)];
    const ok =
      value !== undefined &&
      LABEL_NAME.test(name) &&
      (prefix === undefined || (prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix))) &&
      (value === '' || LABEL_NAME.test(value));
    if (!ok)
      throw new InputError(
        `--report-label ${JSON.stringify(l)} is not a Kubernetes label KEY=VALUE`,
        'e.g. --report-label kubectl-arch.io/run=nightly-42 (names and values: at most 63 of A-Z a-z 0-9 - _ .)',
      );
    if (key.startsWith('app.kubernetes.io/'))
      throw new InputError(`--report-label ${key}: the reports set app.kubernetes.io/ labels themselves`);
    out[key] = value!;
  }
  return out;
}

/** doctor, orphans and quorum: one context or many, in every output format. */
export async function execute(command: string, args: GlobalArgs, fn: PerContext): Promise<number> {
  // pages and pictures: html is doctor's here; mermaid and dot are map's - a usage error before any request
  const reportLabels = parseReportLabels(args['report-label'], args.output);
  if (args['sarif-all'] && args.output !== 'sarif')
    throw new InputError('--sarif-all is for -o sarif', 'add -o sarif, or leave out --sarif-all');
  const by = drawnElsewhere(args.output, command);
  if (by)
    throw new InputError(
      `-o ${args.output} is for ${by}, not ${command}`,
      'use -o table, json, yaml, sarif, junit, prometheus, policyreport or openreports',
    );
  const runs = await runAll(command, args, fn);
  const { contexts, done, exitCode, totalMs, risks } = runs;
  sayRisks(
    risks,
    done.flatMap((d) => d.outcome?.suppressed ?? []),
    done.flatMap((d) => (d.outcome ? [{ findings: d.outcome.checks.flatMap((c) => c.findings), place: placeOf(d.outcome.source) }] : [])),
  );
  const out = args.output;
  if (isMachineFormat(out)) {
    const { renderFormat } = await import('../render/formats/index.js');
    await writeOut(
      await renderFormat(
        out,
        done.map((d) => formatRun(command, d, risks)),
        { failOn: args['fail-on'], version: VERSION, sarifAll: Boolean(args['sarif-all']), reportLabels },
      ),
    );
    const failed = !contexts ? done[0]!.error : undefined;
    if (failed)
      process.stderr.write(`error: ${termSafe(failed.message, true)}\n${failed.hint ? `  hint: ${termSafe(failed.hint, true)}\n` : ''}`);
    return exitCode;
  }
  if (out === 'json' || out === 'yaml') {
    await printStructured(structuredOf(runs), out);
    return exitCode;
  }
  if (out === 'html') {
    const { renderReportHtml } = await import('../render/html/report.js');
    await writeOut(renderReportHtml(structuredOf(runs) as never, VERSION));
    return exitCode;
  }
  if (!contexts) {
    const o = done[0]!.outcome!;
    const s = stdoutStyle(args);
    await writeOut((await o.text(s)) + (o.baseline ? baselineText(o.baseline, s) : ''));
    return exitCode;
  }
  const s = stdoutStyle(args);
  let text = summaryTable(command, done.map(row), totalMs, s);
  for (const d of done) {
    text += `\n${s.bold(`═══ context ${shownName(d.context)} ═══`)}\n`;
    if (d.outcome) text += (await d.outcome.text(s)) + (d.outcome.baseline ? baselineText(d.outcome.baseline, s) : '');
    else text += `error: ${termSafe(d.error!.message)}\n${d.error!.hint ? `  hint: ${termSafe(d.error!.hint)}\n` : ''}`;
  }
  await writeOut(text);
  return exitCode;
}
