// The etcd quorum position, read through the Kubernetes API per distribution and version.
// Pure: snapshot in, members and verdict out. Quorum = floor(voters/2)+1; learners do not vote.
// Evidence per distribution (upstream: k3s-io/k3s pkg/etcd/etcd.go, rancher/rke2 pkg/podtemplate,
// k0sproject/k0s EtcdMember CRD, openshift/cluster-etcd-operator pkg/etcdcli/health.go, kubeadm constants):
// - K3s/RKE2 >= v1.25.16 / v1.26.11 / v1.27.8 / v1.28.4: node condition EtcdIsVoter (voter, learner, unhealthy,
//   not a member), refreshed by the etcd leader every 5 minutes;
// - older K3s/RKE2: nodes labelled node-role.kubernetes.io/etcd=true (count only), RKE2's etcd static pods (readiness);
// - kubeadm: kube-system etcd static pods (readiness; learners invisible) or kubeadm-config external endpoints;
// - k0s >= 1.30: EtcdMember objects (membership only; stale or duplicate objects possible before 1.36.1);
// - OpenShift: the etcd operator's EtcdMembersAvailable message ("3 members are available", "2 of 3 members are
//   available, X is unhealthy", and the 4.4-era "A,B members are available, C are unhealthy" form);
// - Talos and managed clouds: nothing but /readyz.
import { detectDistribution, type Distribution } from '../fingerprint.js';
import { condition, isReady } from '../lib/k8s.js';
import type { KObject } from '../model.js';
import { R } from '../resources.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { load } from 'js-yaml';
import { byText } from '../lib/order.js';

export type Role = 'voter' | 'learner' | 'unknown';
export type Health = 'healthy' | 'unhealthy' | 'unknown';

export interface Member {
  name: string;
  /** Where it runs: node, pod, or endpoint. */
  where: string;
  role: Role;
  health: Health;
  evidence: string;
  /** ISO time the evidence was last refreshed, when known. */
  heartbeat?: string;
  stale?: boolean;
  learnerSince?: string;
  /** The Node it runs on, when known (for findings). */
  node?: string;
}

/**
 * HEALTHY   tolerates at least one more failure;
 * AT RISK   every voter healthy, but tolerates none by design (1 or 2 voters);
 * DEGRADED  tolerates none because voters are down;
 * LOST      fewer healthy voters than quorum (or the API server cannot reach etcd);
 * UNKNOWN   the evidence cannot decide (the check is then skipped, never passed).
 */
export type Verdict = 'HEALTHY' | 'AT RISK' | 'DEGRADED' | 'LOST' | 'UNKNOWN' | 'NOT VISIBLE';

export interface QuorumView {
  distribution: Distribution;
  /** How members were found. */
  source: string;
  visible: boolean;
  reason?: string;
  members: Member[];
  voters: number;
  healthyVoters: number;
  unknownVoters: number;
  learners: number;
  quorum: number;
  tolerated: number;
  /** Failures that can still happen before quorum is lost, given current health. */
  remaining: number;
  verdict: Verdict;
  verdictLine: string;
  readyzEtcd: 'ok' | 'failed' | 'unknown';
  /** The API server answered, but every list timed out inside it (why): it cannot read from etcd. */
  storageDown?: string;
  /** Lists were served through etcd at capture time, so it had quorum then (the member evidence may be older). */
  served: boolean;
  /** Some etcd members run on nodes without the control-plane role (a split topology: etcd-only servers). */
  split?: boolean;
  apiServers: number | null;
  /** A what-if's cluster as it would be (its sentences say "would"). */
  hypothetical?: boolean;
  /** Member objects that describe a member already counted (k0s), and the evidence used for it. */
  duplicates: Array<{ name: string; duplicateOf: string; key: string }>;
  /** Control-plane nodes whose join stopped half way (kubeadm): named in findings. */
  halfJoined: Array<{ node: string; why: string }>;
  notes: string[];
}

