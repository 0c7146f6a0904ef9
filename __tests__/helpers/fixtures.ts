// Builders for test objects and snapshots.
import type { KObject, ResourceType } from '../../src/model.js';
import type { Report, ReportList } from '../../src/render/report.js';
import { R } from '../../src/resources.js';
import { loadSnapshot } from '../../src/snapshot/load.js';
import { Snapshot } from '../../src/snapshot/snapshot.js';

export const EXAMPLE = new URL('../../examples/field-notes-k3s', import.meta.url).pathname;

export function exampleObjects(): KObject[] {
  return [...loadSnapshot(EXAMPLE).all()];
}

/** Every type the example holds, as the test API server should serve them. */
export const EXAMPLE_TYPES: ResourceType[] = [
  ...Object.values(R).filter(
    (t) =>
      !['argoproj.io', 'k3s.cattle.io', 'helm.cattle.io'].includes(t.group) &&
      !t.group.includes('fluxcd') &&
      !t.group.includes('k0s') &&
      !t.group.includes('openshift'),
  ),
  { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false },
  R.addons,
  R.helmcharts,
  R.argoApplications,
  // served (discovery lists it) but never read by kubectl-arch
  { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true },
];

export function obj(apiVersion: string, kind: string, name: string, namespace?: string, rest: Partial<KObject> = {}): KObject {
  const { metadata, ...body } = rest;
  return { apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}), ...(metadata ?? {}) }, ...body };
}

/** A snapshot holding these objects; the listed types count as captured even when empty. */
export function snapshotOf(
  objects: KObject[],
  opts: { captured?: Array<{ group: string; kind: string }>; capturedAt?: string; serverVersion?: string; readyz?: string } = {},
): Snapshot {
  const snap = new Snapshot({
    capturedAt: opts.capturedAt ?? '2026-08-13T09:00:00Z',
    serverVersion: opts.serverVersion ? { gitVersion: opts.serverVersion } : undefined,
    readyz: opts.readyz,
  });
  for (const c of opts.captured ?? []) snap.addList(c.group, c.kind, []);
  for (const o of objects) snap.addObject(o);
  return snap;
}

export function node(
  name: string,
  opts: {
    kubelet?: string;
    roles?: string[];
    ready?: boolean;
    cordoned?: boolean;
    providerID?: string;
    labels?: Record<string, string>;
    conditions?: unknown[];
    runtime?: string;
    annotations?: Record<string, string>;
  } = {},
): KObject {
  const labels: Record<string, string> = { ...(opts.labels ?? {}) };
  for (const r of opts.roles ?? []) labels[`node-role.kubernetes.io/${r}`] = 'true';
  return obj('v1', 'Node', name, undefined, {
    metadata: { name, labels, annotations: opts.annotations },
    spec: { ...(opts.cordoned ? { unschedulable: true } : {}), ...(opts.providerID ? { providerID: opts.providerID } : {}) },
    status: {
      conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }, ...(opts.conditions ?? [])],
      nodeInfo: { kubeletVersion: opts.kubelet ?? 'v1.35.4', containerRuntimeVersion: opts.runtime ?? 'containerd://2.0.0' },
    },
  });
}

/** `doctor --contexts` over two, as the CLI reports them: `report` reached as prod-eu, and the context named `failed`
 *  not reached, with `error`. */
export function twoContexts(report: Report, failed: string, error: { message: string; hint?: string }): ReportList {
  return {
    apiVersion: 'kubectl-arch/v1',
    kind: 'ReportList',
    command: 'doctor',
    summary: { contexts: 2, reached: 1, failed: 1, findings: report.summary.findings, suppressed: 0, exitCode: 3, durationMs: 10 },
    contexts: [
      {
        context: 'prod-eu',
        status: 'ok',
        distribution: 'K3s',
        serverVersion: 'v1.35.4+k3s1',
        findings: report.summary.findings,
        suppressed: 0,
        worst: 'error',
        durationMs: 5,
        exitCode: 1,
      },
      { context: failed, status: 'failed', worst: 'unreachable', durationMs: 5, exitCode: 3, error: { ...error, exitCode: 3 } },
    ],
    items: [report],
  };
}
