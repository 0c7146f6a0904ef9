// `kubectl arch explain what-if` (and explain ARCH-WI01…): what the prediction does, what it reads, and what it
// cannot know — the long form behind the command's --help, kept beside the code that predicts.
import { WHATIF_CODES } from './codes.js';
import { UNITS, UPGRADE_UNITS } from './predictions/registry.js';
import { UPGRADE_CODES } from './upgrade/codes.js';
import { API_REMOVALS, REMOVALS_KNOWN_TO } from '../lib/removed-apis.js';
import { CHANGE_CODES } from '../change/codes.js';
import { RULE_TABLE } from '../change/rules/index.js';
import { APPLY_MODES } from '../change/apply.js';

/** A paragraph in lines of at most 110 characters. */
const wrap = (t: string): string =>
  t
    .split(' ')
    .reduce<string[]>((lines, w) => {
      const last = lines[lines.length - 1];
      if (last !== undefined && last.length + w.length + 1 <= 110) lines[lines.length - 1] = `${last} ${w}`;
      else lines.push(w);
      return lines;
    }, [])
    .join('\n');

export const WHATIF_ID = 'what-if';
export const WHATIF_TITLE = 'What breaks if these nodes go down or are removed (kubectl arch what-if)';

/** what-if -f and --k3s-config: a change before it is applied. */
export const CHANGE_DOCS = {
  what: [
    'what-if -f FILE|DIR|- reads manifests as they would be applied (plain YAML or JSON, kustomize build or helm template',
    'output) and, for each object, reads the live one (a GET each, or one list of a type many of them share; never a',
    'Secret) or the one a snapshot holds, then',
    'predicts what applying it would do, object by object (created, configured with the fields that change, unchanged,',
    'refused, not judged): the object the API server would receive, by how it is applied — client-side (kubectl apply,',
    "Argo CD's default: a three-way merge with the last-applied annotation), server-side (Flux, Argo CD ServerSideApply=true,",
    'kubectl --server-side: managedFields say what the manager applied before), replace (Argo CD Replace=true), helm,',
    "wrangler (K3s/RKE2 addons) — the owner's own way when it can be read, else --apply-mode (default client-side); the",
    "server's defaults; then the update validation of the cluster's version (v1.24 to v1.36, each rule with the release it",
    'holds from) over the live object and that one. Every change the API server refuses',
    '(ARCH-WI20, in its words, from the table below) and the owner that would retry it (Argo CD, Flux, the K3s deploy',
    'controller, a HelmChart, Helm), a claim that would not grow (ARCH-WI21), what the owner tracks that the render no',
    "longer holds — pruned or left behind (ARCH-WI22/23, when the manifests are the owner's whole render) — and the door:",
    'kinds not served (ARCH-WI24), namespaces that do not exist (ARCH-WI25), fail-closed webhooks with no backend',
    '(ARCH-WI26). --k3s-config FILE (--rke2-config) compares a new server config.yaml with what the servers run',
    '(k3s.io/node-args, the cluster-dns ConfigMap, the live kube-dns Service, the packaged components): cluster-dns changed',
    "after install (ARCH-WI27: the field notes' six-hour loop), cluster-cidr, service-cidr or the datastore (ARCH-WI28),",
    'components newly disabled (ARCH-WI29), the etcd snapshot settings (ARCH-WI30).',
  ].join('\n'),
  limits: [
    'A kind with no rule, or a field no rule covers, is not judged (never called safe). Helm keeps its previous release',
    'manifest in a Secret, never read: what a Helm upgrade drops since its last release is not known (said so). Values',
    "the plugin masks are compared by salted digests (a Job's env values, an immutable ConfigMap's data, the last-applied",
    "annotation); a field a snapshot neither keeps nor digests (most of a Pod's spec) is not judged from it, and snapshots",
    'older than this release keep less and say so. Secrets are never read, so a change to an immutable Secret is not',
    'judged. Field values are not validated on their own (kubectl apply --dry-run=server does): what is judged is what the',
    "change of a live object adds. Pruning assumes the manifests are the owner's whole render. Proven against real",
    'kube-apiservers (v1.24.17, v1.25.16, v1.36.3) on thousands of changes, and against real kubectl apply.',
  ].join('\n'),
};

