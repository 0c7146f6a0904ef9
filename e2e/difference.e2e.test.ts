// what-if -f proven by difference (#45): on a real kube-apiserver of each version (three minors built from the
// k8s.io/kubernetes module), real objects of every built-in kind — the field-notes cluster's workloads, services,
// claims, volumes, nodes, leases and webhooks, and e2e/difference/objects.yaml for the kinds it lacks — are changed
// one field at a time and in the known combinations (a seeded generator, __tests__/helpers/difference.ts), and the API
// server is asked whether it accepts each change: a PUT with dryRun=All, as the admin (the harness may; the plugin
// never writes). what-if -f must predict the same — accept or refuse, and the fields it names — for ≥ 99.5% of them,
// read live and from the cluster's snapshot; every disagreement is printed. The answers are written as the fixtures
// `npm test` replays offline (__tests__/fixtures/difference/).
import { describe, expect, test } from '@jest/globals';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { build, HEALTHY } from '../scenarios/index.js';
import { buildApiserver, buildApiserverAt, startControlPlane, type ControlPlane } from './lib/cluster.mjs';
import { loadScenario } from './lib/load.mjs';
import { grantReaders } from './lib/readers.mjs';
import { kubectl, ROOT } from '../__tests__/helpers/run.js';
import { applyChange, generate, objectText, type Answer } from '../__tests__/helpers/difference.js';
import { agreement, type Fixture } from '../__tests__/helpers/agreement.js';
import { loadSnapshot } from '../src/snapshot/load.js';
import type { KObject } from '../src/model.js';

/** The versions: the default one of the suite and two that span the rules' history (v1.24: before elastic Indexed
 *  Jobs, PVC shrink recovery, StatefulSet ordinals; v1.25: the release that removed PodSecurityPolicy and batch/v1beta1). */
export const DIFFERENCE_VERSIONS = (process.env.DIFFERENCE_VERSIONS ?? 'v1.24.17,v1.25.16,v1.36.3').split(',').filter(Boolean);
export const SEED = 45;
const FIXTURES = join(ROOT, '__tests__/fixtures/difference');
const DEFAULT_VERSION = process.env.K8S_VERSION ?? 'v1.36.3';

