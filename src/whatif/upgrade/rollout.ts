// State while it rolls: the order and the count in which an upgrade takes the nodes down, as the distribution does it.
// kubeadm: the control-plane nodes one at a time (kubeadm upgrade apply on the first, kubeadm upgrade node on each
// other), then the workers, drained one at a time. K3s and RKE2: the servers one at a time, then the agents — or, where
// the system-upgrade-controller runs, as its Plans say: the nodes each Plan selects, `concurrency` at a time, the server
// Plans first (an agent Plan's prepare step waits for them). Managed clouds upgrade their control plane themselves and
// roll node pools a node at a time by default. Each step is then judged as `what-if NODE...` judges it.
import { selects } from '../../lib/selector.js';
import type { KObject, ObjectRef } from '../../model.js';
import { R } from '../../resources.js';
import { quorumView } from '../../etcd/quorum.js';
import type { Cluster } from '../cluster.js';
import { arr } from '../cluster.js';

export interface RolloutStep {
  nodes: string[];
  /** Who takes them down together: "servers one at a time", "Plan system-upgrade/server-plan (concurrency 2)". */
  by: string;
}

export interface WidePlan {
  plan: ObjectRef;
  concurrency: number;
  /** The etcd members it can take down at once, and how many voters there are. */
  members: string[];
  voters: number;
}

export interface Rollout {
  how: string;
  steps: RolloutStep[];
  notes: string[];
  unjudged: Array<{ what: string }>;
  wide: WidePlan[];
}

const isServer = (n: KObject): boolean => {
  const l = n.metadata.labels ?? {};
  return (
    l['node-role.kubernetes.io/control-plane'] !== undefined ||
    l['node-role.kubernetes.io/master'] !== undefined ||
    l['node-role.kubernetes.io/etcd'] !== undefined
  );
};
const byName = (a: KObject, b: KObject): number => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0);
const chunks = <T>(xs: T[], n: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
};
const one = (nodes: KObject[], by: string): RolloutStep[] => nodes.map((n) => ({ nodes: [n.metadata.name], by }));

/** The Plans that upgrade K3s or RKE2 themselves (their upgrade image), others (OS updates) left alone. */
/** What the rollout reads beyond the units' inputs: of a system-upgrade-controller Plan which nodes it takes, how
 *  many at once, to what version and with which image, and which it is upgrading now; of the nodes, their kubelets'
 *  versions (the version the cluster runs when the API server's is not known: ./version.ts). */
export const UPGRADE_READS = [
  { ...R.sucPlans, fields: ['spec.concurrency', 'spec.nodeSelector', 'spec.version', 'spec.upgrade.image', 'status.applying'] },
  { ...R.nodes, fields: ['status.nodeInfo.kubeletVersion'] },
];

const upgradesDistribution = (p: KObject): boolean => /(^|\/)(k3s|rke2)-upgrade(:|$)/.test(String(p.spec?.upgrade?.image ?? ''));

