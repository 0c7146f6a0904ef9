// what-if -f, proven on a real kube-apiserver (#40): for every case of the corpus that core Kubernetes can replay
// (src/change/cases/<slug>/expected.yaml: e2e true), on a fresh control plane the harness loads the cluster as it was
// (live.yaml), `kubectl arch what-if -f new.yaml` predicts as the read-only reader, then the harness applies new.yaml
// for real, one object at a time with `kubectl apply` as the admin (the harness may write; the plugin never does). The
// objects the API server refuses must be exactly the predicted ones — none missed, none invented — and its words those
// the prediction quotes.
import { describe, expect, test } from '@jest/globals';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, loadAll, load } from 'js-yaml';
import { startControlPlane } from './lib/cluster.mjs';
import { controlPlaneBinaries } from './lib/setup.js';
import { loadScenario } from './lib/load.mjs';
import { grantReaders } from './lib/readers.mjs';
import { kubectl, ROOT } from '../__tests__/helpers/run.js';

interface Expected {
  refused: Array<{ object: string; field: string; code: string; error?: string }>;
  e2e?: boolean;
}
type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; [k: string]: unknown };

const bins = controlPlaneBinaries();
const DIR = join(ROOT, 'src/change/cases');
const cases = readdirSync(DIR, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .filter((c) => (load(readFileSync(join(DIR, c, 'expected.yaml'), 'utf8')) as Expected).e2e === true)
  .sort();
const refText = (o: { kind: string; metadata: { namespace?: string; name: string } }): string =>
  `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
const docs = (file: string): Obj[] => (loadAll(readFileSync(file, 'utf8')) as Obj[]).filter((o) => o && typeof o === 'object' && o.kind);

test('the corpus has cases the real API server replays', () => {
  expect(cases.length).toBeGreaterThanOrEqual(15);
});

describe.each(cases.map((c) => [c] as const))('%s', (slug) => {
  test('the objects the real API server refuses are exactly the predicted ones, in its words', async () => {
    const exp = load(readFileSync(join(DIR, slug, 'expected.yaml'), 'utf8')) as Expected;
    // the resize admission plugin on, as in every real cluster (the harness turns it off for the other suites)
    const cp = await startControlPlane({ apiserver: bins.apiserver, admission: ['PersistentVolumeClaimResize'] });
    const tmp = mkdtempSync(join(tmpdir(), 'ka-change-'));
    try {
      await grantReaders(cp);
      // the cluster as it was (custom resources after their CRDs)
      await loadScenario(cp, docs(join(DIR, slug, 'live.yaml')));
      // the prediction, read-only, as the reader
      const p = await kubectl([
        'arch',
        'what-if',
        '-f',
        join(DIR, slug, 'new.yaml'),
        '--kubeconfig',
        cp.kubeconfig,
        '--context',
        'reader',
        '-o',
        'json',
        '--fail-on',
        'none',
      ]);
      expect([p.code, p.stderr]).toEqual([0, '']);
      const predicted = JSON.parse(p.stdout) as {
        objects: Array<{ ref: { kind: string; namespace?: string; name: string }; state: string; why?: string }>;
        predictions: Array<{ code: string; objects: Array<{ kind: string; namespace?: string; name: string }>; apiError?: string }>;
      };
      const name = (r: { kind: string; namespace?: string; name: string }): string =>
        `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
      const refusals = predicted.predictions.filter((x) => x.code === 'ARCH-WI20' || x.code === 'ARCH-WI21');
      // every object the prediction says would be refused, whatever the reason (a field, the door)
      const predictedSet = predicted.objects
        .filter((o) => o.state === 'refused')
        .map((o) => name(o.ref))
        .sort();
      // the same manifests applied for real, each object on its own, as the admin
      const real = new Map<string, string>();
      for (const [i, o] of docs(join(DIR, slug, 'new.yaml')).entries()) {
        const f = join(tmp, `${i}.yaml`);
        writeFileSync(f, dump(o));
        const r = await kubectl(['apply', '-f', f, '--kubeconfig', cp.kubeconfig, '--context', 'admin']);
        if (r.code !== 0) real.set(refText(o), r.stderr);
      }
      const refused = [...real.keys()].sort();
      expect({
        refused: predictedSet,
        states: predicted.objects.map((o) => `${name(o.ref)}: ${o.state}${o.why ? ` (${o.why})` : ''}`),
      }).toEqual({
        refused,
        states: expect.anything(),
      });
      expect(refused).toEqual(exp.refused.map((x) => x.object).sort());
      for (const x of refusals) {
        const key = name(x.objects[0]!);
        const said = real.get(key)!.replace(/\s+/g, ' ');
        // the prediction quotes the API server: its words up to an elided value (a Job's whole template), and after it
        // kubectl says "The Deployment \"x\" is invalid: …" where the API server says "Deployment.apps \"x\" is invalid: …":
        // what follows is the API server's own; a value the prediction cannot know (a whole Job template) is elided
        const words = x.apiError!.replace(/^.*? is (invalid|forbidden): /, '');
        for (const part of words.split('…')) expect(said).toContain(part.trim());
      }
    } finally {
      await cp.stop();
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 240_000);
});
