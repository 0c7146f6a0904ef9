// The etcd quorum position, read through the Kubernetes API per distribution (REFERENCE.md §3).
// Pure: snapshot in, members and verdict out. Quorum = floor(voters/2)+1; learners do not vote.
import { detectDistribution, isReady, type Distribution } from '../fingerprint.js';
import type { KObject } from '../model.js';
import { R } from '../resources.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { load } from 'js-yaml';

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
}

export type Verdict = 'HEALTHY' | 'DEGRADED' | 'LOST' | 'UNKNOWN' | 'NOT VISIBLE';

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
  apiServers: number | null;
  notes: string[];
}

/** K3s refreshes EtcdIsVoter's heartbeat every 5 minutes; older than this, the state is unknown. */
export const K3S_HEARTBEAT_STALE_MS = 6 * 60_000;
/** Identity leases are renewed every 10 s and kept for an hour after a server dies. */
export const APISERVER_LEASE_FRESH_MS = 60_000;
export const LEARNER_STUCK_MS = 10 * 60_000;

export const quorumOf = (voters: number): number => Math.floor(voters / 2) + 1;

const cond = (o: KObject, type: string): { status?: string; reason?: string; message?: string; lastHeartbeatTime?: string; lastTransitionTime?: string } | undefined =>
  (o.status?.conditions ?? []).find((c: { type: string }) => c.type === type);

function readyzEtcd(text: string | undefined): QuorumView['readyzEtcd'] {
  if (!text) return 'unknown';
  if (/^\[-\]etcd\b/m.test(text)) return 'failed';
  if (/^\[\+\]etcd ok/m.test(text)) return 'ok';
  return 'unknown';
}

function apiServerCount(snap: Snapshot, now: number): number | null {
  if (snap.visibility(R.leases)) return null;
  const ids = snap.of(R.leases).filter((l) => l.metadata.namespace === 'kube-system' && l.metadata.labels?.['apiserver.kubernetes.io/identity'] === 'kube-apiserver');
  if (ids.length === 0) return null;
  return ids.filter((l) => {
    const t = Date.parse(l.spec?.renewTime ?? '');
    return !Number.isNaN(t) && now - t <= APISERVER_LEASE_FRESH_MS;
  }).length;
}

function k3sMembers(snap: Snapshot, now: number): Member[] {
  return snap.of(R.nodes).filter((n) => n.metadata.labels?.['node-role.kubernetes.io/etcd'] === 'true').map((n) => {
    const c = cond(n, 'EtcdIsVoter');
    const name = n.metadata.name;
    if (!c) return { name, where: `node ${name}`, role: 'unknown', health: 'unknown', evidence: 'no EtcdIsVoter condition' } satisfies Member;
    const hb = Date.parse(c.lastHeartbeatTime ?? '');
    const stale = Number.isNaN(hb) || now - hb > K3S_HEARTBEAT_STALE_MS;
    const age = Number.isNaN(hb) ? 'unknown age' : `${Math.round((now - hb) / 60_000)} min ago`;
    let role: Role = 'unknown';
    let health: Health = 'unknown';
    if (c.status === 'True') { role = 'voter'; health = 'healthy'; }
    else if (c.reason === 'MemberIsLearner') { role = 'learner'; health = 'healthy'; }
    else if (c.reason === 'Unhealthy') { role = 'voter'; health = 'unhealthy'; }
    else if (c.reason === 'NotAMember') { role = 'unknown'; health = 'unhealthy'; }
    if (!isReady(n) && health === 'healthy') health = 'unhealthy';
    if (stale && health === 'healthy') health = 'unknown';
    const evidence = `EtcdIsVoter=${c.status}/${c.reason ?? ''}, heartbeat ${age}${isReady(n) ? '' : ', node NotReady'}${stale ? ' (stale)' : ''}`;
    return { name, where: `node ${name}${n.spec?.unschedulable ? ' (cordoned)' : ''}`, role, health, evidence, heartbeat: c.lastHeartbeatTime, stale,
      learnerSince: role === 'learner' ? c.lastTransitionTime : undefined } satisfies Member;
  });
}

