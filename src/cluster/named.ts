// `what-if -f`: the live copy of each object the manifests name — a GET each, or for many of one type one list of the
// type keeping only those (never a write, never a Secret) — whole
// but scrubbed like everything that enters a snapshot (credentials masked; no per-type trim: the comparison needs the
// fields the trims drop, e.g. a Job's pod template). Discovery says which kinds the API server serves, and where each
// lives (its resource and scope). Answers: the object, absent (404), or why it could not be read (403, a timeout).
import { gkKey, type KObject, type ResourceType } from '../model.js';
import { scrubWhole } from '../snapshot/scrub.js';
import type { NamedRef, NamedResult, Snapshot } from '../snapshot/snapshot.js';
import { ApiStatusError, ApiTransportError, type ApiClient } from './client.js';

/** GETs in flight at once: the client bounds connections too; this bounds memory and the server's load. */
const PARALLEL = 16;
/** From this many objects of one type, one list of the type instead of a GET each. */
const LIST_FROM = 20;

/** Kinds served but never listed by discovery's filter (src/cluster/discovery.ts skips Secrets): still served. */
const ALWAYS_SERVED: ResourceType[] = [{ group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true }];

export async function namedStep(
  client: ApiClient,
  snap: Snapshot,
  named: { refs: NamedRef[]; defaultNamespace: string },
  progress?: (t: string) => void,
): Promise<void> {
  progress?.('discovery');
  const { discoverTypes } = await import('./discovery.js');
  const d = await discoverTypes(client);
  const served = new Map<string, ResourceType>();
  for (const t of [...d.types, ...ALWAYS_SERVED]) if (!served.has(gkKey(t.group, t.kind))) served.set(gkKey(t.group, t.kind), t);
  // discovery that failed for some groups cannot say those kinds are not served
  snap.served = { types: served, complete: d.errors.length === 0, errors: d.errors };
  // as the API server addresses them: a namespaced kind without a namespace in the default one, a cluster-scoped one in none
  const refs = named.refs.map((r) => {
    const t = served.get(gkKey(r.group, r.kind));
    return t ? { ...r, namespace: t.namespaced ? (r.namespace ?? named.defaultNamespace) : undefined } : r;
  });
  // many objects of one type: one list of the type, keeping only those (cheaper than a GET each: 1,000 manifests of a
  // chart are mostly a few types); a few: a GET each. A list the reader may not make falls back to GETs.
  const byType = new Map<string, NamedRef[]>();
  for (const r of refs) byType.set(gkKey(r.group, r.kind), [...(byType.get(gkKey(r.group, r.kind)) ?? []), r]);
  const gets: NamedRef[] = [];
  let done = 0;
  const report = (): void => {
    if (done % 50 === 0 || done === refs.length) progress?.(`objects of the manifests (${done}/${refs.length})`);
  };
  await Promise.all(
    [...byType.entries()].map(async ([k, rs]) => {
      const t = served.get(k);
      if (!t || rs.length < LIST_FROM || (t.group === '' && t.kind === 'Secret')) {
        gets.push(...rs);
        return;
      }
      const wanted = new Set(rs.map(namedKey));
      const found = new Map<string, KObject>();
      try {
        const base = t.group ? `/apis/${t.group}/${t.version}/${t.resource}` : `/api/${t.version}/${t.resource}`;
        await client.list(base, {}, (items, restart) => {
          if (restart) found.clear();
          for (const it of items as unknown as KObject[]) {
            const key = namedKey({
              group: t.group,
              kind: t.kind,
              namespace: t.namespaced ? it.metadata?.namespace : undefined,
              name: String(it.metadata?.name ?? ''),
            });
            if (!wanted.has(key)) continue;
            it.apiVersion = t.group ? `${t.group}/${t.version}` : t.version;
            it.kind = t.kind;
            found.set(key, scrubWhole(it));
          }
        });
      } catch (e) {
        if (!(e instanceof ApiStatusError) && !(e instanceof ApiTransportError)) throw e;
        gets.push(...rs);
        return;
      }
      // listed: what the list does not hold does not exist
      for (const r of rs) {
        const o = found.get(namedKey(r));
        snap.named.set(namedKey(r), o ? { object: o } : { absent: true });
        done++;
        report();
      }
    }),
  );
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < gets.length) {
      const r = gets[next++]!;
      snap.named.set(namedKey(r), await getOne(client, served.get(gkKey(r.group, r.kind)), r));
      done++;
      report();
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, gets.length) }, worker));
}

export const namedKey = (r: NamedRef): string => `${gkKey(r.group, r.kind)}\u0000${r.namespace ?? ''}\u0000${r.name}`;

async function getOne(client: ApiClient, t: ResourceType | undefined, r: NamedRef): Promise<NamedResult> {
  if (r.group === '' && r.kind === 'Secret') return { unseen: 'Secrets are never read' };
  // not served: the prediction says so; no request
  if (!t) return { unseen: 'its kind is not served' };
  const base = t.group ? `/apis/${t.group}/${t.version}` : `/api/${t.version}`;
  const ns = t.namespaced ? `/namespaces/${encodeURIComponent(r.namespace ?? '')}` : '';
  const path = `${base}${ns}/${t.resource}/${encodeURIComponent(r.name)}`;
  try {
    const o = await client.getJSON<KObject>(path);
    if (!o || typeof o !== 'object' || !o.metadata) return { unseen: `GET ${path}: not an object` };
    o.apiVersion = t.group ? `${t.group}/${t.version}` : t.version;
    o.kind = t.kind;
    return { object: scrubWhole(o) };
  } catch (e) {
    if (e instanceof ApiStatusError && e.status === 404) return { absent: true };
    if (e instanceof ApiStatusError) return { unseen: `GET ${path}: ${e.status}${e.status === 403 ? ' forbidden' : ''}` };
    if (e instanceof ApiTransportError) return { unseen: `GET ${path}: ${e.message}` };
    throw e;
  }
}
