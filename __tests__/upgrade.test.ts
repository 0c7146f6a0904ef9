// what-if --upgrade: the table of removed API versions, how an object says it was written through one (managedFields,
// last-applied), the door and the loops that follow, the rollout's order, and the command's usage errors.
import { describe, expect, test } from '@jest/globals';
import { API_REMOVALS, REMOVALS_KNOWN_TO, removalOf, writtenAsOf } from '../src/lib/removed-apis.js';
import { CHECKS } from '../src/checks/registry.js';
import { ingest } from '../src/snapshot/scrub.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import type { KObject } from '../src/model.js';
import { R } from '../src/resources.js';
import { whatIfUpgrade } from '../src/whatif/upgrade/predict.js';
import { parseTarget, parseVersion, type UpgradeHypothesis } from '../src/whatif/upgrade/version.js';
import { rolloutPlan } from '../src/whatif/upgrade/rollout.js';
import { Cluster } from '../src/whatif/cluster.js';
import { arch } from './helpers/run.js';
import { EXAMPLE, node, obj } from './helpers/fixtures.js';

const EXAMPLE_ARG = ['--snapshot', EXAMPLE];

const NOW = new Date('2026-01-10T12:00:00Z');
const u = (from: string, to: string): UpgradeHypothesis => ({
  target: parseTarget(to),
  current: { version: parseVersion(from)!, from: 'test' },
});

/** A snapshot as a live read makes it: every object through ingest, the types listed, managedFields read. */
function live(objects: KObject[], captured: Array<{ group: string; kind: string }>, version = 'v1.24.17'): Snapshot {
  const snap = new Snapshot({ capturedAt: NOW.toISOString(), serverVersion: { gitVersion: version }, writtenAs: 'managedFields' });
  for (const c of captured) snap.addList(c.group, c.kind, []);
  for (const o of objects) snap.addObject(ingest(structuredClone(o)));
  return snap;
}
const mf = (apiVersion: string, manager: string, time = '2025-11-01T10:00:00Z') => ({
  manager,
  operation: 'Update',
  apiVersion,
  time,
  fieldsType: 'FieldsV1',
  fieldsV1: {},
});

describe('the table of removed API versions', () => {
  test('is the lifecycle tags of k8s.io/api: v1.25 removes the betas everyone met, with their replacements', () => {
    const in25 = API_REMOVALS.filter((r) => r.removed === 25).map((r) => `${r.group}/${r.version} ${r.kind} → ${r.replacement ?? 'none'}`);
    expect(in25).toEqual(
      expect.arrayContaining([
        'batch/v1beta1 CronJob → batch/v1',
        'policy/v1beta1 PodDisruptionBudget → policy/v1',
        'policy/v1beta1 PodSecurityPolicy → none',
        'autoscaling/v2beta1 HorizontalPodAutoscaler → autoscaling/v2',
        'discovery.k8s.io/v1beta1 EndpointSlice → discovery.k8s.io/v1',
        'events.k8s.io/v1beta1 Event → events.k8s.io/v1',
        'node.k8s.io/v1beta1 RuntimeClass → node.k8s.io/v1',
      ]),
    );
    expect(removalOf('extensions/v1beta1', 'Ingress')?.removed).toBe(22);
    expect(removalOf('networking.k8s.io/v1', 'Ingress')).toBeUndefined();
    // review bodies the API server still sends are no removed resource
    expect(API_REMOVALS.some((r) => r.group === 'admission.k8s.io')).toBe(false);
    expect(REMOVALS_KNOWN_TO).toBeGreaterThanOrEqual(36);
  });
});