/** what-if --upgrade VERSION: an upgrade before it is done. */
export const UPGRADE_DOCS = {
  what: [
    'what-if --upgrade VERSION (v1.33, v1.33.4, v1.33.4+k3s1) judges the cluster as it is for the target: the version it',
    "runs now is the API server's (else its control-plane kubelets'); every release after it up to the target is crossed.",
    'The door: every API version those releases stop serving (one table, generated from the lifecycle tags of k8s.io/api',
    'and held to real API servers by difference) that is still written to — read from managedFields and last-applied on',
    'every object — or served only through it, and webhooks whose review versions the target no longer sends. The loops',
    'that follow: the owners that would keep applying a removed version (Argo CD, Flux, the K3s deploy controller, a',
    'HelmChart, a Helm release, an operator), how often, and the fix. State while it rolls: the order in which the',
    'distribution takes the nodes down (kubeadm: control plane one node at a time, then workers; K3s/RKE2: servers, then',
    'agents, or as system-upgrade-controller Plans say, concurrency at a time), each step judged as what-if NODE judges it;',
    'managed clouds upgrade their control plane themselves. Version rules: a skipped minor, kubelets outside the skew the',
    "target supports, an external etcd kubeadm cannot check. The nodes' interfaces: dockershim, cgroup v1, in-tree volume",
    'plugins and cloud providers the target removed, flags K3s/RKE2 pass that it no longer registers. With -o html the',
    'predictions are drawn on the map of the cluster as it is.',
  ].join('\n'),
  limits: [
    'Clients that only read through a removed version, or send requests that store nothing (TokenReview), leave no trace',
    'on any object. A Helm release is seen through the objects it wrote, never its Secret. Steps are judged as what-if NODE',
    `judges a node going down for a while (a drain and a restart), not the new release's behaviour. Releases after v1.${REMOVALS_KNOWN_TO}`,
    'are not known to this kubectl-arch: what they remove is not judged.',
  ].join('\n'),
};

