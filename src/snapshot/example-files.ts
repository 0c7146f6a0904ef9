// The files of the examples embedded in the CLI (./examples.ts has their names). The build puts each examples/<name>/
// directory into the bundle as gzipped JSON of its files (scripts/lib/examples.mjs: 35 KB for field-notes-k3s, 1 ms to
// unpack); the unit tests get the same through jest's globals (jest.config.js).
import { gunzipSync } from 'node:zlib';
import { InputError } from '../errors.js';
import { EXAMPLE_PREFIX } from './examples.js';

declare const __EXAMPLES__: Record<string, string> | undefined;
const EMBEDDED: Record<string, string> = typeof __EXAMPLES__ === 'object' && __EXAMPLES__ ? __EXAMPLES__ : {};

/** The files of an embedded example, sorted by name, as `example:<name>/<file>` and their text. */
export function exampleFiles(source: string): Array<{ name: string; text: string }> {
  const name = source.slice(EXAMPLE_PREFIX.length);
  const packed = Object.hasOwn(EMBEDDED, name) ? EMBEDDED[name] : undefined;
  if (packed === undefined) {
    const known = Object.keys(EMBEDDED).map((n) => EXAMPLE_PREFIX + n);
    throw new InputError(
      `snapshot ${source}: no such example${known.length ? ` (this build has ${known.join(', ')})` : ' (this build has none)'}`,
    );
  }
  const files = JSON.parse(gunzipSync(Buffer.from(packed, 'base64')).toString('utf8')) as Record<string, string>;
  return Object.keys(files)
    .sort()
    .map((f) => ({ name: `${source}/${f}`, text: files[f]! }));
}
