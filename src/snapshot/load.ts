// Load a snapshot from files: our own `kubectl arch snapshot` output, or plain `kubectl get -o yaml|json`
// output (a List, multi-document YAML, or a directory of such files). All or nothing: a malformed file
// raises an InputError naming the file and line, and no half-loaded snapshot escapes.
//
// Hostile or damaged input is bounded: YAML is read in chunks and parsed one document at a time (a
// large snapshot never exists as one parse tree), aliases are capped and their expansion measured (an
// alias bomb is rejected, not expanded), objects are checked for the shapes checks read, duplicates are
// counted once, and a snapshot whose header promises an end marker without one (an interrupted write)
// is rejected instead of loading as an empty, "healthy" cluster.
import { closeSync, readSync, statSync } from 'node:fs';
import { filesIn, openRegular, readFull } from '../lib/files.js';
import { load } from 'js-yaml';
import { InputError } from '../errors.js';
import type { KObject, Need } from '../model.js';
import { Snapshot, SNAPSHOT_API_VERSION, SNAPSHOT_END_KIND, type SnapshotHeader } from './snapshot.js';
import { shapeProblem } from './validate.js';
import { doorsFor, ingest } from './scrub.js';
import { exampleFiles } from './example-files.js';
import { isExample } from './examples.js';

const SNAPSHOT_EXT = /\.(ya?ml|json)$/i;
/** JSON cannot be parsed in pieces; V8 strings stop at ~512 MiB. */
export const MAX_JSON_BYTES = 400 * 1024 * 1024;
/** A YAML file is read a document at a time; past this size it is not a capture (a capture of 50,000 objects is about
 *  100 MiB). */
export const MAX_YAML_BYTES = 4 * 1024 * 1024 * 1024;
const HINT = 'a snapshot is read from regular files only (what kubectl arch snapshot or kubectl get -o yaml|json writes)';
/** Aliases per YAML document (kubectl never writes any; a person may write a few). */
const MAX_ALIASES = 200;
/** Nodes an alias-using document may expand to, beyond its own size. */
const MAX_EXPANDED_NODES = 1_000_000;
const CHUNK = 1 << 20;

export function snapshotFiles(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new InputError(`snapshot ${path}: no such file or directory`);
  }
  if (!st.isDirectory()) return [path];
  const out = filesIn(path, SNAPSHOT_EXT);
  if (out.length === 0) throw new InputError(`snapshot ${path}: directory holds no .yaml, .yml or .json files`);
  return out;
}

function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

interface Doc {
  text: string;
  line: number;
}

/**
 * YAML documents of a file, read in chunks. A line starting with `---` or `...` ends a document:
 * YAML forbids such lines inside content, so the split is the one a YAML parser makes.
 */
function* yamlDocuments(file: string): Generator<Doc> {
  const { fd, size } = openRegular(file, `snapshot ${file}`, MAX_YAML_BYTES, HINT);
  let left = size;
  try {
    const buf = Buffer.alloc(CHUNK);
    let pending = '';
    let cur: string[] = [];
    let curLine = 1;
    let lineNo = 0;
    let first = true;
    const emit = (): Doc | null => {
      const text = cur.join('\n');
      cur = [];
      return text.trim() === '' ? null : { text, line: curLine };
    };
    const decoder = new TextDecoder('utf-8');
    for (;;) {
      const n = left > 0 ? readSync(fd, buf, 0, Math.min(CHUNK, left), null) : 0;
      left -= Math.max(n, 0);
      let chunk = n > 0 ? decoder.decode(buf.subarray(0, n), { stream: true }) : decoder.decode();
      if (first) {
        chunk = chunk.replace(/^\uFEFF/, '');
        first = false;
      }
      pending += chunk;
      const lines = pending.split('\n');
      pending = n > 0 ? lines.pop()! : '';
      for (const l of lines) {
        lineNo++;
        if (l.startsWith('---') || l.startsWith('...')) {
          const d = emit();
          if (d) yield d;
          curLine = lineNo;
          // `--- {inline: content}` starts the next document on the marker line
          const rest = l.startsWith('---') ? l.slice(3) : '';
          if (rest.trim() && !rest.trim().startsWith('#')) cur.push(' '.repeat(3) + rest);
          else cur.push('');
          continue;
        }
        if (cur.length === 0) curLine = lineNo;
        cur.push(l);
      }
      if (n <= 0) break;
    }
    const d = emit();
    if (d) yield d;
  } finally {
    closeSync(fd);
  }
}

