// Fill a snapshot with what the checks need, in named steps: connect (/version), readiness
// (/readyz?verbose, which decides whether lists can be quorum reads), plan (discovery and merged
// needs), then each type listed once, in parallel (bounded by the client). 403/404, timeouts and the
// run's deadline are recorded as "not visible" with the reason instead of failing the run.
import type { NodeGet } from '../model.js';
import type { KObject, Need } from '../model.js';
import { gkKey } from '../model.js';
import { doorsFor, ingest, type Doors } from '../snapshot/scrub.js';
import { Snapshot, type NamedRef, type ServerVersion } from '../snapshot/snapshot.js';
import { shapeProblem } from '../snapshot/validate.js';
import { ApiClient, ApiStatusError, ApiTransportError, connectionError } from './client.js';

export interface FetchOptions {
  namespace?: string;
  contextName?: string;
  server: string;
  progress?: (what: string) => void;
  /** --deep: per-node GETs the checks declared (e.g. kubelet configz through nodes/<n>/proxy). */
  nodeGets?: NodeGet[];
  /** Discover and list every type the API server offers (metadata only unless a need wants bodies). */
  allTypes?: boolean;
  /** what-if -f: GET each of these objects whole (src/cluster/named.ts). */
  named?: { refs: NamedRef[]; defaultNamespace: string };
  /** The door of this run (set by fetchSnapshot from the needs). */
  doors?: Doors;
}

export function listPath(n: Need, namespace?: string): string {
  const base = n.group ? `/apis/${n.group}/${n.version}` : `/api/${n.version}`;
  return n.namespaced && namespace ? `${base}/namespaces/${encodeURIComponent(namespace)}/${n.resource}` : `${base}/${n.resource}`;
}

/** Merge duplicate needs: a type wanted with bodies by one check is fetched with bodies for all. */
export function mergeNeeds(needs: Need[]): Need[] {
  const m = new Map<string, Need>();
  for (const n of needs) {
    const k = gkKey(n.group, n.kind);
    const cur = m.get(k);
    if (cur && n.clusterWide) cur.clusterWide = true;
    if (cur && !n.metadataOnly) {
      // a need that wants bodies wins over filtering only if it asks for everything; trims stay
      // (they keep credentials out of snapshots), and one type's needs share its trim
      if (!n.keep) cur.keep = undefined;
    }
    if (!cur) m.set(k, { ...n });
    else if (n.metadataOnly && n.optional && !cur.metadataOnly)
      continue; // discovery adds nothing to a named need
    else {
      if (cur.bodiesFor || n.bodiesFor) {
        const a = cur.bodiesFor;
        const b = n.bodiesFor;
        cur.bodiesFor = (m) => Boolean(a?.(m) || b?.(m));
      }
      cur.metadataOnly = Boolean(cur.metadataOnly && n.metadataOnly);
      if (!n.fieldSelectors) cur.fieldSelectors = undefined;
      cur.optional = Boolean(cur.optional && n.optional);
    }
  }
  return [...m.values()];
}

export function unavailableReason(e: unknown, n: Need): { status?: number; reason: string } {
  const what = `${n.resource}${n.group ? '.' + n.group : ''}`;
  if (e instanceof ApiStatusError) {
    if (e.status === 403) return { status: 403, reason: `forbidden: cannot list ${what} (RBAC): ${e.serverMessage}` };
    if (e.status === 404) {
      return {
        status: 404,
        reason:
          n.group && !n.group.endsWith('.k8s.io') && n.group !== 'apps'
            ? `${what} is not served here (CRD not installed)`
            : `${what} is not served by this API server`,
      };
    }
    return { status: e.status, reason: `${e.status} listing ${what}: ${e.serverMessage}` };
  }
  if (e instanceof ApiTransportError && (e.code === 'DEADLINE' || e.code === 'MEMORY'))
    return { reason: `${what} ${e.message.replace(/^GET \S+ /, '')}` };
  return { reason: `could not list ${what}: ${(e as Error).message}` };
}