/** The objects changed: part of the field-notes cluster, and one or more of every other built-in kind. */
export function baseObjects(): KObject[] {
  const { objects } = build([HEALTHY]);
  const fieldNotes = (objects as KObject[]).filter((o) => {
    const ns = o.metadata.namespace;
    if (o.kind === 'Namespace') return ['gitea', 'kube-system'].includes(o.metadata.name);
    if (o.kind === 'APIService' || o.kind === 'ETCDSnapshotFile' || o.kind === 'Addon' || o.kind === 'HelmChart') return false;
    if (o.kind === 'Node' || o.kind === 'CSINode')
      return o.metadata.name === (objects as KObject[]).find((n) => n.kind === 'Node')!.metadata.name;
    if (o.kind === 'PersistentVolume') return (o.spec?.claimRef?.namespace ?? '') === 'gitea';
    if (ns) return ns === 'gitea' || ns === 'kube-system';
    return ['StorageClass', 'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'ClusterRole'].includes(o.kind!);
  });
  const extra = (loadAll(readFileSync(join(ROOT, 'e2e/difference/objects.yaml'), 'utf8')) as KObject[]).filter((o) => o && o.kind);
  return [...fieldNotes, ...extra];
}

async function discover(cp: ControlPlane): Promise<Map<string, { path: string; resource: string; namespaced: boolean }>> {
  const map = new Map<string, { path: string; resource: string; namespaced: boolean }>();
  const add = (gv: string, list: { resources?: Array<{ name: string; kind: string; namespaced: boolean }> }): void => {
    for (const r of list.resources ?? [])
      if (!r.name.includes('/'))
        map.set(`${gv.includes('/') ? gv.split('/')[0] : ''}|${r.kind}`, {
          path: gv.includes('/') ? `/apis/${gv}` : `/api/${gv}`,
          resource: r.name,
          namespaced: r.namespaced,
        });
  };
  add('v1', (await cp.admin('GET', '/api/v1')).json);
  for (const g of (await cp.admin('GET', '/apis')).json.groups as Array<{ preferredVersion: { groupVersion: string } }>) {
    const r = await cp.admin('GET', `/apis/${g.preferredVersion.groupVersion}`);
    if (r.status === 200) add(g.preferredVersion.groupVersion, r.json);
  }
  return map;
}

const groupOf = (av: string | undefined): string => (av && av.includes('/') ? av.split('/')[0]! : '');

/** Each loaded object as the API server holds it (managedFields and Secret values left out of the fixture). */
async function readBack(cp: ControlPlane, objs: KObject[]): Promise<{ objects: KObject[]; paths: Map<string, string> }> {
  const types = await discover(cp);
  const out: KObject[] = [];
  const paths = new Map<string, string>();
  for (const o of objs) {
    const t = types.get(`${groupOf(o.apiVersion)}|${o.kind}`);
    if (!t) continue;
    const p = `${t.path}${t.namespaced ? `/namespaces/${o.metadata.namespace}` : ''}/${t.resource}/${o.metadata.name}`;
    const r = await cp.admin('GET', p);
    if (r.status !== 200) continue;
    const got = r.json as KObject;
    delete (got.metadata as { managedFields?: unknown }).managedFields;
    if (got.kind === 'Secret') {
      for (const k of Object.keys(got.data ?? {})) got.data[k] = '';
    }
    got.apiVersion = got.apiVersion ?? o.apiVersion;
    got.kind = got.kind ?? o.kind;
    out.push(got);
    paths.set(objectText(got), p);
  }
  return { objects: out, paths };
}

/** The API server's answer to one change: the changed object PUT with dryRun=All (nothing is stored). */
async function ask(cp: ControlPlane, path: string, body: KObject): Promise<Answer> {
  const r = await cp.admin('PUT', `${path}?dryRun=All`, body);
  const causes = ((r.json?.details?.causes ?? []) as Array<{ field?: string }>).map((c) => c.field ?? '').filter(Boolean);
  return { status: r.status, fields: causes, ...(r.status >= 300 ? { message: String(r.json?.message ?? r.text).slice(0, 600) } : {}) };
}

describe.each(DIFFERENCE_VERSIONS.map((v) => [v] as const))('%s', (version) => {
  test('what-if -f agrees with the real API server on ≥ 99.5% of ≥ 2,000 changes, live and from a snapshot', async () => {
    const bin = version === DEFAULT_VERSION ? buildApiserver() : buildApiserverAt(version);
    const cp = await startControlPlane({ apiserver: bin, admission: ['PersistentVolumeClaimResize'] });
    try {
      await grantReaders(cp);
      await loadScenario(cp, baseObjects());
      const { objects, paths } = await readBack(cp, baseObjects());
      const changes = generate(objects, SEED);
      const answers: Answer[] = new Array(changes.length);
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < changes.length) {
            const i = next++;
            const c = changes[i]!;
            const base = objects.find((o) => objectText(o) === c.object)!;
            answers[i] = await ask(cp, paths.get(c.object)!, applyChange(base, c.ops));
          }
        }),
      );
      const fx: Fixture = { version, seed: SEED, objects, changes: changes.map((c, i) => ({ ...c, answer: answers[i]! })) };
      // the snapshot what-if -f reads offline, taken by the plugin as the reader
      const snap = await kubectl(['arch', 'snapshot', '--kubeconfig', cp.kubeconfig, '--context', 'reader']);
      expect(snap.code).toBe(0);
      mkdirSync(FIXTURES, { recursive: true });
      writeFileSync(join(FIXTURES, `${version}.json`), JSON.stringify(fx) + '\n');
      writeFileSync(join(FIXTURES, `${version}.snapshot.yaml`), snap.stdout);
      const live = agreement(fx);
      const offline = agreement(fx, { snapshot: loadSnapshot(join(FIXTURES, `${version}.snapshot.yaml`)) });
      const report = (name: string, a: typeof live): string =>
        `${version} ${name}: ${a.agree}/${a.total} agree (${(a.rate * 100).toFixed(2)}%), ${a.secrets} changes of Secrets not judged (never read)\n${a.disagreements.join('\n')}`;
      process.stdout.write(`${report('live', live)}\n${report('snapshot', offline)}\n`);
      expect(changes.length).toBeGreaterThanOrEqual(2000);
      expect(fx.changes.filter((c) => c.answer.status !== 200 && c.answer.status !== 201).length).toBeGreaterThan(100);
      expect(live.rate).toBeGreaterThanOrEqual(0.995);
      expect(offline.rate).toBeGreaterThanOrEqual(0.995);
    } finally {
      await cp.stop();
    }
  }, 3_600_000);
});