describe('how an object was written: only what is declared, only for removed versions, never the manifest', () => {
  const cron = obj('batch/v1', 'CronJob', 'backup', 'default', {
    metadata: {
      name: 'backup',
      annotations: {
        'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({
          apiVersion: 'batch/v1beta1',
          kind: 'CronJob',
          metadata: { name: 'backup', annotations: { token: 's3cr3t' } },
          spec: { jobTemplate: { spec: { template: { metadata: { annotations: { x: 'apiVersion' } } } } } },
        }),
      },
      managedFields: [mf('batch/v1beta1', 'kubectl-client-side-apply'), mf('batch/v1', 'kube-controller-manager')],
    } as never,
  });
  const written = [
    {
      apiVersion: 'batch/v1beta1',
      via: 'managedFields',
      manager: 'kubectl-client-side-apply',
      operation: 'Update',
      time: '2025-11-01T10:00:00Z',
    },
    { apiVersion: 'batch/v1beta1', via: 'last-applied' },
  ];
  test('the door keeps the managedFields entries of removed versions and the last-applied apiVersion alone', () => {
    const o = ingest(structuredClone(cron));
    const md = o.metadata as { managedFields?: unknown; lastAppliedApiVersion?: unknown };
    expect(o.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']).toBeUndefined();
    expect(md.managedFields).toEqual([
      { apiVersion: 'batch/v1beta1', manager: 'kubectl-client-side-apply', operation: 'Update', time: '2025-11-01T10:00:00Z' },
    ]);
    expect(md.lastAppliedApiVersion).toBe('batch/v1beta1');
    expect(JSON.stringify(o)).not.toContain('s3cr3t');
    expect(JSON.stringify(o)).not.toContain('fieldsV1');
    expect(writtenAsOf(o)).toEqual(written);
    // a saved snapshot loaded again keeps it as it was
    expect(writtenAsOf(ingest(structuredClone(o)))).toEqual(written);
    // nothing removed: nothing kept
    const cm = ingest(
      obj('v1', 'ConfigMap', 'x', 'default', {
        metadata: {
          name: 'x',
          annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"apiVersion":"v1","kind":"ConfigMap"}' },
          managedFields: [mf('v1', 'kubectl')],
        } as never,
      }),
    );
    expect(cm.metadata).toEqual({ name: 'x', namespace: 'default' });
    expect(writtenAsOf(cm)).toEqual([]);
  });
  test('a file is hostile input: only well-formed entries of removed versions come through', () => {
    const o = ingest(
      obj('batch/v1', 'CronJob', 'x', 'default', {
        metadata: {
          name: 'x',
          lastAppliedApiVersion: 'batch/v1',
          managedFields: ['junk', { apiVersion: 'batch/v1beta1', manager: 7 }, { apiVersion: 'batch/v1beta1 --token=x' }],
        } as never,
      }),
    );
    expect(writtenAsOf(o)).toEqual([{ apiVersion: 'batch/v1beta1', via: 'managedFields' }]);
    expect((o.metadata as { lastAppliedApiVersion?: unknown }).lastAppliedApiVersion).toBeUndefined();
  });
});

