// --baseline in text: how this run compares with the baseline, and what it had that is gone.
import { termSafe } from '../lib/safe.js';
import { refText, type BaselineResult } from '../model.js';
import type { Style } from './style.js';
import { hang } from '../lib/wrap.js';

export function baselineText(b: BaselineResult, s: Style): string {
  const L = [
    '',
    hang(
      '',
      s.bold(
        `Against the baseline ${termSafe(b.file)}: ${b.new} new, ${b.unchanged} unchanged, ${b.fixed.length} fixed — --fail-on counts the new ones`,
      ),
      s.width,
    ),
    ...b.fixed.map((f) =>
      hang(
        `  fixed: ${f.severity.toUpperCase()} ${f.code} `,
        `${termSafe(f.title)}${f.objects.length ? ` (${termSafe(f.objects.map(refText).join(', '))})` : ''}`,
        s.width,
      ),
    ),
  ];
  return `${L.join('\n')}\n`;
}
