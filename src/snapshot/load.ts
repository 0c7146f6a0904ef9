// Load a snapshot from files: our own `kubectl arch snapshot` output, or plain `kubectl get -o yaml|json`
// output (a List, multi-document YAML, or a directory of such files). All or nothing: a malformed file
// raises an InputError naming the file and line, and no half-loaded snapshot escapes.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { InputError } from '../errors.js';
import type { KObject } from '../model.js';
import { Snapshot, SNAPSHOT_API_VERSION, type SnapshotHeader } from './snapshot.js';

const SNAPSHOT_EXT = /\.(ya?ml|json)$/i;

export function snapshotFiles(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new InputError(`snapshot ${path}: no such file or directory`);
  }
  if (!st.isDirectory()) return [path];
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (SNAPSHOT_EXT.test(e.name)) out.push(p);
    }
  };
  walk(path);
  if (out.length === 0) throw new InputError(`snapshot ${path}: directory holds no .yaml, .yml or .json files`);
  return out;
}

function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Start line (1-based) of each YAML document, for error messages about a document's content. */
function docStartLines(text: string): number[] {
  const lines = [1];
  const re = /^---/gm;
  let m: RegExpExecArray | null;
  let first = true;
  while ((m = re.exec(text))) {
    const line = lineOfOffset(text, m.index);
    if (first && text.slice(0, m.index).trim() === '') lines[0] = line;
    else lines.push(line);
    first = false;
  }
  return lines;
}

function parseFile(file: string): { docs: unknown[]; lines: number[] } {
  const text = readFileSync(file, 'utf8');
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return { docs: [JSON.parse(text)], lines: [1] };
    } catch (e) {
      const msg = (e as Error).message.split('\n')[0] ?? '';
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
  try {
    const docs: unknown[] = [];
    loadAll(text, (d) => docs.push(d));
    return { docs, lines: docStartLines(text) };
  } catch (e) {
    const ye = e as { mark?: { line?: number }; line?: number; reason?: string; message: string };
    const line = (ye.mark?.line ?? ye.line ?? 0) + 1;
    throw new InputError(`${file}:${line}: malformed YAML: ${ye.reason ?? ye.message.split('\n')[0]}`);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function loadSnapshot(path: string): Snapshot {
  const files = snapshotFiles(path);
  let header: Partial<SnapshotHeader> | undefined;
  const objects: KObject[] = [];
  const emptyLists: Array<{ group: string; kind: string }> = [];
  for (const file of files) {
    const { docs, lines } = parseFile(file);
    docs.forEach((doc, i) => {
      const where = `${file}:${lines[i] ?? 1}`;
      if (doc === null || doc === undefined) return;
      if (!isObject(doc)) throw new InputError(`${where}: expected a Kubernetes object or List, found ${Array.isArray(doc) ? 'an array' : typeof doc}`);
      const takeHeader = (h: Record<string, unknown>, at: string): void => {
        if (h.apiVersion !== SNAPSHOT_API_VERSION) {
          throw new InputError(`${at}: unsupported snapshot header apiVersion ${String(h.apiVersion)} (this version reads ${SNAPSHOT_API_VERSION})`);
        }
        header = { ...(header ?? {}), ...(h as Partial<SnapshotHeader>) };
      };
      if (doc.kind === 'SnapshotHeader') return takeHeader(doc, where);
      const add = (o: unknown, at: string): void => {
        if (isObject(o) && o.kind === 'SnapshotHeader') return takeHeader(o, at);
        if (!isObject(o) || typeof o.kind !== 'string' || !isObject(o.metadata) || typeof o.metadata.name !== 'string') {
          throw new InputError(`${at}: not a Kubernetes object (needs kind and metadata.name)`);
        }
        objects.push(o as KObject);
      };
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
    });
  }
  const snap = new Snapshot(header);
  snap.headerless = header === undefined;
  for (const l of emptyLists) snap.addList(l.group, l.kind, []);
  for (const o of objects) snap.addObject(o);
  return snap;
}
