// Field paths: what a snapshot keeps of an object is what the checks, predictions and commands declare they read
// (src/snapshot/keep.ts gathers the declarations), and nothing else. A path names a subtree:
//   metadata.name                              one field
//   spec.containers[].resources.requests.cpu   through every element of a list
//   metadata.labels                            a whole subtree (every key of the labels map)
//   metadata.annotations["k3s.io/node-args"]   one key of a map that is no plain word
//   metadata.annotations["*.io/node-args"]     the keys a pattern matches (* stands for any text)
// Projection keeps exactly the declared subtrees; a field it drops is never held in memory past the door.
import type { KObject } from '../model.js';

const WORD = /^[A-Za-z_$][\w$]*$/;

/** One key as a path writes it: `.key` (or `key` first), or `["k.y"]` when it is no plain word. */
export const segmentText = (key: string, first: boolean): string =>
  WORD.test(key) ? `${first ? '' : '.'}${key}` : `[${JSON.stringify(key)}]`;

/** A path's segments: keys, and `[]` for every element of a list. */
export function parsePath(path: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === '.') i++;
    if (path.startsWith('[]', i)) {
      out.push('[]');
      i += 2;
    } else if (path[i] === '[') {
      const end = path.indexOf('"]', i + 2);
      if (path[i + 1] !== '"' || end < 0) throw new Error(`bad field path ${path}`);
      out.push(JSON.parse(path.slice(i + 1, end + 1)) as string);
      i = end + 2;
    } else {
      const m = /^[^.[]+/.exec(path.slice(i));
      if (!m) throw new Error(`bad field path ${path}`);
      out.push(m[0]);
      i += m[0].length;
    }
  }
  return out;
}

/** The paths as a tree: each node's children by segment (a key, `[]`, or a pattern with *); `all` keeps the subtree. */
export interface FieldTree {
  all?: true;
  children: Map<string, FieldTree>;
  /** Children whose segment is a pattern (holds *), with their matcher. */
  patterns: Array<{ match: RegExp; tree: FieldTree }>;
}

const node = (): FieldTree => ({ children: new Map(), patterns: [] });
const pattern = (seg: string): RegExp =>
  new RegExp(
    `^${seg
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    's',
  );

export function fieldTree(paths: Iterable<string>): FieldTree {
  const root = node();
  for (const p of paths) {
    let at = root;
    for (const seg of parsePath(p)) {
      if (at.all) break;
      let next = at.children.get(seg);
      if (!next) {
        next = node();
        at.children.set(seg, next);
        if (seg.includes('*')) at.patterns.push({ match: pattern(seg), tree: next });
      }
      at = next;
    }
    at.all = true;
    at.children.clear();
    at.patterns = [];
  }
  return root;
}

/** The children of `t` that a key falls under. */
function under(t: FieldTree, key: string): FieldTree[] {
  const out: FieldTree[] = [];
  const exact = t.children.get(key);
  if (exact && !key.includes('*')) out.push(exact);
  for (const p of t.patterns) if (p.match.test(key)) out.push(p.tree);
  return out;
}

/** The value with only the subtrees `t` keeps (undefined when nothing of it is kept). Every object of every list
 *  page passes here: no array is made per key (measured: a third of the door's allocation was Object.entries). */
export function project(v: unknown, t: FieldTree): unknown {
  if (t.all) return v;
  if (Array.isArray(v)) {
    const el = t.children.get('[]');
    return el ? v.map((x) => project(x, el)) : undefined;
  }
  if (!v || typeof v !== 'object') return undefined;
  const out: Record<string, unknown> = {};
  let kept = false;
  let empty = true;
  const o = v as Record<string, unknown>;
  for (const k in o) {
    if (!Object.hasOwn(o, k)) continue;
    empty = false;
    let y: unknown;
    if (!t.patterns.length) {
      const c = t.children.get(k);
      if (!c || k.includes('*')) continue;
      y = project(o[k], c);
    } else {
      const ts = under(t, k);
      if (!ts.length) continue;
      y = ts.length === 1 ? project(o[k], ts[0]!) : merge(ts.map((tt) => project(o[k], tt)));
    }
    if (y !== undefined) {
      out[k] = y;
      kept = true;
    }
  }
  return kept || empty ? out : undefined;
}

/** Two projections of one value under different patterns, as one. */
function merge(vs: unknown[]): unknown {
  const defined = vs.filter((v) => v !== undefined);
  if (defined.length <= 1) return defined[0];
  if (defined.every((v) => v && typeof v === 'object' && !Array.isArray(v))) {
    const out: Record<string, unknown> = {};
    for (const v of defined as Array<Record<string, unknown>>)
      for (const [k, x] of Object.entries(v)) out[k] = k in out ? merge([out[k], x]) : x;
    return out;
  }
  return defined[0];
}

/** An object with only the declared fields (identity — apiVersion, kind, metadata.name and namespace — always). */
export function keepFields(o: KObject, t: FieldTree): KObject {
  const out = (project(o, t) ?? {}) as KObject;
  out.apiVersion = o.apiVersion;
  out.kind = o.kind;
  out.metadata = {
    ...(out.metadata ?? {}),
    name: o.metadata.name,
    ...(o.metadata.namespace !== undefined ? { namespace: o.metadata.namespace } : {}),
  };
  return out;
}

/** Whether a read path is covered by declared paths: under a declared subtree, or on the way to one (reading `spec` to
 *  get to `spec.replicas`). Reading every key of a map (`…*`) is covered by any declaration in that map: what a loop
 *  over its keys then reads is recorded key by key. */
export function covered(read: string, declared: FieldTree): boolean {
  const segs = parsePath(read);
  const walk = (t: FieldTree, i: number): boolean => {
    if (t.all || i === segs.length) return true;
    const seg = segs[i]!;
    if (seg === '*') return t.children.size > 0;
    return under(t, seg).some((c) => walk(c, i + 1));
  };
  return walk(declared, 0);
}

/** Whether a value at this path (keys, and numbers for list elements) is kept whole by the tree: what-if -f reads a
 *  difference outside it, where a snapshot's copy holds nothing, as not visible rather than as a change. */
export function keeps(t: FieldTree, path: ReadonlyArray<string | number>): boolean {
  let at: FieldTree | undefined = t;
  for (const k of path) {
    if (!at || at.all) break;
    const seg = typeof k === 'number' ? '[]' : k;
    at = at.children.get(seg) ?? at.patterns.find((p) => p.match.test(seg))?.tree;
  }
  return Boolean(at?.all);
}