export function rolloutPlan(c: Cluster): Rollout {
  const d = c.distribution;
  const nodes = [...c.snap.of(R.nodes)].sort(byName);
  const servers = nodes.filter(isServer);
  const others = nodes.filter((n) => !isServer(n));
  const notes: string[] = [];
  const unjudged: Rollout['unjudged'] = [];
  if (c.snap.gap(R.nodes)) {
    unjudged.push({ what: `the nodes (${c.snap.gap(R.nodes)!.reason}): which servers the upgrade takes down, and in which order` });
    return { how: 'not known: the nodes are not visible', steps: [], notes, unjudged, wide: [] };
  }
  if (d === 'EKS' || d === 'GKE' || d === 'AKS') {
    notes.push(`${d} upgrades its control plane itself: the state and the door while it rolls are the provider's`);
    return {
      how: `${d}: the provider upgrades the control plane, then node pools roll a node at a time (their surge settings are not visible)`,
      steps: one(nodes, 'the node pool, a node at a time'),
      notes,
      unjudged,
      wide: [],
    };
  }
  if (d === 'K3s' || d === 'RKE2') {
    const gap = c.snap.gap(R.sucPlans);
    const plans = gap ? [] : c.snap.of(R.sucPlans).filter(upgradesDistribution);
    if (gap && !c.snap.absent(R.sucPlans))
      unjudged.push({
        what: `system-upgrade-controller Plans (${gap.reason}): whether one takes several servers down at once (judged as servers one at a time, by hand)`,
      });
    if (!plans.length)
      return {
        how: `${d}: servers one at a time, then agents one at a time (${d} upgrade docs; no system-upgrade-controller Plan ${gap ? 'visible' : 'found'})`,
        steps: [...one(servers, 'servers one at a time'), ...one(others, 'agents one at a time')],
        notes,
        unjudged,
        wide: [],
      };
    const q = quorumView(c.snap, c.now);
    const members = new Map(q.members.filter((m) => m.node).map((m) => [m.node!, m] as const));
    const voters = q.voters;
    const steps: RolloutStep[] = [];
    const wide: WidePlan[] = [];
    const taken = new Set<string>();
    const ordered = [...plans].sort((a, b) => {
      const sa = nodes.some((n) => isServer(n) && selects(a.spec?.nodeSelector, n.metadata.labels) === true) ? 0 : 1;
      const sb = nodes.some((n) => isServer(n) && selects(b.spec?.nodeSelector, n.metadata.labels) === true) ? 0 : 1;
      return sa - sb || byName(a, b);
    });
    for (const p of ordered) {
      const chosen = nodes.filter((n) => !taken.has(n.metadata.name) && selects(p.spec?.nodeSelector, n.metadata.labels) === true);
      const conc = typeof p.spec?.concurrency === 'number' && p.spec.concurrency >= 1 ? Math.floor(p.spec.concurrency) : 1;
      const ref: ObjectRef = { kind: 'Plan', apiVersion: 'upgrade.cattle.io/v1', namespace: p.metadata.namespace, name: p.metadata.name };
      const label = `Plan ${p.metadata.namespace}/${p.metadata.name} (concurrency ${conc})`;
      for (const n of chosen) taken.add(n.metadata.name);
      const etcd = chosen.filter((n) => members.has(n.metadata.name)).map((n) => n.metadata.name);
      // the controller takes any `concurrency` of the nodes it selects: judged at its worst, the etcd members together
      if (conc > 1 && etcd.length > 1) wide.push({ plan: ref, concurrency: conc, members: etcd, voters });
      const order = [...chosen].sort((a, b) => Number(members.has(b.metadata.name)) - Number(members.has(a.metadata.name)) || byName(a, b));
      for (const batch of chunks(order, conc)) steps.push({ nodes: batch.map((n) => n.metadata.name), by: label });
      if (p.spec?.version && !String(p.spec.version).includes(`1.${c.h.upgrade?.target.minor}.`))
        notes.push(`Plan ${p.metadata.namespace}/${p.metadata.name} says version ${String(p.spec.version)}, not the one predicted`);
    }
    const left = nodes.filter((n) => !taken.has(n.metadata.name));
    if (left.length)
      notes.push(
        `${left.length} node${left.length === 1 ? '' : 's'} no Plan selects (${left.map((n) => n.metadata.name).join(', ')}): judged one at a time, as by hand`,
      );
    steps.push(...one(left, 'no Plan: one at a time'));
    return {
      how: `${d} with the system-upgrade-controller: ${ordered.map((p) => `Plan ${p.metadata.namespace}/${p.metadata.name} (concurrency ${typeof p.spec?.concurrency === 'number' ? p.spec.concurrency : 1}, ${nodes.filter((n) => selects(p.spec?.nodeSelector, n.metadata.labels) === true).length} nodes)`).join(', then ')}`,
      steps,
      notes,
      unjudged,
      wide,
    };
  }
  if (d === 'kubeadm')
    return {
      how: 'kubeadm: the control-plane nodes one at a time (kubeadm upgrade apply, then kubeadm upgrade node), then the workers drained one at a time',
      steps: [...one(servers, 'control plane, one node at a time'), ...one(others, 'workers, one at a time')],
      notes,
      unjudged,
      wide: [],
    };
  notes.push(
    `the distribution is ${d === 'unknown' ? 'not known' : d}: its upgrade order is assumed to be the control plane one node at a time, then the others`,
  );
  return {
    how: 'control-plane nodes one at a time, then the others one at a time (assumed)',
    steps: [...one(servers, 'control plane, one node at a time'), ...one(others, 'the others, one at a time')],
    notes,
    unjudged,
    wide: [],
  };
}

/** The Plans' own status: nodes it is upgrading now. */
export const applyingNow = (p: KObject): string[] => arr<string>(p.status?.applying).map(String);