/** K3s refreshes EtcdIsVoter's heartbeat every 5 minutes; older than this, the state is unknown. */
export const K3S_HEARTBEAT_STALE_MS = 6 * 60_000;
/** Identity leases are renewed every 10 s and kept for an hour after a server dies. */
export const APISERVER_LEASE_FRESH_MS = 60_000;
export const LEARNER_STUCK_MS = 10 * 60_000;

export const quorumOf = (voters: number): number => Math.floor(voters / 2) + 1;

const cond = condition;

/** The API server's own request timeout and etcd's errors, as a list answers them when etcd cannot serve reads. */
const STORAGE_DOWN =
  /unable to return a response in the time allotted|etcdserver: (request timed out|leader changed|no leader|too many requests)/;

/**
 * The API answering is evidence about etcd: every list it serves (not from its watch cache) was a read through
 * etcd, which needs quorum. The opposite too: an API server that answered /version while every list timed out
 * inside it (its own 60 s request timeout, or etcd's "request timed out") cannot read from etcd.
 */
export function apiEvidence(snap: Snapshot): { served: boolean; storageDown?: string } {
  const served =
    !snap.header.fromCache && !snap.header.hypothetical && snap.kinds().length > 0 && readyzEtcd(snap.header.readyz) !== 'failed';
  if (served || !snap.header.serverVersion) return { served };
  const timeouts = snap.unavailable().filter((u) => STORAGE_DOWN.test(u.reason));
  return timeouts.length >= 2 ? { served, storageDown: timeouts[0]!.reason } : { served };
}

/** K3s/RKE2 releases whose etcd leader probes every member (2 s, every 15 s) and flips EtcdIsVoter to Unhealthy at
 *  once when one does not answer (k3s-io/k3s#9084, backported to the January 2024 patch releases): from these, a
 *  fresh True is the member's own health, whatever its node's kubelet says. */
const VOTER_PROBE_SINCE: Record<number, number> = { 26: 13, 27: 10, 28: 6, 29: 1 };
function probesMembers(kubeletVersion: string | undefined): boolean {
  const m = /^v1\.(\d+)\.(\d+)/.exec(kubeletVersion ?? '');
  if (!m) return false;
  const [minor, patch] = [Number(m[1]), Number(m[2])];
  return minor >= 30 || (VOTER_PROBE_SINCE[minor] !== undefined && patch >= VOTER_PROBE_SINCE[minor]!);
}

function readyzEtcd(text: string | undefined): QuorumView['readyzEtcd'] {
  if (!text) return 'unknown';
  if (/^\[-\]etcd\b/m.test(text)) return 'failed';
  if (/^\[\+\]etcd ok/m.test(text)) return 'ok';
  return 'unknown';
}

function apiServerCount(snap: Snapshot, now: number): number | null {
  if (snap.visibility(R.leases)) return null;
  const ids = snap
    .of(R.leases)
    .filter((l) => l.metadata.namespace === 'kube-system' && l.metadata.labels?.['apiserver.kubernetes.io/identity'] === 'kube-apiserver');
  if (ids.length === 0) return null;
  return ids.filter((l) => {
    const t = Date.parse(l.spec?.renewTime ?? '');
    return !Number.isNaN(t) && now - t <= APISERVER_LEASE_FRESH_MS;
  }).length;
}

const etcdPods = (snap: Snapshot): KObject[] =>
  snap.of(R.pods).filter((p) => p.metadata.namespace === 'kube-system' && p.metadata.labels?.component === 'etcd');
const podReady = isReady;

function podMember(p: KObject): Member {
  const ready = podReady(p);
  const restarts = (Array.isArray(p.status?.containerStatuses) ? p.status.containerStatuses : []).reduce(
    (n: number, c: { restartCount?: number }) => n + (typeof c?.restartCount === 'number' ? c.restartCount : 0),
    0,
  );
  const url = p.metadata.annotations?.['kubeadm.kubernetes.io/etcd.advertise-client-urls'];
  return {
    name: p.metadata.name,
    where: `pod kube-system/${p.metadata.name} on ${p.spec?.nodeName ?? '?'}`,
    node: p.spec?.nodeName,
    role: 'voter',
    health: ready ? 'healthy' : 'unhealthy',
    evidence: `pod ${ready ? 'Ready' : `not Ready (${p.status?.phase ?? '?'})`}${restarts ? `, ${restarts} restarts` : ''}${url ? `, ${url}` : ''}`,
  };
}

