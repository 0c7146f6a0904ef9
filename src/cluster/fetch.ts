// Fill a snapshot with what the checks need: each type listed once, in parallel (bounded by the
// client), 403/404 recorded as "not visible" with the reason instead of failing the run.
import type { KObject, Need } from '../model.js';
import { gkKey } from '../model.js';
import { Snapshot, type ServerVersion } from '../snapshot/snapshot.js';
import { ApiClient, ApiStatusError, ApiTransportError, connectionError } from './client.js';

export interface FetchOptions {
  namespace?: string;
  contextName?: string;
  server: string;
  progress?: (what: string) => void;
  /** --deep: read each kubelet's clusterDNS through GET nodes/<n>/proxy/configz. */
  kubeletDNS?: boolean;
  /** Discover and list every type the API server offers (metadata only unless a need wants bodies). */
  allTypes?: boolean;
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
      // a need that wants bodies wins over trimming/filtering only if it asks for everything
      if (!n.trim) cur.trim = undefined;
      if (!n.keep) cur.keep = undefined;
    }
    if (!cur) m.set(k, { ...n });
    else if (n.metadataOnly && n.optional && !cur.metadataOnly) continue; // discovery adds nothing to a named need
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
      return { status: 404, reason: n.group && !n.group.endsWith('.k8s.io') && n.group !== 'apps'
        ? `${what} is not served here (CRD not installed)`
        : `${what} is not served by this API server` };
    }
    return { status: e.status, reason: `${e.status} listing ${what}: ${e.serverMessage}` };
  }
  return { reason: `could not list ${what}: ${(e as Error).message}` };
}