/** Step 1: the server answers at all (else the run stops with a connection error, exit 3). */
async function connectStep(client: ApiClient, opts: FetchOptions): Promise<Snapshot> {
  opts.progress?.('server version');
  let v: ServerVersion;
  try {
    v = await client.getJSON<ServerVersion>('/version');
  } catch (e) {
    if ((e as { code?: string }).code === 'CERT_HAS_EXPIRED') await client.peekServing();
    throw connectionError(e, opts.server, client.tlsInfo());
  }
  const snap = new Snapshot({
    capturedAt: new Date().toISOString(),
    context: opts.contextName,
    server: opts.server,
    serverVersion: { major: v?.major, minor: v?.minor, gitVersion: v?.gitVersion, platform: v?.platform },
    namespace: opts.namespace,
    // every object listed comes with its managedFields (metadata-only lists too): what-if --upgrade reads them
    writtenAs: 'managedFields',
  });
  const tls = client.tlsInfo();
  if (tls) snap.header.tls = tls;
  return snap;
}

/** /readyz?verbose answers within its etcd check's own timeout (2 s by default) even when etcd is down. */
export const READYZ_TIMEOUT_MS = 5000;
/** With etcd failing, what the watch cache can answer comes back in milliseconds; what it cannot (events,
 *  which are not cached; custom resources whose handler needs etcd) would hang until the deadline. */
export const SICK_REQUEST_TIMEOUT_MS = 4000;

/**
 * Step 2: readiness first. When a readiness check fails (etcd above all) or /readyz does not answer,
 * lists are served from the API server's watch cache (resourceVersion=0), which answers without etcd:
 * the report arrives in seconds, marked possibly stale.
 */
async function readinessStep(client: ApiClient, snap: Snapshot, opts: FetchOptions, health: Health): Promise<void> {
  opts.progress?.('readiness');
  try {
    const r = await client.getRaw('/readyz?verbose', 'text/plain', READYZ_TIMEOUT_MS);
    if (r.status === 200 || r.status === 500) snap.header.readyz = r.body.slice(0, 64 * 1024);
    else snap.header.readyzError = `${r.status} from /readyz?verbose`;
    if (/^\[-\]etcd/m.test(snap.header.readyz ?? '')) snap.header.fromCache = true;
  } catch (e) {
    snap.header.readyzError = (e as Error).message;
    if (e instanceof ApiTransportError && (e.code === 'TIMEOUT' || e.code === 'DEADLINE')) snap.header.fromCache = true;
  }
  if (snap.header.fromCache) health.toCache(client);
}

/** Whether lists are quorum reads or served from the watch cache; switching aborts the quorum reads in
 *  flight, which then start again from the cache. */
class Health {
  private readonly ctl = new AbortController();
  private readonly started = new Map<number, number>();
  private next = 0;
  private probing = false;
  fromCache = false;
  get signal(): AbortSignal {
    return this.ctl.signal;
  }
  toCache(client: ApiClient): void {
    if (this.fromCache) return;
    this.fromCache = true;
    client.opts.timeoutMs = Math.min(client.opts.timeoutMs, SICK_REQUEST_TIMEOUT_MS);
    client.opts.maxRetries = 0;
    this.ctl.abort();
  }
  /** Track a quorum read, so a stall can be noticed. */
  begin(): () => void {
    const id = this.next++;
    this.started.set(id, Date.now());
    return () => this.started.delete(id);
  }
  /**
   * etcd can fail after /readyz was read (or /readyz may still say ok for a moment after it failed):
   * while a quorum read has been pending longer than STALL_MS, ask /readyz again.
   */
  watch(client: ApiClient, snap: Snapshot, opts: FetchOptions): () => void {
    const timer = setInterval(() => {
      if (this.fromCache || this.probing || ![...this.started.values()].some((t) => Date.now() - t > STALL_MS)) return;
      this.probing = true;
      readinessStep(client, snap, { ...opts, progress: undefined }, this).finally(() => {
        this.probing = false;
      });
    }, 1000);
    timer.unref();
    return () => clearInterval(timer);
  }
}

/** A quorum read pending this long makes us ask /readyz again. */
export const STALL_MS = 3000;