/** K3s/RKE2: EtcdIsVoter where published; else the etcd role label (and RKE2's etcd pod) — count without health. */
function k3sMembers(snap: Snapshot, now: number, distribution: Distribution): { members: Member[]; withCondition: number } {
  const pods = distribution === 'RKE2' ? etcdPods(snap) : [];
  let withCondition = 0;
  const members = snap
    .of(R.nodes)
    .filter((n) => n.metadata.labels?.['node-role.kubernetes.io/etcd'] === 'true')
    .map((n): Member => {
      const name = n.metadata.name;
      const where = `node ${name}${n.spec?.unschedulable ? ' (cordoned)' : ''}`;
      const c = cond(n, 'EtcdIsVoter');
      const pod = pods.find((p) => p.spec?.nodeName === name);
      if (!c) {
        // before the condition existed: the label says it is a member; the pod (RKE2) or nothing says how it is
        if (pod) {
          const pm = podMember(pod);
          return { ...pm, name, where, node: name, evidence: `etcd role label; ${pm.evidence} (no EtcdIsVoter: learners not visible)` };
        }
        // a NotReady node is its kubelet, not its etcd member: unknown, never "down" on that alone — but in K3s the
        // kubelet and the etcd member are one process: a server that stopped posting status for minutes took its
        // member with it (down, or cut off from the others)
        const r = cond(n, 'Ready');
        const silent = Date.parse(r?.lastHeartbeatTime ?? '');
        const gone =
          distribution === 'K3s' &&
          r?.status === 'Unknown' &&
          r.reason === 'NodeStatusUnknown' &&
          !Number.isNaN(silent) &&
          now - silent > K3S_HEARTBEAT_STALE_MS;
        return {
          name,
          where,
          node: name,
          role: 'voter',
          health: gone ? 'unhealthy' : 'unknown',
          evidence: `etcd role label only (no EtcdIsVoter condition: ${distribution} before v1.25.16/v1.26.11/v1.27.8/v1.28.4)${
            gone
              ? `, its K3s server stopped posting status ${Math.round((now - silent) / 60_000)} min ago (NodeStatusUnknown): the kubelet and the etcd member are one process`
              : isReady(n)
                ? ''
                : ', node NotReady (its kubelet; the member itself is not visible)'
          }`,
        };
      }
      withCondition++;
      const hb = Date.parse(c.lastHeartbeatTime ?? '');
      const stale = Number.isNaN(hb) || now - hb > K3S_HEARTBEAT_STALE_MS;
      const age = Number.isNaN(hb) ? 'unknown age' : `${Math.round((now - hb) / 60_000)} min ago`;
      let role: Role = 'unknown';
      let health: Health = 'unknown';
      if (c.status === 'True') {
        role = 'voter';
        health = 'healthy';
      } else if (c.reason === 'MemberIsLearner') {
        role = 'learner';
        health = 'healthy';
      } else if (c.reason === 'Unhealthy') {
        role = 'voter';
        health = 'unhealthy';
      } else if (c.reason === 'NotAMember') {
        role = 'unknown';
        health = 'unhealthy';
      }
      // a not-Ready etcd pod is the member's own probe; a NotReady node is only its kubelet: from the releases whose
      // leader probes each member, a fresh True stands; before them, the node's state leaves the member unknown
      const notReady = !isReady(n);
      const probed = probesMembers(n.status?.nodeInfo?.kubeletVersion) || Boolean(pod && podReady(pod));
      if (pod && !podReady(pod) && health === 'healthy') health = 'unhealthy';
      else if (notReady && health === 'healthy' && !probed) health = 'unknown';
      if (stale && health === 'healthy') health = 'unknown';
      const nodeText = notReady
        ? `, node NotReady (its kubelet${health === 'healthy' ? `; the member answers the etcd leader${pod && podReady(pod) ? ' and its pod is Ready' : ''}` : health === 'unknown' ? '; the member itself may still run' : ''})`
        : '';
      const evidence = `EtcdIsVoter=${c.status}/${c.reason ?? ''}, heartbeat ${age}${nodeText}${pod && !podReady(pod) ? ', etcd pod not Ready' : ''}${stale ? ' (stale)' : ''}`;
      return {
        name,
        where,
        node: name,
        role,
        health,
        evidence,
        heartbeat: c.lastHeartbeatTime,
        stale,
        learnerSince: role === 'learner' ? c.lastTransitionTime : undefined,
      };
    });
  return { members, withCondition };
}

