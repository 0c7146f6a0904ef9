// The one door of every object into a snapshot, listed from the API server or loaded from files: what a snapshot
// keeps is what the checks, predictions and commands declare they read — an allowlist, not a list of known secret
// places. Per type (src/resources.ts: each type's fields, and METADATA_FIELDS for every type, the types no check
// names too), the door
// 1. narrows a value where the type says so (a termination message cut to 2,000 characters, a ConfigMap to the keys
//    read of it by its name) and, for every type, managedFields to the entries of API versions a release removes and
//    kubectl's last-applied annotation to its apiVersion alone (metadata.lastAppliedApiVersion: lib/removed-apis.ts),
// 2. keeps exactly the declared fields (src/snapshot/fields.ts) and drops everything else — env values, commands,
//    Helm values, Argo CD sources, Secret data, whole-object annotations are never declared, so never kept,
// 3. passes every kept string through the one credential redactor (src/snapshot/redact.ts), but for identity:
//    names, namespaces, uids, labels (label values are names), owner references and finalizers.
// What is dropped here is never held past the door: the client applies it page by page.
import { gkKey, groupOf, type KObject, type Need } from '../model.js';
import { ANY_TYPE_FIELDS, CONFIGMAPS, METADATA_FIELDS, R } from '../resources.js';
import { fieldTree, keepFields, type FieldTree } from './fields.js';
import { digestOf, isDigest } from './digest.js';
import { MASK, redactArgs, redactArgsText, redactText, secretKey } from './redact.js';
import { writtenThrough } from '../lib/removed-apis.js';

interface Door {
  tree: FieldTree;
  narrow?: (o: KObject) => KObject;
}

/** Every type's door: its declared fields with those of every object. */
const DOORS = new Map<string, Door>();
for (const n of [...Object.values(R), CONFIGMAPS]) {
  const key = gkKey(n.group, n.kind);
  DOORS.set(key, { tree: fieldTree([...METADATA_FIELDS, ...(n.fields ?? [])]), ...(n.narrow ? { narrow: n.narrow } : {}) });
}
const ANY: Door = { tree: fieldTree([...METADATA_FIELDS, ...ANY_TYPE_FIELDS]) };

/** The fields kept of a type (Kind or Kind.group), for docs and tests: its own, then every object's. */
export function keptFields(group: string, kind: string): { own: readonly string[]; metadata: readonly string[] } {
  const n = [...Object.values(R), CONFIGMAPS].find((x) => x.group === group && x.kind === kind);
  return { own: n?.fields ?? [], metadata: METADATA_FIELDS };
}

/** What a snapshot keeps of a type (its door's tree): what-if -f reads a snapshot's copy of an object by it. */
export const keptTree = (group: string, kind: string): FieldTree => (DOORS.get(gkKey(group, kind)) ?? ANY).tree;

/** Metadata that names things: never redacted (a name is not a credential, and a changed name would be another object). */
const IDENTITY = new Set([
  'name',
  'namespace',
  'uid',
  'labels',
  'ownerReferences',
  'finalizers',
  'creationTimestamp',
  'deletionTimestamp',
  'resourceVersion',
  'generateName',
]);
/** Annotations that hold an argument list (K3s and RKE2 servers' flags, as JSON). */
const ARGS_ANNOTATION = /(^|\.)(k3s|rke2)\.io\/node-args$/;

/** A kept string redacted; with `digests` (what-if -f's copy of a live object, compared and never saved), a string
 *  the redactor would change becomes the salted digest of the whole of it instead (src/snapshot/digest.ts). */
function redactString(v: string, key: string, digests: boolean): string {
  if (isDigest(v)) return v;
  const r = key && secretKey(key) && v !== '' ? MASK : redactText(v);
  return digests && r !== v ? digestOf(v) : r;
}

/** A kept value with its strings redacted, and a string under a key that names a credential masked whole; an argument
 *  list (`args`, `command`) by its flags (redactArgs: the value after `--password` too). `digests`: see redactString;
 *  env values are digests then, whatever they hold. */
function redactValue(v: unknown, key = '', digests = false): unknown {
  if (typeof v === 'string') return redactString(v, key, digests);
  if (Array.isArray(v)) {
    if ((key === 'args' || key === 'command') && v.every((x) => typeof x === 'string')) {
      const masked = redactArgs(v);
      return v.map((x: string, i) =>
        isDigest(x) ? x : masked[i] === x ? redactString(x, '', digests) : digests ? digestOf(x) : masked[i],
      );
    }
    if (key === 'env' && digests)
      return v.map((e) =>
        e && typeof e === 'object' && 'value' in e
          ? {
              ...(e as object),
              value: isDigest((e as { value: unknown }).value)
                ? (e as { value: unknown }).value
                : digestOf((e as { value: unknown }).value),
            }
          : redactValue(e, '', digests),
      );
    // copy on change: a list or object nothing in which is masked is kept as it is (every object of every list
    // page passes here; a copy of each was most of what the door allocated)
    let list: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const y = redactValue(v[i], key, digests);
      if (y !== v[i]) (list ??= v.slice())[i] = y;
    }
    return list ?? v;
  }
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    let out: Record<string, unknown> | undefined;
    for (const k in o) {
      if (!Object.hasOwn(o, k)) continue;
      const y = redactValue(o[k], k, digests);
      if (y !== o[k]) (out ??= { ...o })[k] = y;
    }
    return out ?? v;
  }
  return v;
}

