// what-if as text: the hypothesis, then one section per contract (and the workloads), each line a predicted finding
// with its severity, what it concerns and why, then the verdict — and for several nodes whether one at a time is safe.
import { oneLine } from '../lib/safe.js';
import type { Step } from '../lib/shell.js';
import type { BaselineResult, ReportSource, Severity } from '../model.js';
import { baselineText } from './baseline.js';
import type { Style } from './style.js';
import { hang, hangItems, stepLines } from '../lib/wrap.js';
import { argvText } from '../lib/shell.js';

export interface Pred {
  contract: string;
  code: string;
  from: string;
  severity: Severity;
  title: string;
  message: string;
  objects: Array<{ kind: string; namespace?: string; name: string }>;
  why?: string;
  fix?: Step[];
  baseline?: 'new' | 'unchanged';
}

export interface WhatIfDoc {
  source: ReportSource;
  fingerprint: { distribution: string; serverVersion: string; nodes: string };
  /** Nodes down or removed; or, for what-if --upgrade, the upgrade (the map is then the cluster as it is). */
  hypothesis:
    | { nodes: string[]; remove: boolean; upgrade?: undefined }
    | { upgrade: { to: string; from?: string }; nodes?: undefined; remove?: undefined };
  predictions: Pred[];
  oneAtATime: { safe: boolean | null; each: Array<{ node: string; worst: Severity | null; notJudged?: string }> } | null;
  /** What could not be judged, by contract: the input that was not visible and who needed it. */
  notJudged: Array<{ contract: string; what: string; by: string; lost?: string }>;
  notes: string[];
  verdict: { safe: boolean | null; state: 'safe' | 'not safe' | 'not judged' | 'no gate'; failOn: string; exitCode: number };
  /** With --baseline. */
  baseline?: BaselineResult;
}

const SECTIONS: Array<[string, string]> = [
  ['state', 'STATE — lives only in etcd'],
  ['door', 'DOOR — the API server is the only way in'],
  ['loops', 'LOOPS — everything else reconciles'],
  ['interfaces', 'INTERFACES — node boundaries are swappable'],
  ['workloads', 'WORKLOADS — what runs there'],
];
const MANY = 5;
const LABEL: Record<Severity, string> = { critical: 'CRITICAL', error: 'ERROR', warning: 'WARNING', info: 'info' };

export function renderWhatIf(doc0: WhatIfDoc, s: Style): string {
  const doc = oneLine(doc0);
  const h = doc.hypothesis;
  const w = s.width;
  const src = doc.source.type === 'snapshot' ? `snapshot ${doc.source.path}` : `context ${doc.source.context ?? '?'}`;
  const out: string[] = [
    hang('', `${whatIfCommand(doc0.hypothesis)} — ${src}`, w),
    hang('  ', `${doc.fingerprint.distribution} ${doc.fingerprint.serverVersion}, ${doc.fingerprint.nodes}`, w),
    hang('  hypothesis: ', hypothesisLine(h), w),
    '',
  ];
  out.push(...contractLines(doc, s));
  const once = oneAtATimeLine(doc);
  if (once) out.push(hang('', once, w));
  const v = verdictLine(doc);
  out.push(hang('', v.tone === 'ok' ? s.green(v.text) : v.tone === 'error' ? s.sev('error', v.text) : v.text, w));
  return `${out.join('\n')}\n${doc.baseline ? baselineText(doc.baseline, s) : ''}`;
}

/** The predictions under each contract (in `sections`' order; a contract in `quiet` with nothing to say is left out),
 *  then the notes not already said under one. what-if and what-if --upgrade print theirs with it. */
