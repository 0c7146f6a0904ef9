// ARCH-WI02: a PodDisruptionBudget that allows fewer disruptions than draining those nodes needs: kubectl drain
// retries its evictions until its timeout. Pods are matched as the API server matches them (matchLabels AND
// matchExpressions; in policy/v1 an empty selector selects every pod of the namespace). A pod that two budgets select
// cannot be evicted at all, whatever each allows: the eviction API answers 500 "This pod has more than one
// PodDisruptionBudget, which the eviction subresource does not support." (pkg/registry/core/pod/storage/eviction.go),
// and kubectl drain gives up on it ("error when evicting pods/…"). Pods the eviction API deletes without looking at
// budgets (Pending, or already deleting) are not counted (eviction.go canIgnorePDB).
import { groupOf, type KObject } from '../../../model.js';
import { R } from '../../../resources.js';
import { selects, selectorText } from '../../../lib/selector.js';
import { controllerOf, running } from '../../cluster.js';
import { definePrediction, input, type Prediction } from '../../types.js';
import { command, inNamespace, type Step } from '../../../lib/shell.js';

/** The eviction API's answer to a pod under more than one budget (HTTP 500), verbatim. */
export const MULTIPLE_BUDGETS = 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.';

/** Whether the eviction API weighs budgets for this pod at all: not for a Pending pod or one already deleting. */
const guarded = (p: KObject): boolean => p.status?.phase !== 'Pending' && !p.metadata.deletionTimestamp;

/** "50%" of n, rounded up (as the disruption controller rounds both minAvailable and maxUnavailable), or an integer. */
function scaled(v: unknown, n: number): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  const m = typeof v === 'string' ? /^(\d+)%$/.exec(v.trim()) : null;
  if (m) return Math.ceil((Number(m[1]) * n) / 100);
  if (typeof v === 'string' && /^\d+$/.test(v.trim())) return Number(v);
  return undefined;
}

/** disruptionsAllowed as the controller publishes it, or computed from the spec and the matching pods. */
function allowedOf(pdb: KObject, matching: KObject[]): { allowed: number; computed: boolean } | undefined {
  if (typeof pdb.status?.disruptionsAllowed === 'number') return { allowed: pdb.status.disruptionsAllowed, computed: false };
  const expected = matching.length;
  const healthy = matching.filter(running).length;
  const min = scaled(pdb.spec?.minAvailable, expected);
  if (min !== undefined) return { allowed: Math.max(0, healthy - min), computed: true };
  const max = scaled(pdb.spec?.maxUnavailable, expected);
  if (max !== undefined) return { allowed: Math.max(0, max - (expected - healthy)), computed: true };
  return undefined;
}

/** How to get past the budget: an operator that owns it puts it back when edited, so its own way comes first. */
function fixFor(pdb: KObject, evict: KObject[]): Step[] {
  const owner = controllerOf(pdb);
  const ns = pdb.metadata.namespace;
  if (owner?.kind === 'Cluster' && String(owner.apiVersion ?? '').startsWith('postgresql.cnpg.io/')) {
    const instances = [...new Set(evict.map((p) => p.metadata.name))];
    return [
      command(['kubectl', 'cnpg', 'promote', String(owner.name), 'REPLICA', ...inNamespace(ns)], {
        say: `CloudNativePG owns this budget (Cluster ${ns}/${owner.name}) and keeps the primary's at one: do a switchover first, so the primary runs elsewhere, then drain (${instances.join(', ')} ${instances.length === 1 ? 'is' : 'are'} then a replica the drain may evict)`,
        note: 'REPLICA: a replica on another node',
      }),
    ];
  }
  if (owner)
    return [
      `${owner.kind} ${ns}/${owner.name} owns this budget and puts it back if it is edited: move what it protects the way that operator does (a switchover, a failover, scaling it out) before the drain`,
      'or give the workload one more replica on another node first (then the budget allows the eviction)',
    ];
  return [
    'give the workload one more replica on another node first (then the budget allows the eviction)',
    command(['kubectl', ...inNamespace(ns), 'edit', 'pdb', pdb.metadata.name], {
      say: 'or, knowing the cost (those pods go down meanwhile), relax the budget for the window',
    }),
  ];
}

