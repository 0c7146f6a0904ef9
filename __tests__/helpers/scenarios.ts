// Every scenario: the healthy base and what each registered check's folder declares in its scenario.ts
// (src/checks/<id>/scenario.ts) — adding a check's scenario needs no registration beyond the check's own.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CHECKS } from '../../src/checks/registry.js';
import { HEALTHY, type Scenario } from '../../scenarios/index.js';
import { ROOT } from './run.js';

export async function allScenarios(): Promise<Scenario[]> {
  const out: Scenario[] = [HEALTHY];
  for (const c of [...CHECKS].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const f = join(ROOT, 'src/checks', c.id, 'scenario.ts');
    if (!existsSync(f)) continue;
    const mod = (await import(f)) as { scenarios: Scenario[] };
    out.push(...mod.scenarios);
  }
  return out;
}

/** Custom resource definitions for the groups a scenario uses that a bare kube-apiserver does not serve. */
const BUILT_IN = new Set([
  '',
  'apps',
  'batch',
  'networking.k8s.io',
  'rbac.authorization.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'storage.k8s.io',
  'admissionregistration.k8s.io',
  'apiregistration.k8s.io',
  'policy',
  'events.k8s.io',
  'autoscaling',
  'scheduling.k8s.io',
  'node.k8s.io',
  'certificates.k8s.io',
  'apiextensions.k8s.io',
]);

/** CRDs written as their projects define them, where a check reads their shape (k3s-io/api
 *  pkg/crds/yaml/generated/k3s.cattle.io_etcdsnapshotfiles.yaml: cluster-scoped, no short names, no status
 *  subresource, spec.location/nodeName/snapshotName required). Others get a permissive stand-in. */
const AS_DEFINED: Record<string, Record<string, unknown>> = {
  'etcdsnapshotfiles.k3s.cattle.io': {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'etcdsnapshotfiles.k3s.cattle.io' },
    spec: {
      group: 'k3s.cattle.io',
      scope: 'Cluster',
      names: { kind: 'ETCDSnapshotFile', plural: 'etcdsnapshotfiles', singular: 'etcdsnapshotfile', listKind: 'ETCDSnapshotFileList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          additionalPrinterColumns: [
            { name: 'SnapshotName', type: 'string', jsonPath: '.spec.snapshotName' },
            { name: 'Node', type: 'string', jsonPath: '.spec.nodeName' },
            { name: 'Location', type: 'string', jsonPath: '.spec.location' },
            { name: 'Size', type: 'string', jsonPath: '.status.size' },
            { name: 'CreationTime', type: 'date', jsonPath: '.status.creationTime' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  required: ['location', 'nodeName', 'snapshotName'],
                  properties: {
                    snapshotName: { type: 'string' },
                    nodeName: { type: 'string' },
                    location: { type: 'string' },
                    metadata: { type: 'object', additionalProperties: { type: 'string' } },
                    s3: {
                      type: 'object',
                      properties: {
                        endpoint: { type: 'string' },
                        endpointCA: { type: 'string' },
                        skipSSLVerify: { type: 'boolean' },
                        bucket: { type: 'string' },
                        region: { type: 'string' },
                        prefix: { type: 'string' },
                        insecure: { type: 'boolean' },
                      },
                    },
                  },
                },
                status: {
                  type: 'object',
                  properties: {
                    readyToUse: { type: 'boolean' },
                    creationTime: { type: 'string', format: 'date-time' },
                    size: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                    error: { type: 'object', properties: { time: { type: 'string', format: 'date-time' }, message: { type: 'string' } } },
                  },
                },
              },
            },
          },
        },
      ],
    },
  },
};

export function crdsFor(
  objects: Array<{ apiVersion?: string; kind?: string; metadata: { namespace?: string } }>,
): Array<Record<string, unknown>> {
  const seen = new Map<string, Record<string, unknown>>();
  for (const o of objects) {
    const [group, version] = o.apiVersion?.includes('/') ? (o.apiVersion.split('/') as [string, string]) : ['', o.apiVersion ?? ''];
    if (BUILT_IN.has(group) || !o.kind) continue;
    const plural = `${o.kind.toLowerCase()}s`;
    const key = `${plural}.${group}`;
    if (seen.has(key)) continue;
    if (AS_DEFINED[key]) {
      seen.set(key, AS_DEFINED[key]);
      continue;
    }
    seen.set(key, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: key },
      spec: {
        group,
        scope: o.metadata.namespace ? 'Namespaced' : 'Cluster',
        names: { kind: o.kind, plural, singular: o.kind.toLowerCase(), listKind: `${o.kind}List` },
        versions: [
          {
            name: version,
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
  }
  return [...seen.values()];
}

/** A scenario (by name; the healthy base is "healthy") written as a snapshot directory under `dir`. */
export async function scenarioDir(name: string, dir: string): Promise<string> {
  const { build, files } = await import('../../scenarios/index.js');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const s = (await allScenarios()).find((x) => x.name === name);
  if (!s) throw new Error(`no scenario ${name}`);
  const out = join(dir, name);
  mkdirSync(out, { recursive: true });
  for (const [f, text] of files(build([s]))) writeFileSync(join(out, f), text);
  return out;
}
