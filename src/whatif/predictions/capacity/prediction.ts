// ARCH-WI04: the pods to move do not fit on the schedulable nodes left, by their requests against allocatable and
// the taints they tolerate.
import { isReady, refOf } from '../../../lib/k8s.js';
import type { KObject } from '../../../model.js';
import { R } from '../../../resources.js';
import { podAllowsNode } from '../../../lib/nodes.js';
import { selectorText } from '../../../lib/selector.js';
import { arr, nodeBound } from '../../cluster.js';
import { count, definePrediction, input, type Prediction } from '../../types.js';

/** "250m" → 0.25 cpu; "512Mi" → bytes. */
export function quantity(v: unknown): number {
  const m = /^([0-9.]+)\s*([a-zA-Z]*)$/.exec(String(v ?? '').trim());
  if (!m) return 0;
  const n = Number(m[1]);
  const unit: Record<string, number> = {
    '': 1,
    m: 1e-3,
    k: 1e3,
    K: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    Ki: 1024,
    Mi: 1024 ** 2,
    Gi: 1024 ** 3,
    Ti: 1024 ** 4,
  };
  return Number.isFinite(n) ? n * (unit[m[2]!] ?? 1) : 0;
}
const requests = (p: KObject): { cpu: number; memory: number } =>
  arr(p.spec?.containers).reduce(
    (a: { cpu: number; memory: number }, c: { resources?: { requests?: { cpu?: unknown; memory?: unknown } } }) => ({
      cpu: a.cpu + quantity(c?.resources?.requests?.cpu),
      memory: a.memory + quantity(c?.resources?.requests?.memory),
    }),
    { cpu: 0, memory: 0 },
  );
/** Where a pod may go, in words: its nodeSelector and required node affinity terms. */
const placement = (p: KObject): string => {
  const sel =
    p.spec?.nodeSelector && typeof p.spec.nodeSelector === 'object'
      ? `nodeSelector ${selectorText({ matchLabels: p.spec.nodeSelector })}`
      : '';
  const terms = arr(p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms);
  const aff = terms.length
    ? `node affinity ${terms.map((t: { matchExpressions?: unknown; matchFields?: unknown }) => [selectorText({ matchExpressions: t?.matchExpressions }), ...arr(t?.matchFields).map((f: { key?: string; operator?: string; values?: unknown[] }) => `${f?.key} ${String(f?.operator).toLowerCase()} (${arr(f?.values).join(',')})`)].filter((x) => x !== '<all>').join(',')).join(' or ')}`
    : '';
  return [sel, aff].filter(Boolean).join('; ');
};
const cpuText = (c: number): string => (c < 1 ? `${Math.round(c * 1000)}m` : `${Math.round(c * 100) / 100}`);
const memText = (b: number): string => `${Math.round(b / 1024 ** 2)}Mi`;

export const tolerates = (p: KObject, taint: { key?: string; effect?: string }): boolean =>
  arr(p.spec?.tolerations).some(
    (t: { key?: string; operator?: string; effect?: string }) =>
      (t?.operator === 'Exists' && !t.key) || (t?.key === taint.key && (!t.effect || t.effect === taint.effect)),
  );
export const toleratesAll = (p: KObject): boolean =>
  arr(p.spec?.tolerations).some((t: { key?: string; operator?: string }) => t?.operator === 'Exists' && !t.key);

