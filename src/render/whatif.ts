// what-if as text: the hypothesis, then one section per contract (and the workloads), each line a predicted finding
// with its severity, what it concerns and why, then the verdict — and for several nodes whether one at a time is safe.
import { termSafeDeep } from '../lib/safe.js';
import type { ReportSource, Severity } from '../model.js';
import type { Style } from './style.js';

export interface Pred {
  contract: string;
  code: string;
  from: string;
  severity: Severity;
  title: string;
  message: string;
  objects: Array<{ kind: string; namespace?: string; name: string }>;
  why?: string;
  fix?: string[];
}

export interface WhatIfDoc {
  source: ReportSource;
  fingerprint: { distribution: string; serverVersion: string; nodes: string };
  hypothesis: { nodes: string[]; remove: boolean };
  predictions: Pred[];
  oneAtATime: { safe: boolean; each: Array<{ node: string; worst: Severity | null }> } | null;
  notes: string[];
  verdict: { safe: boolean | null; failOn: string; exitCode: number };
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
  const doc = termSafeDeep(doc0, true);
  const h = doc.hypothesis;
  const src = doc.source.type === 'snapshot' ? `snapshot ${doc.source.path}` : `context ${doc.source.context ?? '?'}`;
  const out: string[] = [
    `kubectl arch what-if ${h.nodes.join(' ')}${h.remove ? ' --remove' : ''} — ${src}`,
    `  ${doc.fingerprint.distribution} ${doc.fingerprint.serverVersion}, ${doc.fingerprint.nodes}`,
    `  hypothesis: ${hypothesisLine(h)}`,
    '',
  ];
  for (const [c, title] of SECTIONS) {
    const ps = doc.predictions.filter((p) => p.contract === c);
    out.push(s.bold(title));
    if (!ps.length) out.push(`  ${s.dim('nothing predicted')}`);
    const { full, tails } = groupMany(ps);
    for (const p of full) {
      out.push(`  - ${s.sev(p.severity, LABEL[p.severity])} ${p.code}  ${p.title}`);
      out.push(`      ${p.message.split('\n').join('\n      ')}`);
      if (p.objects.length)
        out.push(
          `      ${s.dim('concerns:')} ${p.objects.map((o) => `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`).join(', ')}`,
        );
      if (p.why) out.push(`      ${s.dim('why:')} ${p.why}`);
      for (const f of p.fix ?? []) out.push(`      ${s.dim('fix:')} ${f}`);
    }
    for (const t of tails) out.push(`  - ${s.sev(t.severity, LABEL[t.severity])} ${t.code}  ${restLine(t.rest)}`);
    out.push('');
  }
  for (const n of doc.notes) out.push(`${s.dim('not visible:')} ${n}`);
  if (doc.notes.length) out.push('');
  const once = oneAtATimeLine(doc);
  if (once) out.push(once);
  const v = verdictLine(doc);
  out.push(v.tone === 'ok' ? s.green(v.text) : v.tone === 'error' ? s.sev('error', v.text) : v.text);
  return `${out.join('\n')}\n`;
}

/** For several nodes: whether one at a time is safe, in a line (undefined for one node). */
export function oneAtATimeLine(doc: Pick<WhatIfDoc, 'oneAtATime' | 'verdict'>): string | undefined {
  if (!doc.oneAtATime) return undefined;
  const each = doc.oneAtATime.each.map((e) => `${e.node}: ${e.worst ? LABEL[e.worst] : 'nothing'}`).join(', ');
  return doc.oneAtATime.safe && doc.verdict.safe === false
    ? `one at a time is safe (${each}); all at once is not`
    : doc.oneAtATime.safe
      ? `one at a time: ${each}`
      : `one at a time is not safe either (${each})`;
}

/** The verdict: no gate, safe, or NOT safe, with what is predicted by severity. */
export function verdictLine(doc: Pick<WhatIfDoc, 'predictions' | 'verdict'>): { text: string; tone: 'ok' | 'error' | 'plain' } {
  const counts = (['critical', 'error', 'warning', 'info'] as Severity[])
    .map((sev) => [sev, doc.predictions.filter((p) => p.severity === sev).length] as const)
    .filter(([, n]) => n > 0)
    .map(([sev, n]) => `${n} ${sev}`);
  if (doc.verdict.failOn === 'none')
    return { text: `no gate (--fail-on none): ${counts.length ? `${counts.join(', ')} predicted` : 'nothing predicted'}`, tone: 'plain' };
  return doc.verdict.safe
    ? {
        text: `safe to take down: nothing predicted at or above ${doc.verdict.failOn}${counts.length ? ` (${counts.join(', ')})` : ''}`,
        tone: 'ok',
      }
    : { text: `NOT safe: ${counts.join(', ')} predicted (--fail-on ${doc.verdict.failOn})`, tone: 'error' };
}

/** The hypothesis in words. */
export const hypothesisLine = (h: WhatIfDoc['hypothesis']): string =>
  `${h.nodes.join(', ')} ${h.remove ? 'removed for good (their etcd members too)' : 'down for a while (a reboot, a drain, an outage)'}`;

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
