// --baseline FILE: a previous `-o json` of the same command. Each finding of this run is marked new or unchanged by
// its fingerprint (code and objects: the same across runs, captures and machines), what the baseline had that is gone
// is listed as fixed, and --fail-on counts the new ones only — a pipeline fails on what a change adds, not on what
// the cluster already had. `kubectl arch diff OLD NEW` compares two such files the same way.
//
// A gate must not pass by mistake: a file of another command (doctor against orphans: every finding "fixed"), of
// another context, another what-if question, another format version, or one that holds no findings list at all (an
// orphans report of an older version) is refused as a usage error, naming what differs.
import { closeSync } from 'node:fs';
import { load } from 'js-yaml';
import { InputError } from '../errors.js';
import { openRegular, readFull } from '../lib/files.js';
import { termSafe } from '../lib/safe.js';
import { command as command0 } from '../lib/shell.js';
import { fingerprintOf, type BaselineResult, type KnownFinding, type ObjectRef, type Severity } from '../model.js';
import { REPORT_API_VERSION } from '../render/report.js';
export type { BaselineResult, KnownFinding } from '../model.js';

const MAX_BYTES = 256 * 1024 * 1024;
/** The commands whose reports hold findings to compare. */
const COMMANDS = new Set(['doctor', 'orphans', 'quorum', 'what-if']);
const SEVERITIES = new Set(['critical', 'error', 'warning', 'info']);
const HINT = 'a report written by -o json (or yaml)';

/** The command each kind of document comes from (a Report and a ReportList say theirs). */
const COMMAND_OF_KIND: Record<string, string> = { OrphanReport: 'orphans', Quorum: 'quorum', WhatIf: 'what-if' };
/** Where each kind keeps its findings. */
const FINDINGS_OF_KIND: Record<string, (d: Record<string, unknown>) => unknown> = {
  Report: (d) => (Array.isArray(d.checks) ? d.checks.map((c) => (c as { findings?: unknown })?.findings ?? []) : undefined),
  OrphanReport: (d) => d.findings,
  Quorum: (d) => d.findings,
  WhatIf: (d) => d.predictions,
};
const WHY_NOT: Record<string, string> = {
  Diff: 'it is the output of kubectl arch diff; give it the reports it compared',
  QuorumProbe: 'quorum --etcd-endpoints reports no findings to compare; use quorum -o json without --etcd-endpoints',
};

/** A context of a report file: its findings, or why it has none (its run failed there). */
export interface FileContext {
  findings: KnownFinding[];
  failed?: string;
}

/** A report file, as --baseline and diff read it. */
export interface ReportFile {
  file: string;
  /** doctor, orphans, quorum or what-if. */
  command: string;
  /** what-if: the question asked ("nodes a, b down", "nodes a removed", "-f"); one file compares with the same one. */
  question?: string;
  /** Its contexts by name ('' when the document names none), in its order. */
  contexts: Map<string, FileContext>;
  /** A ReportList (several contexts), not one context's document. */
  list: boolean;
}

/** what-if's question, from its hypothesis: the nodes and whether they are removed, or a change (-f, --k3s-config). */
export function whatIfQuestion(h: unknown): string | undefined {
  const o = h as { nodes?: unknown; remove?: unknown; change?: unknown } | undefined;
  if (o?.change) return 'what-if -f (a change)';
  if (!Array.isArray(o?.nodes)) return undefined;
  const nodes = [...new Set(o.nodes.map(String))].sort();
  return `what-if ${nodes.join(' ')}${o.remove ? ' --remove' : ''}`;
}

/** Reads a report file (-o json or yaml of doctor, orphans, quorum or what-if; a ReportList of several contexts). */
export function readReport(file: string, what = '--baseline'): ReportFile {
  const { fd, size } = openRegular(file, `${what} ${file}`, MAX_BYTES, HINT);
  let text: string;
  try {
    const buf = Buffer.alloc(size);
    text = buf.subarray(0, readFull(fd, buf, size)).toString('utf8');
  } finally {
    closeSync(fd);
  }
  let doc: unknown;
  try {
    doc = load(text, { json: true });
  } catch (e) {
    throw new InputError(`${what} ${file}: not JSON or YAML (${(e as Error).message.split('\n')[0]})`, HINT);
  }
  const d = doc as Record<string, unknown> | null;
  const name = `${what} ${file}`;
  if (!d || typeof d !== 'object' || typeof d.apiVersion !== 'string' || !d.apiVersion.startsWith('kubectl-arch/'))
    throw new InputError(`${name}: not a kubectl-arch report (apiVersion ${REPORT_API_VERSION})`, 'write one with -o json');
  if (d.apiVersion !== REPORT_API_VERSION)
    throw new InputError(
      `${name} is in format ${termSafe(d.apiVersion)}; this kubectl-arch reads ${REPORT_API_VERSION}`,
      'write both reports with the same kubectl-arch version',
    );
  const kind = String(d.kind);
  if (WHY_NOT[kind]) throw new InputError(`${name} is a ${kind}, not a report of findings`, WHY_NOT[kind]);
  const out: ReportFile = { file, command: '', contexts: new Map(), list: kind === 'ReportList' };
  const items: Array<Record<string, unknown>> = out.list
    ? (Array.isArray(d.items) ? d.items : []).filter((x): x is Record<string, unknown> => !!x && typeof x === 'object')
    : [d];
  const command = out.list ? d.command : (d.command ?? COMMAND_OF_KIND[kind]);
  if (typeof command !== 'string' || !COMMANDS.has(command) || (!out.list && !FINDINGS_OF_KIND[kind]))
    throw new InputError(`${name}: not a report of doctor, orphans, quorum or what-if (kind ${termSafe(kind)})`, HINT);
  out.command = command;
  for (const item of items) {
    const k = String(item.kind);
    const raw = FINDINGS_OF_KIND[k]?.(item);
    if (!Array.isArray(raw))
      throw new InputError(
        `${name}: its ${termSafe(k)} holds no list of findings (written by an older kubectl-arch?)`,
        `write it again with this version: ${command0(['kubectl', 'arch', command, '-o', 'json']).line}`,
      );
    if (command === 'what-if') out.question = whatIfQuestion(item.hypothesis);
    const ctx = (item.source as { context?: unknown } | undefined)?.context;
    out.contexts.set(typeof ctx === 'string' ? ctx : '', { findings: findingsIn(raw.flat()) });
  }
  // a context whose run failed has no findings: it can be compared with nothing
  if (out.list && Array.isArray(d.contexts))
    for (const row of d.contexts as Array<{ context?: unknown; status?: unknown; error?: { message?: unknown } }>)
      if (row && typeof row.context === 'string' && row.status === 'failed' && !out.contexts.has(row.context))
        out.contexts.set(row.context, { findings: [], failed: String(row.error?.message ?? 'its run failed') });
  return out;
}

