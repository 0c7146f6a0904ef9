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
