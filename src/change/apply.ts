// The object the API server receives, by how the change is applied (#45): the manifest alone decides nothing — a
// field it leaves out may stay (a patch), go (a replace, or a three-way apply that wrote it last time), or come back
// (the server's defaults, src/change/defaults.ts). The modes, as their tools compute them:
// - client-side: `kubectl apply`, Argo CD's default sync: a three-way strategic merge of the last-applied annotation
//   (what the previous apply wrote), the manifest and the live object (k8s.io/apimachinery strategicpatch
//   CreateThreeWayMergePatch, with the built-in types' merge keys and retainKeys).
// - server-side: `kubectl apply --server-side`, Flux, Argo CD ServerSideApply=true: the manifest's fields set, lists
//   merged by their keys, and what this manager applied before and applies no more removed (its managedFields).
// - replace: `kubectl replace`, Argo CD Replace=true: the manifest is the whole object.
// - helm: Helm's three-way patch against its previous release manifest, which lives in a Secret never read here: the
//   manifest's fields set, nothing it dropped since the last release is known (said so).
// - wrangler: the K3s/RKE2 deploy and helm controllers (wrangler's apply): three-way, its last applied object in the
//   objectset.rio.cattle.io/applied annotation.
// Proven against real `kubectl apply` (client-side and --server-side) in e2e/apply.e2e.test.ts.
import { keeps, type FieldTree } from '../snapshot/fields.js';
import { gunzipSync } from 'node:zlib';
import type { KObject } from '../model.js';
import { digestMatches, isDigest } from '../snapshot/digest.js';
import { withDefaults } from './defaults.js';

export type ApplyMode = 'client-side' | 'server-side' | 'replace' | 'helm' | 'wrangler';
export const APPLY_MODES: readonly ApplyMode[] = ['client-side', 'server-side', 'replace', 'helm', 'wrangler'];