function kubeadmExternal(snap: Snapshot): string[] | null {
  const cm = snap.of(R.configmaps).find((c) => c.metadata.namespace === 'kube-system' && c.metadata.name === 'kubeadm-config');
  const text = cm?.data?.ClusterConfiguration;
  if (typeof text !== 'string') return null;
  try {
    const cfg = load(text, { maxAliases: 10 }) as { etcd?: { external?: { endpoints?: unknown } } } | null;
    const eps = cfg?.etcd?.external?.endpoints;
    return Array.isArray(eps) ? eps.map(String) : null;
  } catch {
    return null;
  }
}

const isControlPlaneNode = (n: KObject): boolean =>
  'node-role.kubernetes.io/control-plane' in (n.metadata.labels ?? {}) || 'node-role.kubernetes.io/master' in (n.metadata.labels ?? {});

/**
 * kubeadm joins that stopped half way: a node running control-plane static pods without the control-plane role
 * (join failed before mark-control-plane; its etcd member is then typically an unpromoted learner), or a
 * control-plane node without an etcd pod in a stacked cluster.
 */
function kubeadmHalfJoins(snap: Snapshot, pods: KObject[]): Array<{ node: string; why: string }> {
  const out: Array<{ node: string; why: string }> = [];
  const cpPodsOn = new Map<string, string[]>();
  for (const p of snap.of(R.pods)) {
    if (p.metadata.namespace !== 'kube-system' || p.metadata.labels?.tier !== 'control-plane' || !p.spec?.nodeName) continue;
    cpPodsOn.set(p.spec.nodeName, [...(cpPodsOn.get(p.spec.nodeName) ?? []), String(p.metadata.labels?.component ?? p.metadata.name)]);
  }
  const etcdNodes = new Set(pods.map((p) => p.spec?.nodeName));
  for (const n of snap.of(R.nodes)) {
    const name = n.metadata.name;
    const comps = cpPodsOn.get(name) ?? [];
    if (!isControlPlaneNode(n) && comps.includes('kube-apiserver')) {
      out.push({
        node: name,
        why: `runs control-plane static pods (${comps.join(', ')}) but has no control-plane role: kubeadm join --control-plane stopped before mark-control-plane${etcdNodes.has(name) ? '; its etcd member is likely an unpromoted learner' : ''}`,
      });
    } else if (isControlPlaneNode(n) && pods.length > 0 && !etcdNodes.has(name)) {
      out.push({ node: name, why: 'a control-plane node with no etcd static pod, in a cluster whose other control-plane nodes run one' });
    }
  }
  return out;
}

