// `kubectl arch map` as text: one block per contract, a line per part, and under it the checks that concern it.
import type { ArchMap, LineCheck } from '../model.js';
import type { Report } from './report.js';
import { termSafe, termSafeDeep } from '../lib/safe.js';
import type { Style } from './style.js';

const LABEL = { critical: 'CRITICAL', error: 'ERROR', warning: 'WARNING', info: 'info' } as const;

function checkText(c: LineCheck, s: Style): string {
  if (c.status === 'passed') return `${c.id} ${s.green('ok')}`;
  if (c.status === 'skipped') return `${c.id} ${s.dim('skipped')}`;
  if (c.status === 'partial') return `${c.id} ${s.yellow('partial')}`;
  const sev = c.worst ?? 'info';
  return `${c.id} ${s.sev(sev, `${LABEL[sev]}${c.findings > 1 ? ` ×${c.findings}` : ''}`)}`;
}

export function renderMap(map: ArchMap, source: Report['source'], s: Style): string {
  const m = termSafeDeep(map, false);
  const src =
    source.type === 'snapshot'
      ? `snapshot ${source.path}${source.capturedAt ? `, captured ${source.capturedAt}` : ''}`
      : `context ${source.context ?? '?'} (${source.server ?? '?'})`;
  const out = [s.bold('kubectl arch map') + s.dim(` — ${termSafe(src)}`), `  ${m.distribution} ${m.serverVersion}, ${m.nodes}`, ''];
  // names longer than the column push their detail to the next line
  const width = Math.min(30, Math.max(...m.sections.flatMap((sec) => sec.lines.map((l) => l.name.length + (l.indent ? 2 : 0)))) + 2);
  for (const sec of m.sections) {
    out.push(s.bold(sec.title));
    for (const l of sec.lines) {
      const name = (l.indent ? '  ' : '') + l.name;
      if (name.length >= width) out.push(`  ${name}`, `  ${''.padEnd(width)}${l.detail}`);
      else out.push(`  ${name.padEnd(width)}${l.detail}`);
      if (l.checks.length) out.push(`  ${''.padEnd(width)}${s.dim('checks:')} ${l.checks.map((c) => checkText(c, s)).join(', ')}`);
    }
    out.push('');
  }
  out.push(s.dim('findings in full: kubectl arch doctor; a check explained: kubectl arch explain <id>'));
  return out.join('\n') + '\n';
}