export function contractLines(
  doc: Pick<WhatIfDoc, 'predictions' | 'notJudged' | 'notes'>,
  s: Style,
  sections: Array<[string, string]> = SECTIONS,
  quiet: ReadonlySet<string> = new Set(),
): string[] {
  const w = s.width;
  const out: string[] = [];
  for (const [c, title] of sections) {
    const ps = doc.predictions.filter((p) => p.contract === c);
    const blind = doc.notJudged.filter((n) => n.contract === c);
    if (!ps.length && !blind.length && quiet.has(c)) continue;
    out.push(hang('', s.bold(title), w));
    if (!ps.length) out.push(`  ${s.dim(blind.length ? 'nothing predicted in what was visible' : 'nothing predicted')}`);
    for (const l of notJudgedLines(blind)) out.push(hang(`  ${s.dim('not judged:')} `, l, w));
    const { full, tails } = groupMany(ps);
    for (const p of full) out.push(...predictionLines(p, s));
    for (const t of tails) out.push(hang(`  - ${s.sev(t.severity, LABEL[t.severity])} ${t.code}  `, restLine(t.rest), w));
    out.push('');
  }
  // the notes not already said under a contract
  const said = new Set(doc.notJudged.map((n) => `${n.what}: not judged by ${n.by}${n.lost ? ` (${n.lost})` : ''}`));
  const rest = doc.notes.filter((n) => !said.has(n));
  for (const n of rest) out.push(hang(`${s.dim('note:')} `, n, w));
  if (rest.length) out.push('');
  return out;
}

/** One prediction as text, for what-if and what-if -f: its title, the manifest line it is at (a change's), its message,
 *  the objects it concerns, why, and each fix. */
export function predictionLines(p: Pred & { location?: { file: string; line: number } }, s: Style): string[] {
  const w = s.width;
  const out = [
    hang(
      `  - ${s.sev(p.severity, LABEL[p.severity])} ${p.code}  `,
      `${p.title}${p.baseline ? s.dim(` (${p.baseline} since the baseline)`) : ''}`,
      w,
    ),
  ];
  if (p.location) out.push(`      ${s.dim('at:')} ${p.location.file}:${p.location.line}`);
  for (const l of p.message.split('\n')) out.push(hang('      ', l, w));
  if (p.objects.length)
    out.push(
      hangItems(
        `      ${s.dim('concerns:')} `,
        p.objects.map((o) => `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`),
        w,
      ),
    );
  if (p.why) out.push(hang(`      ${s.dim('why:')} `, p.why, w));
  // prose wraps; a command stays whole (lib/wrap.ts stepLines)
  for (const f of p.fix ?? []) out.push(...stepLines(`      ${s.dim('fix:')} `, f, w));
  return out;
}

/** For several nodes: whether one at a time is safe, in a line (undefined for one node). */
export function oneAtATimeLine(doc: Pick<WhatIfDoc, 'oneAtATime' | 'verdict'>): string | undefined {
  if (!doc.oneAtATime) return undefined;
  const each = doc.oneAtATime.each
    .map((e) => `${e.node}: ${e.notJudged ? `not judged (${e.notJudged})` : e.worst ? LABEL[e.worst] : 'nothing'}`)
    .join(', ');
  if (doc.oneAtATime.safe === null)
    return doc.verdict.failOn === 'none' ? `one at a time: ${each}` : `one at a time is not judged (${each})`;
  return doc.oneAtATime.safe && doc.verdict.safe === false
    ? `one at a time is safe (${each}); all at once is not`
    : doc.oneAtATime.safe
      ? `one at a time: ${each}`
      : `one at a time is not safe either (${each})`;
}