/** k0s: Joined members, deduplicated by member ID and peer address (objects can be stale or doubled). */
function k0sMembers(snap: Snapshot): { members: Member[]; duplicates: QuorumView['duplicates'] } {
  const members: Member[] = [];
  const duplicates: QuorumView['duplicates'] = [];
  const seen = new Map<string, string>();
  for (const m of [...snap.of(R.k0sEtcdMembers)].sort((a, b) => byText(a.metadata.name, b.metadata.name))) {
    const joined = cond(m, 'Joined');
    if (joined?.status === 'False') continue; // left the cluster: kept for tracking only
    const id = typeof m.status?.memberID === 'string' ? m.status.memberID.toLowerCase() : undefined;
    const peer = typeof m.status?.peerAddress === 'string' ? m.status.peerAddress : undefined;
    const byId = id ? seen.get(`id:${id}`) : undefined;
    const byPeer = peer ? seen.get(`peer:${peer}`) : undefined;
    const dupOf = byId ?? byPeer;
    if (dupOf) {
      duplicates.push({
        name: m.metadata.name,
        duplicateOf: dupOf,
        key: [byId ? `member ID ${id}` : '', byPeer ? `peer address ${peer}` : ''].filter(Boolean).join(' and '),
      });
      continue;
    }
    if (id) seen.set(`id:${id}`, m.metadata.name);
    if (peer) seen.set(`peer:${peer}`, m.metadata.name);
    members.push({
      name: m.metadata.name,
      where: peer ? `peer ${peer}` : 'controller',
      role: joined?.status === 'True' ? 'voter' : 'unknown',
      health: 'unknown',
      evidence: `EtcdMember ${id ? `id ${id}, ` : ''}Joined=${joined?.status ?? '?'} (k0s exposes membership, not health)`,
    });
  }
  return { members, duplicates };
}

/** The etcd operator's EtcdMembersAvailable message, in the forms it has written since OpenShift 4.4. */
export function openshiftMembers(message: string): Member[] | null {
  const member = (name: string, health: Health, evidence = `etcd operator: ${message}`): Member => ({
    name,
    where: 'openshift-etcd',
    role: 'voter',
    health,
    evidence,
  });
  let m = /^(\d+) members are available\b/.exec(message);
  if (m) return Array.from({ length: Number(m[1]) }, (_, i) => member(`member-${i + 1}`, 'healthy'));
  m = /^(\d+) of (\d+) members are available(?:, (.*))?$/.exec(message);
  if (m) {
    const healthy = Number(m[1]);
    const total = Number(m[2]);
    const members: Member[] = [];
    for (const part of (m[3] ?? '').split(/,\s*/)) {
      const b = /^(\S+) (is unhealthy|has not started)/.exec(part);
      if (b) members.push(member(b[1]!, 'unhealthy', `etcd operator: ${b[1]} ${b[2]}`));
    }
    for (let i = members.length; i < total; i++)
      members.push(member(`member-${i + 1}`, i - members.length < healthy ? 'healthy' : 'unhealthy'));
    return members;
  }
  // OpenShift 4.4: "A,B members are available, C have not started, D are unhealthy, E are unknown"
  m = /^(\S*) members are available, (\S*)\s*have not started, (\S*)\s*are unhealthy, (\S*)\s*are unknown/.exec(message);
  if (!m) return null;
  const groups: Array<[string | undefined, Health, string]> = [
    [m[1], 'healthy', ''],
    [m[2], 'unhealthy', 'has not started'],
    [m[3], 'unhealthy', 'is unhealthy'],
    [m[4], 'unknown', 'is unknown'],
  ];
  return groups.flatMap(([names, health, what]) =>
    (names ?? '')
      .split(',')
      .filter(Boolean)
      .map((n) => member(n, health, what ? `etcd operator: ${n} ${what}` : undefined)),
  );
}

type VerdictPart = Pick<
  QuorumView,
  'voters' | 'healthyVoters' | 'unknownVoters' | 'learners' | 'quorum' | 'tolerated' | 'remaining' | 'verdict' | 'verdictLine'
>;

