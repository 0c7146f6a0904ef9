// `kubectl arch explain what-if` (and explain ARCH-WI01…): what the prediction does, what it reads, and what it
// cannot know — the long form behind the command's --help, kept beside the code that predicts.
import { WHATIF_CODES } from './codes.js';

export const WHATIF_ID = 'what-if';
export const WHATIF_TITLE = 'What breaks if these nodes go down or are removed (kubectl arch what-if)';

export const WHATIF_DOCS = {
  what: [
    'The cluster as it would be with the nodes down for a while (a reboot, a drain, an outage) or, with --remove, gone for',
    'good: the nodes NotReady and tainted unreachable, their pods not ready, their endpoints dropped from every Service and',
    'EndpointSlice, their API server identity leases stale, an APIService with no ready backend unavailable, their etcd',
    'members down (or removed, with --remove), their local etcd snapshot files gone with their disks. Every check then',
    'runs on that cluster unchanged; a finding that appears (or gets worse) is a prediction, in the contract its check',
    'belongs to. What no check covers, what-if adds (the ARCH-WI codes below): workloads with no ready pod left, budgets',
    'that stop kubectl drain, pods pinned to volumes on those nodes, whether the pods to move fit on the schedulable',
    'nodes left by their requests, controllers that stop, ingress with no backend, no API server left, the only etcd',
    'snapshots removed. For several nodes it also predicts each alone and says whether one at a time is safe.',
    'With -o html the predictions are drawn on the map of the cluster as it would be: a part that carries one is marked',
    '"would break"; what no part draws (workloads, volumes, capacity) is listed under the verdict.',
  ].join('\n'),
  why: [
    'Every other command reports what is broken now; maintenance asks what will break. kubectl drain learns about a',
    'PodDisruptionBudget by hanging, nothing warns that the only ready pod of a fail-closed webhook is on the node being',
    'drained, and stopping the second of two etcd servers (or destroying two of three before removing their members) is',
    'how quorum is lost. The contract says where to look: state in etcd, the door, the loops, the interfaces.',
  ].join('\n'),
  fix: [
    'Use it as a gate: kubectl arch what-if NODE && kubectl drain NODE --ignore-daemonsets (exit 1 when a prediction is at',
    'or above --fail-on, error by default). Fix what it names first — a second replica spread across nodes, a budget',
    'that allows one disruption, a webhook backend off that node, quorum restored — or accept it knowingly. Remove',
    'servers one at a time: delete the node (its etcd member goes with it), wait until the others are healthy, then the next.',
  ].join('\n'),
  limits: [
    'A prediction, not the scheduler: whether the pods to move fit is judged by their requests against allocatable and',
    'by the taints they tolerate; affinity, nodeSelector and topology spread are not weighed. Pods that tolerate every',
    'taint are never evicted by the node lifecycle controller and stay there. Leaders that move (leases) are not',
    'predictions. What a snapshot lacks is named at the end (pods, budgets, allocatable) and not predicted. Managed',
    'control planes (EKS, GKE, AKS) keep etcd and the API servers to themselves: the state and the door are not',
    'predicted there.',
  ].join('\n'),
};

/** Whether an explain argument names what-if: its id or one of its codes. */
export const isWhatIf = (id: string): boolean => id === WHATIF_ID || Object.hasOwn(WHATIF_CODES, id.toUpperCase());

const indent = (s: string): string =>
  s
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');

/** `kubectl arch explain what-if`. */
export function whatIfExplainText(): string {
  return [
    `${WHATIF_TITLE} [${WHATIF_ID}]`,
    '',
    'WHAT IT PREDICTS',
    indent(WHATIF_DOCS.what),
    '',
    'WHY IT MATTERS',
    indent(WHATIF_DOCS.why),
    '',
    'HOW TO USE IT',
    indent(WHATIF_DOCS.fix),
    '',
    'WHAT A PREDICTION CAN AND CANNOT KNOW',
    indent(WHATIF_DOCS.limits),
    '',
    'ITS OWN FINDING CODES (the checks add theirs: kubectl arch explain <code>)',
    ...Object.entries(WHATIF_CODES).map(([k, v]) => `  ${k}  ${v}`),
    '',
    'READS (list, read-only)',
    '  what doctor reads, and pods (requests, tolerations, claims), ReplicaSets (metadata), Deployments, StatefulSets,',
    '  PodDisruptionBudgets, PersistentVolumes, PersistentVolumeClaims',
    '',
    'EXIT CODES',
    '  0 nothing predicted at or above --fail-on; 1 something is; 2 a node that does not exist (named) or a usage error',
    '',
  ].join('\n');
}

/** `kubectl arch explain what-if -o json|yaml`. */
export const whatIfExplainDoc = (): Record<string, unknown> => ({
  id: WHATIF_ID,
  title: WHATIF_TITLE,
  codes: WHATIF_CODES,
  docs: WHATIF_DOCS,
});