function staticPodMembers(snap: Snapshot): Member[] {
  return snap.of(R.pods).filter((p) => p.metadata.namespace === 'kube-system' && p.metadata.labels?.component === 'etcd').map((p) => {
    const ready = (p.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True');
    const restarts = (p.status?.containerStatuses ?? []).reduce((n: number, c: { restartCount?: number }) => n + (c.restartCount ?? 0), 0);
    const url = p.metadata.annotations?.['kubeadm.kubernetes.io/etcd.advertise-client-urls'];
    return { name: p.metadata.name, where: `pod kube-system/${p.metadata.name} on ${p.spec?.nodeName ?? '?'}`, role: 'voter', health: ready ? 'healthy' : 'unhealthy',
      evidence: `pod ${ready ? 'Ready' : `not Ready (${p.status?.phase ?? '?'})`}${restarts ? `, ${restarts} restarts` : ''}${url ? `, ${url}` : ''}` } satisfies Member;
  });
}

function kubeadmExternal(snap: Snapshot): string[] | null {
  const cm = snap.of(R.configmaps).find((c) => c.metadata.namespace === 'kube-system' && c.metadata.name === 'kubeadm-config');
  const text = cm?.data?.ClusterConfiguration;
  if (!text) return null;
  try {
    const cfg = load(text) as { etcd?: { external?: { endpoints?: string[] } } };
    return cfg.etcd?.external?.endpoints ?? null;
  } catch {
    return null;
  }
}

function k0sMembers(snap: Snapshot): Member[] {
  return snap.of(R.k0sEtcdMembers).map((m) => {
    const joined = cond(m, 'Joined');
    return { name: m.metadata.name, where: m.status?.peerAddress ? `peer ${m.status.peerAddress}` : 'controller', role: joined?.status === 'True' ? 'voter' : 'unknown',
      health: 'unknown', evidence: `EtcdMember ${m.status?.memberID ? `id ${m.status.memberID}, ` : ''}Joined=${joined?.status ?? '?'} (k0s exposes membership, not health)` } satisfies Member;
  });
}

function openshiftView(snap: Snapshot): { members: Member[]; note: string } | null {
  const etcd = snap.of(R.openshiftEtcds).find((e) => e.metadata.name === 'cluster');
  if (!etcd) return null;
  const avail = cond(etcd, 'EtcdMembersAvailable');
  const m = /(\d+) of (\d+) members are available(?:, (.*))?/.exec(avail?.message ?? '');
  if (!m) return { members: [], note: `EtcdMembersAvailable: ${avail?.message ?? 'absent'}` };
  const healthy = Number(m[1]);
  const total = Number(m[2]);
  const bad = (m[3] ?? '').split(/,\s*/).map((s) => /^(\S+) is unhealthy/.exec(s)?.[1]).filter((x): x is string => Boolean(x));
  const members: Member[] = [];
  for (const b of bad) members.push({ name: b, where: 'openshift-etcd', role: 'voter', health: 'unhealthy', evidence: `etcd operator: ${b} is unhealthy` });
  let healthyLeft = healthy;
  for (let i = members.length; i < total; i++) {
    const h = healthyLeft-- > 0;
    members.push({ name: `member-${i + 1}`, where: 'openshift-etcd', role: 'voter', health: h ? 'healthy' : 'unhealthy', evidence: `etcd operator: ${avail?.message}` });
  }
  return { members, note: `etcd operator condition EtcdMembersAvailable: ${avail?.message} (${avail?.reason ?? ''})` };
}

export function verdictOf(members: Member[], readyz: QuorumView['readyzEtcd']): Pick<QuorumView, 'voters' | 'healthyVoters' | 'unknownVoters' | 'learners' | 'quorum' | 'tolerated' | 'remaining' | 'verdict' | 'verdictLine'> {
  const voters = members.filter((m) => m.role === 'voter').length;
  const healthyVoters = members.filter((m) => m.role === 'voter' && m.health === 'healthy').length;
  const unknownVoters = members.filter((m) => m.role === 'voter' && m.health === 'unknown').length + members.filter((m) => m.role === 'unknown').length;
  const learners = members.filter((m) => m.role === 'learner').length;
  const quorum = quorumOf(voters);
  const tolerated = voters - quorum;
  const remaining = healthyVoters - quorum;
  let verdict: Verdict;
  if (voters === 0) verdict = 'UNKNOWN';
  else if (healthyVoters >= quorum) verdict = remaining === 0 && healthyVoters < voters ? 'DEGRADED' : 'HEALTHY';
  else if (healthyVoters + unknownVoters >= quorum) verdict = 'UNKNOWN';
  else verdict = 'LOST';
  if (readyz === 'failed' && verdict !== 'LOST') verdict = voters ? 'LOST' : 'UNKNOWN';
  // a single healthy member is "healthy" but tolerates nothing; say that in the line, not the verdict
  const tol = voters === 0 ? 'unknown tolerance'
    : verdict === 'LOST' ? 'no quorum'
      : remaining <= 0 ? 'no failure tolerated' : `tolerates ${remaining} failure${remaining === 1 ? '' : 's'}`;
  const parts = [`${voters} voter${voters === 1 ? '' : 's'}, ${healthyVoters} healthy${unknownVoters ? `, ${unknownVoters} unknown` : ''}${learners ? `, ${learners} learner${learners === 1 ? '' : 's'}` : ''}`,
    `quorum ${voters ? quorum : '?'}`, tol, verdict];
  return { voters, healthyVoters, unknownVoters, learners, quorum, tolerated, remaining, verdict, verdictLine: parts.join(' — ') };
}

export function quorumView(snap: Snapshot, now: Date): QuorumView {
  const { distribution } = detectDistribution(snap);
  const t = now.getTime();
  const rz = readyzEtcd(snap.header.readyz);
  const apiServers = apiServerCount(snap, t);
  const notes: string[] = [];
  const base = { distribution, readyzEtcd: rz, apiServers, notes };
  const notVisible = (reason: string): QuorumView => ({ ...base, source: 'none', visible: false, reason, members: [], ...verdictOf([], rz), verdict: 'NOT VISIBLE', verdictLine: `etcd not visible — ${reason}` });

  if (distribution === 'EKS' || distribution === 'GKE' || distribution === 'AKS') {
    return notVisible(`${distribution} runs etcd inside its managed control plane; the Kubernetes API does not expose it, so quorum is the provider's responsibility and is not scored`);
  }
  let members: Member[] = [];
  let source = '';
  if (distribution === 'K3s' || distribution === 'RKE2') {
    if (snap.visibility(R.nodes)) return notVisible(`nodes not visible: ${snap.visibility(R.nodes)!.reason}`);
    members = k3sMembers(snap, t);
    source = `${distribution} nodes labelled node-role.kubernetes.io/etcd=true, condition EtcdIsVoter`;
    if (distribution === 'RKE2') {
      const pods = staticPodMembers(snap);
      for (const m of members) {
        const p = pods.find((x) => x.where.endsWith(`on ${m.name}`));
        if (p && p.health === 'unhealthy' && m.health === 'healthy') { m.health = 'unhealthy'; m.evidence += `; ${p.evidence}`; }
      }
    }
    if (members.length === 0) {
      const ds = snap.of(R.nodes).find((n) => n.metadata.annotations?.['k3s.io/node-args']);
      notes.push(`no node has the etcd role: this ${distribution} cluster uses ${ds ? 'an external datastore (kine/SQL) or' : ''} a datastore that is not etcd`);
      return { ...base, source, visible: false, reason: 'no etcd members: not using embedded etcd (kine/SQLite or external SQL)', members, ...verdictOf([], rz), verdict: 'NOT VISIBLE', verdictLine: 'no embedded etcd (datastore is not etcd, or not visible)' };
    }
  } else if (distribution === 'kubeadm') {
    const ext = kubeadmExternal(snap);
    if (ext) {
      members = ext.map((e) => ({ name: e, where: `external ${e}`, role: 'voter', health: 'unknown', evidence: 'listed in kubeadm-config etcd.external.endpoints; health not visible through the API' }));
      source = 'kubeadm-config ClusterConfiguration etcd.external.endpoints';
      notes.push('external etcd: probe it directly with kubectl arch quorum --etcd-endpoints ... to see health, leader and learners');
    } else {
      if (snap.visibility(R.pods)) return notVisible(`pods not visible: ${snap.visibility(R.pods)!.reason}`);
      members = staticPodMembers(snap);
      source = 'kube-system static pods component=etcd (mirror-pod readiness)';
      notes.push('learners are not visible as pods; a kubeadm etcd pod is Ready when /readyz (a linearizable read) passes on kubeadm >= 1.31');
    }
  } else if (distribution === 'k0s') {
    const v = snap.visibility(R.k0sEtcdMembers);
    if (v) return notVisible(`EtcdMember objects not visible: ${v.reason}`);
    members = k0sMembers(snap);
    source = 'k0s EtcdMember objects (membership only)';
  } else if (distribution === 'OpenShift') {
    const os = openshiftView(snap);
    if (!os) return notVisible('etcds.operator.openshift.io/cluster not visible');
    members = os.members;
    source = 'OpenShift etcd operator conditions';
    notes.push(os.note);
  } else if (distribution === 'Talos') {
    return { ...notVisible('Talos runs etcd outside Kubernetes; only the API server\'s /readyz etcd line is visible'), verdictLine: `etcd not visible on Talos — readyz etcd: ${rz}` };
  } else {
    const pods = snap.visibility(R.pods) ? [] : staticPodMembers(snap);
    if (pods.length) {
      members = pods;
      source = 'kube-system pods component=etcd';
    } else {
      return { ...notVisible(`etcd members are not visible for this distribution (${distribution}); readyz etcd: ${rz}`) };
    }
  }
  return { ...base, source, visible: true, members, ...verdictOf(members, rz) };
}
