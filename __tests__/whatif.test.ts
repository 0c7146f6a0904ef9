// what-if held to real threads where a reboot, a drain or a node removal caused (or nearly caused) an outage, and to
// the example: src/whatif/predictions/<unit>/cases/<slug>/ (CASE.md, snapshot.yaml — the cluster before — and
// expected.yaml: the hypothesis, the exit code with --fail-on error, the verdict, the predictions that must appear and
// what must not).
import { describe, expect, test } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { CHECKS } from '../src/checks/registry.js';
import { evidenceTime } from '../src/checks/run.js';
import { buildMap } from '../src/map/build.js';
import { drawPredictions } from '../src/whatif/draw.js';
import { SEVERITY_RANK, worstRank } from '../src/model.js';
import { loadSnapshot } from '../src/snapshot/load.js';
import { hypothesize } from '../src/whatif/hypothesis.js';
import { whatIf, type Prediction } from '../src/whatif/predict.js';
import { whatIfUpgrade } from '../src/whatif/upgrade/predict.js';
import { currentVersion, parseTarget } from '../src/whatif/upgrade/version.js';
import { R } from '../src/resources.js';
import type { Deadline } from '../src/lib/deadline.js';
import { WHATIF_CODES } from '../src/whatif/codes.js';
import { EXAMPLE, EXAMPLE_TYPES, exampleObjects, node, obj, snapshotOf } from './helpers/fixtures.js';
import { tempDir } from './helpers/tmp.js';
import { detectDistribution } from '../src/fingerprint.js';
import type { KObject } from '../src/model.js';
import type { Snapshot } from '../src/snapshot/snapshot.js';
import { dump } from 'js-yaml';
import { writeFileSync } from 'node:fs';
import { startTestApiServer } from './helpers/testApiServer.js';
import { arch, ROOT } from './helpers/run.js';

const UNITS_DIR = join(ROOT, 'src/whatif/predictions');
const caseDirs = new Map(
  readdirSync(UNITS_DIR, { withFileTypes: true })
    .filter((u) => u.isDirectory() && existsSync(join(UNITS_DIR, u.name, 'cases')))
    .flatMap((u) =>
      readdirSync(join(UNITS_DIR, u.name, 'cases'), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => [d.name, join(UNITS_DIR, u.name, 'cases', d.name)] as const),
    ),
);
const cases = [...caseDirs.keys()].sort();
const DIR = { of: (name: string): string => caseDirs.get(name)! };