/** The findings (or what-if predictions) of one list — not the ones accepted as risks, not a baseline's fixed. */
function findingsIn(list: unknown[]): KnownFinding[] {
  const out: KnownFinding[] = [];
  for (const v of list) {
    const o = v as Record<string, unknown> | null;
    if (!o || typeof o.code !== 'string' || !/^ARCH-[A-Z]+\d+$/.test(o.code) || !Array.isArray(o.objects)) continue;
    if (!SEVERITIES.has(String(o.severity))) continue;
    const objects = (o.objects as ObjectRef[]).filter((x) => x && typeof x.kind === 'string' && typeof x.name === 'string');
    out.push({
      code: o.code,
      severity: o.severity as Severity,
      title: typeof o.title === 'string' ? o.title : o.code,
      objects,
      fingerprint: typeof o.fingerprint === 'string' ? o.fingerprint : fingerprintOf({ code: o.code, objects }),
    });
  }
  return out;
}

const shown = (c: string): string => (c === '' ? '(none named)' : `"${termSafe(c)}"`);

/** Refuses a report of another command (or another what-if question): compared, every finding would look new or fixed. */
export function sameCommand(f: ReportFile, command: string, question: string | undefined, what: string): void {
  if (f.command !== command)
    throw new InputError(
      `${what} ${f.file} is a report of ${termSafe(f.command)}, not of ${command}: compared, every finding would look new or fixed`,
      `write it with ${command0(['kubectl', 'arch', command, '-o', 'json']).line}`,
    );
  if (question !== undefined && f.question !== undefined && f.question !== question)
    throw new InputError(
      `${what} ${f.file} answers another question (${termSafe(f.question)}) than this one (${termSafe(question)})`,
      'compare what-if reports of the same nodes (or of -f with -f)',
    );
}

/** The baseline findings for one context of this run: by its name, or the file's only one when either names none.
 *  A baseline of another context, or one whose run failed there, is refused (it would make every finding new, or
 *  hide what is fixed). */
export function baselineFor(base: ReportFile, context: string | undefined): KnownFinding[] {
  const name = context ?? '';
  const only = base.contexts.size === 1 ? [...base.contexts.entries()][0]! : undefined;
  const hit = base.contexts.get(name) ?? (only && (only[0] === '' || name === '') ? only[1] : undefined);
  if (!hit)
    throw new InputError(
      `--baseline ${base.file} has no report of context ${shown(name)} (it holds ${[...base.contexts.keys()].map(shown).join(', ') || 'none'})`,
      'a baseline is compared with a run of the same cluster: write it with the same --context (or --contexts)',
    );
  if (hit.failed)
    throw new InputError(
      `--baseline ${base.file}: its run failed on context ${shown(name)} (${termSafe(hit.failed)}), so it holds nothing to compare with`,
      'write the baseline again from a run that reached it',
    );
  return hit.findings;
}

/** Before any request: every context of a --contexts run must be in the baseline. */
export function baselineCovers(base: ReportFile, contexts: string[]): void {
  for (const c of contexts) baselineFor(base, c);
}

/** Marks each finding new or unchanged against the baseline's findings for this context; what is gone is fixed. */
export function markAgainst(
  findings: Array<{ code: string; objects: ObjectRef[]; fingerprint?: string; baseline?: 'new' | 'unchanged' }>,
  base: KnownFinding[],
  file: string,
): BaselineResult {
  const before = new Set(base.map((b) => b.fingerprint));
  const now = new Set<string>();
  let added = 0;
  for (const f of findings) {
    const fp = (f.fingerprint ??= fingerprintOf(f));
    now.add(fp);
    f.baseline = before.has(fp) ? 'unchanged' : 'new';
    if (f.baseline === 'new') added++;
  }
  return { file, new: added, unchanged: findings.length - added, fixed: base.filter((b) => !now.has(b.fingerprint)) };
}
