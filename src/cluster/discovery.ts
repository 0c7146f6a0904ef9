// Discovery: every listable resource type the API server offers, at each group's preferred version.
// Used by the orphan scan, which must read every type (metadata only). Aggregated discovery
// (apidiscovery.k8s.io, Kubernetes >= 1.26) answers in two requests; older servers get one request
// per group version, capped so a server advertising thousands of groups cannot make us send
// tens of thousands of requests.
import type { Need, ResourceType } from '../model.js';
import { ApiClient } from './client.js';

/** Types never scanned: Secrets (we never read them, and the shipped ClusterRole does not grant them),
 *  Events (not owned objects), and derived or virtual types. */
export const SKIP_TYPES = new Set([
  'secrets',
  'events',
  'events.events.k8s.io',
  'componentstatuses',
  'bindings',
  'endpoints',
  'endpointslices.discovery.k8s.io',
  'leases.coordination.k8s.io',
  'tokenreviews.authentication.k8s.io',
  'controllerrevisions.apps',
]);

/** Caps for servers that advertise absurd numbers of groups or types (real clusters: a few hundred). */
export const MAX_GROUP_VERSIONS = 1000;
export const MAX_TYPES = 5000;

const AGGREGATED_ACCEPT = [
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
  'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
  'application/json',
].join(',');

interface APIResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs?: string[];
}

interface AggregatedList {
  kind?: string;
  groups?: Array<{ name: string; preferredVersion?: { version: string }; versions?: Array<{ version: string }> }>;
  items?: Array<{
    metadata?: { name?: string };
    versions?: Array<{
      version?: string;
      resources?: Array<{ resource?: string; responseKind?: { kind?: string }; scope?: string; verbs?: string[] }>;
    }>;
  }>;
}

function keep(group: string, resource: string, verbs: string[] | undefined): boolean {
  if (resource.includes('/') || !(verbs ?? []).includes('list')) return false;
  return !SKIP_TYPES.has(group ? `${resource}.${group}` : resource);
}

/** Aggregated discovery: the first version listed for a group is its preferred one. */
function fromAggregated(list: AggregatedList, types: ResourceType[]): void {
  for (const g of list.items ?? []) {
    const group = g.metadata?.name ?? '';
    const v = g.versions?.[0];
    if (!v?.version) continue;
    for (const r of v.resources ?? []) {
      if (!r.resource || !r.responseKind?.kind || !keep(group, r.resource, r.verbs)) continue;
      types.push({ group, version: v.version, resource: r.resource, kind: r.responseKind.kind, namespaced: r.scope !== 'Cluster' });
    }
  }
}

export async function discoverTypes(client: ApiClient): Promise<{ types: ResourceType[]; errors: string[] }> {
  const errors: string[] = [];
  const types: ResourceType[] = [];
  let apis: AggregatedList | undefined;
  try {
    apis = await client.getJSON<AggregatedList>('/apis', AGGREGATED_ACCEPT);
  } catch (e) {
    errors.push(`discovery /apis: ${(e as Error).message}`);
  }
  if (apis?.kind === 'APIGroupDiscoveryList') {
    try {
      const core = await client.getJSON<AggregatedList>('/api', AGGREGATED_ACCEPT);
      if (core.kind === 'APIGroupDiscoveryList') fromAggregated(core, types);
    } catch (e) {
      errors.push(`discovery /api: ${(e as Error).message}`);
    }
    fromAggregated(apis, types);
  } else {
    const gvs: Array<{ group: string; version: string }> = [{ group: '', version: 'v1' }];
    for (const g of apis?.groups ?? []) {
      const v = g.preferredVersion?.version ?? g.versions?.[0]?.version;
      if (v && typeof g.name === 'string') gvs.push({ group: g.name, version: v });
    }
    if (gvs.length > MAX_GROUP_VERSIONS) {
      errors.push(`discovery: the server advertises ${gvs.length} API groups; only the first ${MAX_GROUP_VERSIONS} were read`);
      gvs.length = MAX_GROUP_VERSIONS;
    }
    await Promise.all(
      gvs.map(async ({ group, version }) => {
        const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
        try {
          const list = await client.getJSON<{ resources?: APIResource[] }>(path);
          for (const r of list.resources ?? []) {
            if (typeof r.name !== 'string' || typeof r.kind !== 'string' || !keep(group, r.name, r.verbs)) continue;
            types.push({ group, version, resource: r.name, kind: r.kind, namespaced: Boolean(r.namespaced) });
          }
        } catch (e) {
          // an aggregated API that is down (e.g. metrics.k8s.io) must not stop the scan
          errors.push(`discovery ${path}: ${(e as Error).message}`);
        }
      }),
    );
  }
  if (types.length > MAX_TYPES) {
    errors.push(`discovery: the server advertises ${types.length} listable types; only the first ${MAX_TYPES} were scanned`);
    types.length = MAX_TYPES;
  }
  return { types, errors };
}

export const asMetadataNeeds = (types: ResourceType[]): Need[] => types.map((t) => ({ ...t, metadataOnly: true, optional: true }));
