import { describe, expect, test } from '@jest/globals';
import { etcdQuorum } from '../src/checks/etcd-quorum/check.js';
import { ago, NOW, runCheck } from './helpers/check.js';
import { CHECKS } from '../src/checks/registry.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './helpers/tmp.js';
import { runChecks } from '../src/checks/run.js';
import { quorumView, quorumOf } from '../src/etcd/quorum.js';
import { parseJSON64 } from '../src/etcd/probe.js';
import type { KObject } from '../src/model.js';
import { R } from '../src/resources.js';
import { loadSnapshot } from '../src/snapshot/load.js';
import { EXAMPLE, node, obj, snapshotOf } from './helpers/fixtures.js';

const loadSnapshotText = (text: string) => {
  const f = join(tempDir(), 's.yaml');
  writeFileSync(f, text);
  return loadSnapshot(f);
};
const CAPTURED = [R.nodes, R.pods, R.configmaps, R.leases].map((n) => ({ group: n.group, kind: n.kind }));

const k3sServer = (name: string, voter: { status: string; reason: string; hbMin?: number; sinceMin?: number }, ready = true): KObject =>
  node(name, {
    kubelet: 'v1.35.4+k3s1',
    providerID: `k3s://${name}`,
    roles: ['control-plane', 'etcd', 'master'],
    ready,
    conditions: [
      {
        type: 'EtcdIsVoter',
        status: voter.status,
        reason: voter.reason,
        lastHeartbeatTime: ago(voter.hbMin ?? 2),
        lastTransitionTime: ago(voter.sinceMin ?? 1000),
      },
    ],
  });
const VOTER = { status: 'True', reason: 'MemberNotLearner' };
const run = (objs: KObject[], readyz = '[+]etcd ok\n') => runCheck(etcdQuorum, objs, { readyz });
const codes = (objs: KObject[], readyz?: string) =>
  run(objs, readyz)
    .findings.map((f) => f.code)
    .sort();