export function verdictOf(members: Member[], readyz: QuorumView['readyzEtcd']): VerdictPart {
  const voters = members.filter((m) => m.role === 'voter').length;
  const healthyVoters = members.filter((m) => m.role === 'voter' && m.health === 'healthy').length;
  const unknownVoters =
    members.filter((m) => m.role === 'voter' && m.health === 'unknown').length + members.filter((m) => m.role === 'unknown').length;
  const learners = members.filter((m) => m.role === 'learner').length;
  const quorum = quorumOf(voters);
  const tolerated = voters - quorum;
  const remaining = healthyVoters - quorum;
  let verdict: Verdict;
  let tol: string;
  if (readyz === 'failed') {
    verdict = 'LOST';
    tol = 'the API server cannot reach etcd';
  } else if (voters === 0) {
    verdict = 'UNKNOWN';
    tol = 'unknown tolerance';
  } else if (healthyVoters >= quorum) {
    // at least one more failure survivable = HEALTHY; none = AT RISK by design, or DEGRADED when voters are down
    verdict =
      remaining > 0
        ? 'HEALTHY'
        : healthyVoters < voters
          ? unknownVoters > 0 && healthyVoters + unknownVoters === voters
            ? 'UNKNOWN'
            : 'DEGRADED'
          : 'AT RISK';
    tol =
      remaining > 0
        ? `tolerates ${remaining} failure${remaining === 1 ? '' : 's'}`
        : verdict === 'AT RISK'
          ? 'no failure tolerated (by design)'
          : 'no failure tolerated';
  } else if (healthyVoters + unknownVoters >= quorum) {
    // health unknown: a design that tolerates nothing is at risk whatever the health
    verdict = tolerated === 0 && members.every((m) => m.health !== 'unhealthy') ? 'AT RISK' : 'UNKNOWN';
    tol =
      tolerated === 0
        ? 'no failure tolerated (by design)'
        : `tolerates at most ${tolerated} failure${tolerated === 1 ? '' : 's'} (by design)`;
  } else {
    verdict = 'LOST';
    tol = 'no quorum';
  }
  // unknown is kept apart from down: "0 healthy, 2 down, 1 unknown", never "health unknown" when some are known down
  const downVoters = members.filter((m) => m.role === 'voter' && m.health === 'unhealthy').length;
  const counts =
    healthyVoters || downVoters || !unknownVoters
      ? `${healthyVoters} healthy${unknownVoters ? `${downVoters ? `, ${downVoters} down` : ''}, ${unknownVoters} unknown` : ''}`
      : 'health unknown';
  const parts = [
    `${voters} voter${voters === 1 ? '' : 's'}, ${counts}${learners ? `, ${learners} learner${learners === 1 ? '' : 's'}` : ''}`,
    `quorum ${voters ? quorum : '?'}`,
    tol,
    verdict,
  ];
  return { voters, healthyVoters, unknownVoters, learners, quorum, tolerated, remaining, verdict, verdictLine: parts.join(' — ') };
}

/** How many voters there are, as one sentence that keeps unknown apart from down: "1 of 3 voting members would
 *  remain (its health is not visible)" in a what-if, "2 of 3 voting members are down and 1 is of unknown health"
 *  otherwise; with every health known, "2 of 3 voting members are healthy". */
export function votersText(v: Pick<QuorumView, 'members' | 'voters' | 'healthyVoters'>, hypothetical: boolean): string {
  const voters = v.members.filter((m) => m.role === 'voter');
  const unknown = voters.filter((m) => m.health === 'unknown').length;
  const down = voters.filter((m) => m.health === 'unhealthy').length;
  if (!unknown) return `${v.healthyVoters} of ${v.voters} voting members ${v.healthyVoters === 1 ? 'is' : 'are'} healthy`;
  const left = v.voters - down;
  const health = v.healthyVoters
    ? `${v.healthyVoters} healthy, ${unknown} whose health is not visible`
    : `${unknown === 1 ? 'its' : 'their'} health is not visible`;
  if (hypothetical) return `${left} of ${v.voters} voting members would remain (${health})`;
  return `${down} of ${v.voters} voting members ${down === 1 ? 'is' : 'are'} down and ${left} ${left === 1 ? 'is' : 'are'} not (${health})`;
}

