// What changed between the live object and the object the API server would receive: every leaf that differs, the
// way the server compares them (apimachinery's semantic equality: a nil and an empty list or map are equal, quantities
// by value), with the snapshot's masks and digests read for what they are — a digest says whether a value changed
// without holding it (src/snapshot/scrub.ts), a bare mask says nothing.
import { digestMatches, isDigest, MASK } from '../../snapshot/digest.js';

export type Path = ReadonlyArray<string | number>;
export interface Difference {
  path: Path;
  old: unknown;
  new: unknown;
  /** The live value is masked (no digest): whether it changed is not known. */
  masked?: boolean;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const emptyish = (v: unknown): boolean =>
  v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (isObj(v) && Object.keys(v).length === 0);

const UNITS: Record<string, number> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
/** A resource quantity ("10Gi", "500m", "1e3", 2) as a number; undefined when it is not one. */
export function quantity(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return undefined;
  const m = /^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)(|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)$/.exec(v.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  return Number.isFinite(n) ? n * UNITS[m[2]!]! : undefined;
}

/** Maps whose values are quantities ("1Gi" and "1024Mi" are one value). */
const QUANTITY_MAPS = /^(requests|limits|capacity|allocatable|hard|used|podFixed|default|defaultRequest|max|min|maxLimitRequestRatio)$/;

/** Is this leaf (under that parent key) the same on both sides? 'masked' when the live one is masked without a digest. */
export function sameLeaf(live: unknown, next: unknown, parent: string): boolean | 'masked' {
  if (isDigest(live)) return isDigest(next) ? live === next : digestMatches(live, next)!;
  if (typeof live === 'string' && live.startsWith(MASK)) return next === live ? true : 'masked';
  if (QUANTITY_MAPS.test(parent) || parent === 'storage' || parent === 'capacity') {
    const a = quantity(live);
    const b = quantity(next);
    if (a !== undefined && b !== undefined) return a === b;
  }
  // an empty string is what Go holds for a string left out
  if ((live === '' && next === undefined) || (live === undefined && next === '')) return true;
  return live === next;
}

/** Every leaf where `next` differs from `live` (arrays of another length differ as a whole). */
export function differences(live: unknown, next: unknown, path: Path = [], parent = ''): Difference[] {
  if (emptyish(live) && emptyish(next)) return [];
  // a whole map or list kept as one digest (a ControllerRevision's data)
  if (isDigest(live) && typeof next !== 'string') return digestMatches(live, next) ? [] : [{ path, old: live, new: next }];
  // a map on one side only: its leaves differ one by one (a node affinity added where there was no affinity)
  if ((isObj(live) && (isObj(next) || next === undefined || next === null)) || (isObj(next) && (live === undefined || live === null))) {
    if (!isObj(live)) live = {};
    if (!isObj(next)) next = {};
    const out: Difference[] = [];
    const keys = new Set([...Object.keys(live as Record<string, unknown>), ...Object.keys(next as Record<string, unknown>)]);
    for (const k of [...keys].sort())
      out.push(...differences((live as Record<string, unknown>)[k], (next as Record<string, unknown>)[k], [...path, k], k));
    return out;
  }
  if (Array.isArray(live) && Array.isArray(next)) {
    if (live.length !== next.length) return [{ path, old: live, new: next }];
    const out: Difference[] = [];
    for (let i = 0; i < live.length; i++) out.push(...differences(live[i], next[i], [...path, i], parent));
    return out;
  }
  if (isObj(live) || isObj(next) || Array.isArray(live) || Array.isArray(next)) {
    // a masked map or list stays unknown; otherwise a change of shape is a change
    return [{ path, old: live, new: next }];
  }
  const same = sameLeaf(live, next, parent);
  if (same === true) return [];
  return [{ path, old: live, new: next, ...(same === 'masked' ? { masked: true } : {}) }];
}

/** Are two values the same (differences() finds nothing known to differ)? 'masked' when only masked leaves might. */
export function same(live: unknown, next: unknown, parent = ''): boolean | 'masked' {
  const d = differences(live, next, [], parent);
  if (!d.length) return true;
  return d.every((x) => x.masked) ? 'masked' : false;
}

export const pathText = (p: Path): string => p.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');

export function valueAt(o: unknown, path: Path): unknown {
  let cur: unknown = o;
  for (const k of path) cur = isObj(cur) || Array.isArray(cur) ? (cur as Record<string | number, unknown>)[k] : undefined;
  return cur;
}

/** Does a path fall under a pattern ("spec.template", "spec.containers[*].image", "metadata.labels")? */
export function under(path: Path, pattern: string): boolean {
  const parts = pattern.split('.').flatMap((p) => {
    const m = /^([^[]+)((?:\[[^\]]*\])*)$/.exec(p);
    if (!m) return [p];
    const idx = [...m[2]!.matchAll(/\[([^\]]*)\]/g)].map((x) => (x[1] === '*' ? '*' : Number(x[1])));
    return [m[1]!, ...idx];
  });
  if (path.length < parts.length) return false;
  return parts.every((p, i) => p === '*' || p === path[i]);
}

/** A short text of a value for a message (the live and the new one). */
export function shortJson(v: unknown): string {
  if (v === undefined) return '(not set)';
  if (isDigest(v)) return '(a value the snapshot keeps as a digest)';
  const t = typeof v === 'string' ? v : JSON.stringify(v);
  return t.length > 120 ? `${t.slice(0, 117)}…` : t;
}