const identityLease = (n: string, renewedSecAgo: number): KObject =>
  obj('coordination.k8s.io/v1', 'Lease', `apiserver-${n}`, 'kube-system', {
    metadata: { name: `apiserver-${n}`, namespace: 'kube-system', labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver' } },
    spec: { renewTime: new Date(NOW - renewedSecAgo * 1000).toISOString() },
  });

describe('quorum arithmetic', () => {
  test.each([
    [1, 1],
    [2, 2],
    [3, 2],
    [4, 3],
    [5, 3],
    [6, 4],
  ])('%i voters need %i', (n, q) => expect(quorumOf(n)).toBe(q));
  test('64-bit member IDs stay exact strings', () => {
    const j = parseJSON64<{ members: Array<{ ID: string }> }>('{"members":[{"ID":13668033151171901709}]}');
    expect(j.members[0]!.ID).toBe('13668033151171901709');
  });
});

describe('etcd quorum through the API', () => {
  test('the field-notes cluster: 3 healthy voters, lemuel cordoned but voting', () => {
    const r = runChecks([etcdQuorum], loadSnapshot(EXAMPLE))[0]!;
    expect(r.status).toBe('passed');
    expect(r.reason).toMatch(/^3 voters, 3 healthy — quorum 2 — tolerates 1 failure — HEALTHY/);
    const v = quorumView(loadSnapshot(EXAMPLE), new Date(NOW));
    expect(v.members.find((m) => m.name === 'lemuel')).toMatchObject({ role: 'voter', health: 'healthy', where: 'node lemuel (cordoned)' });
    expect(v.apiServers).toBe(3);
  });

  test('K3s with 2 servers: even count', () => {
    const r = run([k3sServer('a', VOTER), k3sServer('b', VOTER)]);
    expect(r.findings.map((f) => f.code)).toEqual(['ARCH-EQ03']);
    expect(r.findings[0]!.message).toMatch(/worse than one/);
  });

  test('K3s with 4 servers, one a learner for hours: 3 voters, learner stuck', () => {
    const v = quorumView(
      snapshotOf(
        [
          k3sServer('a', VOTER),
          k3sServer('b', VOTER),
          k3sServer('c', VOTER),
          k3sServer('d', { status: 'False', reason: 'MemberIsLearner', sinceMin: 180 }),
        ],
        { captured: CAPTURED, readyz: '[+]etcd ok' },
      ),
      new Date(NOW),
    );
    expect(v).toMatchObject({ voters: 3, learners: 1, quorum: 2, verdict: 'HEALTHY' });
    expect(
      codes([
        k3sServer('a', VOTER),
        k3sServer('b', VOTER),
        k3sServer('c', VOTER),
        k3sServer('d', { status: 'False', reason: 'MemberIsLearner', sinceMin: 180 }),
      ]),
    ).toEqual(['ARCH-EQ06']);
  });

  test('K3s with a stale heartbeat: state unknown, never healthy, and the verdict says UNKNOWN', () => {
    const r = run([k3sServer('a', VOTER), k3sServer('b', VOTER), k3sServer('c', { ...VOTER, hbMin: 25 })]);
    expect(r.findings.map((f) => f.code).sort()).toEqual(['ARCH-EQ05']);
    expect(r.status).toBe('findings');
    const v = quorumView(
      snapshotOf([k3sServer('a', VOTER), k3sServer('b', VOTER), k3sServer('c', { ...VOTER, hbMin: 25 })], {
        captured: CAPTURED,
        readyz: '[+]etcd ok',
      }),
      new Date(NOW),
    );
    expect(v.verdictLine).toBe('3 voters, 2 healthy, 1 unknown — quorum 2 — no failure tolerated — UNKNOWN');
  });

  test('verdict words cannot mislead: two healthy voters are AT RISK, never HEALTHY', () => {
    const v = quorumView(
      snapshotOf([k3sServer('a', VOTER), k3sServer('b', VOTER)], { captured: CAPTURED, readyz: '[+]etcd ok' }),
      new Date(NOW),
    );
    expect(v.verdictLine).toBe('2 voters, 2 healthy — quorum 2 — no failure tolerated (by design) — AT RISK');
    const five = [1, 2, 3, 4].map((i) => k3sServer(`n${i}`, VOTER));
    const r = run([...five, k3sServer('n5', { status: 'False', reason: 'Unhealthy' }, false)]);
    expect(r.findings.map((f) => f.code)).toEqual(['ARCH-EQ10']);
    expect(r.findings[0]!.title).toMatch(/5 voters, 4 healthy — quorum 3 — tolerates 1 failure — HEALTHY/);
  });

  test('K3s/RKE2 before EtcdIsVoter: the etcd role label still gives the count (2 is even), health stays unknown', () => {
    const old = (n: string): KObject =>
      node(n, { kubelet: 'v1.24.17+k3s1', providerID: `k3s://${n}`, roles: ['control-plane', 'etcd', 'master'] });
    const r = run([old('a'), old('b')]);
    expect(r.findings.map((f) => f.code)).toEqual(['ARCH-EQ03']);
    expect(r.findings[0]!.message).toMatch(/their health is not visible/);
    // three of them: nothing to report, and nothing to pass either
    const three = run([old('a'), old('b'), old('c')]);
    expect(three.status).toBe('skipped');
    expect(three.reason).toMatch(/evidence cannot decide: 3 voters, health unknown/);
    expect(quorumView(snapshotOf([old('a'), old('b'), old('c')], { captured: CAPTURED }), new Date(NOW)).source).toMatch(
      /no EtcdIsVoter condition: member count without etcd health/,
    );
  });

  test('fix texts are for the distribution in front of the user', () => {
    const k3s = run([k3sServer('a', VOTER), k3sServer('b', VOTER)]).findings[0]!.fix!.join('\n');
    expect(k3s).toMatch(/k3s server --server/);
    const kubeadmCm = obj('v1', 'ConfigMap', 'kubeadm-config', 'kube-system', { data: { ClusterConfiguration: 'etcd:\n  local: {}\n' } });
    const pod = (n: string): KObject =>
      obj('v1', 'Pod', `etcd-${n}`, 'kube-system', {
        metadata: { name: `etcd-${n}`, namespace: 'kube-system', labels: { component: 'etcd', tier: 'control-plane' } },
        spec: { nodeName: n },
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
      });
    const kfix = run([
      kubeadmCm,
      node('cp1', { roles: ['control-plane'] }),
      node('cp2', { roles: ['control-plane'] }),
      pod('cp1'),
      pod('cp2'),
    ]).findings[0]!.fix!.join('\n');
    expect(kfix).toMatch(/kubeadm join <endpoint> --control-plane/);
    expect(kfix).not.toMatch(/k3s|rke2/i);
  });

  test('kubeadm: a control-plane join that stopped half way is named (EQ08), its learner not counted', () => {
    const kubeadmCm = obj('v1', 'ConfigMap', 'kubeadm-config', 'kube-system', { data: { ClusterConfiguration: 'etcd:\n  local: {}\n' } });
    const pod = (comp: string, n: string, ready = true): KObject =>
      obj('v1', 'Pod', `${comp}-${n}`, 'kube-system', {
        metadata: { name: `${comp}-${n}`, namespace: 'kube-system', labels: { component: comp, tier: 'control-plane' } },
        spec: { nodeName: n },
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
      });
    const r = run([
      kubeadmCm,
      node('cp1', { roles: ['control-plane'] }),
      node('cp2'),
      pod('etcd', 'cp1'),
      pod('kube-apiserver', 'cp1'),
      pod('etcd', 'cp2'),
      pod('kube-apiserver', 'cp2', false),
    ]);
    expect(r.findings.map((f) => f.code).sort()).toEqual(['ARCH-EQ04', 'ARCH-EQ08']);
    expect(r.findings.find((f) => f.code === 'ARCH-EQ08')!.objects).toEqual([{ kind: 'Node', name: 'cp2' }]);
  });

  test('k0s: duplicate EtcdMember objects are counted once and reported as info', () => {
    const m = (n: string, id: string, peer: string): KObject =>
      obj('etcd.k0sproject.io/v1beta1', 'EtcdMember', n, undefined, {
        status: { memberID: id, peerAddress: peer, conditions: [{ type: 'Joined', status: 'True' }] },
      });
    const snap = snapshotOf(
      [
        node('w1', { kubelet: 'v1.33.1+k0s' }),
        m('c1', 'a1', '10.0.0.1'),
        m('c1.example.org', 'a1', '10.0.0.1'),
        m('c2', 'b2', '10.0.0.2'),
        m('c3', 'c3', '10.0.0.3'),
      ],
      { captured: [...CAPTURED, { group: 'etcd.k0sproject.io', kind: 'EtcdMember' }] },
    );
    const r = runChecks([etcdQuorum], snap)[0]!;
    expect(r.findings.map((f) => f.code)).toEqual(['ARCH-EQ09']);
    expect(r.findings[0]!.message).toMatch(/c1.example.org has the same member ID a1 and peer address 10.0.0.1 as c1/);
    expect(quorumView(snap, new Date(NOW)).voters).toBe(3);
  });

  test('OpenShift: every form of the operator condition', () => {
    const e = (msg: string): KObject =>
      obj('operator.openshift.io/v1', 'Etcd', 'cluster', undefined, {
        status: { conditions: [{ type: 'EtcdMembersAvailable', status: 'True', reason: 'EtcdQuorate', message: msg }] },
      });
    const view = (msg: string) =>
      quorumView(snapshotOf([node('m1', { roles: ['control-plane', 'master'] }), e(msg)], { captured: CAPTURED }), new Date(NOW));
    expect(view('3 members are available')).toMatchObject({ voters: 3, healthyVoters: 3, verdict: 'HEALTHY' });
    expect(view('1 members are available')).toMatchObject({ voters: 1, verdict: 'AT RISK' });
    expect(view('2 of 3 members are available, ip-10-0-1-5 is unhealthy')).toMatchObject({
      voters: 3,
      healthyVoters: 2,
      verdict: 'DEGRADED',
    });
    expect(view('2 of 3 members are available, NAME-PENDING-10.0.0.9 has not started')).toMatchObject({
      voters: 3,
      healthyVoters: 2,
      verdict: 'DEGRADED',
    });
    expect(view('ip-a,ip-b members are available,  have not started, ip-c are unhealthy,  are unknown')).toMatchObject({
      voters: 3,
      healthyVoters: 2,
      verdict: 'DEGRADED',
    });
  });

  test('unknown is never passed, for any check: nothing visible is a skip with the reason', () => {
    const empty = runChecks(CHECKS, loadSnapshotText('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: y}\n'));
    for (const c of empty) expect([c.id, c.status]).not.toEqual([c.id, 'passed']);
  });

  test('K3s: one server down is degraded; a NotReady node alone is its kubelet, not its member', () => {
    const UNHEALTHY = { status: 'False', reason: 'Unhealthy' };
    expect(codes([k3sServer('a', VOTER), k3sServer('b', VOTER), k3sServer('c', UNHEALTHY)])).toEqual(['ARCH-EQ02']);
    // b's kubelet is NotReady, but the etcd leader's probe still finds its member: degraded (c), not lost
    const notReady = run([k3sServer('a', VOTER), k3sServer('b', VOTER, false), k3sServer('c', UNHEALTHY)]);
    expect(notReady.findings.map((f) => f.code)).toEqual(['ARCH-EQ02']);
    expect(notReady.findings[0]!.message).not.toMatch(/\bb \(/);
  });

  test('the API answering is evidence: member conditions saying 2 of 3 down, while lists were served, are older than the capture', () => {
    const UNHEALTHY = { status: 'False', reason: 'Unhealthy' };
    const r = run([k3sServer('a', VOTER), k3sServer('b', UNHEALTHY), k3sServer('c', UNHEALTHY)]);
    expect(r.findings.map((f) => f.code)).not.toContain('ARCH-EQ01');
    expect(r.notes.join()).toMatch(/yet the API served these lists through etcd/);
    const down = run(
      [k3sServer('a', VOTER), k3sServer('b', UNHEALTHY), k3sServer('c', UNHEALTHY)],
      '[+]ping ok\n[-]etcd failed: reason withheld\nreadyz check failed\n',
    );
    expect(down.findings[0]).toMatchObject({ code: 'ARCH-EQ01', severity: 'critical' });
  });

  test('readyz reporting etcd failed means lost, whatever the conditions say', () => {
    const r = run(
      [k3sServer('a', VOTER), k3sServer('b', VOTER), k3sServer('c', VOTER)],
      '[+]ping ok\n[-]etcd failed: reason withheld\nreadyz check failed\n',
    );
    expect(r.findings[0]!.code).toBe('ARCH-EQ01');
  });

  test('a single member is info', () => {
    expect(codes([k3sServer('a', VOTER)])).toEqual(['ARCH-EQ04']);
  });

  test('API server count vs etcd members (stacked)', () => {
    const r = run([
      k3sServer('a', VOTER),
      k3sServer('b', VOTER),
      k3sServer('c', VOTER),
      identityLease('a', 5),
      identityLease('b', 5),
      identityLease('c', 1800),
    ]);
    expect(r.findings.map((f) => f.code)).toEqual(['ARCH-EQ07']);
    expect(r.findings[0]!.title).toMatch(/2 live API servers but 3 etcd members/);
  });

  const etcdPod = (n: string, ready: boolean): KObject =>
    obj('v1', 'Pod', `etcd-${n}`, 'kube-system', {
      metadata: {
        name: `etcd-${n}`,
        namespace: 'kube-system',
        labels: { component: 'etcd', tier: 'control-plane' },
        annotations: { 'kubeadm.kubernetes.io/etcd.advertise-client-urls': `https://10.0.0.${n.length}:2379` },
      },
      spec: { nodeName: n },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
        containerStatuses: [{ restartCount: ready ? 0 : 7 }],
      },
    });
  const kubeadmCm = (cc: string): KObject =>
    obj('v1', 'ConfigMap', 'kubeadm-config', 'kube-system', { data: { ClusterConfiguration: cc } });

  test('kubeadm: 3 etcd pods, one not Ready → degraded', () => {
    const r = run([
      node('cp1', { roles: ['control-plane'] }),
      etcdPod('cp1', true),
      etcdPod('cp2', true),
      etcdPod('cp3', false),
      kubeadmCm('apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\netcd:\n  local:\n    dataDir: /var/lib/etcd\n'),
    ]);
    expect(r.findings[0]).toMatchObject({ code: 'ARCH-EQ02' });
    expect(r.findings[0]!.message).toMatch(/etcd-cp3 \(pod not Ready \(Running\), 7 restarts/);
  });

  test('kubeadm with external etcd: members listed, health unknown, probe suggested', () => {
    const v = quorumView(
      snapshotOf(
        [
          node('cp1', { roles: ['control-plane'] }),
          kubeadmCm(
            'etcd:\n  external:\n    endpoints:\n    - https://10.0.1.1:2379\n    - https://10.0.1.2:2379\n    - https://10.0.1.3:2379\n',
          ),
        ],
        { captured: CAPTURED },
      ),
      new Date(NOW),
    );
    expect(v.members).toHaveLength(3);
    expect(v.verdict).toBe('UNKNOWN');
    expect(v.notes.join()).toMatch(/--etcd-endpoints/);
  });

  test('k0s EtcdMember objects: membership only', () => {
    const m = (n: string): KObject =>
      obj('etcd.k0sproject.io/v1beta1', 'EtcdMember', n, undefined, {
        status: { memberID: `8e9e05c5216469${n}`, peerAddress: `10.0.0.${n.slice(1)}`, conditions: [{ type: 'Joined', status: 'True' }] },
      });
    const snap = snapshotOf([node('w1', { kubelet: 'v1.33.1+k0s' }), m('c1'), m('c2'), m('c3')], {
      captured: [...CAPTURED, { group: 'etcd.k0sproject.io', kind: 'EtcdMember' }],
    });
    const v = quorumView(snap, new Date(NOW));
    expect(v).toMatchObject({ voters: 3, healthyVoters: 0, unknownVoters: 3, verdict: 'UNKNOWN' });
    // membership without health: skipped with the reason, never passed
    expect(runChecks([etcdQuorum], snap)[0]!.status).toBe('skipped');
  });

  test('OpenShift: "2 of 3 members are available" is degraded', () => {
    const e = obj('operator.openshift.io/v1', 'Etcd', 'cluster', undefined, {
      status: {
        conditions: [
          {
            type: 'EtcdMembersAvailable',
            status: 'True',
            reason: 'EtcdQuorate',
            message: '2 of 3 members are available, ip-10-0-1-5.ec2.internal is unhealthy',
          },
        ],
      },
    });
    const r = runChecks([etcdQuorum], snapshotOf([node('m1', { roles: ['control-plane', 'master'] }), e], { captured: CAPTURED }))[0]!;
    expect(r.findings[0]).toMatchObject({ code: 'ARCH-EQ02' });
    expect(r.findings[0]!.message).toMatch(/ip-10-0-1-5\.ec2\.internal/);
  });

  test('EKS: not visible, said plainly, not scored', () => {
    const r = run([
      node('ip-10-0-1-1', {
        kubelet: 'v1.33.1-eks-1234',
        providerID: 'aws:///eu-west-1a/i-1',
        labels: { 'eks.amazonaws.com/nodegroup': 'ng' },
      }),
    ]);
    expect(r.status).toBe('skipped');
    expect(r.reason).toMatch(/EKS runs etcd inside its managed control plane/);
  });
});
