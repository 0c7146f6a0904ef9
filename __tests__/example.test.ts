// The embedded example (examples/field-notes-k3s, behind `npm run demo`) is generated from the scenario
// declarations by `npm run gen`; this fails when the committed files are stale.
import { expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, files } from '../src/scenarios/index.js';
import { allScenarios } from './helpers/scenarios.js';
import { arch, ROOT } from './helpers/run.js';
import { CHECKS } from '../src/checks/registry.js';
import { withChecksTable } from '../src/checks/docs.js';
import { EXAMPLE } from './helpers/fixtures.js';

test('examples/field-notes-k3s is what npm run gen writes from the scenario declarations', async () => {
  const example = (await allScenarios()).filter((s) => s.example && s.base === 'field-notes');
  expect(example.map((s) => s.name).sort()).toEqual(['coredns-retry-loop', 'deleted-argo-app']);
  const want = files(build(example));
  expect(readdirSync(EXAMPLE).sort()).toEqual([...want.keys()].sort());
  for (const [f, text] of want) expect([f, readFileSync(join(EXAMPLE, f), 'utf8') === text]).toEqual([f, true]);
});

test("the README's checks table is generated from the checks' own docs (npm run gen)", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  expect(withChecksTable(readme, CHECKS)).toBe(readme);
  for (const c of CHECKS) expect(readme).toContain(`| \`${c.id}\` | ${c.docs.summary} |`);
});

test("the README's map of the example is what `kubectl arch map` prints on it (npm run gen)", async () => {
  const { withExampleMap } = await import('../src/map/readme.js');
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  expect(withExampleMap(readme, 'examples/field-notes-k3s')).toBe(readme);
  const r = await arch(['map', '--snapshot', 'examples/field-notes-k3s']);
  expect(readme).toContain(r.stdout);
});