export interface Received {
  /** The object the API server validates (defaults filled in). */
  object: KObject;
  mode: ApplyMode;
  /** What could not be known about it (a previous apply not visible), in words. */
  notes: string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

/** Strategic merge: how a list is merged, by its field name and its parent's (the built-in types' patch tags). */
function mergeKeyOf(key: string, parent: string): string | 'primitive' | undefined {
  switch (key) {
    case 'containers':
    case 'initContainers':
    case 'ephemeralContainers':
    case 'env':
    case 'volumes':
    case 'imagePullSecrets':
    case 'schedulingGates':
    case 'resourceClaims':
    case 'webhooks':
    case 'matchConditions':
    case 'secrets':
    case 'drivers':
      return 'name';
    case 'volumeMounts':
      return 'mountPath';
    case 'volumeDevices':
      return 'devicePath';
    case 'hostAliases':
      return 'ip';
    case 'topologySpreadConstraints':
      return 'topologyKey';
    case 'ports':
      return parent === 'spec'
        ? 'port'
        : ['containers', 'initContainers', 'ephemeralContainers'].includes(parent)
          ? 'containerPort'
          : undefined;
    case 'finalizers':
      return 'primitive';
    default:
      return undefined;
  }
}
/** Maps whose keys the manifest lists are the only ones kept (patchStrategy retainKeys). */
const RETAIN_KEYS = (key: string, parent: string): boolean =>
  (key === 'strategy' && parent === 'spec') || (key === 'volumes' && parent === 'spec');

/** Are these two merge-key values the same (the original may hold digests)? */
const keyEq = (a: unknown, b: unknown): boolean => (isDigest(a) ? digestMatches(a, b) === true : JSON.stringify(a) === JSON.stringify(b));

/**
 * Three-way strategic merge: `current` changed so that what `modified` sets is set, and what `original` set that
 * `modified` no longer sets is removed (original undefined: nothing is removed — a first apply, or one not visible).
 */
export function threeWay(original: unknown, modified: unknown, current: unknown, key = '', parent = ''): unknown {
  if (modified === null) return undefined;
  if (isObj(modified)) {
    const cur = isObj(current) ? clone(current) : {};
    const orig = isObj(original) ? original : undefined;
    const out: Obj = RETAIN_KEYS(key, parent) ? Object.fromEntries(Object.entries(cur).filter(([k]) => k in modified)) : cur;
    for (const [k, v] of Object.entries(modified)) {
      const merged = threeWay(orig?.[k], v, cur[k], k, key);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    }
    if (orig) for (const k of Object.keys(orig)) if (!(k in modified)) delete out[k];
    return out;
  }
  if (Array.isArray(modified)) {
    const mk = mergeKeyOf(key, parent);
    if (!mk || !Array.isArray(current)) return clone(modified);
    const orig = Array.isArray(original) ? original : [];
    if (mk === 'primitive') {
      const out = (current as unknown[]).filter(
        (x) => !orig.some((o) => keyEq(o, x)) || modified.some((m) => JSON.stringify(m) === JSON.stringify(x)),
      );
      for (const m of modified) if (!out.some((x) => JSON.stringify(x) === JSON.stringify(m))) out.push(m);
      return out;
    }
    const kv = (x: unknown): unknown => (isObj(x) ? x[mk] : undefined);
    // modified's order first (kubectl's $setElementOrder), then what only the live object has and no apply removed
    const out: unknown[] = [];
    for (const m of modified) {
      const c = (current as unknown[]).find((x) => keyEq(kv(x), kv(m)));
      const o = orig.find((x) => keyEq(kv(x), kv(m)));
      out.push(threeWay(o, m, c, key, parent));
    }
    for (const c of current as unknown[]) {
      if (modified.some((m) => keyEq(kv(c), kv(m)))) continue;
      if (orig.some((o) => keyEq(kv(o), kv(c)))) continue; // applied before, not now: removed
      out.push(clone(c));
    }
    return out;
  }
  return modified;
}

// ---- server-side apply: managedFields (fieldsV1) of the manager, to know what it applied before

type FieldSet = Map<string, FieldSet>;
function parseFields(v: unknown): FieldSet {
  const m: FieldSet = new Map();
  if (!isObj(v)) return m;
  for (const [k, x] of Object.entries(v)) if (k !== '.') m.set(k, parseFields(x));
  return m;
}
/** The fieldsV1 key of a list item as SSA names it: by its keys (k:{…}), its value (v:…), or its index. */
function itemKey(item: unknown, key: string, parent: string): string | undefined {
  if (!isObj(item)) return `v:${JSON.stringify(item)}`;
  const mk = mergeKeyOf(key, parent);
  if (mk === 'name' || mk === 'mountPath' || mk === 'devicePath' || mk === 'ip' || mk === 'topologyKey')
    return `k:${JSON.stringify({ [mk]: item[mk] })}`;
  if (mk === 'port' || mk === 'containerPort') return `k:${JSON.stringify({ [mk]: item[mk], protocol: item.protocol ?? 'TCP' })}`;
  return undefined;
}

/** Removes from `out` what `before` (the manager's previous apply) holds and `now` (the manifest) does not, unless
 *  another manager owns it too. */
function removeDropped(out: unknown, now: unknown, before: FieldSet, others: FieldSet[], key = '', parent = ''): unknown {
  if (isObj(out)) {
    const n = isObj(now) ? now : {};
    for (const [fk, sub] of before) {
      if (!fk.startsWith('f:')) continue;
      const k = fk.slice(2);
      const owned = others.map((o) => o.get(fk)).filter((x): x is FieldSet => x !== undefined);
      if (!(k in n)) {
        if (!owned.length) delete out[k];
        continue;
      }
      if (sub.size) out[k] = removeDropped(out[k], n[k], sub, owned, k, key);
    }
    return out;
  }
  if (Array.isArray(out) && Array.isArray(now)) {
    const nowKeys = now.map((x) => itemKey(x, key, parent));
    const kept = out.filter((x) => {
      const ik = itemKey(x, key, parent);
      if (!ik || !before.has(ik) || nowKeys.includes(ik)) return true;
      return others.some((o) => o.has(ik));
    });
    return kept.map((x) => {
      const ik = itemKey(x, key, parent);
      const sub = ik ? before.get(ik) : undefined;
      const n = now.find((y) => itemKey(y, key, parent) === ik);
      return sub && n
        ? removeDropped(
            x,
            n,
            sub,
            others.map((o) => o.get(ik!)).filter((y): y is FieldSet => y !== undefined),
            key,
            parent,
          )
        : x;
    });
  }
  return out;
}

/** The last applied object of a three-way apply: kubectl's annotation, or wrangler's (gzip+base64 when large). */
function lastApplied(live: KObject, mode: ApplyMode, seen: (path: string[]) => boolean): Obj | undefined {
  const key = mode === 'wrangler' ? 'objectset.rio.cattle.io/applied' : 'kubectl.kubernetes.io/last-applied-configuration';
  if (!seen(['metadata', 'annotations', key])) return undefined;
  const text = (live.metadata.annotations ?? {})[key];
  if (typeof text !== 'string' || !text) return undefined;
  try {
    const json = text.startsWith('H4sI') ? gunzipSync(Buffer.from(text, 'base64')).toString('utf8') : text;
    const v = JSON.parse(json) as unknown;
    return isObj(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

const MANAGERS: Partial<Record<ApplyMode, string>> = { 'server-side': 'kubectl' };

/** The object the API server would receive and validate when `manifest` is applied over `live` this way. `kept`: the
 *  live object is a snapshot's copy that keeps only these fields (src/snapshot/scrub.ts keptTree) — what it does not
 *  keep (a last-applied copy, managedFields) is not read, and said so; undefined: read whole by its own GET. */
export function receive(manifest: KObject, live: KObject, mode: ApplyMode, manager = MANAGERS[mode], kept?: FieldTree): Received {
  const notes: string[] = [];
  const seen = (path: string[]): boolean => !kept || keeps(kept, path);
  let object: KObject;
  switch (mode) {
    case 'replace':
      object = clone(manifest);
      break;
    case 'server-side': {
      const merged = threeWay(undefined, manifest, live) as KObject;
      const mf = seen(['metadata', 'managedFields']) ? (live.metadata as { managedFields?: Array<Obj> }).managedFields : undefined;
      const mine = (mf ?? []).find((m) => m.manager === manager && m.operation === 'Apply');
      if (!mf)
        notes.push(
          kept
            ? "a snapshot keeps no object's managedFields: fields the manifest no longer sets are assumed to stay"
            : 'the fields managers own were not visible: fields the manifest no longer sets are assumed to stay',
        );
      else if (mine) {
        const others = (mf ?? []).filter((m) => m !== mine).map((m) => parseFields(m.fieldsV1));
        removeDropped(merged, manifest, parseFields(mine.fieldsV1), others);
      }
      object = merged;
      break;
    }
    case 'helm':
      object = threeWay(undefined, manifest, live) as KObject;
      notes.push(
        "Helm's previous release manifest is in a Secret (never read): fields it set that this one drops are not known, and assumed to stay",
      );
      break;
    default: {
      const original = lastApplied(live, mode, seen);
      if (!original)
        notes.push(
          !seen([
            'metadata',
            'annotations',
            mode === 'wrangler' ? 'objectset.rio.cattle.io/applied' : 'kubectl.kubernetes.io/last-applied-configuration',
          ])
            ? 'a snapshot keeps no last-applied copy of this kind: fields the manifest no longer sets are assumed to stay'
            : mode === 'wrangler'
              ? 'no objectset.rio.cattle.io/applied annotation: fields the manifest no longer sets are assumed to stay'
              : 'no last-applied-configuration annotation (never applied with kubectl apply): fields the manifest no longer sets stay',
        );
      object = threeWay(original, manifest, live) as KObject;
    }
  }
  // identity and the server's own metadata come from the live object, whatever the manifest says
  object.metadata = {
    ...object.metadata,
    uid: live.metadata.uid,
    ...(seen(['metadata', 'resourceVersion']) ? { resourceVersion: live.metadata.resourceVersion } : {}),
  };
  return { object: withDefaults(object), mode, notes };
}