/** Step 3: what to list — the named needs, plus every listable type when a check scans them all. */
async function planStep(client: ApiClient, needs: Need[], snap: Snapshot, opts: FetchOptions): Promise<Need[]> {
  if (!opts.allTypes) return mergeNeeds(needs);
  opts.progress?.('discovery');
  const { discoverTypes, asMetadataNeeds } = await import('./discovery.js');
  const d = await discoverTypes(client);
  snap.header.discoveryErrors = d.errors;
  snap.header.allTypes = true;
  // a named need follows the version the server actually serves (e.g. Flux HelmRelease v2 vs v2beta2);
  // named needs come first so their settings (bodies, filters) win for a shared type
  const served = new Map(d.types.map((t) => [gkKey(t.group, t.kind), t.version] as const));
  return mergeNeeds([
    ...needs.map((n) => {
      const v = served.get(gkKey(n.group, n.kind));
      return v && v !== n.version ? { ...n, version: v } : n;
    }),
    ...asMetadataNeeds(d.types),
  ]);
}

/** Step 4: one type — one list (or one per field selector, merged by uid), checked, trimmed and scrubbed. */
async function listStep(client: ApiClient, n: Need, snap: Snapshot, opts: FetchOptions, health: Health): Promise<void> {
  try {
    await listOnceStep(client, n, snap, opts, health);
  } catch (e) {
    // aborted because etcd turned out to be failing: list again, from the watch cache
    if (e instanceof ApiTransportError && e.code === 'ABORTED' && health.fromCache) {
      await listOnceStep(client, n, snap, opts, health).catch((err: unknown) => recordFailure(err, n, snap, opts));
      return;
    }
    recordFailure(e, n, snap, opts);
  }
}

function recordFailure(e: unknown, n: Need, snap: Snapshot, opts: FetchOptions): void {
  if (e instanceof ApiStatusError && e.status === 401) throw connectionError(e, opts.server, snap.header.tls);
  if (!(e instanceof ApiStatusError) && !(e instanceof ApiTransportError)) throw e;
  snap.markUnavailable({ group: n.group, kind: n.kind, resource: n.resource, ...unavailableReason(e, n) });
}

async function listOnceStep(client: ApiClient, n: Need, snap: Snapshot, opts: FetchOptions, health: Health): Promise<void> {
  const apiVersion = n.group ? `${n.group}/${n.version}` : n.version;
  const path = listPath(n, n.clusterWide ? undefined : opts.namespace);
  const fromCache = health.fromCache;
  const signal = fromCache ? undefined : health.signal;
  const take = (it: Record<string, unknown>): KObject | null => {
    if (!it || typeof it !== 'object') throw new ApiTransportError(`malformed ${n.kind} list from ${path}`, path, 'BADJSON');
    it.apiVersion = apiVersion;
    it.kind = n.kind;
    const problem = shapeProblem(it);
    if (problem) throw new ApiTransportError(`the server sent a malformed ${n.kind} (${problem})`, path, 'BADJSON');
    let o = it as unknown as KObject;
    if (n.keep && !n.keep(o)) return null;
    // the one door of every object into a snapshot, listed or loaded: its declared fields, then the redactor
    return ingest(o, opts.doors);
  };
  const listOnce = (
    fieldSelector: string | undefined,
    metadataOnly: boolean | undefined,
    sink: (it: Record<string, unknown>) => void,
    reset: () => void,
  ): Promise<void> =>
    client.list(path, { metadataOnly, fieldSelector, fromCache, signal }, (page, restart) => {
      if (restart) reset();
      for (const it of page) sink(it);
    });
  const done = fromCache ? () => {} : health.begin();
  try {
    // the lists run in parallel (the client bounds concurrency) because each paginates sequentially
    const selectors = n.fieldSelectors ?? [undefined];
    const parts = selectors.map(() => [] as KObject[]);
    const notRunning = new Set<string>();
    await Promise.all([
      ...selectors.map((fs, i) =>
        listOnce(
          fs,
          n.metadataOnly,
          (it) => {
            const o = take(it);
            if (o) parts[i]!.push(o);
          },
          () => {
            parts[i]!.length = 0;
          },
        ),
      ),
      // metadata-only lists carry no phase: a second, filtered metadata list names the pods that do not run.
      // The inverse filter, because in a working cluster nearly every pod runs: this list stays small instead of
      // a second copy of every pod (the server filters either way)
      ...(n.runningPhase && n.metadataOnly
        ? [
            listOnce(
              'status.phase!=Running',
              true,
              (it) => {
                const uid = (it?.metadata as { uid?: string } | undefined)?.uid;
                if (uid) notRunning.add(uid);
              },
              () => notRunning.clear(),
            ),
          ]
        : []),
    ]);
    const items: KObject[] = [];
    const seen = new Set<string>();
    for (const o of parts.flat()) {
      const uid = o.metadata.uid;
      if (uid && seen.has(uid)) continue;
      if (uid) seen.add(uid);
      items.push(o);
    }
    if (n.runningPhase && n.metadataOnly) {
      for (const o of items)
        o.status = { ...(o.status ?? {}), phase: o.metadata.uid && !notRunning.has(o.metadata.uid) ? 'Running' : undefined };
    }
    if (n.metadataOnly && n.bodiesFor) await bodiesStep(client, n, items, take, snap, health);
    snap.addList(n.group, n.kind, items);
  } finally {
    done();
  }
}

