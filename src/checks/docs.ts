// The README's checks table, generated from each check's own docs (npm run gen writes it; a test fails when
// the README is stale), so the table, `explain` and the code never disagree.
import { resourceName } from '../lib/k8s.js';
import type { Check } from './types.js';

export const TABLE_BEGIN = "<!-- checks table: generated from each check's docs by `npm run gen` -->";
export const TABLE_END = '<!-- end of generated checks table -->';

export function checksTable(checks: Check[]): string {
  const rows = checks.map((c) => {
    const codes = Object.keys(c.codes);
    const range = codes.length > 1 ? `${codes[0]}…${codes[codes.length - 1]!.replace(/^ARCH-[A-Z]+/, '')}` : (codes[0] ?? '');
    return `| \`${c.id}\` | ${c.docs.summary} | ${range} |`;
  });
  return [TABLE_BEGIN, '| id | finds | codes |', '|---|---|---|', ...rows, TABLE_END].join('\n');
}

/** The README with its checks table replaced by the generated one. */
export function withChecksTable(readme: string, checks: Check[]): string {
  const a = readme.indexOf(TABLE_BEGIN);
  const b = readme.indexOf(TABLE_END);
  if (a < 0 || b < a) throw new Error('README.md has no generated checks table markers');
  return readme.slice(0, a) + checksTable(checks) + readme.slice(b + TABLE_END.length);
}

const indent = (s: string): string =>
  s
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');

/** `kubectl arch explain <id>`: the long form of a check's docs. */
export function explainText(c: Check): string {
  const needs = c.needs.map((n) => resourceName(n.resource, n.group));
  const ROLE = { subject: 'what it judges', evidence: 'evidence', context: 'context' } as const;
  const deep = (c.deep ?? []).map((g) => g.path('<node>'));
  const text = [
    `${c.title} [${c.id}]  (worst severity: ${c.severity})`,
    '',
    'WHAT IT LOOKS FOR',
    indent(c.docs.what),
    '',
    'WHY IT MATTERS',
    indent(c.docs.why),
    '',
    'HOW TO FIX',
    indent(c.docs.fix),
    '',
    ...(c.docs.limits ? ['WHAT THE EVIDENCE CAN AND CANNOT PROVE', indent(c.docs.limits), ''] : []),
    'FINDING CODES',
    ...Object.entries(c.codes).map(([k, v]) => `  ${k}  ${v}`),
    '',
    'READS (list, read-only)',
    `  ${needs.join(', ')}`,
    ...(deep.length ? [`  with --deep: ${deep.join(', ')}`] : []),
    '',
    'WHEN AN INPUT IS NOT VISIBLE (not captured, forbidden): what it still judges',
    '  It judges from what is visible and is skipped only when nothing it judges is; a clean result that lacks',
    '  what it judges or evidence is "partial", never "passed". Without:',
    ...c.needs.map((n) => `  ${resourceName(n.resource, n.group)} (${ROLE[n.role]}): ${n.lost}`),
  ];
  return text.join('\n') + '\n';
}
