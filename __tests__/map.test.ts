// `kubectl arch map`: the cluster by contract, each line with the checks that concern it.
import { expect, test } from '@jest/globals';
import { CHECKS } from '../src/checks/registry.js';
import { evidenceTime, runChecks } from '../src/checks/run.js';
import { scenarios as webhookScenarios } from '../src/checks/admission-webhooks/scenario.js';
import { buildMap, type ArchMap, type MapLine } from '../src/map/build.js';
import { build } from '../scenarios/index.js';
import { loadSnapshot } from '../src/snapshot/load.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { EXAMPLE } from './helpers/fixtures.js';
import { arch } from './helpers/run.js';

const line = (m: ArchMap, contract: string, name: string): MapLine => {
  const l = m.sections.find((s) => s.contract === contract)?.lines.find((x) => x.name === name);
  if (!l) throw new Error(`no line ${contract}/${name}`);
  return l;
};
const checks = (l: MapLine): string[] => l.checks.map((c) => `${c.id}:${c.status}${c.worst ? `:${c.worst}` : ''}`);

test('the example: four contracts, each part with what the snapshot shows and the checks that concern it', () => {
  const snap = loadSnapshot(EXAMPLE);
  const m = buildMap(snap, runChecks(CHECKS, snap), evidenceTime(snap), CHECKS);
  expect(m.sections.map((s) => s.contract)).toEqual(['state', 'door', 'loops', 'interfaces']);
  expect(line(m, 'state', 'etcd').detail).toMatch(/^3 voters, 3 healthy — quorum 2 — tolerates 1 failure — HEALTHY/);
  expect(m.sections[0]!.lines.filter((l) => l.indent).map((l) => l.name)).toEqual(['lemuel', 'ilwon', 'solomon']);
  expect(line(m, 'door', 'API servers').detail).toMatch(/^3 live API servers \(identity leases: lemuel, ilwon, solomon\)/);
  expect(line(m, 'door', 'validating cert-manager-webhook').detail).toBe('1 webhook, 1 fail closed → cert-manager/cert-manager-webhook');
  expect(line(m, 'door', 'v1beta1.metrics.k8s.io').detail).toBe('→ kube-system/metrics-server, Available=True (Passed)');
  expect(line(m, 'loops', 'control plane').detail).toMatch(/k3s server/);
  expect(line(m, 'loops', 'kube-scheduler').detail).toMatch(/^leader ilwon, renewed 2 ?s ago$/);
  // the retry loop belongs to the K3s deploy controller, the orphans to Argo CD; Flux is not installed
  expect(checks(line(m, 'loops', 'K3s deploy controller'))).toEqual(['immutable-retry-loop:findings:error']);
  expect(checks(line(m, 'loops', 'Argo CD'))).toEqual(['gitops-orphans:findings:error', 'immutable-retry-loop:passed']);
  expect(line(m, 'loops', 'Flux')).toMatchObject({ detail: expect.stringMatching(/^not visible: .*CRD not installed/), checks: [] });
  expect(line(m, 'interfaces', 'CRI').detail).toBe('containerd://2.2.3-k3s1 on 6 nodes');
  expect(line(m, 'interfaces', 'CNI').detail).toBe('flannel (vxlan)');
  expect(line(m, 'interfaces', 'CSI').detail).toBe('no CSI driver registered; StorageClasses: local-path (rancher.io/local-path, default)');
  expect(checks(line(m, 'interfaces', 'DNS'))).toEqual(['cluster-dns:passed']);
});

test('a finding on one object marks only its line: the webhook configuration without a backend', () => {
  const { objects, header } = build(webhookScenarios);
  const snap = new Snapshot(header);
  for (const o of objects) snap.addObject(o);
  const m = buildMap(snap, runChecks(CHECKS, snap), evidenceTime(snap), CHECKS);
  expect(checks(line(m, 'door', 'validating cert-manager-webhook'))).toEqual(['admission-webhooks:findings:error']);
  expect(checks(line(m, 'door', 'admission webhooks'))).toEqual(['admission-webhooks:findings:error']);
  expect(checks(line(m, 'door', 'v1beta1.metrics.k8s.io'))).toEqual(['aggregated-apis:passed']);
});

test('through the CLI: text and JSON, exit 0 (a view, like kubectl get)', async () => {
  const t = await arch(['map', '--snapshot', EXAMPLE]);
  expect([t.code, t.stderr]).toEqual([0, '']);
  expect(t.stdout).toMatch(/^kubectl arch map — snapshot .*field-notes-k3s, captured 2026-08-13T09:00:00.000Z\n/);
  for (const title of [
    'STATE — lives only in etcd',
    'DOOR — the API server is the only way in',
    'LOOPS — everything else reconciles',
    'INTERFACES — node boundaries are swappable (CRI, CNI, CSI)',
  ])
    expect(t.stdout).toContain(`\n${title}\n`);
  expect(t.stdout).toMatch(
    /\n {2}K3s deploy controller +6 Addons \(ccm, coredns, local-storage, metrics-server, rolebindings, runtimes\)\n +checks: immutable-retry-loop ERROR\n/,
  );
  const j = await arch(['map', '--snapshot', EXAMPLE, '-o', 'json']);
  const doc = JSON.parse(j.stdout);
  expect([doc.apiVersion, doc.kind, doc.distribution, doc.sections.length]).toEqual(['kubectl-arch/v1', 'ArchMap', 'K3s', 4]);
});

test('text from the cluster is printed with control characters escaped', async () => {
  const { renderMap } = await import('../src/render/map.js');
  const { makeStyle } = await import('../src/render/style.js');
  const { objects, header } = build(webhookScenarios);
  const snap = new Snapshot(header);
  for (const o of objects) {
    if (o.kind === 'ValidatingWebhookConfiguration') o.metadata.name = 'evil\x1b[2J\x1b]0;owned\x07';
    snap.addObject(o);
  }
  const text = renderMap(
    buildMap(snap, runChecks(CHECKS, snap), evidenceTime(snap), CHECKS),
    { type: 'snapshot', path: 'x' },
    makeStyle(false),
  );
  expect(text).not.toMatch(/\x1b|\x07/);
  expect(text).toContain('validating evil\\x1b[2J\\x1b]0;owned\\x07');
});