export async function fetchSnapshot(client: ApiClient, needs: Need[], opts: FetchOptions): Promise<Snapshot> {
  opts.progress?.('server version');
  let serverVersion: ServerVersion;
  try {
    serverVersion = await client.getJSON<ServerVersion>('/version');
  } catch (e) {
    throw connectionError(e, opts.server);
  }
  const snap = new Snapshot({
    capturedAt: new Date().toISOString(),
    context: opts.contextName,
    server: opts.server,
    serverVersion: { major: serverVersion.major, minor: serverVersion.minor, gitVersion: serverVersion.gitVersion, platform: serverVersion.platform },
    namespace: opts.namespace,
  });
  const readyz = client.getRaw('/readyz?verbose').then(
    (r) => {
      if (r.status === 200 || r.status === 500) snap.header.readyz = r.body;
      else snap.header.readyzError = `${r.status} from /readyz?verbose`;
    },
    (e: Error) => { snap.header.readyzError = e.message; },
  );
  let all = needs;
  if (opts.allTypes) {
    opts.progress?.('discovery');
    const { discoverTypes, asMetadataNeeds } = await import('./discovery.js');
    const d = await discoverTypes(client);
    snap.header.discoveryErrors = d.errors;
    snap.header.allTypes = true;
    // a named need follows the version the server actually serves (e.g. Flux HelmRelease v2 vs v2beta2);
    // named needs come first so their settings (bodies, filters) win for a shared type
    const served = new Map(d.types.map((t) => [gkKey(t.group, t.kind), t.version] as const));
    all = [...needs.map((n) => {
      const v = served.get(gkKey(n.group, n.kind));
      return v && v !== n.version ? { ...n, version: v } : n;
    }), ...asMetadataNeeds(d.types)];
  }
  const merged = mergeNeeds(all);
  let done = 0;
  await Promise.all(merged.map(async (n) => {
    const items: KObject[] = [];
    const apiVersion = n.group ? `${n.group}/${n.version}` : n.version;
    const path = listPath(n, n.clusterWide ? undefined : opts.namespace);
    const take = (it: Record<string, unknown>): KObject | null => {
      let o = it as unknown as KObject;
      if (n.keep && !n.keep(o)) return null;
      if (n.trim) o = n.trim(o);
      // managedFields are often half an object's metadata and no check reads them
      delete (o.metadata as { managedFields?: unknown }).managedFields;
      o.apiVersion = apiVersion;
      o.kind = n.kind;
      return o;
    };
    try {
      // one list, or one per field selector (server-side filtering), merged by uid; the lists run in
      // parallel (the client bounds concurrency) because each paginates sequentially
      const listOnce = async (fieldSelector: string | undefined, metadataOnly: boolean | undefined, sink: (it: Record<string, unknown>) => void, reset: () => void): Promise<void> => {
        await client.list(path, { metadataOnly, fieldSelector }, (page, restart) => {
          if (restart) reset();
          for (const it of page) sink(it);
        });
      };
      const parts = (n.fieldSelectors ?? [undefined]).map(() => [] as KObject[]);
      const running = new Set<string>();
      await Promise.all([
        ...(n.fieldSelectors ?? [undefined]).map((fs, i) => listOnce(fs, n.metadataOnly, (it) => {
          const o = take(it);
          if (o) parts[i]!.push(o);
        }, () => { parts[i]!.length = 0; })),
        // metadata-only lists carry no phase: a second, filtered metadata list says which pods run
        ...(n.runningPhase && n.metadataOnly ? [listOnce('status.phase=Running', true, (it) => {
          const uid = (it.metadata as { uid?: string } | undefined)?.uid;
          if (uid) running.add(uid);
        }, () => running.clear())] : []),
      ]);
      const seen = new Set<string>();
      for (const part of parts) {
        for (const o of part) {
          const uid = o.metadata.uid;
          if (uid && seen.has(uid)) continue;
          if (uid) seen.add(uid);
          items.push(o);
        }
      }
      if (n.runningPhase && n.metadataOnly) {
        for (const o of items) o.status = { ...(o.status ?? {}), phase: o.metadata.uid && running.has(o.metadata.uid) ? 'Running' : undefined };
      }
      if (n.metadataOnly && n.bodiesFor) {
        // the few objects whose bodies a check reads: GET each, replace its metadata-only entry
        const base = n.group ? `/apis/${n.group}/${n.version}` : `/api/${n.version}`;
        await Promise.all(items.map(async (o, i) => {
          if (!n.bodiesFor!(o.metadata)) return;
          const ns = o.metadata.namespace ? `/namespaces/${encodeURIComponent(o.metadata.namespace)}` : '';
          try {
            const full = await client.getJSON<Record<string, unknown>>(`${base}${ns}/${n.resource}/${encodeURIComponent(o.metadata.name)}`);
            items[i] = take(full) ?? o;
          } catch {
            /* keep the metadata; the check reading it will find no data */
          }
        }));
      }
      snap.addList(n.group, n.kind, items);
    } catch (e) {
      if (e instanceof ApiStatusError && e.status === 401) throw connectionError(e, opts.server);
      if (!(e instanceof ApiStatusError) && !(e instanceof ApiTransportError)) throw e;
      snap.markUnavailable({ group: n.group, kind: n.kind, resource: n.resource, ...unavailableReason(e, n) });
    }
    done++;
    opts.progress?.(`${n.resource} (${done}/${merged.length})`);
  }));
  await readyz;
  if (opts.kubeletDNS) {
    opts.progress?.('kubelet configs (nodes/proxy)');
    snap.header.kubeletDNS = await Promise.all(snap.list('', 'Node').map(async (n) => {
      const name = n.metadata.name;
      try {
        const cz = await client.getJSON<{ kubeletconfig?: { clusterDNS?: string[] } }>(`/api/v1/nodes/${encodeURIComponent(name)}/proxy/configz`);
        return { node: name, clusterDNS: cz.kubeletconfig?.clusterDNS ?? [] };
      } catch (e) {
        return { node: name, error: e instanceof ApiStatusError && e.status === 403 ? 'forbidden: needs get nodes/proxy' : (e as Error).message };
      }
    }));
  }
  return snap;
}
