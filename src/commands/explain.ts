// `kubectl arch explain <id>`: the long form of a check's documentation.
import { CHECKS, findCheck } from '../checks/registry.js';
import { EXIT, InputError } from '../errors.js';
import { type GlobalArgs } from './common.js';
import { printStructured } from './output.js';
import { explainText } from '../checks/docs.js';

export async function explain(args: GlobalArgs & { id?: string }): Promise<number> {
  if (!args.id) {
    const rows = CHECKS.map((c) => `  ${c.id.padEnd(22)} ${c.title}`);
    process.stdout.write(`Checks (kubectl arch explain <id>):\n${rows.join('\n')}\n`);
    return EXIT.OK;
  }
  const c = findCheck(args.id);
  if (!c) throw new InputError(`no check or finding code "${args.id}"`, `known checks: ${CHECKS.map((x) => x.id).join(', ')}`);
  if (args.output !== 'table') {
    await printStructured(
      {
        id: c.id,
        title: c.title,
        severity: c.severity,
        codes: c.codes,
        docs: c.docs,
        needs: c.needs.map((n) => ({
          resource: `${n.resource}${n.group ? '.' + n.group : ''}`,
          role: n.role,
          withoutIt: n.lost,
          metadataOnly: Boolean(n.metadataOnly),
        })),
      },
      args.output,
    );
    return EXIT.OK;
  }
  process.stdout.write(explainText(c));
  return EXIT.OK;
}
