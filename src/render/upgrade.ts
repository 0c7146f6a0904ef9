// `what-if --upgrade` as text: the upgrade (from, to, the releases crossed), the API versions they stop serving that the
// cluster still uses, the rollout's order, then one section per contract with the predictions, each step of the
// rollout in a line, and the verdict.
import { argvText } from '../lib/shell.js';
import { termSafeDeep } from '../lib/safe.js';
import type { BaselineResult, ReportSource, Severity } from '../model.js';
import { baselineText } from './baseline.js';
import type { Style } from './style.js';
import { contractLines, type Pred } from './whatif.js';
import { hang } from '../lib/wrap.js';

export interface UpgradeDoc {
  source: ReportSource;
  fingerprint: { distribution: string; serverVersion: string; nodes: string };
  hypothesis: { upgrade: { to: string; from?: string; fromEvidence?: string; minors: string[] } };
  upgrade: {
    removals: Array<{
      apiVersion: string;
      kind: string;
      removed: string;
      replacement?: string;
      written: number;
      gone: number;
      applied: number;
    }>;
    rollout: { how: string; steps: Array<{ nodes: string[]; by: string; worst: Severity | null; notJudged?: string }> };
  };
  predictions: Pred[];
  notJudged: Array<{ contract: string; what: string; by: string; lost?: string }>;
  notes: string[];
  verdict: { safe: boolean | null; state: 'safe' | 'not safe' | 'not judged' | 'no gate'; failOn: string; exitCode: number };
  baseline?: BaselineResult;
}

const SECTIONS: Array<[string, string]> = [
  ['door', 'DOOR — the API server is the only way in'],
  ['loops', 'LOOPS — everything else reconciles'],
  ['state', 'STATE — lives only in etcd'],
  ['interfaces', 'INTERFACES — node boundaries are swappable'],
  ['workloads', 'WORKLOADS — what runs there'],
];
const LABEL: Record<Severity, string> = { critical: 'CRITICAL', error: 'ERROR', warning: 'WARNING', info: 'info' };

export function renderUpgrade(doc0: UpgradeDoc, s: Style): string {
  const doc = termSafeDeep(doc0, true);
  const w = s.width;
  const u = doc.hypothesis.upgrade;
  const src = doc.source.type === 'snapshot' ? `snapshot ${doc.source.path}` : `context ${doc.source.context ?? '?'}`;
  const steps = doc.upgrade.rollout.steps;
  const out: string[] = [
    hang('', `${argvText(['kubectl', 'arch', 'what-if', '--upgrade', doc0.hypothesis.upgrade.to])} — ${src}`, w),
    hang('  ', `${doc.fingerprint.distribution} ${doc.fingerprint.serverVersion}, ${doc.fingerprint.nodes}`, w),
    hang(
      '  hypothesis: ',
      `upgraded ${u.from ? `from ${u.from} ` : '(from a version not visible) '}to ${u.to}${u.minors.length > 1 ? ` — crossing ${u.minors.join(', ')}` : ''}`,
      w,
    ),
    hang('  rollout: ', `${doc.upgrade.rollout.how} — ${steps.length} step${steps.length === 1 ? '' : 's'}`, w),
    '',
  ];
  const used = doc.upgrade.removals.filter((r) => r.written || r.gone || r.applied);
  out.push(
    hang(
      '',
      s.bold(`REMOVED — API versions ${u.minors.length ? u.minors.join(', ') : u.to} stop${u.minors.length === 1 ? 's' : ''} serving`),
      w,
    ),
  );
  if (!doc.upgrade.removals.length) out.push(`  ${s.dim('none')}`);
  for (const r of used)
    out.push(
      hang(
        '  - ',
        `${r.apiVersion} ${r.kind} (${r.removed}${r.replacement ? `, use ${r.replacement}` : ', no replacement'}): ${[
          r.written ? `${r.written} written through it` : '',
          r.applied ? `${r.applied} applied through it by owners` : '',
          r.gone ? `${r.gone} served only through it` : '',
        ]
          .filter(Boolean)
          .join(', ')}`,
        w,
      ),
    );
  const unused = doc.upgrade.removals.length - used.length;
  if (unused)
    out.push(hang('  ', s.dim(`${used.length ? 'and ' : ''}${unused} removed version${unused === 1 ? '' : 's'} nothing visible uses`), w));
  out.push('');
  out.push(...contractLines(doc, s, SECTIONS, new Set(['workloads'])));
  if (steps.length)
    out.push(
      hang(
        'each step: ',
        steps
          .map(
            (x, i) =>
              `${i + 1}. ${x.nodes.join('+')}: ${x.notJudged ? `not judged (${x.notJudged})` : x.worst ? LABEL[x.worst] : 'nothing'}`,
          )
          .join(', '),
        w,
      ),
    );
  const v = verdictLine(doc);
  out.push(hang('', v.tone === 'ok' ? s.green(v.text) : v.tone === 'error' ? s.sev('error', v.text) : v.text, w));
  return `${out.join('\n')}\n${doc.baseline ? baselineText(doc.baseline, s) : ''}`;
}

function verdictLine(doc: UpgradeDoc): { text: string; tone: 'ok' | 'error' | 'plain' } {
  const counts = (['critical', 'error', 'warning', 'info'] as Severity[])
    .map((sev) => [sev, doc.predictions.filter((p) => p.severity === sev).length] as const)
    .filter(([, n]) => n > 0)
    .map(([sev, n]) => `${n} ${sev}`);
  const to = doc.hypothesis.upgrade.to;
  switch (doc.verdict.state) {
    case 'no gate':
      return { text: `no gate (--fail-on none): ${counts.length ? `${counts.join(', ')} predicted` : 'nothing predicted'}`, tone: 'plain' };
    case 'safe':
      return {
        text: `safe to upgrade to ${to}: nothing predicted at or above ${doc.verdict.failOn}${counts.length ? ` (${counts.join(', ')})` : ''}, and everything it rests on was visible`,
        tone: 'ok',
      };
    case 'not safe':
      return { text: `NOT safe to upgrade to ${to}: ${counts.join(', ')} predicted (--fail-on ${doc.verdict.failOn})`, tone: 'error' };
    default: {
      const n = doc.notJudged.length;
      return {
        text: `not judged: ${n} thing${n === 1 ? '' : 's'} it rests on ${n === 1 ? 'was' : 'were'} not visible (above); nothing at or above ${doc.verdict.failOn} predicted in what was${counts.length ? ` (${counts.join(', ')})` : ''}`,
        tone: 'error',
      };
    }
  }
}