export const WHATIF_DOCS = {
  what: [
    'The cluster as it would be with the nodes down for a while (a reboot, a drain, an outage) or, with --remove, gone for',
    'good: the nodes NotReady and tainted unreachable, their pods not ready, their endpoints dropped from every Service and',
    'EndpointSlice a controller keeps — hand-written ones (a Service without a selector) keep listing them, as nothing',
    'rewrites them, and each address is mapped to the pod or node that serves it (its IP) — their API server identity',
    'leases stale (a lease names a host, found by the node labelled kubernetes.io/hostname so), an APIService with no',
    'ready backend unavailable, their etcd',
    'members down (or removed, with --remove), their local etcd snapshot files gone with their disks. Every check then',
    'runs on that cluster unchanged; a finding that appears (or gets worse) is a prediction, in the contract its check',
    'belongs to. What no check covers, what-if adds (the ARCH-WI codes below): workloads with no ready pod left, budgets',
    'that stop kubectl drain, pods pinned to volumes on those nodes, whether the pods to move fit on the schedulable',
    'nodes left by their requests, controllers that stop, ingress with no backend, no API server left, the only etcd',
    'snapshots removed, pods no controller recreates. Workloads are grouped by their top controller, whatever its kind',
    "(a Deployment, a StatefulSet, an Argo Rollout, a CloudNativePG Cluster, any operator's). A removal is judged at its",
    'worst moment too: the nodes down and their etcd members not yet removed. For several nodes it also predicts each',
    'alone and says whether one at a time is safe, at the same --fail-on.',
    'With -o html the predictions are drawn on the map of the cluster as it would be: a part that carries one is marked',
    '"would break"; what no part draws (workloads, volumes, capacity) is listed under the verdict.',
  ].join('\n'),
  why: [
    'Every other command reports what is broken now; maintenance asks what will break. kubectl drain learns about a',
    'PodDisruptionBudget by hanging, nothing warns that the only ready pod of a fail-closed webhook is on the node being',
    'drained, and stopping the second of two etcd servers (or destroying two of three before removing their members) is',
    'how quorum is lost. The contract says where to look: state in etcd, the door, the loops, the interfaces.',
  ].join('\n'),
  verdict: [
    'safe: nothing is predicted at or above --fail-on AND every input the predictions rest on was visible — the types each',
    "check and each of what-if's own predictions reads (nodes, pods, budgets, volumes, webhooks, leases…), and every",
    "fact a prediction needs (a budget's allowed disruptions, the replicas a workload wants). Exit 0.",
    'not safe: something is predicted at or above --fail-on, whatever else could not be seen. Exit 1.',
    'not judged: nothing at or above --fail-on is predicted in what was visible, but something it rests on was not',
    "(RBAC, a partial snapshot) or the run's --deadline came first: each section names what it could not judge, and the",
    'verdict names the inputs. Exit 3. Never "safe".',
    'With --fail-on none there is no gate: no verdict, exit 0. A node that does not exist, or whose existence cannot be',
    'checked (nodes not visible and nothing visible runs there), is exit 2, named. -n/--namespace is refused: a node runs',
    'pods of every namespace.',
  ].join('\n'),
  fix: [
    'Use it as a gate: kubectl arch what-if NODE && kubectl drain NODE --ignore-daemonsets (exit 0 only when safe: 1 when',
    'a prediction is at or above --fail-on, error by default; 3 when not judged). Fix what it names first — a second',
    'replica spread across nodes, a budget that allows one disruption, a webhook backend off that node, quorum',
    'restored — or accept it knowingly. Remove servers one at a time: delete the node (its etcd member goes with it),',
    'wait until the others are healthy, then the next.',
  ].join('\n'),
  limits: [
    'A prediction, not the scheduler: whether the pods to move fit is judged by their requests against allocatable and',
    'by the taints they tolerate, on the nodes their nodeSelector and required node affinity allow; preferred affinity,',
    'pod affinity and topology spread are not weighed. Pods that tolerate every',
    'taint are never evicted by the node lifecycle controller and stay there. Leaders that move (leases) are not',
    'predictions. What a snapshot lacks is named in the section it concerns and not predicted. Managed control planes',
    '(EKS, GKE, AKS, recognised only by positive evidence: their node labels or provider IDs, or their version with no',
    'control plane among the nodes) keep etcd and the API servers to themselves: the state and the door are not',
    'predicted there; a cluster with a control plane of its own (EKS Anywhere runs EKS-D on kubeadm) is judged as one.',
    'Only live API servers count (a fresh identity lease, a Ready kube-apiserver pod, a Ready server node). A check whose',
    'inputs a node changes only as context (the orphan scan: whether an orphan still runs) is not run again: a node',
    'going down can only make what it finds milder. A Service address that no visible pod or node has (written by hand:',
    'a VM, a secondary address, a pod not visible) is never counted live: a fail-closed webhook, an APIService or an',
    'ingress with nothing else known to stay is not judged. Nodes are matched by their labels, as the scheduler matches',
    "them: a volume's nodeAffinity against labels only (its matchFields pins nothing upstream).",
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
    'THE VERDICT',
    indent(WHATIF_DOCS.verdict),
    '',
    'HOW TO USE IT',
    indent(WHATIF_DOCS.fix),
    '',
    'WHAT A PREDICTION CAN AND CANNOT KNOW',
    indent(WHATIF_DOCS.limits),
    '',
    'ITS OWN PREDICTIONS (the checks add theirs: kubectl arch explain <code>)',
    ...UNITS.flatMap((u) => [
      `  ${u.code}  ${u.title} [${u.id}, ${u.contract}]`,
      indent(indent(wrap(u.docs.what))),
      `      reads: ${u.needs.map((n) => `${n.kind} (${n.role})`).join(', ')}`,
    ]),
    '',
    'A CHANGE: what-if -f FILE|DIR|- and --k3s-config FILE',
    indent(CHANGE_DOCS.what),
    '',
    `  Apply modes: ${APPLY_MODES.join(', ')}. What the API server refuses on update (the rules, by kind):`,
    ...RULE_TABLE.map((r) => `    ${r.kind}: ${r.refuses}`),
    '',
    indent(CHANGE_DOCS.limits),
    '',
    ...Object.entries(CHANGE_CODES).map(([k, v]) => `  ${k}  ${v}`),
    '',
    'AN UPGRADE: what-if --upgrade VERSION',
    indent(UPGRADE_DOCS.what),
    '',
    indent(UPGRADE_DOCS.limits),
    '',
    ...UPGRADE_UNITS.flatMap((u) => [
      `  ${u.id} [${u.contract}]`,
      indent(indent(wrap(u.docs.what))),
      `      reads: ${u.needs.map((n) => `${n.kind} (${n.role})`).join(', ')}`,
    ]),
    '',
    ...Object.entries(UPGRADE_CODES).map(([k, v]) => `  ${k}  ${v}`),
    '',
    `  API versions removed, by release (${API_REMOVALS.length} rows, releases up to v1.${REMOVALS_KNOWN_TO}: src/lib/api-removals.ts):`,
    ...[...new Set(API_REMOVALS.map((r) => r.removed))].map(
      (m) =>
        `    v1.${m}: ${API_REMOVALS.filter((r) => r.removed === m && r.stored !== false)
          .map((r) => `${r.group ? `${r.group}/` : ''}${r.version} ${r.kind}`)
          .join(', ')}`,
    ),
    '',
    'READS (list, read-only)',
    '  what doctor reads, and pods (requests, tolerations, claims), ReplicaSets (metadata), Deployments, StatefulSets,',
    '  PodDisruptionBudgets, PersistentVolumes, PersistentVolumeClaims',
    '',
    'EXIT CODES',
    '  0 safe (or no gate); 1 not safe: something predicted at or above --fail-on; 2 a node that does not exist or whose',
    '  existence cannot be checked (named), or a usage error; 3 not judged: something it rests on was not visible, or the',
    '  deadline came first',
    '',
  ].join('\n');
}