export function quorumView(snap: Snapshot, now: Date): QuorumView {
  const { distribution } = detectDistribution(snap);
  const t = now.getTime();
  const api = apiEvidence(snap);
  // etcd failing, by the API server's own readiness or by every read timing out inside it
  const rz = api.storageDown ? 'failed' : readyzEtcd(snap.header.readyz);
  const apiServers = apiServerCount(snap, t);
  const notes: string[] = [];
  const base = {
    distribution,
    readyzEtcd: readyzEtcd(snap.header.readyz),
    served: api.served,
    ...(api.storageDown ? { storageDown: api.storageDown } : {}),
    apiServers,
    notes,
    duplicates: [] as QuorumView['duplicates'],
    halfJoined: [] as QuorumView['halfJoined'],
    ...(snap.header.hypothetical ? { hypothetical: true } : {}),
  };
  const notVisible = (reason: string): QuorumView => {
    // members not visible, but the API server says it cannot reach etcd: that is still a verdict
    if (rz === 'failed') {
      return {
        ...base,
        source: api.storageDown ? 'every list timed out inside the API server' : '/readyz?verbose etcd check',
        visible: true,
        reason,
        members: [],
        ...verdictOf([], rz),
        verdictLine: `members not visible (${api.storageDown ? 'every list timed out' : reason}) — the API server cannot reach etcd — LOST`,
      };
    }
    return {
      ...base,
      source: 'none',
      visible: false,
      reason,
      members: [],
      ...verdictOf([], rz),
      verdict: 'NOT VISIBLE',
      verdictLine: `etcd not visible — ${reason}`,
    };
  };

  if (distribution === 'EKS' || distribution === 'GKE' || distribution === 'AKS') {
    return notVisible(
      `${distribution} runs etcd inside its managed control plane; the Kubernetes API does not expose it, so quorum is the provider's responsibility and is not scored`,
    );
  }
  let members: Member[] = [];
  let source = '';
  const finish = (): QuorumView => {
    // what-if: a member on a node taken down goes down with its server, whatever evidence it had — and that is what
    // it says (its last heartbeat, which the hypothesis stamps, would read as news from a member that is not there)
    const hypo = snap.header.hypothetical;
    if (hypo && !hypo.remove)
      for (const m of members)
        if (m.node && hypo.nodes.includes(m.node)) {
          m.health = 'unhealthy';
          m.evidence = 'down by hypothesis: its server goes down with the node';
        }
    if (rz === 'failed') {
      // the states below are the last ones the API server cached: not current
      for (const m of members) {
        if (m.health === 'healthy') {
          m.health = 'unknown';
          m.evidence += ' (cached: the API server cannot reach etcd)';
        }
      }
    }
    const v = verdictOf(members, rz);
    // a list was served through etcd at capture time: whatever older member evidence says, quorum held then
    if (v.verdict === 'LOST' && api.served && rz !== 'failed') {
      notes.push(
        `the member evidence says fewer than ${v.quorum} healthy voters, yet the API served these lists through etcd, which needs quorum: the evidence is older than the capture`,
      );
      return {
        ...base,
        source,
        visible: true,
        members,
        ...v,
        verdict: 'UNKNOWN' as const,
        verdictLine: v.verdictLine.replace(/no quorum \u2014 LOST$/, 'quorum held at capture (the API answered) \u2014 UNKNOWN'),
      };
    }
    return { ...base, source, visible: true, members, ...v };
  };
  if (distribution === 'K3s' || distribution === 'RKE2') {
    if (snap.visibility(R.nodes)) return notVisible(`nodes not visible: ${snap.visibility(R.nodes)!.reason}`);
    const k = k3sMembers(snap, t, distribution);
    members = k.members;
    const cp = new Set(
      snap
        .of(R.nodes)
        .filter(isControlPlaneNode)
        .map((n) => n.metadata.name),
    );
    if (members.some((m) => m.node && !cp.has(m.node))) Object.assign(base, { split: true });
    if (members.length === 0) {
      const argsNode = snap.of(R.nodes).find((n) => n.metadata.annotations?.['k3s.io/node-args']);
      notes.push(
        `no node has the etcd role: this ${distribution} cluster uses ${argsNode ? 'an external datastore (kine/SQL) or ' : ''}a datastore that is not etcd`,
      );
      return {
        ...notVisible('no etcd members: not using embedded etcd (kine/SQLite or external SQL)'),
        verdictLine: 'no embedded etcd (datastore is not etcd, or not visible)',
      };
    }
    source =
      k.withCondition === members.length
        ? `${distribution} nodes labelled node-role.kubernetes.io/etcd=true, condition EtcdIsVoter`
        : k.withCondition === 0
          ? `${distribution} nodes labelled node-role.kubernetes.io/etcd=true${distribution === 'RKE2' ? ' and etcd static pods' : ''} (no EtcdIsVoter condition: member count without etcd health)`
          : `${distribution} nodes labelled node-role.kubernetes.io/etcd=true, condition EtcdIsVoter on ${k.withCondition} of ${members.length}`;
  } else if (distribution === 'kubeadm') {
    const ext = kubeadmExternal(snap);
    if (ext) {
      members = ext.map((e) => ({
        name: e,
        where: `external ${e}`,
        role: 'voter',
        health: 'unknown',
        evidence: 'listed in kubeadm-config etcd.external.endpoints; health not visible through the API',
      }));
      source = 'kubeadm-config ClusterConfiguration etcd.external.endpoints';
      notes.push('external etcd: probe it directly with kubectl arch quorum --etcd-endpoints ... to see health, leader and learners');
    } else {
      if (snap.visibility(R.pods)) return notVisible(`pods not visible: ${snap.visibility(R.pods)!.reason}`);
      const pods = etcdPods(snap);
      base.halfJoined = kubeadmHalfJoins(snap, pods);
      const half = new Set(base.halfJoined.map((h) => h.node));
      members = pods.map((p) => {
        const m = podMember(p);
        // the etcd pod of a half-joined node is most likely a learner that was never promoted: do not count its vote
        return half.has(p.spec?.nodeName)
          ? { ...m, role: 'unknown' as const, evidence: `${m.evidence}; on a half-joined node: likely an unpromoted learner` }
          : m;
      });
      source = 'kube-system static pods component=etcd (mirror-pod readiness)';
      notes.push(
        'learners are not visible as pods; a kubeadm etcd pod is Ready when /readyz (a linearizable read) passes on kubeadm >= 1.31',
      );
    }
  } else if (distribution === 'k0s') {
    const v = snap.visibility(R.k0sEtcdMembers);
    if (v) return notVisible(`EtcdMember objects not visible (k0s >= 1.30 publishes them): ${v.reason}`);
    const k = k0sMembers(snap);
    // listed, but none: the members are not visible here (not "0 voters, 0 healthy")
    if (!k.members.length)
      return notVisible(
        'no EtcdMember objects: k0s publishes them from 1.30 (and not at all with kine/SQLite); list the members on a controller with sudo k0s etcd member-list',
      );
    members = k.members;
    base.duplicates = k.duplicates;
    source = 'k0s EtcdMember objects (membership only), deduplicated by member ID and peer address';
  } else if (distribution === 'OpenShift') {
    const etcd = snap.of(R.openshiftEtcds).find((e) => e.metadata.name === 'cluster');
    if (!etcd) return notVisible('etcds.operator.openshift.io/cluster not visible');
    const avail = cond(etcd, 'EtcdMembersAvailable');
    const parsed = typeof avail?.message === 'string' ? openshiftMembers(avail.message) : null;
    if (!parsed)
      return notVisible(
        `the etcd operator's EtcdMembersAvailable condition says "${avail?.message ?? 'nothing'}", which is not a member count`,
      );
    members = parsed;
    source = 'OpenShift etcd operator condition EtcdMembersAvailable';
    notes.push(`EtcdMembersAvailable=${avail?.status ?? '?'} (${avail?.reason ?? ''}): ${avail?.message}`);
    if (avail?.status === 'False')
      notes.push('the operator reports no quorum; it can write this only while the API still accepts writes, so the condition may be old');
  } else if (distribution === 'Talos') {
    const v = notVisible(
      "Talos runs etcd as a system service outside Kubernetes; only the API server's /readyz etcd line is visible (use talosctl etcd members)",
    );
    return v.verdict === 'NOT VISIBLE' ? { ...v, verdictLine: `etcd not visible on Talos — readyz etcd: ${rz}` } : v;
  } else {
    const pods = snap.visibility(R.pods) ? [] : etcdPods(snap);
    // readyz is its own field: the check and the map say it once, after the reason
    if (!pods.length) return notVisible(`etcd members are not visible for this distribution (${distribution})`);
    members = pods.map(podMember);
    source = 'kube-system pods component=etcd';
  }
  return finish();
}
