// `kubectl arch explain <id>`: the long form of a check's documentation.
import { CHECKS, findCheck } from '../checks/registry.js';
import { EXIT, InputError } from '../errors.js';
import { type GlobalArgs } from './common.js';
import { printStructured } from './output.js';

export async function explain(args: GlobalArgs & { id?: string }): Promise<number> {
  if (!args.id) {
    const rows = CHECKS.map((c) => `  ${c.id.padEnd(22)} ${c.title}`);
    process.stdout.write(`Checks (kubectl arch explain <id>):\n${rows.join('\n')}\n`);
    return EXIT.OK;
  }
  const c = findCheck(args.id);
  if (!c) throw new InputError(`no check or finding code "${args.id}"`, `known checks: ${CHECKS.map((x) => x.id).join(', ')}`);
  if (args.output !== 'table') {
    await printStructured({ id: c.id, title: c.title, severity: c.severity, codes: c.codes, docs: c.docs,
      needs: c.needs.map((n) => ({ resource: `${n.resource}${n.group ? '.' + n.group : ''}`, optional: Boolean(n.optional), metadataOnly: Boolean(n.metadataOnly) })) }, args.output);
    return EXIT.OK;
  }
  const needs = c.needs.map((n) => `${n.resource}${n.group ? '.' + n.group : ''}${n.optional ? ' (optional)' : ''}`);
  const deep = (c.deep ?? []).map((g) => g.path('<node>'));
  const text = [
    `${c.title} [${c.id}]  (worst severity: ${c.severity})`,
    '',
    'WHAT IT LOOKS FOR', indent(c.docs.what), '',
    'WHY IT MATTERS', indent(c.docs.why), '',
    'HOW TO FIX', indent(c.docs.fix), '',
    ...(c.docs.limits ? ['WHAT THE EVIDENCE CAN AND CANNOT PROVE', indent(c.docs.limits), ''] : []),
    'FINDING CODES', ...Object.entries(c.codes).map(([k, v]) => `  ${k}  ${v}`), '',
    'READS (list, read-only)', `  ${needs.join(', ')}`,
    ...(deep.length ? [`  with --deep: ${deep.join(', ')}`] : []),
  ];
  process.stdout.write(text.join('\n') + '\n');
  return EXIT.OK;
}

const indent = (s: string): string => s.split('\n').map((l) => `  ${l}`).join('\n');
