// The table of API versions releases stop serving (./api-removals.ts, generated from the types' own lifecycle tags),
// looked up by kind, and what an object says about who writes it through one of them: each managedFields entry
// records the apiVersion of the request that wrote it (and its manager), and kubectl's last-applied-configuration
// annotation the apiVersion of the manifest last applied. A snapshot keeps of them only what is declared
// (resources.ts WRITTEN_FIELDS) and only where some release removes that version for the object's kind: the door
// (src/snapshot/scrub.ts) narrows managedFields to those entries and computes metadata.lastAppliedApiVersion from the
// annotation, which is never kept (it is the whole manifest, env values and secrets included).
import { API_REMOVALS, type ApiRemoval } from './api-removals.js';

export { API_REMOVALS, REMOVALS_KNOWN_TO, type ApiRemoval } from './api-removals.js';

/** One way an object was written through a removed version. */
export interface WrittenAs {
  apiVersion: string;
  /** managedFields: a manager's last write through it; last-applied: the manifest kubectl apply last applied. */
  via: 'managedFields' | 'last-applied';
  manager?: string;
  operation?: string;
  time?: string;
}

const gvk = (apiVersion: string, kind: string): string => `${apiVersion}/${kind}`;
const apiVersionOf = (r: Pick<ApiRemoval, 'group' | 'version'>): string => (r.group ? `${r.group}/${r.version}` : r.version);
const BY_GVK = new Map(API_REMOVALS.map((r) => [gvk(apiVersionOf(r), r.kind), r] as const));

/** The removal of this kind at this apiVersion, if a release removes it. */
export const removalOf = (apiVersion: string, kind: string): ApiRemoval | undefined => BY_GVK.get(gvk(apiVersion, kind));

export { apiVersionOf };

const API_VERSION = /^([a-z0-9][a-z0-9.-]*\/)?v\d+[a-z0-9]*$/;
const MAX_MANAGER = 128;
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

const str = (x: unknown, max: number): string | undefined => (typeof x === 'string' && x.length <= max ? x : undefined);
/** A well-formed apiVersion that some release removes for this kind. */
const removedFor = (v: unknown, kind: string): v is string =>
  typeof v === 'string' && API_VERSION.test(v) && removalOf(v, kind) !== undefined;

interface Written {
  kind?: string;
  metadata?: { managedFields?: unknown; annotations?: Record<string, unknown> | null; lastAppliedApiVersion?: unknown };
}

/** At the door, before the projection (files are hostile input, and a snapshot file saved by this tool comes through
 *  it again): managedFields narrowed to the entries of removed versions, each with only its apiVersion, manager,
 *  operation and time (dropped when none is left), and metadata.lastAppliedApiVersion computed from the last-applied
 *  annotation (or, without one, a saved value kept when it names a removed version). */
export function writtenThrough<T extends Written>(o: T): T {
  const md = o.metadata;
  if (!md || typeof md !== 'object') return o;
  const kind = o.kind ?? '';
  const last = md.annotations?.[LAST_APPLIED];
  if (md.managedFields === undefined && md.lastAppliedApiVersion === undefined && last === undefined) return o;
  const out: Record<string, unknown> = { ...md };
  delete out.managedFields;
  delete out.lastAppliedApiVersion;
  if (Array.isArray(md.managedFields)) {
    const kept = md.managedFields.flatMap((e): Array<Record<string, string>> => {
      if (!e || typeof e !== 'object') return [];
      const x = e as Record<string, unknown>;
      if (!removedFor(x.apiVersion, kind)) return [];
      const manager = typeof x.manager === 'string' ? x.manager.slice(0, MAX_MANAGER) : undefined;
      const operation = str(x.operation, 16);
      const time = str(x.time, 40);
      return [
        { apiVersion: x.apiVersion, ...(manager ? { manager } : {}), ...(operation ? { operation } : {}), ...(time ? { time } : {}) },
      ];
    });
    if (kept.length) out.managedFields = kept;
  }
  const v = typeof last === 'string' ? topApiVersion(last) : last === undefined ? md.lastAppliedApiVersion : undefined;
  if (removedFor(v, kind)) out.lastAppliedApiVersion = v;
  return { ...o, metadata: out };
}

/** The removed versions a kept object was written through (its narrowed managedFields and lastAppliedApiVersion). */
export function writtenAsOf(o: Written): WrittenAs[] {
  const kind = o.kind ?? '';
  const out: WrittenAs[] = [];
  for (const e of Array.isArray(o.metadata?.managedFields) ? o.metadata.managedFields : []) {
    if (!e || typeof e !== 'object') continue;
    const x = e as Record<string, unknown>;
    if (!removedFor(x.apiVersion, kind)) continue;
    const manager = str(x.manager, MAX_MANAGER);
    const operation = str(x.operation, 16);
    const time = str(x.time, 40);
    out.push({
      apiVersion: x.apiVersion,
      via: 'managedFields',
      ...(manager ? { manager } : {}),
      ...(operation ? { operation } : {}),
      ...(time ? { time } : {}),
    });
  }
  const last = o.metadata?.lastAppliedApiVersion;
  if (removedFor(last, kind)) out.push({ apiVersion: last, via: 'last-applied' });
  return out;
}

/** The top-level apiVersion of a last-applied manifest (JSON; an annotation holds at most 256 KiB). */
function topApiVersion(text: string): string | undefined {
  if (text.length > 262_144) return undefined;
  try {
    const j: unknown = JSON.parse(text);
    const v = j && typeof j === 'object' && !Array.isArray(j) ? (j as Record<string, unknown>).apiVersion : undefined;
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}
