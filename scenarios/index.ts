// Scenarios: a base cluster plus what each check's scenario file (src/checks/<id>/scenario.ts) adds. The
// embedded example (examples/field-notes-k3s, `npm run demo`) is the field-notes base plus every scenario
// marked `example`; the real-cluster suite loads each scenario into a real kube-apiserver and holds the
// report to the scenario's expectations. Adding a check's scenario needs no registration: files named
// scenario.ts in a check folder is found through the registry (scripts/gen.mjs, __tests__/helpers/scenarios.ts).
import type { KObject, Severity } from '../src/model.js';
import { ClusterBuilder } from './builder.js';
import { CAPTURED, FIELD_NOTES_HEADER, fieldNotesBase, fillFieldNotes } from './field-notes.js';
import { kubeadmBase } from './kubeadm.js';
import { byText } from '../src/lib/order.js';

export { CAPTURED };

export interface ScenarioExpectation {
  /** Findings that must appear (title: exact text, or a regular expression source in /…/). */
  findings: Array<{ code: string; severity?: Severity; title?: string }>;
  /** Codes that must not appear. */
  absent?: string[];
  /** No finding above info, except these codes. */
  onlyInfo?: boolean;
  exitCode?: number;
  distribution?: string;
}

export interface Scenario {
  name: string;
  summary: string;
  base: 'field-notes' | 'kubeadm';
  /** Options of the base cluster (e.g. the number of K3s servers). */
  baseOptions?: { servers?: number };
  /** Part of the embedded example (`npm run demo`). */
  example?: boolean;
  /** What this scenario adds to or changes in the base cluster. */
  build?(c: ClusterBuilder): void;
  /** The API server's /readyz?verbose text, when the scenario is about it (the header of its snapshot). */
  readyz?: string;
  /** Why it cannot be loaded into a real kube-apiserver (the real-cluster suite holds it elsewhere): e.g. an age of
   *  a deletion the API server sets itself. It is still held to its expectations offline. */
  offlineOnly?: string;
  expect: ScenarioExpectation;
}

/** The field-notes cluster with nothing wrong: every check must stay quiet on it. */
export const HEALTHY: Scenario = {
  name: 'field-notes-healthy',
  summary: 'the field-notes K3s cluster with nothing wrong',
  base: 'field-notes',
  expect: { findings: [], onlyInfo: true, exitCode: 0, distribution: 'K3s' },
};

const CAPTURED_TYPES = [
  'Node',
  'Namespace',
  'Pod',
  'Deployment.apps',
  'ReplicaSet.apps',
  'DaemonSet.apps',
  'StatefulSet.apps',
  'Service',
  'Endpoints',
  'EndpointSlice.discovery.k8s.io',
  'Ingress.networking.k8s.io',
  'ConfigMap',
  'PersistentVolumeClaim',
  'PersistentVolume',
  'ClusterRole.rbac.authorization.k8s.io',
  'Addon.k3s.cattle.io',
  'HelmChart.helm.cattle.io',
  'HelmChartConfig.helm.cattle.io',
  'Application.argoproj.io',
  'Event',
  'Event.events.k8s.io',
  'Lease.coordination.k8s.io',
  'ValidatingWebhookConfiguration.admissionregistration.k8s.io',
  'MutatingWebhookConfiguration.admissionregistration.k8s.io',
  'APIService.apiregistration.k8s.io',
  'StorageClass.storage.k8s.io',
  'CSIDriver.storage.k8s.io',
  'CSINode.storage.k8s.io',
  'ETCDSnapshotFile.k3s.cattle.io',
  'PodDisruptionBudget.policy',
  'Job.batch',
];

export interface Built {
  objects: KObject[];
  header: Record<string, unknown>;
}

/** A base cluster with the given scenarios applied, in order; deterministic. */
export function build(scenarios: Scenario[]): Built {
  const base = scenarios[0]?.base ?? 'field-notes';
  const c = new ClusterBuilder(CAPTURED, base === 'kubeadm' ? 'c0de' : '0b5e');
  if (base === 'kubeadm') kubeadmBase(c);
  else fieldNotesBase(c, scenarios.find((s) => s.baseOptions)?.baseOptions);
  for (const s of scenarios) s.build?.(c);
  if (base === 'field-notes') fillFieldNotes(c);
  const objects = c.finish();
  const header =
    base === 'field-notes'
      ? {
          apiVersion: 'kubectl-arch/v1',
          kind: 'SnapshotHeader',
          capturedAt: new Date(CAPTURED).toISOString(),
          context: FIELD_NOTES_HEADER.context,
          server: FIELD_NOTES_HEADER.server,
          serverVersion: FIELD_NOTES_HEADER.serverVersion,
          readyz: scenarios.find((s) => s.readyz)?.readyz ?? FIELD_NOTES_HEADER.readyz,
          tls: FIELD_NOTES_HEADER.tls,
          captured: CAPTURED_TYPES,
          unavailable: FIELD_NOTES_HEADER.notInstalled.map(([group, kind, resource]) => ({
            group,
            kind,
            resource,
            status: 404,
            reason: `${resource}.${group} is not served here (CRD not installed)`,
          })),
        }
      : { apiVersion: 'kubectl-arch/v1', kind: 'SnapshotHeader', capturedAt: new Date(CAPTURED).toISOString() };
  return { objects, header };
}

const FILE_OF: Record<string, string> = {
  Node: 'nodes.json',
  Namespace: 'namespaces.json',
  Pod: 'pods.json',
  Deployment: 'workloads.json',
  ReplicaSet: 'workloads.json',
  DaemonSet: 'workloads.json',
  StatefulSet: 'workloads.json',
  Service: 'services.json',
  Endpoints: 'services.json',
  EndpointSlice: 'services.json',
  Ingress: 'services.json',
  ConfigMap: 'config.json',
  PersistentVolumeClaim: 'storage.json',
  PersistentVolume: 'storage.json',
  ClusterRole: 'rbac.json',
  Addon: 'k3s-addons.json',
  HelmChart: 'k3s-addons.json',
  Application: 'argocd-applications.json',
  Event: 'events.json',
  Lease: 'leases.json',
  ValidatingWebhookConfiguration: 'door.json',
  MutatingWebhookConfiguration: 'door.json',
  APIService: 'door.json',
  StorageClass: 'storage.json',
  CSIDriver: 'storage.json',
  CSINode: 'storage.json',
  ETCDSnapshotFile: 'etcd-snapshots.json',
};

/** The files of a snapshot directory: the header and one List per group of kinds, as `kubectl get -o json` writes
 *  them. All JSON: a YAML file would load js-yaml, ~10 ms of the start-up measured on the example (npm run bench). */
export function files(b: Built, withHeader = true): Map<string, string> {
  const out = new Map<string, string>();
  if (withHeader) out.set('00-header.json', `${JSON.stringify(b.header, null, 2)}\n`);
  const lists = new Map<string, KObject[]>();
  for (const o of b.objects) {
    const f = FILE_OF[o.kind ?? ''] ?? 'other.json';
    lists.set(f, [...(lists.get(f) ?? []), o]);
  }
  // the objects as `kubectl get -o json` writes a List: JSON parses about ten times faster than YAML, and the
  // example is what `doctor --snapshot` start-up is measured on (npm run bench)
  for (const [f, items] of [...lists].sort(([a], [b2]) => byText(a, b2)))
    out.set(f, `${JSON.stringify({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items }, null, 2)}\n`);
  return out;
}
