// Objects that record every field path read from them: what a check, a prediction or a command reads, to hold it to
// what it declares (src/snapshot/fields.ts). A path is written as the declarations are: `spec.containers[].name`,
// a map key that is no plain word in brackets (`metadata.annotations["k3s.io/node-args"]`), and `*` where every key
// of a map was read (Object.keys, for…in, JSON.stringify).
import type { KObject } from '../../src/model.js';
import { segmentText } from '../../src/snapshot/fields.js';
import { Snapshot } from '../../src/snapshot/snapshot.js';
import { gkKey, groupOf } from '../../src/model.js';

export type Reads = Map<string, Set<string>>;

const ARRAY_METHODS = new Set(Object.getOwnPropertyNames(Array.prototype));

function proxy(value: object, path: string, sink: Set<string>): object {
  const isArray = Array.isArray(value);
  return new Proxy(value, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver);
      if (typeof key === 'symbol') return v;
      // JSON.stringify copies (what-if's copy on write): a copy, not a read of what the check uses
      if (key === 'toJSON') return () => structuredClone(target);
      if (isArray && (key === 'length' || ARRAY_METHODS.has(key))) return v;
      if (!isArray && typeof v === 'function' && !Object.prototype.hasOwnProperty.call(target, key)) return v;
      const at = isArray && /^\d+$/.test(key) ? `${path}[]` : path + segmentText(key, path === '');
      sink.add(at);
      return v && typeof v === 'object' ? proxy(v, at, sink) : v;
    },
    has(target, key) {
      if (typeof key === 'string' && !isArray) sink.add(path + segmentText(key, path === ''));
      return Reflect.has(target, key);
    },
    ownKeys(target) {
      sink.add(isArray ? `${path}[]` : `${path}${path ? '.' : ''}*`);
      return Reflect.ownKeys(target);
    },
  });
}

/** A copy of a snapshot whose objects record their reads, per type (Kind.group), into `reads`. */
export function recording(snap: Snapshot, reads: Reads): Snapshot {
  const out = new Snapshot(snap.finalHeader());
  out.headerless = snap.headerless;
  for (const [, items] of snap.lists()) {
    const first = items[0];
    if (!first) continue;
    const gk = gkKey(groupOf(first.apiVersion), first.kind ?? '');
    let sink = reads.get(gk);
    if (!sink) reads.set(gk, (sink = new Set()));
    out.addList(
      groupOf(first.apiVersion),
      first.kind ?? '',
      items.map((o) => proxy(structuredClone(o), '', sink!) as KObject),
    );
  }
  // empty lists are captured too
  for (const k of snap.kinds())
    if (!out.kinds().includes(k)) out.addList(k.includes('.') ? k.slice(k.indexOf('.') + 1) : '', k.split('.')[0]!, []);
  return out;
}