describe('the door and the loops after v1.24 → v1.25', () => {
  const types = [
    { group: 'batch', kind: 'CronJob' },
    { group: 'policy', kind: 'PodDisruptionBudget' },
    { group: 'policy', kind: 'PodSecurityPolicy' },
    { group: 'autoscaling', kind: 'HorizontalPodAutoscaler' },
    { group: 'discovery.k8s.io', kind: 'EndpointSlice' },
    { group: 'events.k8s.io', kind: 'Event' },
    { group: 'node.k8s.io', kind: 'RuntimeClass' },
    { group: 'argoproj.io', kind: 'Application' },
    { group: 'kustomize.toolkit.fluxcd.io', kind: 'Kustomization' },
    { group: '', kind: 'Node' },
    { group: '', kind: 'Pod' },
  ];
  const objects = (): KObject[] => [
    // kubectl applied it through the removed version: ARCH-WI40
    obj('batch/v1', 'CronJob', 'backup', 'ops', {
      metadata: { name: 'backup', managedFields: [mf('batch/v1beta1', 'kubectl-client-side-apply')] } as never,
    }),
    // a Helm release wrote it through the removed version: its owner (ARCH-WI43), not the door
    obj('policy/v1', 'PodDisruptionBudget', 'web', 'shop', {
      metadata: {
        name: 'web',
        annotations: { 'meta.helm.sh/release-name': 'shop', 'meta.helm.sh/release-namespace': 'shop' },
        managedFields: [mf('policy/v1beta1', 'helm')],
      } as never,
    }),
    // written through v1 only: nothing (a true negative)
    obj('batch/v1', 'CronJob', 'report', 'ops', {
      metadata: { name: 'report', managedFields: [mf('batch/v1', 'kubectl-client-side-apply')] } as never,
    }),
    // served only through a version v1.25 removes with no replacement
    obj('policy/v1beta1', 'PodSecurityPolicy', 'restricted'),
    // Argo CD says it applies an HPA through autoscaling/v2beta1
    obj('argoproj.io/v1alpha1', 'Application', 'metrics', 'argocd', {
      spec: { syncPolicy: { automated: { prune: true } } },
      status: { resources: [{ group: 'autoscaling', version: 'v2beta1', kind: 'HorizontalPodAutoscaler', namespace: 'web', name: 'api' }] },
    }),
    // Flux applied a RuntimeClass through node.k8s.io/v1beta1
    obj('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'infra', 'flux-system', {
      spec: { interval: '10m', prune: true },
      status: { inventory: { entries: [{ id: '_gvisor_node.k8s.io_RuntimeClass', v: 'v1beta1' }] } },
    }),
    node('cp-1', { roles: ['control-plane'], kubelet: 'v1.24.17' }),
  ];
  test('what is written, gone and applied through v1.25 removals is predicted once each, with the owner and how often', async () => {
    const snap = live(objects(), types);
    const r = await whatIfUpgrade(snap, u('v1.24.17', 'v1.25.16'), NOW, CHECKS);
    const codes = r.predictions
      .filter((p) => /ARCH-WI4[0-3]/.test(p.code))
      .map((p) => `${p.code} ${p.objects.map((o) => `${o.kind}/${o.name}`).join(',')}`);
    expect(codes.sort()).toEqual(
      [
        'ARCH-WI40 CronJob/backup',
        'ARCH-WI41 PodSecurityPolicy/restricted',
        'ARCH-WI43 Application/metrics,HorizontalPodAutoscaler/api',
        'ARCH-WI43 Helm release/shop,PodDisruptionBudget/web',
        'ARCH-WI43 Kustomization/infra,RuntimeClass/gvisor',
      ].sort(),
    );
    const words = (code: string, name: string): string => {
      const p = r.predictions.find((x) => x.code === code && x.objects.some((o) => o.name === name))!;
      return [p.title, p.message, ...(p.fix ?? []).map(String)].join('\n');
    };
    expect(words('ARCH-WI40', 'backup')).toMatch(/kubectl-client-side-apply/);
    expect(words('ARCH-WI40', 'backup')).toMatch(/no matches for kind "CronJob" in version "batch\/v1beta1"/);
    expect(words('ARCH-WI40', 'backup')).toContain('kubectl -n ops get cronjob.v1.batch backup -o yaml');
    expect(words('ARCH-WI43', 'shop')).toMatch(/helm mapkubeapis shop --namespace shop/);
    expect(words('ARCH-WI43', 'metrics')).toMatch(/3 min/);
    expect(words('ARCH-WI43', 'infra')).toMatch(/every 10m/);
    expect(words('ARCH-WI41', 'restricted')).toMatch(/PodSecurityPolicy admission plugin/);
    expect(r.upgrade.removals.find((x) => x.kind === 'CronJob')).toMatchObject({ written: 1, replacement: 'batch/v1' });
  });
  test('the same cluster to v1.24.17 (a patch): nothing removed, nothing predicted at the door', async () => {
    const r = await whatIfUpgrade(live(objects(), types), u('v1.24.10', 'v1.24.17'), NOW, CHECKS);
    expect(r.predictions.filter((p) => /ARCH-WI4[0-3]/.test(p.code))).toEqual([]);
    expect(r.upgrade.removals).toEqual([]);
  });
  test('read without managedFields, who writes cannot be judged: never "safe"', async () => {
    const snap = live(objects(), types);
    delete snap.header.writtenAs;
    const r = await whatIfUpgrade(snap, u('v1.24.17', 'v1.25.16'), NOW, CHECKS, { failOn: 'critical' });
    expect(r.notJudged.map((n) => n.what).join('\n')).toMatch(/without managedFields/);
    expect(r.verdict.state).toBe('not judged');
  });
});

