// etcd quorum risk, read through the Kubernetes API: lost or degraded quorum, even member counts,
// single member, stale evidence, stuck learners, API server count vs etcd member count.
import { K3S_HEARTBEAT_STALE_MS, LEARNER_STUCK_MS, quorumView, type QuorumView } from '../etcd/quorum.js';
import type { Finding, ObjectRef } from '../model.js';
import { CONFIGMAPS, R } from '../resources.js';
import type { Check } from './types.js';

const ID = 'etcd-quorum';

const refs = (v: QuorumView, pred: (m: QuorumView['members'][number]) => boolean): ObjectRef[] =>
  v.members.filter(pred).map((m) => (m.where.startsWith('node ') ? { kind: 'Node', name: m.name } : m.where.startsWith('pod ') ? { kind: 'Pod', namespace: 'kube-system', name: m.name } : { kind: 'EtcdMember', name: m.name }));

export function quorumFindings(v: QuorumView, now: Date): Finding[] {
  const out: Finding[] = [];
  const evidence = { verdict: v.verdict, verdictLine: v.verdictLine, voters: v.voters, healthyVoters: v.healthyVoters, learners: v.learners, quorum: v.quorum,
    tolerated: v.tolerated, readyzEtcd: v.readyzEtcd, apiServers: v.apiServers, source: v.source, members: v.members };
  const f = (code: string, severity: Finding['severity'], title: string, message: string, objects: ObjectRef[], why: string, fix: string[]): Finding =>
    ({ code, checkId: ID, severity, title, message, objects, evidence, why, fix });
  const down = v.members.filter((m) => m.role === 'voter' && m.health !== 'healthy').map((m) => `${m.name} (${m.evidence})`);
  if (v.verdict === 'LOST') {
    out.push(f('ARCH-EQ01', 'critical', `etcd has lost quorum: ${v.verdictLine}`,
      v.readyzEtcd === 'failed' && v.healthyVoters >= v.quorum
        ? `The API server's /readyz reports etcd failing: it cannot read or write the cluster state. The member states below come from the last evidence the API server cached (${v.healthyVoters} of ${v.voters} voters looked healthy then); they are not current.`
        : `${v.healthyVoters} of ${v.voters} voting members are healthy; ${v.quorum} are needed to write.${down.length ? ` Not healthy: ${down.join('; ')}.` : ''}${v.readyzEtcd === 'failed' ? ' The API server\'s /readyz reports etcd failing.' : ''}`,
      refs(v, (m) => m.role === 'voter' && m.health !== 'healthy'),
      'All cluster state lives in etcd, and etcd accepts writes only while a majority of voters agree. Without quorum nothing can change: no scheduling, no scaling, no new pods.',
      ['bring the stopped members back first (start the k3s/etcd service on those servers; check disk, clock and network between them)',
        'if they cannot return, restore quorum from the survivors: K3s `k3s server --cluster-reset` on one server; kubeadm/etcdctl `etcd --force-new-cluster` from a snapshot — read the distribution\'s disaster-recovery guide first']));
  } else if (v.verdict === 'DEGRADED') {
    out.push(f('ARCH-EQ02', 'error', `etcd is degraded: ${v.verdictLine}`,
      `Exactly ${v.quorum} of ${v.voters} voters are healthy: one more failure loses quorum.${down.length ? ` Not healthy: ${down.join('; ')}.` : ''}`,
      refs(v, (m) => m.role === 'voter' && m.health !== 'healthy'),
      'With no failure left to tolerate, a single reboot, disk stall or network blip stops all writes to the cluster.',
      ['restore the unhealthy members before any maintenance (do not drain or reboot another server now)']));
  }
  if (v.voters > 1 && v.voters % 2 === 0) {
    out.push(f('ARCH-EQ03', 'warning', `etcd has an even number of voters (${v.voters})`,
      `${v.voters} voters need ${v.quorum} for quorum and tolerate ${v.tolerated} failure${v.tolerated === 1 ? '' : 's'} — the same as ${v.voters - 1}, with one more member that can fail.${v.voters === 2 ? ' Two members are worse than one: losing either stops writes.' : ''}`,
      refs(v, (m) => m.role === 'voter'),
      'Raft needs a majority. Adding the even member added no tolerance, only another way to fail.',
      [`add one server (to ${v.voters + 1}) or remove one (to ${v.voters - 1}); for K3s, join another server with --server https://<existing>:6443, or remove one with kubectl delete node <name> after stopping k3s on it`]));
  }
  if (v.voters === 1) {
    out.push(f('ARCH-EQ04', 'info', 'etcd has a single member: no high availability',
      'One voter is its own quorum: it tolerates no failure, and its loss loses the cluster state unless you have snapshots.',
      refs(v, (m) => m.role === 'voter'),
      'A single etcd member is fine for a lab; for anything that must survive a server failure, run 3 (or 5).',
      ['take regular etcd snapshots (K3s: etcd-snapshot-schedule-cron; kubeadm: etcdctl snapshot save)', 'for HA, grow to 3 servers']));
  }
  const stale = v.members.filter((m) => m.stale);
  if (stale.length) {
    out.push(f('ARCH-EQ05', 'warning', `etcd evidence is stale for ${stale.length} member${stale.length === 1 ? '' : 's'}: ${stale.map((m) => m.name).join(', ')}`,
      `The EtcdIsVoter heartbeat is older than ${K3S_HEARTBEAT_STALE_MS / 60_000} minutes (${stale.map((m) => `${m.name}: ${m.heartbeat ?? 'never'}`).join(', ')}). The etcd leader refreshes it; a stale heartbeat means its state is unknown — and can itself mean there is no leader.`,
      refs(v, (m) => Boolean(m.stale)),
      'Counting a member as healthy on old evidence would hide a quorum loss.',
      ['check the k3s service on those servers (journalctl -u k3s) and etcd leader elections', 'probe etcd directly: kubectl arch quorum --etcd-endpoints https://<server>:2379 --etcd-cacert ... --etcd-cert ... --etcd-key ...']));
  }
  const stuck = v.members.filter((m) => m.role === 'learner' && (!m.learnerSince || now.getTime() - Date.parse(m.learnerSince) > LEARNER_STUCK_MS));
  if (stuck.length) {
    out.push(f('ARCH-EQ06', 'warning', `etcd learner not promoted: ${stuck.map((m) => m.name).join(', ')}`,
      `${stuck.map((m) => `${m.name} has been a learner since ${m.learnerSince ?? 'an unknown time'}`).join('; ')}. Learners replicate but do not vote; a new member normally promotes within minutes once it has caught up.`,
      refs(v, (m) => stuck.includes(m)),
      'A stuck learner means the cluster runs with fewer voters than servers, and the next join may fail (etcd allows one learner at a time).',
      ['check the learner\'s logs for snapshot/catch-up errors (disk speed, network to the leader)', 'if it cannot catch up, remove it and join again']));
  }
  const stacked = v.distribution === 'K3s' || v.distribution === 'RKE2' || (v.distribution === 'kubeadm' && v.source.includes('static pods'));
  if (stacked && v.apiServers !== null && v.voters > 0 && v.apiServers !== v.voters + v.learners) {
    out.push(f('ARCH-EQ07', 'info', `${v.apiServers} live API server${v.apiServers === 1 ? '' : 's'} but ${v.voters + v.learners} etcd member${v.voters + v.learners === 1 ? '' : 's'}`,
      `In a stacked control plane every server runs both. API server identity leases renewed in the last minute: ${v.apiServers}; etcd members seen: ${v.voters + v.learners}. A server whose API server is down (or one without etcd) explains the gap.`,
      [], 'A mismatch usually means a server is half-up, which the next failure turns into a quorum problem.',
      ['kubectl -n kube-system get leases -l apiserver.kubernetes.io/identity=kube-apiserver', 'compare with the servers you expect']));
  }
  return out;
}

