// `what-if -f` as text: the change (how many objects would be created, updated, refused, not judged), then one section
// per contract, each prediction with the manifest line it concerns and the API server's own words, then the verdict.
import { oneLine } from '../lib/safe.js';
import type { BaselineResult, ReportSource, Severity } from '../model.js';
import { baselineText } from './baseline.js';
import type { Style } from './style.js';
import { notJudgedLines, predictionLines, type Pred } from './whatif.js';
import { hang } from '../lib/wrap.js';
import { argvText } from '../lib/shell.js';

export interface ChangeDoc {
  source: ReportSource;
  fingerprint: { distribution: string; serverVersion: string; nodes: string };
  hypothesis: {
    change: {
      files: string[];
      objects: number;
      create: number;
      update: number;
      unchanged?: number;
      refused: number;
      'not judged': number;
      config?: { program: string; file: string; settings: Array<{ key: string; now?: string; new?: string; changed: boolean }> };
    };
  };
  objects: Array<{
    ref: { kind: string; namespace?: string; name: string };
    location: { file: string; line: number };
    state: string;
    why?: string;
    fields?: string[];
    mode?: string;
  }>;
  predictions: Array<Pred & { location?: { file: string; line: number }; apiError?: string }>;
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
];

export function renderChange(doc0: ChangeDoc, s: Style): string {
  const doc = oneLine(doc0);
  const w = s.width;
  const c = doc.hypothesis.change;
  const c0 = doc0.hypothesis.change;
  const src = doc.source.type === 'snapshot' ? `snapshot ${doc.source.path}` : `context ${doc.source.context ?? '?'}`;
  const parts = [
    `${c.create} to create`,
    `${c.update} to update`,
    ...(c.unchanged ? [`${c.unchanged} unchanged`] : []),
    `${c.refused} refused`,
    ...(c['not judged'] ? [`${c['not judged']} not judged`] : []),
  ];
  const argv = [
    'kubectl',
    'arch',
    'what-if',
    ...c0.files.flatMap((f) => ['-f', f]),
    ...(c0.config ? [`--${c0.config.program}-config`, c0.config.file] : []),
  ];
  const out: string[] = [
    hang('', `${argvText(argv)} — ${src}`, w),
    hang('  ', `${doc.fingerprint.distribution} ${doc.fingerprint.serverVersion}, ${doc.fingerprint.nodes}`, w),
    ...(c.files.length ? [hang('  change: ', `${c.objects} object${c.objects === 1 ? '' : 's'} applied: ${parts.join(', ')}`, w)] : []),
    ...(c.config
      ? [
          hang(
            '  config: ',
            c.config.settings.length
              ? c.config.settings
                  .map((x) => `${x.key} ${x.changed ? `${x.now ?? '?'} → ${x.new ?? '?'}` : `${x.new ?? '?'} (unchanged)`}`)
                  .join('; ')
              : 'no setting it judges (cluster-dns, cluster-cidr, service-cidr, datastore-endpoint, disable, etcd snapshots)',
            w,
          ),
        ]
      : []),
    '',
  ];
  if (doc.objects.length) {
    // one line per object, as `kubectl apply` prints them
    const modes = [...new Set(doc.objects.map((o) => o.mode).filter(Boolean))];
    out.push(hang('', s.bold(`OBJECTS — each as the API server would answer${modes.length ? ` (${modes.join(', ')} apply)` : ''}`), w));
    for (const o of doc.objects) out.push(hang('  ', objectLine(o), w));
    out.push('');
  }
  for (const [contract, title] of SECTIONS) {
    const ps = doc.predictions.filter((p) => p.contract === contract);
    const blind = doc.notJudged.filter((n) => n.contract === contract);
    if (!ps.length && !blind.length && contract !== 'door' && contract !== 'loops') continue;
    out.push(hang('', s.bold(title), w));
    if (!ps.length) out.push(`  ${s.dim(blind.length ? 'nothing predicted in what was visible' : 'nothing predicted')}`);
    for (const l of notJudgedLines(blind)) out.push(hang(`  ${s.dim('not judged:')} `, l, w));
    for (const p of ps) out.push(...predictionLines(p, s));
    out.push('');
  }
  for (const n of doc.notes) out.push(hang(`${s.dim('note:')} `, n, w));
  if (doc.notes.length) out.push('');
  const v = verdictLine(doc);
  out.push(hang('', v.tone === 'ok' ? s.green(v.text) : v.tone === 'error' ? s.sev('error', v.text) : v.text, w));
  return `${out.join('\n')}\n${doc.baseline ? baselineText(doc.baseline, s) : ''}`;
}

const WORDS: Record<string, string> = {
  create: 'created',
  update: 'configured',
  unchanged: 'unchanged',
  refused: 'REFUSED',
  'not judged': 'not judged',
};

/** "Deployment shop/web configured: spec.replicas — web.yaml:3" */
function objectLine(o: ChangeDoc['objects'][number]): string {
  const name = `${o.ref.kind} ${o.ref.namespace ? `${o.ref.namespace}/` : ''}${o.ref.name}`;
  const detail =
    o.state === 'update' && o.fields?.length
      ? `: ${o.fields.slice(0, 6).join(', ')}${o.fields.length > 6 ? ` and ${o.fields.length - 6} more` : ''}`
      : o.state === 'refused'
        ? `: ${o.fields?.length ? o.fields.join(', ') : (o.why ?? '')}${o.why && o.fields?.length ? '' : ''}`
        : o.state === 'not judged' && o.why
          ? `: ${o.why}`
          : '';
  return `${name} ${WORDS[o.state] ?? o.state}${detail} — ${o.location.file}:${o.location.line}`;
}

function verdictLine(doc: ChangeDoc): { text: string; tone: 'ok' | 'error' | 'plain' } {
  const counts = (['critical', 'error', 'warning', 'info'] as Severity[])
    .map((sev) => [sev, doc.predictions.filter((p) => p.severity === sev).length] as const)
    .filter(([, n]) => n > 0)
    .map(([sev, n]) => `${n} ${sev}`);
  switch (doc.verdict.state) {
    case 'no gate':
      return { text: `no gate (--fail-on none): ${counts.length ? `${counts.join(', ')} predicted` : 'nothing predicted'}`, tone: 'plain' };
    case 'safe':
      return {
        text: `safe to apply: nothing predicted at or above ${doc.verdict.failOn}${counts.length ? ` (${counts.join(', ')})` : ''}, and every object and what it rests on was visible`,
        tone: 'ok',
      };
    case 'not safe':
      return { text: `NOT safe to apply: ${counts.join(', ')} predicted (--fail-on ${doc.verdict.failOn})`, tone: 'error' };
    default: {
      const n = doc.notJudged.length;
      return {
        text: `not judged: ${n} thing${n === 1 ? '' : 's'} it rests on ${n === 1 ? 'was' : 'were'} not visible (above); nothing at or above ${doc.verdict.failOn} predicted in what was${counts.length ? ` (${counts.join(', ')})` : ''}`,
        tone: 'error',
      };
    }
  }
}