/** Nodes a value expands to when every alias is copied; stops counting past limit. */
function expandedSize(v: unknown, limit: number, memo = new Map<object, number>()): number {
  if (v === null || typeof v !== 'object') return 1;
  const m = memo.get(v);
  if (m !== undefined) return m;
  memo.set(v, 1); // cycles (recursive aliases) count once
  let n = 1;
  for (const x of Array.isArray(v) ? v : Object.values(v)) {
    n += expandedSize(x, limit, memo);
    if (n > limit) break;
  }
  memo.set(v, n);
  return n;
}

function parseYamlDoc(file: string, d: Doc): unknown {
  try {
    // a document that is plain JSON (our saver's fallback for huge values) parses without recursion limits
    const t = d.text.trimStart();
    if (t.startsWith('{')) {
      try {
        return JSON.parse(d.text);
      } catch {
        /* not JSON after all: YAML flow mapping */
      }
    }
    const v = load(d.text, { maxAliases: MAX_ALIASES });
    if (d.text.includes('*') && expandedSize(v, MAX_EXPANDED_NODES + d.text.length) > MAX_EXPANDED_NODES + d.text.length) {
      throw new InputError(
        `${file}:${d.line}: YAML aliases expand to more than ${MAX_EXPANDED_NODES} nodes (an alias bomb?); kubectl never writes aliases`,
      );
    }
    return v;
  } catch (e) {
    if (e instanceof InputError) throw e;
    const ye = e as { mark?: { line?: number }; line?: number; reason?: string; message: string };
    if (e instanceof RangeError) throw new InputError(`${file}:${d.line}: document nests too deeply to read`);
    const line = d.line + (ye.mark?.line ?? ye.line ?? 0);
    throw new InputError(`${file}:${line}: malformed YAML: ${ye.reason ?? ye.message.split('\n')[0]}`);
  }
}

function parseJsonFile(file: string): Doc & { value: unknown } {
  const { fd, size } = openRegular(
    file,
    `snapshot ${file}`,
    MAX_JSON_BYTES,
    'save large snapshots as YAML (kubectl arch snapshot without -o json), which is read one document at a time',
  );
  let text: string;
  try {
    const b = Buffer.alloc(size);
    text = b
      .subarray(0, readFull(fd, b, size))
      .toString('utf8')
      .replace(/^\uFEFF/, '');
  } finally {
    closeSync(fd);
  }
  return parseJsonText(file, text);
}

function parseJsonText(file: string, text: string): Doc & { value: unknown } {
  try {
    return { text: '', line: 1, value: JSON.parse(text) };
  } catch (e) {
    const msg = (e as Error).message.split('\n')[0] ?? '';
    if (e instanceof RangeError) throw new InputError(`${file}: JSON nests too deeply to read`);
    const pos = /position (\d+)/.exec(msg);
    const lm = /line (\d+)/.exec(msg);
    let line = lm ? Number(lm[1]) : pos ? lineOfOffset(text, Number(pos[1])) : 0;
    if (!line) {
      // V8 quotes the text around the error instead of giving a position: find that text
      // (up to 10 characters before the error, marked with "..." when cut)
      const ctx = /"(\.\.\.)?([\s\S]*?)(?:\.\.\.)?" is not valid JSON/.exec((e as Error).message);
      const at = ctx && ctx[2] ? text.indexOf(ctx[2]) : -1;
      if (at >= 0) line = lineOfOffset(text, at + (ctx![1] ? 10 : 0));
    }
    throw new InputError(`${file}:${line || lineOfOffset(text, text.length)}: malformed JSON: ${msg}`);
  }
}