export const etcdQuorum: Check = {
  id: ID,
  title: 'etcd quorum',
  severity: 'critical',
  codes: {
    'ARCH-EQ01': 'etcd has lost quorum (healthy voters < quorum)',
    'ARCH-EQ02': 'etcd is degraded: no failure left to tolerate',
    'ARCH-EQ03': 'even number of voters: adds no tolerance, adds a way to fail',
    'ARCH-EQ04': 'single etcd member: no high availability',
    'ARCH-EQ05': 'stale evidence: K3s EtcdIsVoter heartbeat older than ~5 minutes',
    'ARCH-EQ06': 'an etcd learner has not been promoted',
    'ARCH-EQ07': 'API server count and etcd member count differ in a stacked control plane',
  },
  needs: [R.nodes, { ...R.podsLean, optional: true }, { ...CONFIGMAPS, optional: true }, { ...R.leases, optional: true }, { ...R.k0sEtcdMembers, optional: true }, { ...R.openshiftEtcds, optional: true }],
  docs: {
    what: 'Counts etcd voting members, learners and members of unknown state, per distribution: K3s/RKE2 nodes with the etcd role and their EtcdIsVoter condition (and heartbeat age); kubeadm etcd static pods and their readiness, or external endpoints from kubeadm-config; k0s EtcdMember objects; OpenShift etcd operator conditions; everywhere, the etcd line of /readyz?verbose and the API server identity leases. Computes quorum = floor(voters/2)+1, the failures tolerated, and how many healthy voters remain.',
    why: 'All cluster state lives in etcd and etcd writes only while a majority of voters agree. Three members survive one failure, five survive two; two are worse than one. Our field notes keep a cordoned server (lemuel) as a member precisely for its vote.',
    fix: 'Keep an odd number of voters (3 or 5), bring unhealthy members back before any maintenance, and take snapshots. `kubectl arch quorum` shows the members; with --etcd-endpoints it asks etcd itself (leader, raft term/index, DB size, alarms).',
    limits: 'Through the API, etcd health is inferred: K3s publishes EtcdIsVoter from the etcd leader (refreshed every 5 minutes); kubeadm exposes only mirror-pod readiness (learners invisible); k0s exposes membership, not health; managed clouds (EKS, GKE, AKS) expose nothing, and this check says so instead of scoring. The direct probe (--etcd-endpoints) is authoritative.',
  },
  run(ctx) {
    const v = quorumView(ctx.snap, ctx.now);
    if (!v.visible) return { findings: [], skipped: `${v.reason}${v.readyzEtcd !== 'unknown' ? ` (readyz etcd: ${v.readyzEtcd})` : ''}`, notes: v.notes };
    const notes = [...v.notes];
    if (ctx.snap.visibility(R.leases)) notes.push(`API server identity leases: ${ctx.snap.visibility(R.leases)!.reason}`);
    return { findings: quorumFindings(v, ctx.now), notes, passed: `${v.verdictLine} (${v.source})` };
  },
};
