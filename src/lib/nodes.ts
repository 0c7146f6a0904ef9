// Nodes as the scheduler and the kubelet match them (k8s.io/component-helpers scheduling/corev1/nodeaffinity): a
// NodeSelector's terms are ORed, a term's requirements ANDed; matchExpressions are read against the node's LABELS
// (In, NotIn, Exists, DoesNotExist, Gt, Lt), matchFields against its fields (only metadata.name; In and NotIn, one
// value). A node is not its name: `kubernetes.io/hostname` may differ from it (cloud providers, --hostname-override),
// and a local volume pinned to `kubernetes.io/hostname In [w1]` lives on the node whose label says w1.
// A PersistentVolume's nodeAffinity is matched against the labels alone (storage/volume CheckNodeAffinity builds a
// node with labels and no name, in the scheduler's volume binding and the kubelet alike): there, matchFields pins
// nothing. A pod's (nodeSelector, required node affinity) is matched against the whole node, its name included.
// Objects from files may be malformed: a term that cannot be read matches nothing, as upstream.
import type { KObject } from '../model.js';

/** What a node is matched by: its labels and, where the matcher sees it, its name. */
export interface NodeFacts {
  labels: Record<string, string>;
  /** Undefined where upstream matches labels only (a volume's nodeAffinity): matchFields is then not applied. */
  name?: string;
}

export const HOSTNAME = 'kubernetes.io/hostname';

const labelsOf = (n: KObject): Record<string, string> => {
  const l: unknown = n.metadata.labels;
  return l && typeof l === 'object' && !Array.isArray(l) ? (l as Record<string, string>) : {};
};

/** The node as a pod's affinity sees it (labels and name). */
export const nodeFacts = (n: KObject): NodeFacts => ({ labels: labelsOf(n), name: n.metadata.name });
/** The node as a volume's nodeAffinity sees it (labels only). */
export const nodeLabelsOnly = (n: KObject): NodeFacts => ({ labels: labelsOf(n) });

const INT = /^[+-]?\d+$/;

/** One requirement against a set of labels; undefined when it cannot be read (the term then matches nothing). */
function requirement(e: unknown, have: Record<string, string>): boolean | undefined {
  if (!e || typeof e !== 'object') return undefined;
  const { key, operator, values } = e as { key?: unknown; operator?: unknown; values?: unknown };
  if (typeof key !== 'string' || !key) return undefined;
  const vals = Array.isArray(values) ? values.map(String) : [];
  const present = Object.hasOwn(have, key);
  switch (operator) {
    case 'In':
      if (!vals.length) return undefined;
      return present && vals.includes(have[key]!);
    case 'NotIn':
      if (!vals.length) return undefined;
      return !present || !vals.includes(have[key]!);
    case 'Exists':
      return vals.length ? undefined : present;
    case 'DoesNotExist':
      return vals.length ? undefined : !present;
    case 'Gt':
    case 'Lt': {
      if (vals.length !== 1 || !INT.test(vals[0]!)) return undefined;
      if (!present || !INT.test(have[key]!)) return false;
      const a = BigInt(have[key]!);
      const b = BigInt(vals[0]!);
      return operator === 'Gt' ? a > b : a < b;
    }
    default:
      return undefined;
  }
}

/** One field requirement (matchFields: In or NotIn, exactly one value) against the node's fields. */
function fieldRequirement(e: unknown, fields: Record<string, string>): boolean | undefined {
  if (!e || typeof e !== 'object') return undefined;
  const { key, operator, values } = e as { key?: unknown; operator?: unknown; values?: unknown };
  if (typeof key !== 'string' || !Array.isArray(values) || values.length !== 1) return undefined;
  const have = fields[key] ?? '';
  if (operator === 'In') return have === String(values[0]);
  if (operator === 'NotIn') return have !== String(values[0]);
  return undefined;
}

/** Whether one NodeSelectorTerm matches; an empty term matches nothing, a term that cannot be read neither. */
export function termMatches(term: unknown, node: NodeFacts): boolean {
  if (!term || typeof term !== 'object') return false;
  const t = term as { matchExpressions?: unknown; matchFields?: unknown };
  const exprs = Array.isArray(t.matchExpressions) ? t.matchExpressions : [];
  const flds = Array.isArray(t.matchFields) ? t.matchFields : [];
  if (!exprs.length && !flds.length) return false;
  const labelResults = exprs.map((e) => requirement(e, node.labels));
  const fieldResults = node.name === undefined ? [] : flds.map((e) => fieldRequirement(e, { 'metadata.name': node.name! }));
  // upstream parses the whole term first: a requirement it cannot read makes the term match nothing
  if (labelResults.includes(undefined) || flds.some((e) => fieldRequirement(e, { 'metadata.name': '' }) === undefined)) return false;
  return labelResults.every(Boolean) && fieldResults.every(Boolean);
}

/** Whether a NodeSelector ({nodeSelectorTerms}) matches: any of its terms. None, or no terms, matches nothing. */
export function nodeSelectorMatches(selector: unknown, node: NodeFacts): boolean {
  const terms: unknown = selector && typeof selector === 'object' ? (selector as { nodeSelectorTerms?: unknown }).nodeSelectorTerms : [];
  return Array.isArray(terms) && terms.some((t) => termMatches(t, node));
}

/** The nodes a PersistentVolume can be mounted on (its required nodeAffinity, against labels); undefined when it has
 *  none (it can go anywhere its driver reaches). */
export function volumeNodes(pv: KObject, nodes: readonly KObject[]): KObject[] | undefined {
  const required: unknown = pv.spec?.nodeAffinity?.required;
  if (!required) return undefined;
  return nodes.filter((n) => nodeSelectorMatches(required, nodeLabelsOnly(n)));
}

/** Whether a pod may be scheduled on a node by its spec.nodeSelector and required node affinity (not taints). */
export function podAllowsNode(pod: KObject, node: KObject): boolean {
  const facts = nodeFacts(node);
  const sel: unknown = pod.spec?.nodeSelector;
  if (sel && typeof sel === 'object' && !Array.isArray(sel))
    for (const [k, v] of Object.entries(sel as Record<string, unknown>)) if (facts.labels[k] !== String(v)) return false;
  const required: unknown = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return required ? nodeSelectorMatches(required, facts) : true;
}

/** A host name (an identity lease's kubernetes.io/hostname, a holder identity) to the node it names: by name first,
 *  else the one node whose kubernetes.io/hostname label says it; the host name itself when none does. */
export function nodeNamer(nodes: readonly KObject[]): (host: string) => string {
  const names = new Set(nodes.map((n) => n.metadata.name));
  const byLabel = new Map<string, string[]>();
  for (const n of nodes) {
    const h = labelsOf(n)[HOSTNAME];
    if (h) byLabel.set(h, [...(byLabel.get(h) ?? []), n.metadata.name]);
  }
  return (host) => {
    if (!host || names.has(host)) return host;
    const by = byLabel.get(host);
    return by?.length === 1 ? by[0]! : host;
  };
}