export default definePrediction({
  id: 'capacity',
  code: 'ARCH-WI04',
  title: 'pods to move do not fit on the schedulable nodes left (by their requests)',
  contract: 'workloads',
  reads: [
    { ...R.persistentvolumeclaims, fields: ['spec.volumeName'] },
    { ...R.persistentvolumes, fields: ['spec.nodeAffinity.required'] },
  ],
  needs: [
    input(R.pods, 'subject', 'which pods move and what the nodes left already hold', {
      fields: [
        'metadata.annotations["kubernetes.io/config.mirror"]',
        'spec.containers[].resources.requests.cpu',
        'spec.containers[].resources.requests.memory',
        // where the scheduler may place it (lib/nodes.ts podAllowsNode)
        'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution',
        'spec.nodeName',
        'spec.nodeSelector',
        'spec.tolerations[].effect',
        'spec.tolerations[].key',
        'spec.tolerations[].operator',
        'spec.volumes[].persistentVolumeClaim.claimName',
        'status.phase',
      ],
    }),
    input(R.nodes, 'subject', 'which nodes are left and their allocatable resources', {
      // metadata.labels (kept of every object) and the name: what a pod's nodeSelector and node affinity match
      fields: [
        'metadata.labels',
        'spec.taints[].effect',
        'spec.taints[].key',
        'spec.unschedulable',
        'status.allocatable.cpu',
        'status.allocatable.memory',
        'status.conditions',
      ],
    }),
  ],
  docs: {
    what: 'The pods that would move (not DaemonSet or static pods, not pods pinned to a volume there, not pods that tolerate every taint and so are never evicted) are placed, largest first, on the schedulable Ready nodes left by their requests (cpu, memory) against each node\'s allocatable minus what its pods already request, on nodes whose taints they tolerate and that their nodeSelector and required node affinity allow. What does not fit stays Pending ("Insufficient cpu"); a pod that no node left allows stays Pending whatever it requests.',
    why: 'The scheduler places pods by their requests; what the nodes left cannot hold waits.',
    limits:
      "A prediction, not the scheduler: a pod's nodeSelector and required node affinity are weighed (against each node's labels and name, as the scheduler matches them), preferred affinity, pod affinity and topology spread are not. Nodes whose allocatable is not visible make the prediction not judged.",
  },
  predict(c) {
    const nodes = c.snap.of(R.nodes);
    const left = nodes.filter((n) => !c.down.has(n.metadata.name) && !n.spec?.unschedulable && isReady(n));
    const pinned = c.pinned;
    const moving = c.podsThere.filter(
      (p) =>
        p.status?.phase !== 'Succeeded' &&
        p.status?.phase !== 'Failed' &&
        !nodeBound(p) &&
        !pinned.has(`${p.metadata.namespace}/${p.metadata.name}`) &&
        !toleratesAll(p),
    );
    if (
      !moving.some(
        (p) =>
          requests(p).cpu ||
          requests(p).memory ||
          p.spec?.nodeSelector ||
          p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution,
      )
    )
      return { predictions: [] };
    // no node left at all: nothing can move, and ARCH-WI01 and the checks say what goes down
    if (!left.length) return { predictions: [] };
    const noAlloc = left.filter((n) => !n.status?.allocatable?.cpu && !n.status?.allocatable?.memory);
    if (noAlloc.length)
      return {
        predictions: [],
        unjudged: [
          {
            what: `whether the pods to move fit: the allocatable resources of ${noAlloc.map((n) => n.metadata.name).join(', ')} are not visible`,
          },
        ],
      };
    // what each node's pods request: the same for every hypothesis
    const used = c.shared('requested', () => {
      const m = new Map<string, { cpu: number; memory: number }>();
      for (const p of c.pods) {
        if (p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
        const n = String(p.spec?.nodeName ?? '');
        const r = requests(p);
        const u = m.get(n) ?? { cpu: 0, memory: 0 };
        m.set(n, { cpu: u.cpu + r.cpu, memory: u.memory + r.memory });
      }
      return m;
    });
    const free = new Map(
      left.map((n) => {
        const u = used.get(n.metadata.name) ?? { cpu: 0, memory: 0 };
        return [n, { cpu: quantity(n.status.allocatable.cpu) - u.cpu, memory: quantity(n.status.allocatable.memory) - u.memory }] as [
          KObject,
          { cpu: number; memory: number },
        ];
      }),
    );
    const unfit: Array<{ p: KObject; need: { cpu: number; memory: number } }> = [];
    // a pod whose nodeSelector or required node affinity allows no node left waits whatever it requests
    const nowhere: KObject[] = [];
    for (const p of [...moving].sort((a, b) => requests(b).cpu - requests(a).cpu || requests(b).memory - requests(a).memory)) {
      const need = requests(p);
      const allowed = (n: KObject): boolean => podAllowsNode(p, n);
      if (!left.some(allowed)) {
        nowhere.push(p);
        continue;
      }
      if (!need.cpu && !need.memory) continue;
      const taintsOk = (n: KObject): boolean =>
        arr(n.spec?.taints).every((t: { key?: string; effect?: string }) => t?.effect === 'PreferNoSchedule' || tolerates(p, t ?? {}));
      const spot = [...free].find(([n, f]) => allowed(n) && taintsOk(n) && f.cpu >= need.cpu && f.memory >= need.memory);
      if (spot) {
        spot[1].cpu -= need.cpu;
        spot[1].memory -= need.memory;
      } else unfit.push({ p, need });
    }
    const predictions: Prediction[] = nowhere.length
      ? [
          {
            contract: 'workloads',
            code: 'ARCH-WI04',
            from: 'what-if',
            severity: 'error',
            title: `${count(nowhere.length, 'pod')} would find no node left that ${nowhere.length === 1 ? 'its' : 'their'} nodeSelector or node affinity allows`,
            message: `${nowhere.map((p) => `${p.metadata.namespace}/${p.metadata.name} (${placement(p)})`).join('; ')}. They stay Pending ("didn't match Pod's node affinity/selector") until a node they allow is back; the nodes are matched by their labels (and name), as the scheduler matches them.`,
            objects: nowhere.map((p) => refOf(p)),
            why: 'The scheduler places a pod only on a node its nodeSelector and required node affinity allow: a pod pinned to the nodes going down goes with them.',
            fix: ['let it run elsewhere (widen its nodeSelector or node affinity), or plan for it being down while those nodes are'],
          },
        ]
      : [];
    if (!unfit.length) return { predictions };
    const most = [...free.values()].reduce((a, b) => (b.cpu > a.cpu ? b : a), { cpu: 0, memory: 0 });
    const cpuShort = unfit.some((u) => u.need.cpu > most.cpu);
    predictions.push({
      contract: 'workloads',
      code: 'ARCH-WI04',
      from: 'what-if',
      severity: 'error',
      title: `${count(unfit.length, 'pod')} would not fit on the ${count(left.length, 'schedulable node')} left (${cpuShort ? 'cpu' : 'memory'})`,
      message: `${unfit.map((u) => `${u.p.metadata.namespace}/${u.p.metadata.name} (requests cpu ${cpuText(u.need.cpu)}, memory ${memText(u.need.memory)})`).join('; ')}. The most free on a node left: cpu ${cpuText(Math.max(0, most.cpu))}, memory ${memText(Math.max(0, most.memory))}. They stay Pending ("Insufficient ${cpuShort ? 'cpu' : 'memory'}") until the node is back.`,
      objects: unfit.map((u) => refOf(u.p)),
      why: 'The scheduler places pods by their requests; what the nodes left cannot hold waits.',
      fix: ['add a node, or lower the requests that are larger than needed, before the maintenance'],
    });
    return { predictions };
  },
});