/** The few objects whose bodies a check reads: GET each, replace its metadata-only entry. */
async function bodiesStep(
  client: ApiClient,
  n: Need,
  items: KObject[],
  take: (it: Record<string, unknown>) => KObject | null,
  snap: Snapshot,
  health: Health,
): Promise<void> {
  const base = n.group ? `/apis/${n.group}/${n.version}` : `/api/${n.version}`;
  await Promise.all(
    items.map(async (o, i) => {
      if (!n.bodiesFor!(o.metadata)) return;
      const ns = o.metadata.namespace ? `/namespaces/${encodeURIComponent(o.metadata.namespace)}` : '';
      try {
        const rv = health.fromCache ? '?resourceVersion=0' : '';
        const full = await client.getJSON<Record<string, unknown>>(
          `${base}${ns}/${n.resource}/${encodeURIComponent(o.metadata.name)}${rv}`,
          undefined,
          health.fromCache ? undefined : health.signal,
        );
        items[i] = take(full) ?? o;
      } catch (e) {
        if (e instanceof ApiTransportError && e.code === 'ABORTED') throw e; // listed again from the cache
        // keep the metadata, and say what the checks reading it will miss
        (snap.header.unreadBodies ??= []).push({
          kind: n.kind,
          namespace: o.metadata.namespace,
          name: o.metadata.name,
          reason: e instanceof ApiStatusError && e.status === 403 ? 'forbidden' : (e as Error).message,
        });
      }
    }),
  );
}

/** --deep: the per-node GETs checks declared, kept as the part each check reads. */
async function perNodeStep(client: ApiClient, snap: Snapshot, gets: NodeGet[], opts: FetchOptions): Promise<void> {
  opts.progress?.('per-node reads (--deep)');
  const nodes = snap.list('', 'Node').map((n) => n.metadata.name);
  snap.header.perNode = {};
  for (const g of gets) {
    snap.header.perNode[g.id] = await Promise.all(
      nodes.map(async (node) => {
        try {
          return { node, value: g.pick(await client.getJSON<unknown>(g.path(node))) };
        } catch (e) {
          return { node, error: e instanceof ApiStatusError && e.status === 403 ? g.forbidden : (e as Error).message };
        }
      }),
    );
  }
}

export async function fetchSnapshot(client: ApiClient, needs: Need[], opts: FetchOptions): Promise<Snapshot> {
  const snap = await connectStep(client, opts);
  const health = new Health();
  // discovery is served from memory: plan while readiness decides how to list
  const [types] = await Promise.all([planStep(client, needs, snap, opts), readinessStep(client, snap, opts, health)]);
  const unwatch = health.watch(client, snap, opts);
  let done = 0;
  // the one door: what the needs' readers declare, kept as each page arrives
  const withDoors = { ...opts, doors: doorsFor(needs) };
  try {
    await Promise.all(
      types.map(async (n) => {
        await listStep(client, n, snap, withDoors, health);
        opts.progress?.(`${n.resource} (${++done}/${types.length})`);
      }),
    );
  } finally {
    unwatch();
  }
  if (opts.nodeGets?.length) await perNodeStep(client, snap, opts.nodeGets, opts);
  if (opts.named) await (await import('./named.js')).namedStep(client, snap, opts.named, opts.progress);
  return snap;
}
