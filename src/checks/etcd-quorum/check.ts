// etcd quorum risk, read through the Kubernetes API: lost or degraded quorum, members down, even member
// counts, single member, stale evidence, stuck learners, half-finished joins, duplicate member objects, API
// server count vs etcd member count. Unknown is never passed: when the evidence cannot decide, the check is
// skipped with the reason. Fix texts are for the distribution in front of the user.
import type { Distribution } from '../../fingerprint.js';
import { K3S_HEARTBEAT_STALE_MS, LEARNER_STUCK_MS, quorumView, votersText, type Member, type QuorumView } from '../../etcd/quorum.js';
import type { ObjectRef, Severity } from '../../model.js';
import { CONFIGMAPS, R } from '../../resources.js';
import { defineCheck, finding, onlyOn, type Draft } from '../types.js';
import { command, type Step } from '../../lib/shell.js';

const ID = 'etcd-quorum';

const refOf = (m: Member): ObjectRef =>
  m.node
    ? { kind: 'Node', name: m.node }
    : m.where.startsWith('pod ')
      ? { kind: 'Pod', namespace: 'kube-system', name: m.name }
      : { kind: m.where === 'openshift-etcd' ? 'EtcdMember' : 'EtcdMember', name: m.name };
const refs = (v: QuorumView, pred: (m: Member) => boolean): ObjectRef[] => v.members.filter(pred).map(refOf);

/** How to bring a member back, remove one, or add one — for the distribution at hand only. */
export function distributionAdvice(d: Distribution): { restore: Step[]; remove: string; add: string; snapshot: string; recover: string } {
  switch (d) {
    case 'K3s':
    case 'RKE2': {
      const svc = d === 'K3s' ? 'k3s' : 'rke2-server';
      const bin = d === 'K3s' ? 'k3s' : 'rke2';
      return {
        restore: [
          command(['systemctl', 'start', svc], { say: 'on the stopped servers' }),
          command(['journalctl', '-u', svc], { note: 'the reason: disk, clock, network on port 2380' }),
        ],
        remove: `stop ${svc} on the server to remove, then kubectl delete node <name> (${d} removes its etcd member when its node is deleted), or annotate the node etcd.${d === 'K3s' ? 'k3s' : 'rke2'}.cattle.io/remove=true`,
        add: `join another server: ${bin} server --server https://<existing-server>:${d === 'K3s' ? '6443' : '9345'} with the cluster token`,
        snapshot: `${bin} etcd-snapshot save (and etcd-snapshot-schedule-cron in the config)`,
        recover: `with quorum lost for good: on one server, ${bin} server --cluster-reset (then rejoin the others) — read the ${d} disaster-recovery guide first`,
      };
    }
    case 'kubeadm':
      return {
        restore: ['on each control-plane node: crictl ps -a --name etcd; crictl logs <etcd container>; check disk, clock and port 2380'],
        remove:
          'from a healthy control-plane node: etcdctl --endpoints https://127.0.0.1:2379 --cacert /etc/kubernetes/pki/etcd/ca.crt --cert /etc/kubernetes/pki/etcd/server.crt --key /etc/kubernetes/pki/etcd/server.key member list -w table, then member remove <ID>; on the node itself kubeadm reset removes its member',
        add: 'kubeadm join <endpoint> --control-plane --certificate-key <key> (key from kubeadm init phase upload-certs --upload-certs)',
        snapshot: 'etcdctl snapshot save <file> (with the certificates above)',
        recover:
          'with quorum lost for good: restore a snapshot on one member with etcdutl snapshot restore and --force-new-cluster — read the kubeadm/etcd disaster-recovery guide first',
      };
    case 'k0s':
      return {
        restore: ['on the controllers: systemctl status k0scontroller; journalctl -u k0scontroller'],
        remove:
          'on the controller that leaves: k0s etcd leave (or for another one: k0s etcd leave --peer-address <ip>), or kubectl patch etcdmember <name> --type merge -p \'{"spec":{"leave":true}}\'',
        add: 'join another controller with a controller join token (k0s token create --role=controller)',
        snapshot: 'k0s backup',
        recover: 'with quorum lost for good: k0s restore from a k0s backup — read the k0s disaster-recovery guide first',
      };
    case 'Talos':
      return {
        restore: ['talosctl -n <node> service etcd; talosctl -n <node> logs etcd'],
        remove: 'talosctl -n <node> etcd leave (prefer it; talosctl etcd remove-member <ID> only for a member that cannot leave)',
        add: 'add a control-plane machine with the same machine config type',
        snapshot: 'talosctl -n <node> etcd snapshot <file>',
        recover: 'with quorum lost for good: talosctl bootstrap --recover-from=<snapshot> — read the Talos disaster-recovery guide first',
      };
    case 'OpenShift':
      return {
        restore: [
          'the etcd operator manages members: oc get etcd cluster -o yaml (conditions), oc get pods -n openshift-etcd, oc logs -n openshift-etcd <etcd pod> -c etcd; do not delete members by hand',
        ],
        remove:
          'replace an unhealthy control-plane machine through the documented "replacing an unhealthy etcd member" procedure (the operator removes the member)',
        add: 'scale the control-plane machine set back to 3',
        snapshot: 'cluster-backup.sh on a control-plane node',
        recover: 'with quorum lost for good: the "restoring to a previous cluster state" procedure (cluster-restore.sh) — read it first',
      };
    default:
      return {
        restore: ['check each etcd member: its logs, its disk (fsync latency), its clock, and the network between members (port 2380)'],
        remove: 'etcdctl member list, then etcdctl member remove <ID> for the member that should go',
        add: 'etcdctl member add <name> --peer-urls=https://<ip>:2380, then start etcd there with --initial-cluster-state existing',
        snapshot: 'etcdctl snapshot save <file>',
        recover:
          "with quorum lost for good: restore a snapshot with --force-new-cluster — read your distribution's disaster-recovery guide first",
      };
  }
}