/** The verdict: no gate, safe, NOT safe, or not judged (with what was not visible), with what is predicted. */
export function verdictLine(doc: Pick<WhatIfDoc, 'predictions' | 'verdict' | 'notJudged'>): {
  text: string;
  tone: 'ok' | 'error' | 'plain';
} {
  const counts = (['critical', 'error', 'warning', 'info'] as Severity[])
    .map((sev) => [sev, doc.predictions.filter((p) => p.severity === sev).length] as const)
    .filter(([, n]) => n > 0)
    .map(([sev, n]) => `${n} ${sev}`);
  // what was not visible, the state and the door first, by kind
  const order = SECTIONS.map(([c]) => c);
  const blind = [
    ...new Set(
      [...doc.notJudged]
        .sort((a, b) => order.indexOf(a.contract) - order.indexOf(b.contract))
        .map((n) => TYPE.exec(n.what)?.[1]?.split('.')[0] ?? n.what),
    ),
  ];
  switch (doc.verdict.state) {
    case 'no gate':
      return { text: `no gate (--fail-on none): ${counts.length ? `${counts.join(', ')} predicted` : 'nothing predicted'}`, tone: 'plain' };
    case 'safe':
      return {
        text: `safe to take down: nothing predicted at or above ${doc.verdict.failOn}${counts.length ? ` (${counts.join(', ')})` : ''}, and everything it rests on was visible`,
        tone: 'ok',
      };
    case 'not safe':
      return { text: `NOT safe: ${counts.join(', ')} predicted (--fail-on ${doc.verdict.failOn})`, tone: 'error' };
    default:
      return {
        text: `not judged: ${blind.slice(0, 4).join('; ')}${blind.length > 4 ? `; and ${blind.length - 4} more` : ''} — not visible; nothing at or above ${doc.verdict.failOn} predicted in what was${counts.length ? ` (${counts.join(', ')})` : ''}`,
        tone: 'error',
      };
  }
}

const TYPE = /^([A-Z][\w]*(?:\.[\w.-]+)?) \((.*)\)$/;

/** What could not be judged, in a few lines: the types that were not visible together, with who needed them; what a
 *  prediction found it could not judge, one line each. */
export function notJudgedLines(entries: WhatIfDoc['notJudged']): string[] {
  const types = new Map<string, Set<string>>();
  const other: string[] = [];
  for (const e of entries) {
    const m = TYPE.exec(e.what);
    if (m) types.set(m[1]!, (types.get(m[1]!) ?? new Set()).add(e.by));
    else other.push(`${e.what} (${e.by})`);
  }
  const by = new Set([...types.values()].flatMap((x) => [...x]));
  return [...(types.size ? [`${[...types.keys()].join(', ')} not visible (${[...by].join(', ')})`] : []), ...other];
}

/** The hypothesis in words. */
export const hypothesisLine = (h: WhatIfDoc['hypothesis']): string =>
  h.upgrade
    ? `the cluster upgraded ${h.upgrade.from ? `from ${h.upgrade.from} ` : ''}to ${h.upgrade.to}`
    : `${h.nodes.join(', ')} ${h.remove ? 'removed for good (their etcd members too)' : 'down for a while (a reboot, a drain, an outage)'}`;

/** The command a what-if document answers. */
/** The command a what-if answers, quoted (names from the cluster are arguments, never pasted): pass the hypothesis as
 *  it was, before it is made printable. */
export const whatIfCommand = (h: WhatIfDoc['hypothesis']): string =>
  argvText(['kubectl', 'arch', 'what-if', ...(h.upgrade ? ['--upgrade', h.upgrade.to] : [...h.nodes, ...(h.remove ? ['--remove'] : [])])]);

/** Many of one kind (every single-replica Deployment of a node): the first few in full, the rest by name. */
export function groupMany<P extends Pred>(ps: P[]): { full: P[]; tails: Array<{ code: string; severity: Severity; rest: P[] }> } {
  const seen = new Map<string, number>();
  const tails = new Map<string, { code: string; severity: Severity; rest: P[] }>();
  const full: P[] = [];
  for (const p of ps) {
    const k = `${p.code}|${p.severity}`;
    const n = (seen.get(k) ?? 0) + 1;
    seen.set(k, n);
    if (n <= MANY) full.push(p);
    else if (tails.has(k)) tails.get(k)!.rest.push(p);
    else tails.set(k, { code: p.code, severity: p.severity, rest: [p] });
  }
  return { full, tails: [...tails.values()] };
}

/** The rest of a kind, by name. */
export const restLine = (rest: Pred[]): string =>
  `and ${rest.length} more: ${rest
    .slice(0, 12)
    .map((p) => p.objects[0]?.name ?? p.title)
    .join(', ')}${rest.length > 12 ? ', …' : ''} (-o json lists each)`;
