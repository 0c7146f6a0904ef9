// Shared types. Data flows one way: kubeconfig → client → snapshot → checks → findings → renderer.
import { createHash } from 'node:crypto';
import type { Step } from './lib/shell.js';

export type Severity = 'info' | 'warning' | 'error' | 'critical';

/** The four things that hold whatever the distribution: state (etcd), the door (the API server), the loops
 *  (controllers) and the interfaces at the node boundary (CRI, CNI, CSI, DNS). */
export type Contract = 'state' | 'door' | 'loops' | 'interfaces';
export const SEVERITY_RANK: Record<Severity, number> = { info: 0, warning: 1, error: 2, critical: 3 };

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }>;
  finalizers?: string[];
  creationTimestamp?: string;
  deletionTimestamp?: string;
  resourceVersion?: string;
}

/** A Kubernetes object as read from the API or from a file. Bodies are untyped on purpose. */
export interface KObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: any;
  status?: any;
  [key: string]: any;
}

/** One API resource type, as discovery describes it. */
export interface ResourceType {
  group: string; // '' for core
  version: string;
  resource: string; // plural, e.g. deployments
  kind: string;
  namespaced: boolean;
}

/** Where a report's data came from (the header of every report and page). */
export interface ReportSource {
  type: 'cluster' | 'snapshot';
  context?: string;
  /** The kubeconfig cluster name (for accepted-risk rules). */
  cluster?: string;
  server?: string;
  path?: string;
  capturedAt?: string;
  namespace?: string;
}

/** GETs made once per node with --deep (e.g. nodes/<n>/proxy/configz), declared by the check that reads them. */
export interface NodeGet {
  /** Key under which the answers are kept in the snapshot header (perNode[id]). */
  id: string;
  path: (node: string) => string;
  /** The part of the answer the check reads (so a snapshot keeps no more). */
  pick: (body: unknown) => unknown;
  /** What the user needs when it is forbidden. */
  forbidden: string;
}

/** What a check needs from the cluster. */
export interface Need extends ResourceType {
  /** Bodies are not needed: list as PartialObjectMetadataList. */
  metadataOnly?: boolean;
  /** With metadataOnly: the few objects whose bodies are needed, fetched one by one with GET. */
  bodiesFor?: (meta: ObjectMeta) => boolean;
  /** Drop objects no check reads (applied while paging, so they are never held). */
  keep?: (o: KObject) => boolean;
  /** The field paths of this type (src/snapshot/fields.ts): in resources.ts, what a snapshot keeps of it (beyond
   *  identity and METADATA_FIELDS); in a check's, prediction's or command's needs, what it reads of it. */
  fields?: readonly string[];
  /** A value cut down before the fields are kept (a long termination message, a ConfigMap's keys by its name). */
  narrow?: (o: KObject) => KObject;
  /** List once per field selector (server-side filtering) and merge by uid, instead of one full list. */
  fieldSelectors?: readonly string[];
  /** Pods: list metadata-only, and those not running (fieldSelector status.phase!=Running) to mark the others Running. */
  runningPhase?: boolean;
  /** Always listed across all namespaces, even with -n (owners such as Argo CD Applications live elsewhere). */
  clusterWide?: boolean;
  /** The check still runs without it (e.g. a CRD that may not be installed); it says what it could not see. */
  optional?: boolean;
  /** What the check loses without it, e.g. "live clusterIP cannot be compared": the runner's "not visible" note. */
  lost?: string;
}

/** Why a resource is not in the snapshot. */
export interface Unavailable {
  group: string;
  kind: string;
  resource?: string;
  status?: number; // HTTP status when it came from the API
  reason: string;
}

export interface ObjectRef {
  kind: string;
  apiVersion?: string;
  namespace?: string;
  name: string;
}

export interface Finding {
  /** Stable code, e.g. ARCH-RL01 (never reused for another meaning). */
  code: string;
  checkId: string;
  severity: Severity;
  title: string;
  /** One or two sentences: what is happening. */
  message: string;
  objects: ObjectRef[];
  /** Structured evidence for -o json. */
  evidence: Record<string, unknown>;
  why?: string;
  /** Steps for a human, prose or commands (lib/shell.ts: argument lists, quoted by one function); never run. */
  fix?: Step[];
  /** The fault's identity across runs, captures and machines: a hash of its code and the objects it names (not its
   *  wording, severity or context). Set on every finding a report carries. */
  fingerprint?: string;
  /** With --baseline: new since the baseline, or there already (unchanged). */
  baseline?: 'new' | 'unchanged';
  /** what-if -f: the manifest line it concerns (a SARIF region). */
  location?: { file: string; line: number };
}