describe('the rollout', () => {
  const k3s = (name: string, server: boolean): KObject =>
    node(name, {
      roles: server ? ['control-plane', 'etcd', 'master'] : [],
      kubelet: 'v1.31.2+k3s1',
      conditions: server
        ? [
            {
              type: 'EtcdIsVoter',
              status: 'True',
              reason: 'MemberNotLearner',
              lastHeartbeatTime: '2026-01-10T11:59:00Z',
              lastTransitionTime: '2026-01-01T00:00:00Z',
            },
          ]
        : [],
    });
  const plan = (name: string, concurrency: number, server: boolean): KObject =>
    obj('upgrade.cattle.io/v1', 'Plan', name, 'system-upgrade', {
      spec: {
        concurrency,
        version: 'v1.32.1+k3s1',
        nodeSelector: {
          matchExpressions: [
            {
              key: 'node-role.kubernetes.io/control-plane',
              operator: server ? 'In' : 'DoesNotExist',
              ...(server ? { values: ['true'] } : {}),
            },
          ],
        },
        upgrade: { image: 'rancher/k3s-upgrade' },
      },
    });
  test('K3s servers by their Plan, concurrency at a time, then agents; a Plan taking two etcd voters of three at once loses quorum', async () => {
    const nodes = [k3s('s1', true), k3s('s2', true), k3s('s3', true), k3s('a1', false), k3s('a2', false)];
    const snap = live(
      [...nodes, plan('server-plan', 2, true), plan('agent-plan', 1, false)],
      [
        { group: 'upgrade.cattle.io', kind: 'Plan' },
        { group: '', kind: 'Pod' },
      ],
      'v1.31.2+k3s1',
    );
    const h = { nodes: [], remove: false, upgrade: u('v1.31.2+k3s1', 'v1.32.1+k3s1') };
    const p = rolloutPlan(new Cluster(snap, h, NOW, CHECKS));
    expect(p.steps.map((s) => s.nodes.join('+'))).toEqual(['s1+s2', 's3', 'a1', 'a2']);
    const r = await whatIfUpgrade(snap, h.upgrade, NOW, CHECKS);
    const wide = r.predictions.find((x) => x.code === 'ARCH-WI44')!;
    expect(wide.severity).toBe('critical');
    expect(String(wide.fix![0])).toBe(
      `upgrade the servers one at a time: kubectl -n system-upgrade patch plan server-plan --type merge -p '{"spec":{"concurrency":1}}'`,
    );
    // and the step itself, judged as what-if s1 s2 judges it
    expect(r.predictions.some((x) => x.code === 'ARCH-EQ01' && /step 1 of 4/.test(x.message))).toBe(true);
  });
  test('kubeadm: the control plane one node at a time, then the workers', () => {
    const snap = live(
      [
        node('cp-2', { roles: ['control-plane'], kubelet: 'v1.30.4' }),
        node('cp-1', { roles: ['control-plane'], kubelet: 'v1.30.4' }),
        node('w-1', { kubelet: 'v1.30.4' }),
        obj('v1', 'ConfigMap', 'kubeadm-config', 'kube-system', { data: { ClusterConfiguration: 'etcd:\n  local: {}\n' } }),
      ],
      [{ group: '', kind: 'ConfigMap' }],
      'v1.30.4',
    );
    const h = { nodes: [], remove: false, upgrade: u('v1.30.4', 'v1.31.0') };
    expect(rolloutPlan(new Cluster(snap, h, NOW, CHECKS)).steps.map((s) => s.nodes[0])).toEqual(['cp-1', 'cp-2', 'w-1']);
  });
});