/** An object's kept strings through the redactor, identity left as it is (`digests`: see redactString). */
export function redactObject(o: KObject, digests = false): KObject {
  const out: KObject = { ...o, metadata: { ...o.metadata } };
  for (const [k, v] of Object.entries(o)) if (k !== 'apiVersion' && k !== 'kind' && k !== 'metadata') out[k] = redactValue(v, k, digests);
  const md = out.metadata as unknown as Record<string, unknown>;
  for (const [k, v] of Object.entries(o.metadata)) {
    if (IDENTITY.has(k)) continue;
    if (k === 'annotations' && v && typeof v === 'object') {
      const a: Record<string, unknown> = {};
      for (const [ak, av] of Object.entries(v as Record<string, unknown>))
        a[ak] =
          typeof av === 'string' && ak === LAST_APPLIED && digests
            ? (skeletonOf(av) ?? digestOf(av))
            : typeof av === 'string' && ARGS_ANNOTATION.test(ak)
              ? redactArgsText(av)
              : redactValue(av, ak, digests);
      md[k] = a;
    } else md[k] = redactValue(v, k, digests);
  }
  return out;
}

/** The doors of one run: each type's own (resources.ts: what every built-in reader declares, so a file loaded
 *  without a command still serves every check), widened by the fields the run's readers declare in their needs (a
 *  check added since keeps what it reads). */
export type Doors = Map<string, Door>;

export function doorsFor(needs: ReadonlyArray<Pick<Need, 'group' | 'kind' | 'fields'>>): Doors {
  const extra = new Map<string, string[]>();
  for (const n of needs) {
    if (!n.fields?.length || n.kind === '*') continue;
    const k = gkKey(n.group, n.kind);
    extra.set(k, [...(extra.get(k) ?? []), ...n.fields]);
  }
  const out: Doors = new Map(DOORS);
  for (const [k, fields] of extra) {
    const base = [...Object.values(R), CONFIGMAPS].find((n) => gkKey(n.group, n.kind) === k);
    const narrow = DOORS.get(k)?.narrow;
    out.set(k, { tree: fieldTree([...METADATA_FIELDS, ...(base?.fields ?? ANY_TYPE_FIELDS), ...fields]), ...(narrow ? { narrow } : {}) });
  }
  return out;
}

/** One object as it enters a snapshot: its type's declared fields, redacted. */
export function ingest(o: KObject, doors: Doors = DOORS): KObject {
  const door = doors.get(gkKey(groupOf(o.apiVersion), o.kind ?? '')) ?? ANY;
  // every type: managedFields narrowed to removed versions, last-applied to its apiVersion (lib/removed-apis.ts)
  return redactObject(keepFields(writtenThrough(door.narrow ? door.narrow(o) : o), door.tree));
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** A JSON document with every string in it (keys kept) a digest; undefined when it is not JSON. */
export function skeletonOf(json: string): string | undefined {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return undefined;
  }
  const walk = (x: unknown): unknown =>
    typeof x === 'string'
      ? isDigest(x)
        ? x
        : digestOf(x)
      : Array.isArray(x)
        ? x.map(walk)
        : x && typeof x === 'object'
          ? Object.fromEntries(Object.entries(x as Record<string, unknown>).map(([k, y]) => [k, walk(y)]))
          : x;
  return JSON.stringify(walk(v));
}

/** An object read whole for what-if -f by its own GET (compared with a manifest field by field; never saved in a
 *  snapshot): a Secret's data dropped; every string the redactor would change, and every env value, as a salted
 *  digest (whether it changed is known, what it holds is not); the last apply's copy as a skeleton of digests (a
 *  three-way apply removes what it wrote before); of managedFields, the appliers' field sets (server-side apply
 *  removes what a manager applied before and applies no more). */
export function scrubWhole(o: KObject): KObject {
  const md = { ...o.metadata } as KObject['metadata'] & { managedFields?: unknown };
  if (Array.isArray(md.managedFields))
    md.managedFields = (md.managedFields as Array<Record<string, unknown>>)
      .filter((m) => m?.operation === 'Apply')
      .map((m) => ({
        manager: m.manager,
        operation: m.operation,
        apiVersion: m.apiVersion,
        fieldsType: m.fieldsType,
        fieldsV1: m.fieldsV1,
      }));
  else delete md.managedFields;
  const copy: KObject = { ...o, metadata: md };
  if (o.kind === 'Secret' && groupOf(o.apiVersion) === '') {
    delete copy.data;
    delete copy.stringData;
  }
  return redactObject(copy, true);
}

export { MASK };