/** A finding as a report file holds it (--baseline, diff). */
export interface KnownFinding {
  fingerprint: string;
  code: string;
  severity: Severity;
  title: string;
  objects: ObjectRef[];
}

/** This run against a baseline: how many findings are new or unchanged, and what the baseline had that is gone. */
export interface BaselineResult {
  file: string;
  new: number;
  unchanged: number;
  fixed: KnownFinding[];
}

/** passed: every input visible, no finding; partial: no finding in what was visible, but a subject or evidence
 *  input was not (never "passed"); skipped: nothing it judges was visible, or the evidence cannot decide. */
export type CheckStatus = 'passed' | 'findings' | 'partial' | 'skipped';

export interface CheckResult {
  id: string;
  title: string;
  status: CheckStatus;
  /** For passed: the one-line reason; for partial: that and what it could not judge; for skipped: why it could not run. */
  reason?: string;
  findings: Finding[];
  /** Parts of the check that could not be evaluated (partial visibility). */
  notes: string[];
  /** Subject and evidence inputs that were not visible (types, e.g. Event, Application.argoproj.io): with none of
   *  them a clean result is "passed", with some it is "partial". */
  unjudged?: string[];
  /** Skipped because what it saw cannot decide (not because something was missing or the check does not apply). */
  undecided?: boolean;
}

export const groupOf = (apiVersion: string | undefined): string => {
  if (!apiVersion || !apiVersion.includes('/')) return '';
  return apiVersion.slice(0, apiVersion.indexOf('/'));
};

export const gkKey = (group: string, kind: string): string => (group ? `${kind}.${group}` : kind);

/** "Kind namespace/name" or "Kind name" for cluster-scoped objects. */
export const refText = (r: { kind?: string; namespace?: string; name: string }): string =>
  `${r.kind ?? '?'} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;

/** A fault's fingerprint: its faultKey hashed (32 hex digits). */
export const fingerprintOf = (f: { code: string; objects: Array<{ kind?: string; namespace?: string; name: string }> }): string =>
  createHash('sha256').update(faultKey(f)).digest('hex').slice(0, 32);

/** One fault's identity across runs and sources: its code and the objects it names, in any order. */
export const faultKey = (f: { code: string; objects: Array<{ kind?: string; namespace?: string; name: string }> }): string =>
  `${f.code}|${f.objects
    .map((o) => `${o.kind}/${o.namespace ?? ''}/${o.name}`)
    .sort()
    .join(',')}`;

/** The rank of the worst severity among findings, -1 for none (for exit codes and ordering). */
export const worstRank = (findings: Iterable<{ severity: Severity }>): number => {
  let w = -1;
  for (const f of findings) w = Math.max(w, SEVERITY_RANK[f.severity]);
  return w;
};

// ---- the map: the cluster by contract (src/map/build.ts builds it, src/render/ draws it)

export interface LineCheck {
  id: string;
  status: CheckStatus;
  /** The worst finding of this check that concerns the line. */
  worst?: Severity;
  findings: number;
  /** Which of the check's findings concern the line (indexes into its CheckResult.findings), for renderers that show them. */
  indexes?: number[];
}

export interface MapLine {
  name: string;
  detail: string;
  /** Sub-lines (a member, a webhook configuration) are indented under their part. */
  indent?: boolean;
  objects?: ObjectRef[];
  checks: LineCheck[];
}

export interface MapSection {
  contract: Contract;
  title: string;
  lines: MapLine[];
}

export interface ArchMap {
  distribution: string;
  serverVersion: string;
  nodes: string;
  sections: MapSection[];
}

// ---- what-if's predictions (the node hypotheses' and a change's: src/whatif, src/change)

export type WhatIfContract = Contract | 'workloads';

export interface Prediction {
  contract: WhatIfContract;
  code: string;
  /** The check that predicts it, or what-if's own. */
  from: string;
  severity: Severity;
  title: string;
  message: string;
  objects: ObjectRef[];
  why?: string;
  fix?: Step[];
}

export interface Unjudged {
  contract: WhatIfContract;
  /** The input or fact that was not visible, in words. */
  what: string;
  /** Who needed it: a unit id or a check id. */
  by: string;
  /** What that one could not predict without it. */
  lost?: string;
}
