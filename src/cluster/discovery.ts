// Discovery: every listable resource type the API server offers, at each group's preferred version.
// Used by the orphan scan, which must read every type (metadata only).
import type { Need, ResourceType } from '../model.js';
import { ApiClient } from './client.js';

/** Types never scanned: Secrets (we never read them, and the shipped ClusterRole does not grant them),
 *  Events (not owned objects), and derived or virtual types. */
export const SKIP_TYPES = new Set([
  'secrets', 'events', 'events.events.k8s.io', 'componentstatuses', 'bindings', 'endpoints', 'endpointslices.discovery.k8s.io',
  'leases.coordination.k8s.io', 'tokenreviews.authentication.k8s.io', 'controllerrevisions.apps',
]);

interface APIResource { name: string; kind: string; namespaced: boolean; verbs?: string[] }

export async function discoverTypes(client: ApiClient): Promise<{ types: ResourceType[]; errors: string[] }> {
  const errors: string[] = [];
  const gvs: Array<{ group: string; version: string }> = [{ group: '', version: 'v1' }];
  try {
    const groups = await client.getJSON<{ groups?: Array<{ name: string; preferredVersion?: { version: string }; versions?: Array<{ version: string }> }> }>('/apis');
    for (const g of groups.groups ?? []) {
      const v = g.preferredVersion?.version ?? g.versions?.[0]?.version;
      if (v) gvs.push({ group: g.name, version: v });
    }
  } catch (e) {
    errors.push(`discovery /apis: ${(e as Error).message}`);
  }
  const types: ResourceType[] = [];
  await Promise.all(gvs.map(async ({ group, version }) => {
    const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
    try {
      const list = await client.getJSON<{ resources?: APIResource[] }>(path);
      for (const r of list.resources ?? []) {
        if (r.name.includes('/') || !(r.verbs ?? []).includes('list')) continue;
        const key = group ? `${r.name}.${group}` : r.name;
        if (SKIP_TYPES.has(key)) continue;
        types.push({ group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced });
      }
    } catch (e) {
      // an aggregated API that is down (e.g. metrics.k8s.io) must not stop the scan
      errors.push(`discovery ${path}: ${(e as Error).message}`);
    }
  }));
  return { types, errors };
}

export const asMetadataNeeds = (types: ResourceType[]): Need[] => types.map((t) => ({ ...t, metadataOnly: true, optional: true }));
