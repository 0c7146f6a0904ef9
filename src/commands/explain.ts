// `kubectl arch explain <id>`: the long form of a check's documentation.
import { CHECKS, findCheck } from '../checks/registry.js';
import type { Check } from '../checks/types.js';
import { EXIT, InputError } from '../errors.js';
import { type GlobalArgs } from './common.js';
import { printStructured } from './output.js';
import { explainText } from '../checks/docs.js';
import { terminalWidth } from '../render/style.js';
import { hang, wrapLines } from '../lib/wrap.js';

/** The check an id or finding code names; a usage error naming the known checks otherwise. */
export function checkFor(id: string): Check {
  const c = findCheck(id);
  if (!c) throw new InputError(`no check or finding code "${id}"`, `known checks: ${CHECKS.map((x) => x.id).join(', ')}`);
  return c;
}

/** `explain <id> -o json|yaml`: a check's documentation as data. */
export function explainDoc(c: Check): Record<string, unknown> {
  return {
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
  };
}

/** `explain -o json|yaml` without an id: the checks with their codes. */
export const checkList = (): Record<string, unknown> => ({
  checks: CHECKS.map((c) => ({ id: c.id, title: c.title, severity: c.severity, codes: c.codes })),
});

/** `explain` without an id: the list of checks, each title wrapped under its own column on a terminal. */
export const checkListText = (width?: number): string => {
  const col = Math.max(...CHECKS.map((c) => c.id.length));
  return `Checks (kubectl arch explain <id>):\n${CHECKS.map((c) => hang(`  ${c.id.padEnd(col)} `, c.title, width)).join('\n')}\n\n${hang('', 'Also: kubectl arch explain what-if (predictions before a reboot, drain or removal)', width)}\n`;
};

export async function explain(args: GlobalArgs & { id?: string }): Promise<number> {
  if (!args.id) {
    if (args.output !== 'table') await printStructured(checkList(), args.output);
    else process.stdout.write(checkListText(terminalWidth()));
    return EXIT.OK;
  }
  const w = await import('../whatif/docs.js');
  if (w.isWhatIf(args.id)) {
    if (args.output !== 'table') await printStructured(w.whatIfExplainDoc(), args.output);
    else process.stdout.write(wrapLines(w.whatIfExplainText(), terminalWidth()));
    return EXIT.OK;
  }
  const c = checkFor(args.id);
  if (args.output !== 'table') {
    await printStructured(explainDoc(c), args.output);
    return EXIT.OK;
  }
  process.stdout.write(explainText(c, terminalWidth()));
  return EXIT.OK;
}
