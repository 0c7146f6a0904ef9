import { dump } from 'js-yaml';
import { InputError } from '../errors.js';
import type { Output } from '../render/formats/model.js';

export async function printStructured(value: unknown, format: Output): Promise<void> {
  if (format !== 'json' && format !== 'yaml') throw new InputError(`-o ${format} is not available here`, 'use -o json or yaml');
  // YAML is written from the JSON form: a value that writes itself as JSON (a fix Command) is its text in both
  const text =
    format === 'json' ? JSON.stringify(value, null, 2) + '\n' : dump(JSON.parse(JSON.stringify(value)), { lineWidth: -1, noRefs: true });
  await writeOut(text);
}

/** Write to stdout and wait until it is handed on (a large page to a pipe, then exit). */
export function writeOut(text: string): Promise<void> {
  return new Promise<void>((resolve) => process.stdout.write(text, () => resolve()));
}
