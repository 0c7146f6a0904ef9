// "Safe" means safe: hiding any one input (as RBAC or a partial capture would) never turns a verdict into "safe" that
// was "not safe" or "not judged" with it — over the what-if corpus (every case, every type it holds), and sampled over
// the checks' corpus and the example (any node, any type).
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { CHECKS } from '../src/checks/registry.js';
import { evidenceTime } from '../src/checks/run.js';
import { R } from '../src/resources.js';
import { loadSnapshot } from '../src/snapshot/load.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { whatIf } from '../src/whatif/predict.js';
import { EXAMPLE } from './helpers/fixtures.js';
import { ROOT } from './helpers/run.js';
import { SEED } from './helpers/seed.js';

/** The snapshot as a user without access to one type would have it (403, as RBAC answers). */
function without(snap: Snapshot, type: string): Snapshot {
  const out = new Snapshot({ ...snap.finalHeader(), captured: [], unavailable: [] });
  out.headerless = snap.headerless;
  for (const [key, items] of snap.lists()) if (key !== type) out.addList(groupOfKey(key), kindOfKey(key), items);
  for (const k of snap.kinds()) if (k !== type && !snap.lists().some(([x]) => x === k)) out.addList(groupOfKey(k), kindOfKey(k), []);
  for (const u of snap.unavailable()) out.markUnavailable(u);
  out.markUnavailable({
    group: groupOfKey(type),
    kind: kindOfKey(type),
    resource: kindOfKey(type).toLowerCase(),
    status: 403,
    reason: 'forbidden (test)',
  });
  return out;
}
const groupOfKey = (k: string): string => (k.includes('.') ? k.slice(k.indexOf('.') + 1) : '');
const kindOfKey = (k: string): string => k.split('.')[0]!;

const verdict = async (snap: Snapshot, nodes: string[], remove: boolean): Promise<string> =>
  (await whatIf(snap, { nodes, remove }, evidenceTime(snap), CHECKS)).verdict.state;

const CASES: Array<{ name: string; dir: string; nodes: string[]; remove: boolean }> = [];
const UNITS = join(ROOT, 'src/whatif/predictions');
for (const u of readdirSync(UNITS))
  if (existsSync(join(UNITS, u, 'cases')))
    for (const c of readdirSync(join(UNITS, u, 'cases'))) {
      const e = load(readFileSync(join(UNITS, u, 'cases', c, 'expected.yaml'), 'utf8')) as { nodes: string[]; remove?: boolean };
      CASES.push({ name: c, dir: join(UNITS, u, 'cases', c), nodes: e.nodes, remove: Boolean(e.remove) });
    }

describe('hiding one input never makes a verdict "safe" (the what-if corpus, every type)', () => {
  test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const snap = loadSnapshot(join(c.dir, 'snapshot.yaml'));
    const full = await verdict(snap, c.nodes, c.remove);
    for (const t of snap.kinds()) {
      const v = await verdict(without(snap, t), c.nodes, c.remove);
      if (full !== 'safe') expect([t, v]).not.toEqual([t, 'safe']);
    }
  });
});

describe(`hiding one input never makes a verdict "safe" (the checks' corpus and the example, sampled) [seed ${SEED}]`, () => {
  const dirs = [
    EXAMPLE,
    ...readdirSync(join(ROOT, 'src/checks')).flatMap((c) =>
      existsSync(join(ROOT, 'src/checks', c, 'cases'))
        ? readdirSync(join(ROOT, 'src/checks', c, 'cases')).map((x) => join(ROOT, 'src/checks', c, 'cases', x, 'snapshot.yaml'))
        : [],
    ),
  ];
  // snapshots with nodes to take down (the others have nothing to predict)
  const snaps = dirs.map((d) => loadSnapshot(d)).filter((s) => s.of(R.nodes).length > 0 && s.kinds().length > 1);
  test('any snapshot, any node, removed or down, any one type hidden', async () => {
    expect(snaps.length).toBeGreaterThan(20);
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.nat(), fc.nat(), fc.boolean(), async (k, i, j, remove) => {
        const snap = snaps[k % snaps.length]!;
        const nodes = snap.of(R.nodes).map((n) => n.metadata.name);
        const types = snap.kinds();
        const node = nodes[i % nodes.length]!;
        const t = types[j % types.length]!;
        const full = await verdict(snap, [node], remove);
        if (full === 'safe') return;
        expect([node, t, await verdict(without(snap, t), [node], remove)]).not.toEqual([node, t, 'safe']);
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});