export default definePrediction({
  id: 'drain-budgets',
  code: 'ARCH-WI02',
  title:
    'a PodDisruptionBudget allows fewer disruptions than the drain needs (kubectl drain would wait on it), or two select one pod (the eviction API refuses it outright)',
  contract: 'workloads',
  needs: [
    input(R.pdbs, 'subject', 'whether kubectl drain would wait on a PodDisruptionBudget', {
      fields: ['spec.minAvailable', 'spec.maxUnavailable', 'spec.selector', 'status.disruptionsAllowed'],
    }),
    input(R.pods, 'subject', 'which pods a drain would evict', { fields: ['spec.nodeName', 'status.phase'] }),
  ],
  docs: {
    what: 'Each PodDisruptionBudget selects pods as the API server does: matchLabels AND matchExpressions (In, NotIn, Exists, DoesNotExist); in policy/v1 an empty selector ({}) selects every pod of its namespace (in policy/v1beta1 none). When more of its pods run on the nodes going down than its disruptionsAllowed, kubectl drain cannot evict them all: it retries "Cannot evict pod as it would violate the pod\'s disruption budget" until its timeout. A pod that two or more budgets select cannot be evicted at all, whatever they allow: the eviction API answers 500 "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support." and kubectl drain gives up on it; the prediction names every budget and the fix is one budget per pod. Pending pods and pods already deleting are evicted without looking at budgets (the eviction API\'s own rule), so they are not counted. disruptionsAllowed is the controller\'s; where the status is missing it is computed from minAvailable or maxUnavailable (percentages rounded up) and the matching pods, and the prediction says so.',
    why: 'A budget that allows no disruption protects the pods from every voluntary eviction — the drain of a node included. A reboot without a drain is not stopped by it.',
    limits:
      "A pod two budgets select is predicted once per set of budgets (the eviction API's 500), and not counted against either. The count of pods a budget expects is the matching pods seen (the controller uses its workload's scale). A budget with neither minAvailable nor maxUnavailable and no status is not judged. unhealthyPodEvictionPolicy is not weighed: every matching pod there counts.",
  },
  predict(c) {
    const predictions: Prediction[] = [];
    const unjudged: Array<{ what: string }> = [];
    // which pods each budget selects does not depend on the nodes: once per snapshot
    const selected = c.shared('pdbSelected', () => {
      const byNs = new Map<string, KObject[]>();
      for (const p of c.pods)
        if (p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed') {
          const ns = p.metadata.namespace ?? '';
          const l = byNs.get(ns);
          if (l) l.push(p);
          else byNs.set(ns, [p]);
        }
      return new Map(
        c.snap.of(R.pdbs).map((pdb) => {
          const sel = pdb.spec?.selector;
          // policy/v1beta1: an empty selector selects nothing; policy/v1: everything in the namespace
          const legacyEmpty =
            groupOf(pdb.apiVersion) === 'policy' &&
            /v1beta1$/.test(String(pdb.apiVersion)) &&
            sel &&
            typeof sel === 'object' &&
            !Object.keys(sel).length;
          const verdicts = (byNs.get(pdb.metadata.namespace ?? '') ?? []).map(
            (p) => [p, legacyEmpty ? false : selects(sel, p.metadata.labels)] as const,
          );
          const malformed = verdicts.some(([, v]) => v === 'malformed');
          return [pdb, malformed ? ('malformed' as const) : verdicts.filter(([, v]) => v === true).map(([p]) => p)] as const;
        }),
      );
    });
    const there = new Set(c.podsThere.filter(guarded));
    // the budgets of each pod there, as the eviction API lists them
    const budgetsOf = new Map<KObject, KObject[]>();
    for (const [pdb, matching] of selected)
      if (matching !== 'malformed') for (const p of matching) if (there.has(p)) budgetsOf.set(p, [...(budgetsOf.get(p) ?? []), pdb]);
    const overlaps = new Map<string, { pdbs: KObject[]; pods: KObject[] }>();
    for (const [p, pdbs] of budgetsOf) {
      if (pdbs.length < 2) continue;
      const key = pdbs.map((b) => `${b.metadata.namespace}/${b.metadata.name}`).join('|');
      const o = overlaps.get(key) ?? { pdbs, pods: [] };
      o.pods.push(p);
      overlaps.set(key, o);
    }
    for (const { pdbs, pods } of overlaps.values()) {
      const ns = pdbs[0]!.metadata.namespace ?? '';
      const names = pdbs.map((b) => b.metadata.name);
      const owned = pdbs.map((b) => [b, controllerOf(b)] as const).filter(([, o]) => o);
      predictions.push({
        contract: 'workloads',
        code: 'ARCH-WI02',
        from: 'what-if',
        severity: 'error',
        title: `\`kubectl drain\` cannot evict ${pods.length === 1 ? `pod ${ns}/${pods[0]!.metadata.name}` : `${pods.length} pods in ${ns}`}: PodDisruptionBudgets ${names.join(' and ')} both select ${pods.length === 1 ? 'it' : 'them'}`,
        message: `${pods.map((p) => p.metadata.name).join(', ')} ${pods.length === 1 ? 'is' : 'are'} selected by ${names.map((n, i) => `${n} (selector ${selectorText(pdbs[i]!.spec?.selector)})`).join(' and ')}. The eviction API supports one budget per pod: whatever each allows, it answers 500 "${MULTIPLE_BUDGETS}", and kubectl drain gives up on the pod ("error when evicting pods/\"${pods[0]!.metadata.name}\" -n \"${ns}\": ${MULTIPLE_BUDGETS}") instead of retrying — the node is not drained.`,
        objects: [
          ...pdbs.map((b) => ({
            kind: 'PodDisruptionBudget',
            apiVersion: 'policy/v1',
            namespace: b.metadata.namespace,
            name: b.metadata.name,
          })),
          ...pods.map((p) => ({ kind: 'Pod', apiVersion: 'v1', namespace: p.metadata.namespace, name: p.metadata.name })),
        ],
        why: 'The eviction API decrements one budget per eviction and refuses to choose between two: a pod under two budgets can only be deleted, never evicted.',
        fix: [
          command(['kubectl', ...inNamespace(ns), 'get', 'poddisruptionbudgets', ...names, '-o', 'yaml'], {
            say: `give each pod one budget: narrow the selector of one of ${names.join(' and ')} (or merge them into one) so that they no longer overlap; compare them`,
          }),
          ...owned.map(
            ([b, o]) =>
              `${o!.kind} ${ns}/${o!.name} owns ${b.metadata.name} and puts it back if it is edited: change the other budget, or that ${o!.kind}'s settings`,
          ),
        ],
      });
    }
    for (const [pdb, matching] of selected) {
      const ns = pdb.metadata.namespace ?? '';
      const name = `${ns}/${pdb.metadata.name}`;
      const sel = pdb.spec?.selector;
      if (matching === 'malformed') {
        unjudged.push({ what: `PodDisruptionBudget ${name}: its selector cannot be read` });
        continue;
      }
      // a pod under another budget too is refused outright (above), whatever this one allows
      const evict = matching.filter((p) => there.has(p) && budgetsOf.get(p)?.length === 1);
      if (!evict.length) continue;
      const a = allowedOf(pdb, matching);
      if (!a) {
        unjudged.push({ what: `PodDisruptionBudget ${name}: no status and neither minAvailable nor maxUnavailable` });
        continue;
      }
      if (evict.length <= a.allowed) continue;
      predictions.push({
        contract: 'workloads',
        code: 'ARCH-WI02',
        from: 'what-if',
        severity: 'error',
        title: `\`kubectl drain\` would wait on PodDisruptionBudget ${name}: it allows ${a.allowed} disruption${a.allowed === 1 ? '' : 's'}, the drain needs ${evict.length}`,
        message: `Evicting ${evict.map((p) => p.metadata.name).join(', ')} would violate the budget (selector ${selectorText(sel)}, ${pdb.spec?.minAvailable !== undefined ? `minAvailable ${pdb.spec.minAvailable}` : `maxUnavailable ${pdb.spec?.maxUnavailable}`}, disruptionsAllowed ${a.allowed}${a.computed ? ' computed from its spec and the pods it selects: its status is not in the snapshot' : ''}): kubectl drain retries "Cannot evict pod as it would violate the pod's disruption budget" until its timeout.`,
        objects: [{ kind: 'PodDisruptionBudget', apiVersion: 'policy/v1', namespace: pdb.metadata.namespace, name: pdb.metadata.name }],
        why: 'A budget that allows no disruption protects the pods from every voluntary eviction — the drain of a node included.',
        fix: fixFor(pdb, evict),
      });
    }
    return { predictions, unjudged };
  },
});
