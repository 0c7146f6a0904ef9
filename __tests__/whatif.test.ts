// what-if held to real threads where a reboot, a drain or a node removal caused (or nearly caused) an outage, and to
// the example: src/whatif/cases/<slug>/ (CASE.md, snapshot.yaml — the cluster before — and expected.yaml: the
// hypothesis, the exit code with --fail-on error, the predictions that must appear and what must not).
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
import { R } from '../src/resources.js';
import { WHATIF_CODES } from '../src/whatif/codes.js';
import { EXAMPLE, EXAMPLE_TYPES, exampleObjects } from './helpers/fixtures.js';
import { startTestApiServer } from './helpers/testApiServer.js';
import { arch, ROOT } from './helpers/run.js';

const DIR = join(ROOT, 'src/whatif/cases');
const cases = readdirSync(DIR, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

interface Expected {
  nodes: string[];
  remove: boolean;
  exitCode: number;
  predictions?: Array<{ code: string; contract?: string; severity?: string; objects?: string[]; text?: string[] }>;
  mustNot?: Array<{ code?: string; phrase?: string }>;
}
const objText = (o: { kind: string; namespace?: string; name: string }): string =>
  `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
const words = (p: Prediction): string => [p.title, p.message, p.why ?? '', ...(p.fix ?? [])].join('\n');

test('the what-if corpus holds real cases, true negatives among them', () => {
  expect(cases.length).toBeGreaterThanOrEqual(6);
  const negatives = cases.filter((c) => (load(readFileSync(join(DIR, c, 'expected.yaml'), 'utf8')) as Expected).exitCode === 0);
  expect(negatives.length).toBeGreaterThanOrEqual(2);
});

describe.each(cases)('%s', (name) => {
  test('CASE.md cites a real thread', () => {
    expect(existsSync(join(DIR, name, 'CASE.md'))).toBe(true);
    expect(readFileSync(join(DIR, name, 'CASE.md'), 'utf8')).toMatch(/^Source: [\w.-]+\/[\w.-]+#\d+/m);
  });
  test('predictions as expected', () => {
    const exp = load(readFileSync(join(DIR, name, 'expected.yaml'), 'utf8')) as Expected;
    const snap = loadSnapshot(join(DIR, name, 'snapshot.yaml'));
    const r = whatIf(snap, { nodes: exp.nodes, remove: Boolean(exp.remove) }, evidenceTime(snap), CHECKS);
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
  test('each prediction is drawn on the part showing it, or listed as drawn by no part: none is lost', () => {
    const snap = loadSnapshot(EXAMPLE);
    const now = evidenceTime(snap);
    const h = { nodes: ['ilwon'], remove: false };
    const { predictions, asItWouldBe } = whatIf(snap, h, now, CHECKS);
    const { snapshot: hyp, results } = asItWouldBe;
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

  test('-o html is refused with no request elsewhere than doctor, map and what-if; what-if still refuses the machine formats', async () => {
    const q = await arch(['quorum', '--snapshot', EXAMPLE, '-o', 'html']);
    expect([q.code, q.stderr]).toEqual([2, expect.stringContaining('-o html is for doctor, map and what-if, not quorum')]);
    const s = await arch(['what-if', 'ilwon', '--snapshot', EXAMPLE, '-o', 'sarif']);
    expect([s.code, s.stderr]).toEqual([2, expect.stringContaining('-o sarif is for doctor, orphans and quorum, not what-if')]);
  });
});
