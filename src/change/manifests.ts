// What would be applied (`what-if -f PATH|-`): plain manifests, `kustomize build` or `helm template` output — files,
// directories (their .yaml, .yml and .json files, sorted, recursively) or stdin; many documents per file; Lists are
// their items. Parsed with the `yaml` package (eemeli/yaml), which keeps each node's position: a prediction points at
// the line it concerns (SARIF regions, the text's file:line), not only the document. js-yaml, which the snapshot
// loader uses, keeps none.
//
// Bounded like the snapshot loader: regular files only, a total size limit, no alias expansion past a limit.
import { closeSync, statSync } from 'node:fs';
import { isMap, isSeq, LineCounter, parseAllDocuments, type Document, type Node as YamlNode } from 'yaml';
import { InputError } from '../errors.js';
import { filesIn, openRegular, readFull } from '../lib/files.js';
import type { KObject } from '../model.js';

/** The whole input, all files together: far beyond any render (a 1,000-object chart is ~2 MiB). */
/** The manifests of one what-if -f, together (a 50 MB file once took 1.8 GB to judge; the API server takes objects of
 *  at most 3 MiB, and a large rendered chart with its CRDs is a few MiB). */
export const MAX_MANIFEST_BYTES = 8 * 1024 * 1024;
const EXT = /\.(ya?ml|json)$/i;
const HINT = 'what-if -f reads manifests from files, directories of .yaml/.yml/.json files, or - for stdin';

/** One object that would be applied, and where it was written. */
export interface Manifest {
  object: KObject;
  /** The file as given (or "-" for stdin), and the 1-based line where the object starts. */
  file: string;
  line: number;
  /** The 1-based line of a field inside the object (e.g. ['spec', 'clusterIP']), or of the closest parent written. */
  lineOf(path: ReadonlyArray<string | number>): number;
}

/** The files of each path: a file itself, or a directory's manifest files. */
export function manifestFiles(paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    if (p === '-') {
      out.push('-');
      continue;
    }
    if (p === '') throw new InputError('-f needs a file, a directory or - (stdin)', HINT);
    let st;
    try {
      st = statSync(p);
    } catch {
      throw new InputError(`-f ${p}: no such file or directory`, HINT);
    }
    if (!st.isDirectory()) {
      out.push(p);
      continue;
    }
    const found = filesIn(p, EXT);
    if (!found.length) throw new InputError(`-f ${p}: directory holds no .yaml, .yml or .json files`, HINT);
    out.push(...found);
  }
  return out;
}

function readText(file: string, budget: number): string {
  const { fd, size } = openRegular(file, `-f ${file}`, budget, HINT);
  try {
    const b = Buffer.alloc(size);
    return b.subarray(0, readFull(fd, b, size)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The node at path, or the deepest one on the way there that exists. */
function deepest(doc: Document, base: ReadonlyArray<string | number>, path: ReadonlyArray<string | number>): YamlNode | undefined {
  let node = doc.getIn(base, true) as YamlNode | undefined;
  for (const k of path) {
    const next = isMap(node) || isSeq(node) ? (node.get(k, true) as YamlNode | undefined) : undefined;
    if (!next) break;
    // a key's line is where it is written: for a map entry, the line of its key
    if (isMap(node)) {
      const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === k);
      const key = pair?.key as YamlNode | undefined;
      node = next;
      if (key?.range) (node as YamlNode & { keyAt?: number }).keyAt = key.range[0];
      continue;
    }
    node = next;
  }
  return node;
}

/** Parses one text (a file's or stdin's) into the objects it declares. */
export function parseManifests(text: string, file: string): Manifest[] {
  const lines = new LineCounter();
  // merge keys (`<<: *anchor`) expanded, as kubectl's YAML reader (go-yaml, YAML 1.1) does
  const docs = parseAllDocuments(text.replace(/^\uFEFF/, ''), { lineCounter: lines, prettyErrors: false, uniqueKeys: false, merge: true });
  // parseAllDocuments returns an EmptyStream for empty input: no documents
  const list = Array.isArray(docs) ? docs : [];
  const out: Manifest[] = [];
  for (const doc of list) {
    const err = doc.errors[0];
    if (err) {
      const at = lines.linePos(err.pos[0]).line;
      throw new InputError(`${file}:${at}: malformed YAML: ${err.message.split('\n')[0]}`, HINT);
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      throw new InputError(`${file}:${lines.linePos(doc.range[0]).line}: ${(e as Error).message.split('\n')[0]}`, HINT);
    }
    if (value === null || value === undefined) continue;
    const startOf = (base: ReadonlyArray<string | number>): number => {
      const n = doc.getIn(base, true) as YamlNode | undefined;
      return lines.linePos(n?.range?.[0] ?? doc.range[0]).line;
    };
    const take = (o: unknown, base: Array<string | number>): void => {
      const at = startOf(base);
      if (!isObject(o))
        throw new InputError(`${file}:${at}: expected a Kubernetes object, found ${Array.isArray(o) ? 'a list' : typeof o}`, HINT);
      if (typeof o.kind === 'string' && o.kind.endsWith('List') && Array.isArray(o.items)) {
        o.items.forEach((it, i) => take(it, [...base, 'items', i]));
        return;
      }
      const meta = o.metadata;
      if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string' || !isObject(meta) || typeof meta.name !== 'string' || !meta.name)
        throw new InputError(
          `${file}:${at}: not a Kubernetes object (needs apiVersion, kind and metadata.name)`,
          typeof (meta as { generateName?: unknown } | undefined)?.generateName === 'string'
            ? 'an object with only generateName gets a new name each time: it is always created, never changes a live one'
            : HINT,
        );
      out.push({
        object: o as unknown as KObject,
        file,
        line: at,
        lineOf: (path) => {
          const n = deepest(doc, base, path) as (YamlNode & { keyAt?: number }) | undefined;
          const pos = n?.keyAt ?? n?.range?.[0];
          return pos === undefined ? at : lines.linePos(pos).line;
        },
      });
    };
    take(value, []);
  }
  return out;
}

/** Reads every path (files, directories, "-" for stdin's text) into the objects they declare, in order. */
export function readManifests(paths: readonly string[], stdin: () => string): Manifest[] {
  const files = manifestFiles(paths);
  if (files.filter((f) => f === '-').length > 1) throw new InputError('-f - (stdin) can be given once', HINT);
  let left = MAX_MANIFEST_BYTES;
  const out: Manifest[] = [];
  for (const f of files) {
    const text = f === '-' ? stdin() : readText(f, left);
    left -= Buffer.byteLength(text);
    if (left < 0) throw new InputError(`-f: the manifests are larger than ${MAX_MANIFEST_BYTES >> 20} MiB together`, HINT);
    out.push(...parseManifests(text, f));
  }
  if (!out.length) throw new InputError(`-f ${paths.join(' ')}: no objects in the manifests`, HINT);
  return out;
}
