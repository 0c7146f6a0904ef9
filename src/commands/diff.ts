// `kubectl arch diff OLD.json NEW.json`: what appeared, what was fixed and what changed severity between two reports
// of the same command (-o json or yaml; one context or a ReportList), matched by fingerprint. Text, JSON, or Markdown
// for a pull-request comment. Reads two files; talks to no cluster.
import { EXIT, InputError } from '../errors.js';
import { termSafe } from '../lib/safe.js';
import { refText, type KnownFinding, type Severity } from '../model.js';
import { REPORT_API_VERSION } from '../render/report.js';
import { readReport, sameCommand, type ReportFile } from './baseline.js';
import { printStructured, writeOut } from './output.js';

export interface DiffArgs {
  old: string;
  new: string;
  output: string;
  'fail-on': 'none' | 'warning' | 'error';
}

const RANK: Record<Severity, number> = { info: 0, warning: 1, error: 2, critical: 3 };
type Changed = KnownFinding & { was: Severity };

export interface ContextDiff {
  context: string;
  appeared: KnownFinding[];
  fixed: KnownFinding[];
  changed: Changed[];
  unchanged: number;
  /** Why this context was not compared: a run that failed there (diff then exits 3, never "nothing appeared"). */
  notCompared?: string;
}

export function diffReports(oldFile: string, newFile: string): ContextDiff[] {
  const a = readReport(oldFile, 'the old report');
  const b = readReport(newFile, 'the new report');
  // two reports of different commands, questions or contexts: every finding would look appeared or fixed
  sameCommand(a, b.command, b.question, 'the old report');
  const one = !a.list && !b.list;
  if (one) {
    const [[ca], [cb]] = [[...a.contexts.keys()], [...b.contexts.keys()]];
    if (ca && cb && ca !== cb)
      throw new InputError(
        `the old report is of context "${termSafe(ca)}", the new one of "${termSafe(cb)}": diff compares two runs on the same cluster`,
        'write both with the same --context',
      );
  } else {
    const only = (x: ReportFile, y: ReportFile): string[] => [...x.contexts.keys()].filter((c) => !y.contexts.has(c));
    const gone = only(a, b);
    const added = only(b, a);
    if (gone.length || added.length)
      throw new InputError(
        `the two reports are of different contexts (${[
          ...gone.map((c) => `only in the old one: "${termSafe(c)}"`),
          ...added.map((c) => `only in the new one: "${termSafe(c)}"`),
        ].join(', ')})`,
        'write both with the same --contexts',
      );
  }
  const contexts = one ? [[...b.contexts.keys()][0]!] : [...b.contexts.keys()];
  return contexts.map((context) => {
    const before = one ? [...a.contexts.values()][0]! : a.contexts.get(context)!;
    const after = one ? [...b.contexts.values()][0]! : b.contexts.get(context)!;
    // a run that failed there holds no findings: nothing is known to have appeared or been fixed
    const failed = after.failed
      ? `the new run failed there: ${after.failed}`
      : before.failed
        ? `the old run failed there: ${before.failed}`
        : undefined;
    if (failed) return { context, appeared: [], fixed: [], changed: [], unchanged: 0, notCompared: failed };
    const was = new Map(before.findings.map((f) => [f.fingerprint, f] as const));
    const now = new Set(after.findings.map((f) => f.fingerprint));
    const changed: Changed[] = [];
    let unchanged = 0;
    for (const f of after.findings) {
      const o = was.get(f.fingerprint);
      if (o && o.severity !== f.severity) changed.push({ ...f, was: o.severity });
      else if (o) unchanged++;
    }
    return {
      context,
      appeared: after.findings.filter((f) => !was.has(f.fingerprint)),
      fixed: before.findings.filter((f) => !now.has(f.fingerprint)),
      changed,
      unchanged,
    };
  });
}

/** One finding on one line: a newline in a title (a tampered report) is shown as \n, never a line of its own. */
const line = (f: KnownFinding): string =>
  termSafe(`${f.severity.toUpperCase()} ${f.code} ${f.title}${f.objects.length ? ` (${f.objects.map(refText).join(', ')})` : ''}`);

function text(d: ContextDiff[]): string {
  const L: string[] = [];
  for (const c of d) {
    if (d.length > 1) L.push(`context ${termSafe(c.context || '""')}`);
    if (c.notCompared) {
      L.push(`not compared: ${termSafe(c.notCompared)}`);
      continue;
    }
    L.push(`${c.appeared.length} appeared, ${c.fixed.length} fixed, ${c.changed.length} changed severity, ${c.unchanged} unchanged`);
    for (const f of c.appeared) L.push(`  + ${line(f)}`);
    for (const f of c.fixed) L.push(`  - ${line(f)}`);
    for (const f of c.changed) L.push(`  ~ ${f.was.toUpperCase()} → ${line(f)}`);
  }
  return L.join('\n') + '\n';
}

/** Markdown for a pull-request comment: every cluster string is escaped (no markup, links or HTML from the cluster). */
function markdown(d: ContextDiff[]): string {
  const md = (s: string): string => termSafe(s).replace(/([\\`*_{}[\]()#+\-.!|<>~])/g, '\\$1');
  const L: string[] = ['### kubectl-arch: what changed', ''];
  for (const c of d) {
    if (d.length > 1) L.push(`#### context ${md(c.context || '""')}`, '');
    if (c.notCompared) {
      L.push(`**not compared**: ${md(c.notCompared)}`, '');
      continue;
    }
    L.push(
      `**${c.appeared.length} appeared**, ${c.fixed.length} fixed, ${c.changed.length} changed severity, ${c.unchanged} unchanged`,
      '',
    );
    const rows = [
      ...c.appeared.map((f) => ['appeared', f.severity, f]),
      ...c.fixed.map((f) => ['fixed', f.severity, f]),
      ...c.changed.map((f) => ['severity', `${f.was} → ${f.severity}`, f]),
    ] as Array<[string, string, KnownFinding]>;
    if (rows.length) {
      L.push('| | severity | code | finding | objects |', '|---|---|---|---|---|');
      for (const [what, sev, f] of rows)
        L.push(`| ${what} | ${md(sev)} | ${md(f.code)} | ${md(f.title)} | ${md(f.objects.map(refText).join(', '))} |`);
      L.push('');
    }
  }
  return L.join('\n') + '\n';
}

export async function diff(args: DiffArgs): Promise<number> {
  const d = diffReports(args.old, args.new);
  if (args.output === 'json' || args.output === 'yaml')
    await printStructured({ apiVersion: REPORT_API_VERSION, kind: 'Diff', old: args.old, new: args.new, contexts: d }, args.output);
  else await writeOut(args.output === 'markdown' ? markdown(d) : text(d));
  // a gate on what appeared (or got worse) at or above --fail-on
  const at = args['fail-on'] === 'none' ? Infinity : RANK[args['fail-on']];
  const worse = d.some((c) =>
    [...c.appeared, ...c.changed.filter((f) => RANK[f.severity] > RANK[f.was])].some((f) => RANK[f.severity] >= at),
  );
  if (worse) return EXIT.FINDINGS;
  // a context not compared is not judged: never "nothing appeared"
  return d.some((c) => c.notCompared) ? EXIT.UNREACHABLE : EXIT.OK;
}