interface Expected {
  nodes: string[];
  remove: boolean;
  /** what-if --upgrade: the target version (the cluster's own from the snapshot). */
  upgrade?: string;
  exitCode: number;
  /** The verdict at --fail-on error (default: safe for exit 0, not safe for exit 1). */
  verdict?: 'safe' | 'not safe' | 'not judged';
  predictions?: Array<{ code: string; contract?: string; severity?: string; objects?: string[]; text?: string[] }>;
  mustNot?: Array<{ code?: string; phrase?: string }>;
}
const objText = (o: { kind: string; namespace?: string; name: string }): string =>
  `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
const words = (p: Prediction): string => [p.title, p.message, p.why ?? '', ...(p.fix ?? [])].join('\n');

test('the what-if corpus holds real cases, true negatives among them', () => {
  expect(cases.length).toBeGreaterThanOrEqual(6);
  const negatives = cases.filter((c) => (load(readFileSync(join(DIR.of(c), 'expected.yaml'), 'utf8')) as Expected).exitCode === 0);
  expect(negatives.length).toBeGreaterThanOrEqual(2);
});

describe.each(cases)('%s', (name) => {
  test('CASE.md cites a real thread', () => {
    expect(existsSync(join(DIR.of(name), 'CASE.md'))).toBe(true);
    expect(readFileSync(join(DIR.of(name), 'CASE.md'), 'utf8')).toMatch(/^Source: [\w.-]+\/[\w.-]+#\d+/m);
  });
  test('predictions as expected', async () => {
    const exp = load(readFileSync(join(DIR.of(name), 'expected.yaml'), 'utf8')) as Expected;
    const snap = loadSnapshot(join(DIR.of(name), 'snapshot.yaml'));
    const current = currentVersion(snap);
    const r = exp.upgrade
      ? await whatIfUpgrade(snap, { target: parseTarget(exp.upgrade), ...(current ? { current } : {}) }, evidenceTime(snap), CHECKS)
      : await whatIf(snap, { nodes: exp.nodes, remove: Boolean(exp.remove) }, evidenceTime(snap), CHECKS);
    const seen = r.predictions.map((p) => `${p.code} ${p.severity} ${p.contract} [${p.objects.map(objText).join(', ')}] ${p.title}`);
    for (const want of exp.predictions ?? []) {
      const hit = r.predictions.find(
        (p) =>
          p.code === want.code &&
          (!want.contract || p.contract === want.contract) &&
          (!want.severity || p.severity === want.severity) &&
          (want.objects ?? []).every((o) => p.objects.map(objText).includes(o)) &&
          (want.text ?? []).every((t) => words(p).includes(t)),
      );
      expect([JSON.stringify(want), hit ? 'found' : seen]).toEqual([JSON.stringify(want), 'found']);
    }
    for (const no of exp.mustNot ?? []) {
      if (no.code) expect(r.predictions.map((p) => p.code)).not.toContain(no.code);
      if (no.phrase) for (const p of r.predictions) expect(words(p)).not.toContain(no.phrase);
    }
    const worst = worstRank(r.predictions);
    expect([worst >= SEVERITY_RANK.error ? 1 : 0, seen]).toEqual([exp.exitCode, seen]);
    const verdict = exp.verdict ?? (exp.exitCode === 1 ? 'not safe' : 'safe');
    expect([r.verdict.state, r.notJudged]).toEqual([verdict, verdict === 'not judged' ? expect.anything() : r.notJudged]);
    if (verdict === 'safe') expect(r.notJudged).toEqual([]);
  });
});

describe('on the example (the field notes)', () => {
  test('what-if ilwon: what runs only there, and quorum holds with no failure tolerated', async () => {
    const r = await arch(['what-if', 'ilwon', '--snapshot', EXAMPLE, '-o', 'json']);
    const j = JSON.parse(r.stdout);
    const codes = j.predictions.map((p: Prediction) => `${p.code} ${p.objects.map(objText).join(', ')}`);
    expect(codes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ARCH-WH01 ValidatingWebhookConfiguration cert-manager-webhook/),
        expect.stringMatching(/^ARCH-API01 APIService v1beta1.metrics.k8s.io/),
        expect.stringMatching(/^ARCH-WI05 Deployment kube-system\/local-path-provisioner/),
      ]),
    );
    const eq = j.predictions.find((p: Prediction) => p.code === 'ARCH-EQ02');
    expect(eq.title).toMatch(/3 voters, 2 healthy — quorum 2 — no failure tolerated — DEGRADED/);
    expect(r.code).toBe(1);
  });
  test('what-if ilwon solomon: quorum and cluster DNS are lost', async () => {
    const j = JSON.parse((await arch(['what-if', 'ilwon', 'solomon', '--snapshot', EXAMPLE, '-o', 'json'])).stdout);
    expect(j.predictions.map((p: Prediction) => `${p.code} ${p.severity}`)).toEqual(
      expect.arrayContaining(['ARCH-EQ01 critical', 'ARCH-DNS01 critical']),
    );
    expect(j.oneAtATime.each.map((e: { node: string }) => e.node)).toEqual(['ilwon', 'solomon']);
  });
  test('what-if lemuel --remove: two voters left, an even count, and it says why', async () => {
    const r = await arch(['what-if', 'lemuel', '--remove', '--snapshot', EXAMPLE]);
    expect(r.stdout).toMatch(/WARNING ARCH-EQ03 {2}etcd has an even number of voters \(2\)/);
    expect(r.stdout).toMatch(/Two members are worse than one/);
    expect(r.code).toBe(0);
  });
  test('a node that does not exist is a usage error naming it (exit 2), before any prediction', async () => {
    const r = await arch(['what-if', 'lemuel', 'nope', '--snapshot', EXAMPLE]);
    expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(/node "nope" does not exist/)]);
  });
});

describe('explain and completion', () => {
  test('explain what-if (and any ARCH-WI code) is the page: what it predicts, its limits, every own code', async () => {
    const page = await arch(['explain', 'what-if']);
    expect(page.code).toBe(0);
    expect(page.stdout).toMatch(/^WHAT A PREDICTION CAN AND CANNOT KNOW$/m);
    for (const code of Object.keys(WHATIF_CODES)) expect(page.stdout).toContain(code);
    expect((await arch(['explain', 'ARCH-WI03'])).stdout).toBe(page.stdout);
    const doc = JSON.parse((await arch(['explain', 'what-if', '-o', 'json'])).stdout);
    expect(Object.keys(doc.codes)).toEqual(Object.keys(WHATIF_CODES));
  });
  test('node names complete from --snapshot, leaving out those already named', async () => {
    const r = await arch(['__complete', 'what-if', '--snapshot', EXAMPLE, 'ilwon', '']);
    expect(r.stdout.trim().split('\n')).toEqual(['lemuel', 'solomon', 'david', 'louise', 'isagal', ':4']);
  });
  test('live, one short metadata-only list of nodes from the API server', async () => {
    const api = await startTestApiServer({ types: EXAMPLE_TYPES, objects: exampleObjects() });
    try {
      const r = await arch(['__complete', 'what-if', '--kubeconfig', api.kubeconfigPath, 'sol']);
      expect(r.stdout).toBe('solomon\n:4\n');
      expect(api.requests.filter((q) => q.path.startsWith('/api/v1/nodes')).map((q) => q.accept)).toEqual([
        expect.stringContaining('as=PartialObjectMetadataList'),
      ]);
    } finally {
      await api.close();
    }
  });
});

test('the hypothesis is pure: the snapshot it starts from is unchanged (objects it changes are copied first)', () => {
  const snap = loadSnapshot(EXAMPLE);
  const before = JSON.stringify([...snap.lists()]);
  const hyp = hypothesize(snap, { nodes: ['ilwon', 'solomon'], remove: false }, evidenceTime(snap));
  hypothesize(snap, { nodes: ['lemuel'], remove: true }, evidenceTime(snap));
  expect(JSON.stringify([...snap.lists()])).toBe(before);
  expect(hyp.of(R.nodes).find((n) => n.metadata.name === 'ilwon')!.status.conditions).toEqual(
    expect.arrayContaining([expect.objectContaining({ type: 'Ready', status: 'Unknown' })]),
  );
});

describe('what-if -o html: the predictions drawn on the map of the cluster as it would be', () => {
  test('each prediction is drawn on the part showing it, or listed as drawn by no part: none is lost', async () => {
    const snap = loadSnapshot(EXAMPLE);
    const now = evidenceTime(snap);
    const h = { nodes: ['ilwon'], remove: false };
    const { predictions, asItWouldBe } = await whatIf(snap, h, now, CHECKS, { keepCluster: true });
    const { snapshot: hyp, results } = asItWouldBe!;
    const m = buildMap(hyp, results, now, CHECKS);
    const { parts, undrawn } = drawPredictions(m, results, predictions);
    const name = (key: string): string => {
      const [si, li] = key.slice(1).split('-').map(Number);
      return m.sections[si!]!.lines[li!]!.name;
    };
    expect(Object.keys(parts).map(name).sort()).toEqual(
      [
        'admission webhooks',
        'validating cert-manager-webhook',
        'mutating cert-manager-webhook',
        'aggregated APIs',
        'v1beta1.metrics.k8s.io',
        'etcd',
        'ilwon',
        'DNS',
      ].sort(),
    );
    const drawn = new Set(Object.values(parts).flat());
    expect(drawn.size + undrawn.length).toBe(predictions.length);
    for (const p of undrawn) expect(drawn.has(p)).toBe(false);
    expect([...new Set(undrawn.map((p) => p.code))].sort()).toEqual(['ARCH-WI01', 'ARCH-WI03', 'ARCH-WI05']);
    // a part carries what-if's severity, not the check's: one server of three down is a warning
    expect(parts[Object.keys(parts).find((k) => name(k) === 'ilwon')!]!.map((p) => `${p.code} ${p.severity}`)).toEqual([
      'ARCH-EQ02 warning',
    ]);
  });

  test('the page: the hypothesis, the verdict, the parts that would break, and the rest listed; the gate still exits 1', async () => {
    const r = await arch(['what-if', 'ilwon', '--snapshot', EXAMPLE, '-o', 'html']);
    expect([r.code, r.stderr]).toEqual([1, '']);
    expect(r.stdout).toMatch(/^<!doctype html>/);
    expect(r.stdout).toContain('<title>kubectl arch what-if ilwon — K3s v1.35.4+k3s1</title>');
    expect(r.stdout).toContain('ilwon down for a while (a reboot, a drain, an outage)');
    expect(r.stdout).toContain('NOT safe: 6 error, 11 warning predicted (--fail-on error)');
    expect(r.stdout.match(/class="part [^"]*predicted/g)).toHaveLength(8);
    expect(r.stdout).toContain('11 predicted that no part of the map draws');
    const data = JSON.parse(r.stdout.match(/<script type="application\/json" id="arch-data">([^<]*)<\/script>/)![1]!);
    expect([data.kind, data.whatIf.hypothesis, data.whatIf.predictions.length]).toEqual([
      'WhatIfMap',
      { nodes: ['ilwon'], remove: false },
      17,
    ]);
    // the map is of the cluster as it would be: ilwon's member is unhealthy there
    expect(r.stdout).toContain('node ilwon — voter, unhealthy');
    // size budget (docs/pictures.md)
    expect(Buffer.byteLength(r.stdout)).toBeLessThan(150_000);
  });

  test('-o html is refused with no request elsewhere than doctor, map and what-if; what-if refuses the machine formats but SARIF and JUnit', async () => {
    const q = await arch(['quorum', '--snapshot', EXAMPLE, '-o', 'html']);
    expect([q.code, q.stderr]).toEqual([2, expect.stringContaining('-o html is for doctor, map and what-if, not quorum')]);
    const s = await arch(['what-if', 'ilwon', '--snapshot', EXAMPLE, '-o', 'prometheus']);
    expect([s.code, s.stderr]).toEqual([2, expect.stringContaining('-o prometheus is for doctor, orphans and quorum, not what-if')]);
  });
});

describe('at any size: the deadline, cancellation and yielding', () => {
  /** A Deadline whose time is the count of steps taken (deterministic: no clock). */
  const stepsDeadline = (limit: number) => {
    let steps = 0;
    return {
      pause: async () => {
        steps++;
      },
      deadline: { passed: () => steps >= limit, text: () => `${limit} steps`, remaining: () => 0 } as unknown as Deadline,
      steps: () => steps,
    };
  };
  const snap = loadSnapshot(EXAMPLE);
  const nodes = snap.of(R.nodes).map((n) => n.metadata.name);

  test('it yields between steps: every check and every node alone is a step', async () => {
    const s = stepsDeadline(Infinity);
    const r = await whatIf(snap, { nodes, remove: false }, evidenceTime(snap), CHECKS, { pause: s.pause, deadline: s.deadline });
    expect(r.oneAtATime!.each.map((e) => e.notJudged)).toEqual(nodes.map(() => undefined));
    // the base, each reactive check of the joint pass and of each node's pass
    expect(s.steps()).toBeGreaterThan(nodes.length * 2);
  });

  test('what the deadline cuts is "not judged: deadline", never a late answer or "safe"', async () => {
    const full = stepsDeadline(Infinity);
    await whatIf(snap, { nodes, remove: false }, evidenceTime(snap), CHECKS, { pause: full.pause, deadline: full.deadline });
    // a deadline half way through the nodes alone
    const s = stepsDeadline(Math.floor(full.steps() * 0.6));
    const r = await whatIf(snap, { nodes, remove: false }, evidenceTime(snap), CHECKS, { pause: s.pause, deadline: s.deadline });
    const cut = r.oneAtATime!.each.filter((e) => e.notJudged?.includes('deadline'));
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.every((e) => e.worst === null)).toBe(true);
    expect(r.oneAtATime!.safe).not.toBe(true);
    // a deadline before the joint prediction: nothing predicted, not judged
    const early = stepsDeadline(1);
    const e = await whatIf(snap, { nodes: ['isagal'], remove: false }, evidenceTime(snap), CHECKS, {
      pause: early.pause,
      deadline: early.deadline,
    });
    expect([e.verdict.state, e.notJudged[0]?.what]).toEqual([
      'not judged',
      expect.stringMatching(/deadline .* passed before the prediction/),
    ]);
  });

  test('a cancelled prediction stops at its next step', async () => {
    const ac = new AbortController();
    let steps = 0;
    const r = await whatIf(snap, { nodes, remove: false }, evidenceTime(snap), CHECKS, {
      signal: ac.signal,
      pause: async () => {
        if (++steps === 3) ac.abort();
      },
    });
    expect(steps).toBe(3);
    expect(r.verdict.state).toBe('not judged');
  });
});

describe('"safe" means safe (#39): each found fault, on a small cluster built from its description', () => {
  const T = '2026-08-13T09:00:00Z';
  const K3S = 'v1.35.4+k3s1';
  const ready = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
  const pod = (
    name: string,
    ns: string,
    nodeName: string,
    extra: Partial<KObject> & { labels?: Record<string, string>; owner?: [string, string, string] } = {},
  ): KObject =>
    obj('v1', 'Pod', name, ns, {
      metadata: {
        name,
        namespace: ns,
        labels: extra.labels,
        ...(extra.owner
          ? {
              ownerReferences: [
                { apiVersion: extra.owner[0], kind: extra.owner[1], name: extra.owner[2], uid: `u-${extra.owner[2]}`, controller: true },
              ],
            }
          : {}),
      },
      spec: { nodeName, containers: [{ name: 'c' }] },
      status: ready,
    });
  /** Every type what-if reads, listed (the ones with no objects: none exist). */
  const ALL = [...new Map([...CHECKS.flatMap((c) => c.needs), ...Object.values(R)].map((n) => [`${n.kind}.${n.group}`, n])).values()];
  const cluster = (objects: KObject[], opts: { hide?: string[]; version?: string } = {}): Snapshot => {
    const s = snapshotOf(objects, {
      capturedAt: T,
      serverVersion: opts.version ?? K3S,
      captured: ALL.filter((n) => !(opts.hide ?? []).includes(n.kind)),
    });
    for (const k of opts.hide ?? []) {
      const n = ALL.find((x) => x.kind === k)!;
      s.markUnavailable({ group: n.group, kind: n.kind, resource: n.resource, status: 403, reason: 'forbidden' });
    }
    return s;
  };
  const run = (s: Snapshot, nodes: string[], opts: { remove?: boolean; failOn?: 'error' | 'warning' | 'critical' } = {}) =>
    whatIf(s, { nodes, remove: Boolean(opts.remove) }, new Date(T), CHECKS, { failOn: opts.failOn ?? 'error' });
  const servers = ['s1', 's2', 's3'].map((n) =>
    node(n, {
      kubelet: K3S,
      roles: ['control-plane', 'etcd', 'master'],
      conditions: [{ type: 'EtcdIsVoter', status: 'True', reason: 'MemberNotLearner', lastHeartbeatTime: T }],
    }),
  );
  const workers = ['w1', 'w2'].map((n) => node(n, { kubelet: K3S }));

  test('1. nodes not visible: an unknown node is exit 2; the state and door say what they could not judge', async () => {
    const f = join(tempDir(), 's.yaml');
    writeFileSync(
      f,
      [
        {
          apiVersion: 'kubectl-arch/v1',
          kind: 'SnapshotHeader',
          capturedAt: T,
          serverVersion: { gitVersion: K3S },
          captured: ['Pod'],
          unavailable: [{ group: '', kind: 'Node', resource: 'nodes', status: 403, reason: 'nodes is forbidden' }],
        },
        pod('web-1', 'default', 'w1', { owner: ['apps/v1', 'ReplicaSet', 'web-5d9c7'] }),
      ]
        .map((d) => dump(d))
        .join('---\n'),
    );
    const typo = await arch(['what-if', 'w9', '--snapshot', f]);
    expect([typo.code, typo.stderr]).toEqual([
      2,
      expect.stringMatching(/cannot tell whether node "w9" exists: nodes are not visible \(nodes is forbidden\)/),
    ]);
    // a node the pods name exists; what cannot be judged is said in each section, and the verdict is not "safe"
    const r = await arch(['what-if', 'w1', '--snapshot', f]);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/STATE[^\n]*\n(.*\n)*?  not judged: Node/);
    expect(r.stdout).toMatch(/DOOR[^\n]*\n(.*\n)*?  not judged: /);
    expect(r.stdout).toMatch(/^not judged: .*Node/m);
    const all3 = await run(cluster([...servers], { hide: ['Node'] }), ['s1', 's2', 's3']);
    expect(all3.verdict.state).not.toBe('safe');
  });

  test('2. -n is refused: a node is cluster-wide', async () => {
    const r = await arch(['what-if', 'ilwon', '--snapshot', EXAMPLE, '-n', 'gitea']);
    expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(/what-if judges the whole cluster/)]);
  });

  test('3. budgets select as the API server does: {} is every pod of its namespace, matchExpressions count', async () => {
    const pods = [
      pod('db-0', 'data', 'w1', { labels: { app: 'db', tier: 'x' }, owner: ['apps/v1', 'StatefulSet', 'db'] }),
      pod('db-1', 'data', 'w2', { labels: { app: 'db' }, owner: ['apps/v1', 'StatefulSet', 'db'] }),
    ];
    const pdb = (name: string, selector: unknown): KObject =>
      obj('policy/v1', 'PodDisruptionBudget', name, 'data', { spec: { selector, maxUnavailable: 0 }, status: { disruptionsAllowed: 0 } });
    for (const selector of [
      {},
      { matchExpressions: [{ key: 'app', operator: 'In', values: ['db'] }] },
      { matchExpressions: [{ key: 'tier', operator: 'Exists' }] },
    ]) {
      const r = await run(cluster([...servers, ...workers, ...pods, pdb('p', selector)]), ['w1']);
      expect([JSON.stringify(selector), r.predictions.filter((p) => p.code === 'ARCH-WI02').length]).toEqual([JSON.stringify(selector), 1]);
      expect(r.verdict.state).toBe('not safe');
    }
    // NotIn and DoesNotExist exclude; policy/v1beta1's {} selects nothing
    for (const selector of [
      { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] },
      { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['x'] }] },
    ]) {
      const r = await run(cluster([...servers, ...workers, ...pods, pdb('p', selector)]), ['w1']);
      expect(r.predictions.filter((p) => p.code === 'ARCH-WI02')).toEqual([]);
    }
    const legacy = { ...pdb('p', {}), apiVersion: 'policy/v1beta1' };
    expect(
      (await run(cluster([...servers, ...workers, ...pods, legacy]), ['w1'])).predictions.filter((p) => p.code === 'ARCH-WI02'),
    ).toEqual([]);
    // no status (a hand-made snapshot): disruptionsAllowed from the spec, said so
    const bare = obj('policy/v1', 'PodDisruptionBudget', 'q', 'data', {
      spec: { selector: { matchLabels: { app: 'db' } }, minAvailable: 2 },
    });
    const q = await run(cluster([...servers, ...workers, ...pods, bare]), ['w1']);
    expect(q.predictions.find((p) => p.code === 'ARCH-WI02')?.message).toMatch(/computed from its spec/);
  });

  test('4. only live API servers count: the last live one is "no API server left"', async () => {
    // K3s on an external datastore: two servers, s2 already NotReady
    const two = [
      node('s1', { kubelet: K3S, roles: ['control-plane', 'master'] }),
      node('s2', { kubelet: K3S, roles: ['control-plane', 'master'], ready: false }),
      ...workers,
    ];
    const r = await run(cluster(two), ['s1']);
    const wi07 = r.predictions.find((p) => p.code === 'ARCH-WI07');
    expect([wi07?.severity, wi07?.title]).toEqual([
      'critical',
      expect.stringMatching(/no live API server is left: s1 is the last live one/),
    ]);
    expect(wi07?.message).toMatch(/Not live already: s2 \(K3s server, node not Ready\)/);
    // kubeadm: the other kube-apiserver pod is not Ready; identity leases say which renewed
    const apiPod = (n: string, ok: boolean): KObject => ({
      ...pod(`kube-apiserver-${n}`, 'kube-system', n, { labels: { component: 'kube-apiserver', tier: 'control-plane' } }),
      status: ok ? ready : { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] },
    });
    const lease = (n: string, renew: string): KObject =>
      obj('coordination.k8s.io/v1', 'Lease', `apiserver-${n}`, 'kube-system', {
        metadata: {
          name: `apiserver-${n}`,
          namespace: 'kube-system',
          labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': n },
        },
        spec: { holderIdentity: `apiserver-${n}_x`, renewTime: renew },
      });
    const cm = obj('v1', 'ConfigMap', 'kubeadm-config', 'kube-system', { data: { ClusterConfiguration: 'etcd:\n  local: {}\n' } });
    const kubeadm = [
      node('c1', { roles: ['control-plane'] }),
      node('c2', { roles: ['control-plane'] }),
      cm,
      apiPod('c1', true),
      apiPod('c2', false),
      lease('c1', T),
      lease('c2', '2026-08-13T07:00:00Z'),
    ];
    const k = await run(cluster(kubeadm, { version: 'v1.35.4' }), ['c1']);
    expect(k.predictions.find((p) => p.code === 'ARCH-WI07')?.message).toMatch(
      /c2 \(pod kube-apiserver-c2 not Ready, identity lease renewed 120 min ago\)/,
    );
    // both live: no door prediction
    const both = await run(cluster([...kubeadm.slice(0, 4), apiPod('c2', true), lease('c1', T), lease('c2', T)], { version: 'v1.35.4' }), [
      'c1',
    ]);
    expect(both.predictions.filter((p) => p.code === 'ARCH-WI07')).toEqual([]);
  });

  test('5. workloads of any controller: a Rollout, a CloudNativePG Cluster, a ReplicaSet alone; bare pods are listed', async () => {
    const rs = (name: string, owner?: [string, string, string]): KObject =>
      obj('apps/v1', 'ReplicaSet', name, 'shop', {
        metadata: {
          name,
          namespace: 'shop',
          ...(owner
            ? { ownerReferences: [{ apiVersion: owner[0], kind: owner[1], name: owner[2], uid: `u-${owner[2]}`, controller: true }] }
            : {}),
        },
      });
    const objects = [
      ...servers,
      ...workers,
      rs('web-6b8f9', ['argoproj.io/v1alpha1', 'Rollout', 'web']),
      pod('web-6b8f9-a', 'shop', 'w1', { owner: ['apps/v1', 'ReplicaSet', 'web-6b8f9'] }),
      pod('web-6b8f9-b', 'shop', 'w1', { owner: ['apps/v1', 'ReplicaSet', 'web-6b8f9'] }),
      pod('pg-1', 'shop', 'w1', { owner: ['postgresql.cnpg.io/v1', 'Cluster', 'pg'] }),
      pod('pg-2', 'shop', 'w1', { owner: ['postgresql.cnpg.io/v1', 'Cluster', 'pg'] }),
      rs('cache-7c4d2'),
      pod('cache-7c4d2-a', 'shop', 'w1', { owner: ['apps/v1', 'ReplicaSet', 'cache-7c4d2'] }),
      pod('cache-7c4d2-b', 'shop', 'w1', { owner: ['apps/v1', 'ReplicaSet', 'cache-7c4d2'] }),
      pod('debug', 'shop', 'w1'),
    ];
    const r = await run(cluster(objects), ['w1']);
    const down = r.predictions
      .filter((p) => p.code === 'ARCH-WI01')
      .map((p) => `${p.severity} ${p.objects[0]!.kind} ${p.objects[0]!.name}`);
    expect(down.sort()).toEqual(['error Cluster pg', 'error ReplicaSet cache-7c4d2', 'error Rollout web']);
    expect(r.predictions.find((p) => p.code === 'ARCH-WI09')?.objects).toEqual([expect.objectContaining({ kind: 'Pod', name: 'debug' })]);
    // true negative: the Rollout spread over both workers
    const spread = objects.map((o) => (o.metadata.name === 'web-6b8f9-b' ? { ...o, spec: { ...o.spec, nodeName: 'w2' } } : o));
    expect((await run(cluster(spread), ['w1'])).predictions.filter((p) => p.objects[0]?.name === 'web')).toEqual([]);
  });

  test('6. --fail-on holds for one at a time too', async () => {
    const objects = [
      ...servers,
      ...workers,
      pod('one-1', 'default', 'w1', { owner: ['apps/v1', 'StatefulSet', 'one'] }),
      obj('apps/v1', 'StatefulSet', 'one', 'default', { spec: { replicas: 1 } }),
    ];
    const r = await run(cluster(objects), ['w1', 'w2'], { failOn: 'warning' });
    expect(r.oneAtATime).toEqual({
      safe: false,
      each: [
        { node: 'w1', worst: 'warning' },
        { node: 'w2', worst: null },
      ],
    });
    expect((await run(cluster(objects), ['w1', 'w2'], { failOn: 'error' })).oneAtATime?.safe).toBe(true);
  });

  test('7. two of three etcd servers removed together: judged at the moment both are down, critical, in a safe order', async () => {
    const r = await run(cluster([...servers, ...workers]), ['s1', 's2'], { remove: true });
    const lost = r.predictions.find((p) => p.code === 'ARCH-EQ01');
    expect(lost?.severity).toBe('critical');
    expect(lost?.message).toMatch(/^While s1 and s2 are down and their members are not yet removed/);
    expect(String(lost?.fix?.[0])).toMatch(
      /one at a time: stop s1, then delete its node .*: kubectl delete node s1 +# wait until `kubectl arch quorum` says HEALTHY, then the next/,
    );
    expect(r.verdict.state).toBe('not safe');
    // one of three removed keeps quorum: not critical
    const one = await run(cluster([...servers, ...workers]), ['s1'], { remove: true });
    expect(one.predictions.filter((p) => p.severity === 'critical')).toEqual([]);
  });

  test('8. EKS Anywhere (EKS-D with its own control plane) is self-managed: quorum arithmetic, no "the provider backs it up"', async () => {
    const eksa = [
      ...['cp-1', 'cp-2', 'cp-3'].map((n) =>
        node(n, { kubelet: 'v1.28.3-eks-61789d8', roles: ['control-plane'], providerID: `tinkerbell://eksa-system/${n}` }),
      ),
      node('w-1', { kubelet: 'v1.28.3-eks-61789d8', providerID: 'tinkerbell://eksa-system/w-1' }),
      obj('v1', 'ConfigMap', 'kubeadm-config', 'kube-system', {
        data: { ClusterConfiguration: 'etcd:\n  local:\n    dataDir: /var/lib/etcd\n' },
      }),
      ...['cp-1', 'cp-2', 'cp-3'].map((n) => pod(`etcd-${n}`, 'kube-system', n, { labels: { component: 'etcd', tier: 'control-plane' } })),
    ];
    const s = cluster(eksa, { version: 'v1.28.3-eks-61789d8' });
    expect(detectDistribution(s).distribution).toBe('kubeadm');
    expect(detectDistribution(s).evidence[0]).toMatch(/EKS Anywhere/);
    const r = await run(s, ['cp-1', 'cp-2']);
    expect(r.predictions.find((p) => p.code === 'ARCH-EQ01')?.severity).toBe('critical');
    expect(r.notes.join(' ')).not.toMatch(/provider/);
    // managed EKS: positive evidence only
    const managed = cluster(
      [
        node('ip-1', {
          kubelet: 'v1.30.3-eks-2f46c53',
          providerID: 'aws:///us-east-1a/i-0abc',
          labels: { 'eks.amazonaws.com/nodegroup': 'ng' },
        }),
      ],
      { version: 'v1.30.3-eks-2f46c53' },
    );
    expect(detectDistribution(managed).distribution).toBe('EKS');
  });

  test('9. shapes doctor and map accept do not crash what-if (exit 4); they are tolerated', async () => {
    const f = join(tempDir(), 's.yaml');
    writeFileSync(
      f,
      [
        {
          apiVersion: 'kubectl-arch/v1',
          kind: 'SnapshotHeader',
          capturedAt: T,
          serverVersion: { gitVersion: K3S },
          captured: ['Node', 'Pod', 'Endpoints', 'PersistentVolume', 'PersistentVolumeClaim'],
        },
        ...workers,
        obj('v1', 'Endpoints', 'web', 'default', { subsets: [{ addresses: { ip: '10.0.0.1', nodeName: 'w1' } }] }),
        obj('v1', 'PersistentVolume', 'pv-1', undefined, { spec: { nodeAffinity: { required: { nodeSelectorTerms: 7 } } } }),
        obj('v1', 'PersistentVolumeClaim', 'data', 'default', { spec: { volumeName: 'pv-1' } }),
        {
          ...pod('web-1', 'default', 'w1'),
          spec: { nodeName: 'w1', volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] },
        },
      ]
        .map((d) => dump(d))
        .join('---\n'),
    );
    for (const cmd of [['doctor'], ['map'], ['what-if', 'w1'], ['what-if', 'w1', '--remove']]) {
      const r = await arch([...cmd, '--snapshot', f]);
      expect([cmd.join(' '), r.code === 4, r.stderr]).toEqual([cmd.join(' '), false, expect.not.stringMatching(/internal error|\n\s+at /)]);
    }
  });
});