describe('the command', () => {
  test('a version that is not one, a downgrade, another distribution: usage errors naming it (exit 2)', async () => {
    for (const [v, said] of [
      ['banana', /is not a Kubernetes version/],
      ['v1.34', /older than the cluster \(v1\.35\.4\+k3s1\)/],
      ['v1.36.1+rke2r1', /is a RKE2 version, and the cluster runs K3s/],
    ] as const) {
      const r = await arch(['what-if', '--upgrade', v, ...EXAMPLE_ARG]);
      expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(said)]);
    }
    const both = await arch(['what-if', 'ilwon', '--upgrade', 'v1.36', ...EXAMPLE_ARG]);
    expect([both.code, both.stderr]).toEqual([2, expect.stringMatching(/one of them/)]);
  });
  test('-o html: the map of the cluster as it is, each prediction drawn on the part it concerns', async () => {
    const r = await arch(['what-if', '--upgrade', 'v1.36.0+k3s1', ...EXAMPLE_ARG, '-o', 'html']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('<h1>kubectl arch what-if --upgrade v1.36.0+k3s1 <span class="muted">');
    expect(r.stdout).toContain('the cluster upgraded from v1.35.4+k3s1 to v1.36.0+k3s1. The map is the cluster as it is');
    const data = JSON.parse(
      /<script type="application\/json" id="arch-data">([\s\S]*?)<\/script>/.exec(r.stdout)![1]!.replace(/\\u003c/g, '<'),
    );
    expect(data.kind).toBe('WhatIfMap');
    expect(data.whatIf.hypothesis.upgrade).toMatchObject({ to: 'v1.36.0+k3s1' });
    expect(data.whatIf.predictions.length).toBeGreaterThan(0);
  });
  test('-o json holds the upgrade, the removals crossed and each step of the rollout', async () => {
    const r = await arch(['what-if', '--upgrade', 'v1.36.0+k3s1', ...EXAMPLE_ARG, '-o', 'json', '--fail-on', 'none']);
    const j = JSON.parse(r.stdout);
    expect(j.hypothesis.upgrade).toMatchObject({ from: 'v1.35.4+k3s1', to: 'v1.36.0+k3s1', minors: ['v1.36'] });
    expect(j.upgrade.rollout.steps.map((s: { nodes: string[] }) => s.nodes[0])).toEqual([
      'ilwon',
      'lemuel',
      'solomon',
      'david',
      'isagal',
      'louise',
    ]);
    expect(j.verdict).toMatchObject({ state: 'no gate', exitCode: 0 });
    expect(r.code).toBe(0);
  });
});

void R;