/** The member evidence each verdict rests on (a distribution uses some of them). */
const MEMBERS = ['Node', 'Pod', 'EtcdMember.etcd.k0sproject.io', 'Etcd.operator.openshift.io', 'ConfigMap'];

const CODES = {
  'ARCH-EQ01': 'etcd has lost quorum (healthy voters < quorum, or the API server reports etcd failing)',
  'ARCH-EQ02': 'etcd is degraded: voters are down and no failure is left to tolerate',
  'ARCH-EQ03': 'even number of voters: adds no tolerance, adds a way to fail',
  'ARCH-EQ04': 'single etcd member: no high availability',
  'ARCH-EQ05': 'stale evidence: K3s/RKE2 EtcdIsVoter heartbeat older than ~5 minutes',
  'ARCH-EQ06': 'an etcd learner has not been promoted',
  'ARCH-EQ07': 'API server count and etcd member count differ in a stacked control plane',
  'ARCH-EQ08': 'a control-plane join stopped half way (kubeadm): the node is named',
  'ARCH-EQ09': 'duplicate etcd member objects (k0s), counted once',
  'ARCH-EQ10': 'a voter is down, but quorum still tolerates a failure',
} as const;
type Code = keyof typeof CODES;

export function quorumFindings(v: QuorumView, now: Date): Array<Draft<Code>> {
  const out: Array<Draft<Code>> = [];
  const adv = distributionAdvice(v.distribution);
  const evidence = {
    verdict: v.verdict,
    verdictLine: v.verdictLine,
    voters: v.voters,
    healthyVoters: v.healthyVoters,
    learners: v.learners,
    quorum: v.quorum,
    tolerated: v.tolerated,
    readyzEtcd: v.readyzEtcd,
    apiServers: v.apiServers,
    source: v.source,
    members: v.members,
  };
  const f = (code: Code, severity: Severity, title: string, message: string, objects: ObjectRef[], why: string, fix: Step[]): Draft<Code> =>
    finding(code, severity, title, message, { objects, evidence, why, fix });
  const down = v.members.filter((m) => m.role === 'voter' && m.health === 'unhealthy').map((m) => `${m.name} (${m.evidence})`);
  if (v.verdict === 'LOST') {
    const byReadyz = v.readyzEtcd === 'failed';
    const byTimeouts = Boolean(v.storageDown) && !byReadyz;
    out.push(
      f(
        'ARCH-EQ01',
        'critical',
        byReadyz || byTimeouts ? `the API server cannot reach etcd: ${v.verdictLine}` : `etcd has lost quorum: ${v.verdictLine}`,
        byTimeouts
          ? `The API server answers, but every list timed out inside it ("${v.storageDown}"): it cannot read the cluster state from etcd, which is what a lost quorum looks like from outside.`
          : byReadyz
            ? `The API server's /readyz reports etcd failing: it cannot read or write the cluster state.${v.members.length ? ` The member states below are the last ones the API server cached (${v.members.length} member${v.members.length === 1 ? '' : 's'}); they are not current.` : ''}`
            : `${votersText(v, Boolean(v.hypothetical))}; ${v.quorum} are needed to write.${down.length ? ` Not healthy: ${down.join('; ')}.` : ''}`,
        refs(v, (m) => m.role === 'voter' && m.health !== 'healthy'),
        'All cluster state lives in etcd, and etcd accepts writes only while a majority of voters agree. Without quorum nothing can change: no scheduling, no scaling, no new pods.',
        ['bring the members back first:', ...adv.restore, adv.recover],
      ),
    );
  } else if (v.verdict === 'DEGRADED') {
    out.push(
      f(
        'ARCH-EQ02',
        'error',
        `etcd is degraded: ${v.verdictLine}`,
        `Only ${v.healthyVoters} of ${v.voters} voters are healthy — exactly the ${v.quorum} needed: one more failure loses quorum.${v.unknownVoters ? ` (${votersText(v, Boolean(v.hypothetical))}.)` : ''}${down.length ? ` Not healthy: ${down.join('; ')}.` : ''}`,
        refs(v, (m) => m.role === 'voter' && m.health === 'unhealthy'),
        'With no failure left to tolerate, a single reboot, disk stall or network blip stops all writes to the cluster.',
        ['restore the unhealthy members before any maintenance (do not drain or reboot another server now)', ...adv.restore],
      ),
    );
  } else if (v.verdict === 'HEALTHY' && down.length) {
    out.push(
      f(
        'ARCH-EQ10',
        'warning',
        `an etcd voter is down, quorum still holds: ${v.verdictLine}`,
        `Not healthy: ${down.join('; ')}. The cluster survives ${v.remaining} more failure${v.remaining === 1 ? '' : 's'}, ${v.tolerated - v.remaining} fewer than it was built for.`,
        refs(v, (m) => m.role === 'voter' && m.health === 'unhealthy'),
        'A member that is down uses up the tolerance the cluster was sized for.',
        adv.restore,
      ),
    );
  }
  if (v.voters > 1 && v.voters % 2 === 0) {
    out.push(
      f(
        'ARCH-EQ03',
        'warning',
        `etcd has an even number of voters (${v.voters})`,
        `${v.voters} voters need ${v.quorum} for quorum and tolerate ${v.tolerated} failure${v.tolerated === 1 ? '' : 's'} — the same as ${v.voters - 1}, with one more member that can fail.${v.voters === 2 ? ' Two members are worse than one: losing either stops writes.' : ''}${v.unknownVoters ? ` (Counted from ${v.source}; their health is not visible.)` : ''}`,
        refs(v, (m) => m.role === 'voter'),
        'Raft needs a majority. Adding the even member added no tolerance, only another way to fail.',
        [`add one member (to ${v.voters + 1}): ${adv.add}`, `or remove one (to ${v.voters - 1}): ${adv.remove}`],
      ),
    );
  }
  if (v.voters === 1 && v.verdict !== 'LOST') {
    out.push(
      f(
        'ARCH-EQ04',
        'info',
        'etcd has a single member: no high availability',
        'One voter is its own quorum: it tolerates no failure, and its loss loses the cluster state unless you have snapshots.',
        refs(v, (m) => m.role === 'voter'),
        'A single etcd member is fine for a lab; for anything that must survive a server failure, run 3 (or 5) — never 2, which tolerates no failure either and adds one more member whose loss stops writes.',
        [`take regular snapshots: ${adv.snapshot}`, `for HA, grow to 3 (never to 2): ${adv.add}, twice`],
      ),
    );
  }
  const stale = v.members.filter((m) => m.stale);
  if (stale.length && v.readyzEtcd !== 'failed' && !v.storageDown) {
    out.push(
      f(
        'ARCH-EQ05',
        'warning',
        `etcd evidence is stale for ${stale.length} member${stale.length === 1 ? '' : 's'}: ${stale.map((m) => m.name).join(', ')}`,
        `The EtcdIsVoter heartbeat is older than ${K3S_HEARTBEAT_STALE_MS / 60_000} minutes (${stale.map((m) => `${m.name}: ${m.heartbeat ?? 'never'}`).join(', ')}). The etcd leader refreshes it; a stale heartbeat means its state is unknown — and can itself mean there is no leader.`,
        refs(v, (m) => Boolean(m.stale)),
        'Counting a member as healthy on old evidence would hide a quorum loss.',
        [
          ...adv.restore,
          'probe etcd directly: kubectl arch quorum --etcd-endpoints https://<server>:2379 --etcd-cacert ... --etcd-cert ... --etcd-key ...',
        ],
      ),
    );
  }
  const stuck = v.members.filter(
    (m) => m.role === 'learner' && (!m.learnerSince || now.getTime() - Date.parse(m.learnerSince) > LEARNER_STUCK_MS),
  );
  if (stuck.length) {
    out.push(
      f(
        'ARCH-EQ06',
        'warning',
        `etcd learner not promoted: ${stuck.map((m) => m.name).join(', ')}`,
        `${stuck.map((m) => `${m.name} has been a learner since ${m.learnerSince ?? 'an unknown time'}`).join('; ')}. Learners replicate but do not vote; a new member normally promotes within minutes once it has caught up.`,
        refs(v, (m) => stuck.includes(m)),
        'A stuck learner means the cluster runs with fewer voters than servers, and the next join may fail (etcd allows one learner at a time).',
        [
          "check the learner's logs for snapshot/catch-up errors (disk speed, network to the leader)",
          `if it cannot catch up, remove it and join again: ${adv.remove}`,
        ],
      ),
    );
  }
  for (const h of v.halfJoined) {
    out.push(
      f(
        'ARCH-EQ08',
        'warning',
        `control-plane join of ${h.node} stopped half way`,
        `Node ${h.node} ${h.why}. Its etcd member (if one was added) does not count as a voter, but etcd allows only one learner at a time and a half-added member can block the next join.`,
        [{ kind: 'Node', name: h.node }],
        'A join that failed between adding the etcd member and finishing leaves the cluster with a member it cannot use — and the operator believing it has one more control-plane node than it does.',
        [
          `remove the half-added member from a healthy control-plane node: ${adv.remove}`,
          `on ${h.node}: kubeadm reset -f, fix the cause (network and disk to the existing members on port 2380), then join again: ${adv.add}`,
        ],
      ),
    );
  }
  if (v.duplicates.length) {
    out.push(
      f(
        'ARCH-EQ09',
        'info',
        `${v.duplicates.length} etcd member object${v.duplicates.length === 1 ? ' describes' : 's describe'} a member already counted`,
        v.duplicates.map((d) => `EtcdMember ${d.name} has the same ${d.key} as ${d.duplicateOf}: counted once`).join('; ') + '.',
        v.duplicates.map((d) => ({ kind: 'EtcdMember', name: d.name })),
        'Stale or doubled member objects (a controller renamed, re-joined, or removed by hand) would otherwise make the cluster look bigger than it is.',
        [
          'k0s etcd member-list   # the members etcd itself knows',
          'delete the stale EtcdMember object once it is confirmed not to be a member',
        ],
      ),
    );
  }
  const stacked =
    v.distribution === 'K3s' ||
    v.distribution === 'RKE2' ||
    v.distribution === 'k0s' ||
    (v.distribution === 'kubeadm' && v.source.includes('static pods'));
  const members = v.voters + v.learners + v.members.filter((m) => m.role === 'unknown').length;
  if (
    stacked &&
    !v.split &&
    v.readyzEtcd !== 'failed' &&
    !v.storageDown &&
    v.apiServers !== null &&
    members > 0 &&
    v.apiServers !== members
  ) {
    out.push(
      f(
        'ARCH-EQ07',
        'info',
        `${v.apiServers} live API server${v.apiServers === 1 ? '' : 's'} but ${members} etcd member${members === 1 ? '' : 's'}`,
        `In a stacked control plane every server runs both. API server identity leases renewed in the last minute: ${v.apiServers}; etcd members seen: ${members}. A server whose API server is down, a member whose server is gone, or one without etcd explains the gap.`,
        [],
        'A mismatch usually means a server is half-up, or a member outlived its server, which the next failure turns into a quorum problem.',
        [
          'kubectl -n kube-system get leases -l apiserver.kubernetes.io/identity=kube-apiserver',
          'compare with the servers you expect',
          `remove a member whose server is gone: ${adv.remove}`,
        ],
      ),
    );
  }
  return out;
}