/** The documents of one file, each parsed when asked for, with the line it starts on. */
function* fileDocuments(file: string, embedded?: string): Generator<{ parse: () => unknown; line: number }> {
  // an embedded example's file (src/snapshot/examples.ts: JSON only)
  if (embedded !== undefined) {
    const j = parseJsonText(file, embedded);
    yield { parse: () => j.value, line: 1 };
    return;
  }
  // .json files are one JSON text; YAML files are split into documents, each of which may be JSON
  if (/\.json$/i.test(file)) {
    const j = parseJsonFile(file);
    yield { parse: () => j.value, line: 1 };
    return;
  }
  for (const d of yamlDocuments(file)) yield { parse: () => parseYamlDoc(file, d), line: d.line };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Loads a snapshot: a file, a directory of files, or an example embedded in the CLI (`example:<name>`). Each object
 *  passes the one door (scrub.ts): with `needs`, it keeps what those readers declare too. */
export function loadSnapshot(path: string, needs: ReadonlyArray<Pick<Need, 'group' | 'kind' | 'fields'>> = []): Snapshot {
  const doors = doorsFor(needs);
  const example = isExample(path) ? exampleFiles(path) : undefined;
  const texts = new Map(example?.map((f) => [f.name, f.text]));
  const files = example ? example.map((f) => f.name) : snapshotFiles(path);
  let header: Partial<SnapshotHeader> | undefined;
  const objects: KObject[] = [];
  let sawManagedFields = false;
  const emptyLists: Array<{ group: string; kind: string }> = [];
  for (const file of files) {
    let promisesEnd = false;
    let sawEnd = false;
    const take = (doc: unknown, line: number): void => {
      const where = `${file}:${line}`;
      if (doc === null || doc === undefined) return;
      if (!isObject(doc))
        throw new InputError(`${where}: expected a Kubernetes object or List, found ${Array.isArray(doc) ? 'an array' : typeof doc}`);
      const takeHeader = (h: Record<string, unknown>, at: string): void => {
        if (h.apiVersion !== SNAPSHOT_API_VERSION) {
          throw new InputError(
            `${at}: unsupported snapshot header apiVersion ${String(h.apiVersion)} (this version reads ${SNAPSHOT_API_VERSION})`,
          );
        }
        for (const k of ['captured', 'unavailable'] as const) {
          if (h[k] !== undefined && !Array.isArray(h[k])) throw new InputError(`${at}: snapshot header field ${k} must be a list`);
        }
        if (h.endMarker === true) promisesEnd = true;
        const { endMarker: _e, apiVersion: _a, kind: _k, ...rest } = h;
        header = { ...(header ?? {}), ...(rest as Partial<SnapshotHeader>) };
      };
      const add = (o: unknown, at: string): void => {
        if (isObject(o) && o.kind === 'SnapshotHeader') return takeHeader(o, at);
        if (isObject(o) && o.kind === SNAPSHOT_END_KIND && o.apiVersion === SNAPSHOT_API_VERSION) {
          sawEnd = true;
          return;
        }
        if (!isObject(o) || typeof o.kind !== 'string' || !isObject(o.metadata) || typeof o.metadata.name !== 'string') {
          throw new InputError(`${at}: not a Kubernetes object (needs kind and metadata.name)`);
        }
        const problem = shapeProblem(o);
        if (problem) {
          const ns = isObject(o.metadata) && typeof o.metadata.namespace === 'string' ? `${o.metadata.namespace}/` : '';
          throw new InputError(`${at}: ${o.kind} ${ns}${String((o.metadata as Record<string, unknown>).name)}: ${problem}`);
        }
        if (Array.isArray((o.metadata as Record<string, unknown>).managedFields)) sawManagedFields = true;
        objects.push(ingest(o as KObject, doors));
      };
      if (doc.kind === 'SnapshotHeader') {
        takeHeader(doc, where);
        return;
      }
      if (typeof doc.kind === 'string' && doc.kind.endsWith('List') && Array.isArray(doc.items)) {
        const items = doc.items as unknown[];
        items.forEach((it, j) => add(it, `${where} (item ${j})`));
        // our own saver records the type of an empty list so "none exist" survives a round trip
        const listOf = isObject(doc.metadata) ? (doc.metadata as Record<string, unknown>)['kubectl-arch/kind'] : undefined;
        if (items.length === 0 && typeof listOf === 'string') {
          const dot = listOf.indexOf('.');
          emptyLists.push(dot < 0 ? { group: '', kind: listOf } : { group: listOf.slice(dot + 1), kind: listOf.slice(0, dot) });
        }
        return;
      }
      add(doc, where);
    };
    // a document that fails after the header promised an end marker may be where the capture was cut: held until
    // the next document proves the file goes on (then it is the error), or the file ends without the marker
    let held: unknown;
    for (const { parse, line } of fileDocuments(file, texts.get(file))) {
      if (held) throw held;
      try {
        take(parse(), line);
      } catch (e) {
        if (!(e instanceof InputError) || !promisesEnd || sawEnd) throw e;
        held = e;
      }
    }
    if (promisesEnd && !sawEnd) {
      throw new InputError(
        `${file}: incomplete snapshot: the end marker is missing (the capture was interrupted or the file was cut)`,
        'capture it again with kubectl arch snapshot',
      );
    }
  }
  const snap = new Snapshot(header);
  snap.headerless = header === undefined;
  // plain kubectl output read with --show-managed-fields says how its objects were written
  if (sawManagedFields && !snap.header.writtenAs) snap.header.writtenAs = 'managedFields';
  for (const l of emptyLists) snap.addList(l.group, l.kind, []);
  for (const o of objects) snap.addObject(o);
  return snap;
}
