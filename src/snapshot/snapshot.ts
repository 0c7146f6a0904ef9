// The snapshot: every object the checks need, fetched once (or loaded from files).
// Checks only read it; nothing here does I/O.
import { gkKey, groupOf, type KObject, type Need, type ResourceType, type Unavailable } from '../model.js';

export const SNAPSHOT_API_VERSION = 'kubectl-arch/v1';
/** The last document of a saved snapshot: without it, the file was cut (an interrupted capture). */
export const SNAPSHOT_END_KIND = 'SnapshotEnd';

export interface ServerVersion {
  major?: string;
  minor?: string;
  gitVersion?: string;
  platform?: string;
}

export interface SnapshotHeader {
  capturedAt?: string;
  context?: string;
  server?: string;
  serverVersion?: ServerVersion;
  /** Text of GET /readyz?verbose, when it could be read. */
  readyz?: string;
  /** Text of the readyz fetch error, when it could not. */
  readyzError?: string;
  /** Per-node GETs a check declared for --deep (e.g. kubelet configz), by the check's id for them. */
  perNode?: Record<string, Array<{ node: string; value?: unknown; error?: string }>>;
  /** kubelet clusterDNS per node, as snapshots of kubectl-arch 0.1 stored it (read for compatibility). */
  kubeletDNS?: Array<{ node: string; clusterDNS?: string[]; error?: string }>;
  /** Every listable type was captured (discovery), so the orphan scan saw everything visible. */
  allTypes?: boolean;
  discoveryErrors?: string[];
  /** Lists were served from the API server's watch cache (resourceVersion=0) because its readiness
   *  failed (etcd down): the data may be stale. */
  fromCache?: boolean;
  /** Objects whose bodies a check reads but whose GET failed (only their metadata is here). */
  unreadBodies?: Array<{ kind: string; namespace?: string; name: string; reason: string }>;
  /** Certificates seen while connecting: the API server's serving certificate and the client's own. */
  tls?: {
    serving?: { subject?: string; issuer?: string; notAfter: string; dnsNames?: string[] };
    client?: { subject?: string; issuer?: string; notAfter: string };
  };
  /** A cluster as it would be with these nodes down (what-if), not as it was read: the API answering says nothing. */
  hypothetical?: { nodes: string[]; remove: boolean };
  /** 'managedFields': the objects were read with their managedFields, so one that keeps no managedFields entry was
   *  written through no API version a release removes (lib/removed-apis.ts); absent, an object without one is not
   *  known either way. */
  writtenAs?: 'managedFields';
  /** Namespace the capture was limited to, if any. */
  namespace?: string;
  /** Types that were listed (possibly empty); distinguishes "none exist" from "not captured". */
  captured: string[];
  unavailable: Unavailable[];
}

/** An object named by manifests (what-if -f): its type, namespace and name. */
export interface NamedRef {
  group: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** Its live copy read whole with a GET, absent (404), or why it could not be read. */
export type NamedResult = { object: KObject } | { absent: true } | { unseen: string };

/** Per list (by identity, with its length when scanned: lists only grow), the objects of it being deleted. */
const deletingIn = new WeakMap<KObject[], { length: number; objects: KObject[] }>();

export class Snapshot {
  readonly header: SnapshotHeader;
  private readonly byKind = new Map<string, KObject[]>();
  private readonly captured = new Set<string>();
  private readonly missing = new Map<string, Unavailable>();
  private readonly keys = new Set<string>();
  /** True when loaded from files that had no kubectl-arch header (plain kubectl output). */
  headerless = false;
  /** Objects given more than once in files (same type, namespace and name), counted once. */
  duplicates = 0;
  /** what-if -f, read live: each named object's copy from its own GET (never saved: a snapshot keeps the lists). */
  readonly named = new Map<string, NamedResult>();
  /** what-if -f, read live: the kinds the API server serves (discovery), and whether discovery answered for all. */
  served?: { types: Map<string, ResourceType>; complete: boolean; errors: string[] };

  constructor(header?: Partial<SnapshotHeader>) {
    this.header = { captured: [], unavailable: [], ...header };
    for (const k of this.header.captured) this.captured.add(k);
    for (const u of this.header.unavailable) this.missing.set(gkKey(u.group, u.kind), u);
  }

  /** Record a listed type (items may be empty). */
  addList(group: string, kind: string, items: KObject[]): void {
    const key = gkKey(group, kind);
    this.captured.add(key);
    this.missing.delete(key);
    const cur = this.byKind.get(key);
    if (cur) {
      for (const item of items) cur.push(item);
    } else {
      this.byKind.set(key, items);
    }
  }