export const etcdQuorum = defineCheck({
  id: ID,
  title: 'etcd quorum',
  severity: 'critical',
  map: [
    { contract: 'state', part: 'etcd', primary: true },
    { contract: 'state', part: 'etcd member' },
  ],
  codes: CODES,
  proofs: {
    'ARCH-EQ01': MEMBERS,
    'ARCH-EQ02': MEMBERS,
    'ARCH-EQ03': MEMBERS,
    'ARCH-EQ04': MEMBERS,
    'ARCH-EQ05': MEMBERS,
    'ARCH-EQ06': MEMBERS,
    'ARCH-EQ08': MEMBERS,
    'ARCH-EQ09': MEMBERS,
    'ARCH-EQ10': MEMBERS,
    'ARCH-EQ07': [...MEMBERS, 'Lease.coordination.k8s.io'],
  },

  // nodes are optional: with none visible, /readyz still tells whether the API server reaches etcd
  needs: [
    // evidence, not subjects: /readyz (in the header) judges etcd even when no member object is visible
    {
      ...R.nodes,
      fields: [
        'metadata.annotations["k3s.io/node-args"]',
        'spec.providerID',
        'spec.unschedulable',
        'status.conditions',
        'status.nodeInfo.kubeletVersion',
        'status.nodeInfo.osImage',
      ],
      role: 'evidence',
      lost: 'K3s/RKE2 members (etcd role, EtcdIsVoter) and kubeadm control-plane nodes cannot be seen',
    },
    {
      ...R.podsLean,
      fields: [
        'metadata.annotations["kubeadm.kubernetes.io/etcd.advertise-client-urls"]',
        'spec.nodeName',
        'status.conditions',
        'status.containerStatuses[].restartCount',
        'status.phase',
      ],
      role: 'evidence',
      lost: 'etcd static pods (kubeadm, RKE2) cannot be seen',
      relevant: onlyOn('kubeadm', 'RKE2'),
    },
    {
      ...CONFIGMAPS,
      fields: ['data.ClusterConfiguration'],
      role: 'evidence',
      lost: "kubeadm-config cannot be read: an external etcd's endpoints are not known",
      relevant: onlyOn('kubeadm'),
    },
    {
      ...R.leases,
      fields: ['spec.renewTime'],
      role: 'context',
      lost: 'API server identity leases: the API server count cannot be compared with the member count',
      relevant: onlyOn('K3s', 'RKE2', 'k0s', 'kubeadm'),
    },
    {
      ...R.k0sEtcdMembers,
      fields: ['status.conditions', 'status.memberID', 'status.peerAddress'],
      role: 'evidence',
      lost: 'k0s EtcdMember objects cannot be read',
      relevant: onlyOn('k0s'),
    },
    {
      ...R.openshiftEtcds,
      fields: ['status.conditions'],
      role: 'evidence',
      lost: "OpenShift's etcd operator conditions cannot be read",
      relevant: onlyOn('OpenShift'),
    },
  ],
  docs: {
    summary:
      'voters, learners and health per distribution and version (K3s/RKE2 `EtcdIsVoter` or the etcd role label, kubeadm etcd pods or external endpoints, k0s `EtcdMember` deduplicated, OpenShift operator conditions, `/readyz`, API server identity leases): lost/degraded quorum, members down, even counts, single member, stale evidence, stuck learners, half-finished joins, duplicates',
    what: "Counts etcd voting members, learners and members of unknown state, per distribution and version: K3s/RKE2 nodes with the etcd role and their EtcdIsVoter condition and heartbeat (from v1.25.16, v1.26.11, v1.27.8, v1.28.4); older K3s/RKE2 by the etcd role label (and RKE2's etcd static pods), which gives the member count without etcd health; kubeadm etcd static pods and their readiness, or external endpoints from kubeadm-config, and control-plane joins that stopped half way; k0s EtcdMember objects (Joined, deduplicated by member ID and peer address); OpenShift's etcd operator condition EtcdMembersAvailable in all its forms; everywhere, the etcd line of /readyz?verbose and the API server identity leases. Computes quorum = floor(voters/2)+1 and the failures still tolerated.\n\nVERDICTS: HEALTHY tolerates at least one more failure; AT RISK has every voter healthy but tolerates none by design (1 or 2 voters); DEGRADED tolerates none because voters are down; LOST has fewer healthy voters than quorum, or an API server that cannot reach etcd; UNKNOWN cannot be decided from the API — the check is then skipped with the reason, never passed.",
    why: 'All cluster state lives in etcd and etcd writes only while a majority of voters agree. Three members survive one failure, five survive two; two are worse than one. Our field notes keep a cordoned server (lemuel) as a member precisely for its vote.',
    fix: "Keep an odd number of voters (3 or 5), bring unhealthy members back before any maintenance, and take snapshots. Fix texts name the commands of the distribution in front of you (K3s/RKE2 server flags and node deletion, kubeadm join/reset and etcdctl, k0s etcd leave, talosctl etcd, OpenShift's operator procedures — never another distribution's). `kubectl arch quorum` shows the members; with --etcd-endpoints it asks etcd itself (leader, raft term/index, DB size, alarms).",
    limits:
      "Through the API, etcd health is inferred: K3s/RKE2 publish EtcdIsVoter from the etcd leader (refreshed every 5 minutes; older releases publish nothing, so only the member count is judged); kubeadm exposes only mirror-pod readiness (learners invisible); k0s exposes membership, not health; OpenShift's operator conditions can be old once writes fail; Talos and managed clouds (EKS, GKE, AKS) expose nothing but /readyz, and this check says so instead of scoring. The direct probe (--etcd-endpoints) is authoritative.",
  },
  run(ctx) {
    const v = quorumView(ctx.snap, ctx.now);
    const notes = [...v.notes];
    if (!v.visible)
      return { findings: [], skipped: `${v.reason}${v.readyzEtcd !== 'unknown' ? ` (readyz etcd: ${v.readyzEtcd})` : ''}`, notes };
    const findings = quorumFindings(v, ctx.now);
    // unknown is never passed: without a finding, an undecidable verdict is a skip with the reason
    if (v.verdict === 'UNKNOWN' && findings.length === 0) {
      return { findings, notes, skipped: `the evidence cannot decide: ${v.verdictLine} (from ${v.source})`, undecided: true };
    }
    return { findings, notes, passed: `${v.verdictLine} (${v.source})` };
  },
});
