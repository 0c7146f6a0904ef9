import { dump } from 'js-yaml';

export async function printStructured(value: unknown, format: 'json' | 'yaml'): Promise<void> {
  const text = format === 'json' ? JSON.stringify(value, null, 2) + '\n' : dump(value, { lineWidth: -1, noRefs: true });
  await new Promise<void>((resolve) => process.stdout.write(text, () => resolve()));
}
