// The examples/<name>/ directories as the CLI embeds them (src/snapshot/example-files.ts): for each, the gzipped JSON of
// {file name: text}, base64. Used by the bundle (scripts/lib/bundle-cli.mjs) and by jest's globals.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const ROOT = new URL('../..', import.meta.url).pathname;
export const EXAMPLE_NAMES = ['field-notes-k3s'];

export function packedExamples() {
  const out = {};
  for (const name of EXAMPLE_NAMES) {
    const dir = join(ROOT, 'examples', name);
    const files = {}; // JSON files only: the embedded loader parses each as one JSON text
    for (const f of readdirSync(dir).sort()) if (/\.json$/i.test(f)) files[f] = readFileSync(join(dir, f), 'utf8');
    // mtime 0 in the gzip header: the same bytes on every build (reproducible releases)
    out[name] = gzipSync(JSON.stringify(files), { level: 9 }).toString('base64');
  }
  return out;
}
