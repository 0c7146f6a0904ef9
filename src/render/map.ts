// `kubectl arch map` as text: one block per contract, a line per part, and under it the checks that concern it.
import type { ArchMap } from '../model.js';
import type { CountedCheck } from '../map/build.js';
import type { Report } from './report.js';
import { termSafe, termSafeDeep } from '../lib/safe.js';
import type { Style } from './style.js';
import { hang, hangItems } from '../lib/wrap.js';

const LABEL = { critical: 'CRITICAL', error: 'ERROR', warning: 'WARNING', info: 'info' } as const;
const ORDER = ['critical', 'error', 'warning', 'info'] as const;
/** The fewest cells the value column may leave its text before the map puts each detail under its name. */
const STACKED = 40;

/** A check's status on a line. Findings are counted by severity: the worst with its count, the others named — one
 *  error and one info read "ERROR (+1 info)", never "ERROR ×2". */
export function checkText(c: CountedCheck, s: Style): string {
  if (c.status === 'passed') return `${c.id} ${s.green('ok')}`;
  if (c.status === 'skipped') return `${c.id} ${s.dim('skipped')}`;
  if (c.status === 'partial') return `${c.id} ${s.yellow('partial')}`;
  const sev = c.worst ?? 'info';
  const by = c.bySeverity;
  if (!by) return `${c.id} ${s.sev(sev, `${LABEL[sev]}${c.findings > 1 ? ` (${c.findings} findings)` : ''}`)}`;
  const n = by[sev] ?? 0;
  const others = ORDER.filter((x) => x !== sev && by[x]).map((x) => `${by[x]} ${x}`);
  return `${c.id} ${s.sev(sev, `${LABEL[sev]}${n > 1 ? ` ×${n}` : ''}`)}${others.length ? ` (+${others.join(', +')})` : ''}`;
}

export function renderMap(map: ArchMap, source: Report['source'], s: Style): string {
  const m = termSafeDeep(map, false);
  const w = s.width;
  const src =
    source.type === 'snapshot'
      ? `snapshot ${source.path}${source.capturedAt ? `, captured ${source.capturedAt}` : ''}`
      : `context ${source.context ?? '?'} (${source.server ?? '?'})`;
  const out = [
    hang('', s.bold('kubectl arch map') + s.dim(` — ${termSafe(src)}`), w),
    hang('  ', `${m.distribution} ${m.serverVersion}, ${m.nodes}`, w),
    '',
  ];
  // names longer than the column push their detail to the next line; with a width, details wrap under their column,
  // and where that would leave them less than STACKED cells, every detail goes under its name instead
  const width = Math.min(30, Math.max(...m.sections.flatMap((sec) => sec.lines.map((l) => l.name.length + (l.indent ? 2 : 0)))) + 2);
  const stacked = w !== undefined && w - width - 2 < STACKED;
  for (const sec of m.sections) {
    out.push(hang('', s.bold(sec.title), w));
    for (const l of sec.lines) {
      const name = (l.indent ? '  ' : '') + l.name;
      const column = stacked ? `  ${l.indent ? '    ' : '  '}` : `  ${''.padEnd(width)}`;
      if (stacked || name.length >= width) out.push(hang('  ', name, w), hang(column, l.detail, w));
      else out.push(hang(`  ${name.padEnd(width)}`, l.detail, w));
      if (l.checks.length)
        out.push(
          hangItems(
            `${column}${s.dim('checks:')} `,
            l.checks.map((c) => checkText(c, s)),
            w,
          ),
        );
    }
    out.push('');
  }
  out.push(hang('', s.dim('findings in full: kubectl arch doctor; a check explained: kubectl arch explain <id>'), w));
  return out.join('\n') + '\n';
}