describe('version rules and the nodes', () => {
  const nodeInfo = (n: KObject, info: Record<string, string>): KObject => ({
    ...n,
    status: { ...n.status, nodeInfo: { ...n.status.nodeInfo, ...info } },
  });
  const kubeadm = obj('v1', 'ConfigMap', 'kubeadm-config', 'kube-system', { data: { ClusterConfiguration: 'etcd:\n  local: {}\n' } });
  const types = [
    { group: '', kind: 'ConfigMap' },
    { group: '', kind: 'PersistentVolume' },
    { group: 'storage.k8s.io', kind: 'StorageClass' },
    { group: 'storage.k8s.io', kind: 'CSIDriver' },
    { group: '', kind: 'Event' },
  ];
  const codes = async (objects: KObject[], from: string, to: string): Promise<string[]> =>
    (await whatIfUpgrade(live(objects, types, from), u(from, to), NOW, CHECKS)).predictions
      .filter((p) => /ARCH-WI4[5-9]|ARCH-WI50/.test(p.code))
      .map((p) => `${p.code} ${p.severity} ${p.objects.map((o) => o.name).join(',')}`);
  test('a skipped minor, and kubelets the target would leave outside the skew', async () => {
    const nodes = [
      node('cp-1', { roles: ['control-plane'], kubelet: 'v1.28.9' }),
      node('w-old', { kubelet: 'v1.26.3' }),
      node('w-ok', { kubelet: 'v1.27.1' }),
    ];
    expect(await codes([kubeadm, ...nodes], 'v1.28.9', 'v1.30.2')).toEqual(['ARCH-WI45 error ', 'ARCH-WI46 error w-old']);
    // one minor at a time, kubelets within three: nothing
    expect(await codes([kubeadm, ...nodes.filter((n) => n.metadata.name !== 'w-old')], 'v1.28.9', 'v1.29.0')).toEqual([]);
  });
  test('dockershim (v1.24), cgroup v1 (v1.35): the kubelet would not start', async () => {
    const docker = nodeInfo(node('docker-1', { kubelet: 'v1.23.9' }), { containerRuntimeVersion: 'docker://20.10.12' });
    const criDockerd = node('docker-2', {
      kubelet: 'v1.23.9',
      annotations: { 'kubeadm.alpha.kubernetes.io/cri-socket': 'unix:///var/run/cri-dockerd.sock' },
    });
    criDockerd.status.nodeInfo.containerRuntimeVersion = 'docker://20.10.12';
    expect(
      await codes([kubeadm, node('cp', { roles: ['control-plane'], kubelet: 'v1.23.9' }), docker, criDockerd], 'v1.23.9', 'v1.24.0'),
    ).toEqual(['ARCH-WI47 error docker-1']);
    const el8 = nodeInfo(node('el8', { kubelet: 'v1.34.1' }), {
      osImage: 'Rocky Linux 8.10 (Green Obsidian)',
      kernelVersion: '4.18.0-553.el8_10.x86_64',
    });
    const jammy = nodeInfo(node('jammy', { kubelet: 'v1.34.1' }), { osImage: 'Ubuntu 22.04.4 LTS', kernelVersion: '5.15.0-105-generic' });
    const said = nodeInfo(node('said', { kubelet: 'v1.34.1' }), { osImage: 'Ubuntu 22.04.4 LTS', kernelVersion: '5.15.0-105-generic' });
    const warning = obj('v1', 'Event', 'said.17f', 'default', {
      type: 'Warning',
      reason: 'CgroupV1',
      message: 'cgroup v1 support is in maintenance mode, please migrate to cgroup v2',
      involvedObject: { kind: 'Node', name: 'said' },
    });
    const mystery = nodeInfo(node('mystery', { kubelet: 'v1.34.1' }), { osImage: 'SomeOS 1', kernelVersion: '6.1.0' });
    const r = await whatIfUpgrade(
      live([kubeadm, el8, jammy, said, warning, mystery], types, 'v1.34.1'),
      u('v1.34.1', 'v1.35.0'),
      NOW,
      CHECKS,
    );
    expect(r.predictions.filter((p) => p.code === 'ARCH-WI47').map((p) => p.objects.map((o) => o.name).join(','))).toEqual(['el8,said']);
    expect(r.notJudged.map((n) => n.what).join('\n')).toMatch(/whether mystery run cgroup v1/);
  });
  test('in-tree volumes with no driver to take over, and flags K3s passes that the target removed', async () => {
    const pv = obj('v1', 'PersistentVolume', 'data-0', undefined, { spec: { glusterfs: { endpoints: 'gfs', path: 'vol' } } });
    const ebs = obj('v1', 'PersistentVolume', 'pv-ebs', undefined, { spec: { awsElasticBlockStore: { volumeID: 'vol-1' } } });
    const nodes = [node('cp', { roles: ['control-plane'], kubelet: 'v1.25.4' })];
    // GlusterFS has no migration (v1.26); EBS migrated long before v1.27 (the csi-drivers check speaks for it)
    expect(await codes([kubeadm, ...nodes, pv, ebs], 'v1.25.4', 'v1.26.0')).toEqual(['ARCH-WI48 error data-0']);
    const k3s = node('srv', {
      roles: ['control-plane', 'master'],
      kubelet: 'v1.26.4+k3s1',
      annotations: {
        'k3s.io/node-args': JSON.stringify(['server', '--kubelet-arg', 'container-runtime=remote', '--kubelet-arg=max-pods=200']),
      },
    });
    expect(await codes([k3s], 'v1.26.4+k3s1', 'v1.27.1+k3s1')).toEqual(['ARCH-WI50 error srv']);
  });
});