  /** Add one object of any type (from a file); its type counts as captured. The same object given
   *  twice (e.g. two captures concatenated) is kept once: counting it twice would invent members. */
  addObject(o: KObject): void {
    if (!o.kind) return;
    const g = groupOf(o.apiVersion);
    const key = `${gkKey(g, o.kind)}\u0000${o.metadata.namespace ?? ''}\u0000${o.metadata.name}`;
    if (this.keys.has(key)) {
      this.duplicates++;
      return;
    }
    this.keys.add(key);
    this.addList(g, o.kind, [o]);
  }

  markUnavailable(u: Unavailable): void {
    const key = gkKey(u.group, u.kind);
    if (this.captured.has(key)) return;
    this.missing.set(key, u);
  }

  /** Objects of a type; empty when none exist or when not captured (ask visibility() to tell apart). */
  list(group: string, kind: string): KObject[] {
    return this.byKind.get(gkKey(group, kind)) ?? [];
  }

  of(need: Pick<Need, 'group' | 'kind'>): KObject[] {
    return this.list(need.group, need.kind);
  }

  /** null when the type was captured; otherwise why it is not visible. */
  visibility(need: Pick<Need, 'group' | 'kind' | 'resource'>): Unavailable | null {
    const key = gkKey(need.group, need.kind);
    if (this.captured.has(key)) return null;
    const u = this.missing.get(key);
    if (u) return u;
    return {
      group: need.group,
      kind: need.kind,
      resource: need.resource,
      reason: this.headerless
        ? `no ${need.kind} objects in the snapshot files (not captured, or none exist)`
        : `${need.resource}${need.group ? '.' + need.group : ''} was not captured in this snapshot`,
    };
  }

  /** The type is not served by the API server (a CRD not installed: 404): no object of it can exist, so an empty
   *  list is the truth, not a gap. */
  absent(need: Pick<Need, 'group' | 'kind'>): boolean {
    return this.missing.get(gkKey(need.group, need.kind))?.status === 404;
  }

  /** Why a type is a gap in what can be judged: not visible, and not absent. null when it can be judged. */
  gap(need: Pick<Need, 'group' | 'kind' | 'resource'>): Unavailable | null {
    return this.absent(need) ? null : this.visibility(need);
  }

  kinds(): string[] {
    return [...this.captured].sort();
  }

  unavailable(): Unavailable[] {
    return [...this.missing.values()];
  }

  /** All objects, for saving or for the orphan scan. */
  *all(): Generator<KObject> {
    for (const items of this.byKind.values()) yield* items;
  }

  /** Objects being deleted (a deletionTimestamp set), of every type. A list shared with another snapshot (a what-if
   *  hypothesis shares what it does not change) is scanned once for both. */
  deleting(): KObject[] {
    const out: KObject[] = [];
    for (const items of this.byKind.values()) {
      let d = deletingIn.get(items);
      if (!d || d.length !== items.length) {
        d = { length: items.length, objects: items.filter((o) => o.metadata.deletionTimestamp) };
        deletingIn.set(items, d);
      }
      out.push(...d.objects);
    }
    return out;
  }

  /** Lists grouped by type, for saving. */
  lists(): Array<[string, KObject[]]> {
    return [...this.byKind.entries()];
  }

  count(): number {
    let n = 0;
    for (const items of this.byKind.values()) n += items.length;
    return n;
  }

  /** A view limited to one namespace (cluster-scoped objects stay). */
  scoped(
    namespace: string,
    keepAll: Set<string> = new Set([
      'Application.argoproj.io',
      'Kustomization.kustomize.toolkit.fluxcd.io',
      'HelmRelease.helm.toolkit.fluxcd.io',
    ]),
  ): Snapshot {
    const out = new Snapshot({ ...this.finalHeader(), namespace });
    out.headerless = this.headerless;
    for (const [, items] of this.byKind) {
      const first = items[0];
      if (!first) continue;
      const g = groupOf(first.apiVersion);
      const k = first.kind ?? '';
      // owners are kept across namespaces: a scoped view must not make their objects look orphaned
      out.addList(
        g,
        k,
        keepAll.has(gkKey(g, k)) ? items : items.filter((o) => !o.metadata.namespace || o.metadata.namespace === namespace),
      );
    }
    return out;
  }

  finalHeader(): SnapshotHeader {
    return { ...this.header, captured: this.kinds(), unavailable: this.unavailable() };
  }
}