/** `kubectl arch explain what-if -o json|yaml`. */
export const whatIfExplainDoc = (): Record<string, unknown> => ({
  id: WHATIF_ID,
  title: WHATIF_TITLE,
  codes: WHATIF_CODES,
  docs: WHATIF_DOCS,
  change: { docs: CHANGE_DOCS, codes: CHANGE_CODES, applyModes: APPLY_MODES, rules: RULE_TABLE },
  upgrade: {
    docs: UPGRADE_DOCS,
    codes: UPGRADE_CODES,
    predictions: UPGRADE_UNITS.map((u) => ({
      id: u.id,
      contract: u.contract,
      docs: u.docs,
      reads: u.needs.map((n) => ({ kind: n.kind, group: n.group, role: n.role, lost: n.lost })),
    })),
    // by release, compact (the full rows, with the module each was read from, are src/lib/api-removals.ts)
    removals: Object.fromEntries(
      [...new Set(API_REMOVALS.map((r) => r.removed))].map((m) => [
        `v1.${m}`,
        API_REMOVALS.filter((r) => r.removed === m && r.stored !== false).map(
          (r) => `${r.group ? `${r.group}/` : ''}${r.version} ${r.kind}${r.replacement ? ` → ${r.replacement}` : ''}`,
        ),
      ]),
    ),
  },
  predictions: UNITS.map((u) => ({
    id: u.id,
    code: u.code,
    title: u.title,
    contract: u.contract,
    docs: u.docs,
    reads: u.needs.map((n) => ({ kind: n.kind, group: n.group, role: n.role, lost: n.lost })),
  })),
});

const md = (s: string): string => s.replace(/([\\`*_[\]<>|])/g, '\\$1');
const para = (s: string): string => md(s.split('\n').join(' '));

/** docs/explain/what-if.md: what-if's explain page for a browser (npm run gen writes it; SARIF rules link to it). */
export function whatIfExplainMarkdown(): string {
  return [
    '<!-- generated from src/whatif/docs.ts and the prediction units by `npm run gen`: edit those, not this file -->',
    `# ${md(WHATIF_TITLE)}`,
    '',
    '`kubectl arch explain what-if`. [All checks](README.md)',
    '',
    '## What it predicts',
    '',
    para(WHATIF_DOCS.what),
    '',
    '## Why it matters',
    '',
    para(WHATIF_DOCS.why),
    '',
    '## The verdict',
    '',
    para(WHATIF_DOCS.verdict),
    '',
    '## How to use it',
    '',
    para(WHATIF_DOCS.fix),
    '',
    '## What a prediction can and cannot know',
    '',
    para(WHATIF_DOCS.limits),
    '',
    '## A change: `-f` and `--k3s-config`',
    '',
    para(CHANGE_DOCS.what),
    '',
    `Apply modes: ${APPLY_MODES.join(', ')}.`,
    '',
    '| kind | what the API server refuses on update |',
    '|---|---|',
    ...RULE_TABLE.map((r) => `| ${md(r.kind)} | ${md(r.refuses)} |`),
    '',
    para(CHANGE_DOCS.limits),
    '',
    '## An upgrade: `--upgrade VERSION`',
    '',
    para(UPGRADE_DOCS.what),
    '',
    para(UPGRADE_DOCS.limits),
    '',
    ...UPGRADE_UNITS.flatMap((u) => [`### ${md(u.id)}`, '', para(u.docs.what), '', `Limits: ${para(u.docs.limits)}`, '']),
    '| removed in | API version | kind | use instead |',
    '|---|---|---|---|',
    ...API_REMOVALS.filter((r) => r.stored !== false).map(
      (r) => `| v1.${r.removed} | ${md(`${r.group ? `${r.group}/` : ''}${r.version}`)} | ${r.kind} | ${md(r.replacement ?? 'nothing')} |`,
    ),
    '',
    '## Codes',
    '',
    ...Object.entries(WHATIF_CODES).flatMap(([k, v]) => [`### ${k}`, '', md(v), '']),
  ].join('\n');
}
