// The update validation of the cluster's version, over the live object and the object the API server would receive
// (src/change/apply.ts computes it): one rule per built-in kind (./core.ts, ./workloads.ts, ./others.ts). A kind with
// no rule, or a changed field no rule covers, is "not judged" — never "accepted". Proven against real kube-apiservers
// of v1.24, v1.25 and v1.36 by the difference test (e2e/difference.e2e.test.ts; fixtures in __tests__/fixtures/difference/).
import { groupOf, type KObject } from '../../model.js';
import { CORE_RULES } from './core.js';
import { pathText } from './diff.js';
import { OTHER_RULES } from './others.js';
import { Update, type Refusal, type Rule, type Unseen, type UpdateContext } from './update.js';
import { WORKLOAD_RULES } from './workloads.js';

export type { Refusal, Unseen, UpdateContext };

const RULES: Record<string, Rule> = { ...CORE_RULES, ...WORKLOAD_RULES, ...OTHER_RULES };

/** Does a rule judge this kind's updates? (group '' is the core group) */
export const hasRule = (group: string, kind: string): boolean => RULES[group ? `${kind}.${group}` : kind] !== undefined;

/** The kinds judged, as "Kind" or "Kind.group" (for explain and the docs). */
export const judgedKinds = (): string[] => Object.keys(RULES).sort();

/** What each rule refuses, in words, with the release each part holds from (explain what-if, the docs). Every other
 *  field of these kinds may change; a kind not here is not judged. */
export const RULE_TABLE: ReadonlyArray<{ kind: string; refuses: string }> = [
  {
    kind: 'Service',
    refuses:
      'another clusterIP(s) or primary ipFamily (unless to or from ExternalName; left out or "" keeps the live one from v1.20, refused before), releasing the secondary family without SingleStack, RequireDualStack or a second family on a single-stack cluster, headless to NodePort/LoadBalancer, loadBalancerClass changed on a LoadBalancer, node ports where the type has none, externalTrafficPolicy and allocateLoadBalancerNodePorts on types without them (before v1.27)',
  },
  {
    kind: 'Pod',
    refuses:
      'any spec change but container images, activeDeadlineSeconds (set, or lowered), tolerations added, scheduling gates removed (and, for a gated pod, node selectors and node affinity added, v1.27+)',
  },
  {
    kind: 'PersistentVolumeClaim',
    refuses:
      "spec other than a bound claim's size (and attributes class, v1.29+), a volumeName or class set for the first time; the beta class annotation; a size below status.capacity (v1.32+; below the previous size before); growth where the class (spec or beta annotation) has no allowVolumeExpansion (admission, 403)",
  },
  { kind: 'PersistentVolume', refuses: 'the volume source (nfs, hostPath, csi…), volumeMode, nodeAffinity once set' },
  { kind: 'ConfigMap', refuses: 'data, binaryData and immutable once immutable: true' },
  { kind: 'Secret', refuses: 'data and immutable once immutable: true, type (never judged here: Secrets are never read)' },
  { kind: 'Node', refuses: 'podCIDR(s) and providerID once set' },
  { kind: 'ResourceQuota', refuses: 'scopes, scopeSelector' },
  {
    kind: 'Deployment, ReplicaSet, DaemonSet',
    refuses: 'the selector; a template whose labels the selector does not select; Recreate with rollingUpdate',
  },
  {
    kind: 'StatefulSet',
    refuses:
      'spec other than replicas, template, updateStrategy, persistentVolumeClaimRetentionPolicy, minReadySeconds (ordinals from v1.26, revisionHistoryLimit from v1.33): volumeClaimTemplates, serviceName, podManagementPolicy, selector…',
  },
  { kind: 'ControllerRevision', refuses: 'data' },
  {
    kind: 'Job',
    refuses:
      "the template (a suspended Job that never started may change where it runs: node selector, tolerations, node affinity, template labels and annotations; v1.36: a suspended one also its containers' resources), the selector, completions (an Indexed Job may grow it with parallelism, v1.27+), completionMode, podFailurePolicy, backoffLimitPerIndex, managedBy, successPolicy",
  },
  { kind: 'RoleBinding, ClusterRoleBinding', refuses: 'roleRef' },
  { kind: 'StorageClass', refuses: 'parameters, provisioner, reclaimPolicy, volumeBindingMode' },
  { kind: 'CSIDriver', refuses: 'attachRequired, volumeLifecycleModes (fsGroupPolicy and podInfoOnMount before v1.29)' },
  { kind: 'VolumeAttachment', refuses: 'spec' },
  { kind: 'CSIStorageCapacity', refuses: 'storageClassName, nodeTopology' },
  { kind: 'CSINode', refuses: 'drivers' },
  { kind: 'PriorityClass', refuses: 'value, preemptionPolicy' },
  { kind: 'RuntimeClass', refuses: 'handler, overhead' },
  { kind: 'IngressClass', refuses: 'spec.controller' },
  { kind: 'EndpointSlice', refuses: 'addressType' },
  {
    kind: 'CustomResourceDefinition',
    refuses: 'spec.group, spec.scope, spec.names.plural (the name is plural.group); its versions and schemas are not judged',
  },
  {
    kind: 'Namespace, ServiceAccount, Endpoints, LimitRange, PodTemplate, ReplicationController, Event, CronJob, Role, ClusterRole, Ingress, NetworkPolicy, Lease, PodDisruptionBudget, HorizontalPodAutoscaler, webhook configurations, APIService',
    refuses: 'nothing once valid (ReplicationController: a template its selector selects)',
  },
];

export interface Judgement {
  refusals: Refusal[];
  /** What could not be judged: a field no rule covers, a value not visible. */
  unseen: Unseen[];
  /** The fields that change (paths), for "updated: …". */
  changed: string[];
  /** The kind has no rule at all. */
  noRule?: string;
}

/** What the API server of this version would answer to updating `old` into `next` (same kind, namespace and name). */
export function judgeUpdate(old: KObject, next: KObject, ctx: UpdateContext): Judgement {
  const group = groupOf(next.apiVersion ?? old.apiVersion);
  const kind = next.kind ?? old.kind ?? '';
  const u = new Update(old, next, ctx);
  const changed = [...new Set(u.diffs.map((d) => pathText(d.path.slice(0, Math.min(d.path.length, 3)))))];
  const rule = RULES[group ? `${kind}.${group}` : kind];
  if (!rule) {
    if (!u.uncovered().length) return { refusals: [], unseen: [], changed };
    return { refusals: [], unseen: [], changed, noRule: `no rule for ${kind}${group ? `.${group}` : ''} updates` };
  }
  rule(u);
  const unseen = [...u.unseen];
  for (const d of u.uncovered())
    unseen.push({
      at: d.path,
      why: `${pathText(d.path)}: no rule for this field of ${kind}${d.masked ? ' (its live value is masked)' : ''}`,
    });
  return { refusals: u.refusals, unseen, changed };
}
