// The README's checks table, generated from each check's own docs (npm run gen writes it; a test fails when
// the README is stale), so the table, `explain` and the code never disagree.
import { resourceName } from '../lib/k8s.js';
import type { Check } from './types.js';
import { cells, hang } from '../lib/wrap.js';
import { argvText } from '../lib/shell.js';

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

/** A docs paragraph two spaces in, each of its lines wrapped under its own start (to `width`, when given). */
const indent = (s: string, width: number | undefined): string =>
  s
    .split('\n')
    .map((l) => hang('  ', l, width))
    .join('\n');

/** Lines of one sentence, two spaces in: as they are where they fit the width, else joined and wrapped to it. */
const sentence = (lines: string[], width: number | undefined): string[] =>
  !width || lines.every((l) => cells(`  ${l}`) <= width) ? lines.map((l) => `  ${l}`) : [hang('  ', lines.join(' '), width)];

/** The per-node paths --deep reads, as a reader sees them: `<node>` where the node's name goes (the path itself
 *  carries it URL-encoded, which would print `%3Cnode%3E`). */
export function deepPaths(c: Check): string[] {
  const NODE = 'kubectl-arch-node-placeholder'; // unreserved characters only: encodeURIComponent leaves it as it is
  return (c.deep ?? []).map((g) => g.path(NODE).split(NODE).join('<node>'));
}

/** `kubectl arch explain <id>`: the long form of a check's docs; with a width, its prose wrapped to it (render/wrap.ts). */
export function explainText(c: Check, width?: number): string {
  const needs = c.needs.map((n) => resourceName(n.resource, n.group));
  const ROLE = { subject: 'what it judges', evidence: 'evidence', context: 'context' } as const;
  const deep = deepPaths(c);
  const text = [
    hang('', `${c.title} [${c.id}]  (worst severity: ${c.severity})`, width),
    '',
    'WHAT IT LOOKS FOR',
    indent(c.docs.what, width),
    '',
    'WHY IT MATTERS',
    indent(c.docs.why, width),
    '',
    'HOW TO FIX',
    indent(c.docs.fix, width),
    '',
    ...(c.docs.limits ? ['WHAT THE EVIDENCE CAN AND CANNOT PROVE', indent(c.docs.limits, width), ''] : []),
    'FINDING CODES',
    ...Object.entries(c.codes).map(([k, v]) => hang(`  ${k}  `, v, width)),
    '',
    'READS (list, read-only)',
    hang('  ', needs.join(', '), width),
    ...(deep.length ? [hang('  with --deep: ', deep.join(', '), width)] : []),
    '',
    hang('', 'WHEN AN INPUT IS NOT VISIBLE (not captured, forbidden): what it still judges', width),
    // one sentence, in two lines as it always was, or wrapped to the width as one where they do not fit it
    ...sentence(
      [
        'It judges from what is visible and is skipped only when nothing it judges is; a clean result that lacks',
        'what it judges or evidence is "partial", never "passed". Without:',
      ],
      width,
    ),
    ...c.needs.map((n) => hang('  ', `${resourceName(n.resource, n.group)} (${ROLE[n.role]}): ${n.lost}`, width, 4)),
  ];
  return text.join('\n') + '\n';
}

/** Where each check's explain page is published (docs/explain/<id>.md in the repository): SARIF's helpUri. */
export const PROJECT_URL = 'https://github.com/kubectl-arch/kubectl-arch';
export const explainUrl = (checkId: string, code?: string): string =>
  `${PROJECT_URL}/blob/main/docs/explain/${checkId}.md${code ? `#${code.toLowerCase()}` : ''}`;

const md = (s: string): string => s.replace(/([\\`*_[\]<>|])/g, '\\$1');

/** docs/explain/<id>.md: a check's explain page for a browser (npm run gen writes it; SARIF rules link to it). */
export function explainMarkdown(c: Check): string {
  const needs = c.needs.map((n) => `\`${resourceName(n.resource, n.group)}\` (${n.role}): ${md(n.lost)}`);
  return [
    `<!-- generated from src/checks/${c.id}/check.ts by \`npm run gen\`: edit the check's docs, not this file -->`,
    `# ${md(c.title)}`,
    '',
    `\`${argvText(['kubectl', 'arch', 'explain', c.id])}\` — worst severity: ${c.severity}. [All checks](README.md)`,
    '',
    '## What it looks for',
    '',
    md(c.docs.what),
    '',
    '## Why it matters',
    '',
    md(c.docs.why),
    '',
    '## How to fix',
    '',
    md(c.docs.fix),
    '',
    ...(c.docs.limits ? ['## What the evidence can and cannot prove', '', md(c.docs.limits), ''] : []),
    '## Finding codes',
    '',
    ...Object.entries(c.codes).flatMap(([k, v]) => [`### ${k}`, '', md(String(v)), '']),
    '## What it reads',
    '',
    ...needs.map((n) => `- ${n}`),
    '',
  ].join('\n');
}

/** docs/explain/README.md: the index of the explain pages. */
export function explainIndex(checks: Check[]): string {
  return [
    '<!-- generated by `npm run gen` -->',
    '# Checks',
    '',
    'One page per check, as `kubectl arch explain <id>` prints it; SARIF rules link here.',
    '',
    ...checks.map((c) => `- [${c.id}](${c.id}.md): ${md(c.title)} (${Object.keys(c.codes).join(', ')})`),
    '',
  ].join('\n');
}
