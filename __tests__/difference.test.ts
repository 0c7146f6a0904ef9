// The difference test offline (#45): the real kube-apiservers' answers recorded by the e2e suite
// (e2e/difference.e2e.test.ts, which refreshes __tests__/fixtures/difference/) — v1.24, v1.25 and v1.36 — and
// what-if -f's predictions of the same changes, read as a live run reads them and from each cluster's snapshot. The
// same verdict and the same fields on ≥ 99.5% of ≥ 2,000 changes per version; every disagreement is printed.
import { describe, expect, test } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSnapshot } from '../src/snapshot/load.js';
import { agreement, serverVerdict, type Fixture } from './helpers/agreement.js';
import { applyChange, generate, objectText } from './helpers/difference.js';
import { ROOT } from './helpers/run.js';

const DIR = join(ROOT, '__tests__/fixtures/difference');
const versions = existsSync(DIR)
  ? readdirSync(DIR)
      .filter((f) => /^v[\d.]+\.json$/.test(f))
      .map((f) => f.replace(/\.json$/, ''))
      .sort()
  : [];
const load = (v: string): Fixture => JSON.parse(readFileSync(join(DIR, `${v}.json`), 'utf8')) as Fixture;

test('answers of three Kubernetes minor versions are recorded', () => {
  expect(new Set(versions.map((v) => /^v1\.(\d+)/.exec(v)![1])).size).toBeGreaterThanOrEqual(3);
});

describe.each(versions.map((v) => [v] as const))('%s', (version) => {
  const fx = load(version);

  test('the changes are the seeded generator’s, over the objects as the server held them', () => {
    // regenerating from the recorded objects gives the same changes: the fixture is what the generator makes
    const again = generate(fx.objects, fx.seed);
    expect(again.map((c) => `${c.id} ${c.label}`)).toEqual(fx.changes.map((c) => `${c.id} ${c.label}`));
    expect(fx.changes.length).toBeGreaterThanOrEqual(2000);
    // both answers are well represented: the server refused some, accepted most
    const verdicts = fx.changes.map((c) => serverVerdict(c.answer).verdict);
    expect(verdicts.filter((v) => v === 'refuse').length).toBeGreaterThan(100);
    expect(verdicts.filter((v) => v === 'accept').length).toBeGreaterThan(1000);
    expect(verdicts.filter((v) => v === 'error')).toEqual([]);
    for (const c of fx.changes.slice(0, 5))
      expect(
        applyChange(
          fx.objects.find((o) => objectText(o) === c.object)!,
          c.ops,
        ),
      ).toBeTruthy();
  });

  test('read live: what-if -f agrees with the API server on ≥ 99.5% (every disagreement printed)', () => {
    const a = agreement(fx);
    if (a.disagreements.length) process.stdout.write(`${version} live: ${a.agree}/${a.total}\n${a.disagreements.join('\n')}\n`);
    expect(a.rate).toBeGreaterThanOrEqual(0.995);
  });

  test('from the snapshot: what-if -f agrees with the API server on ≥ 99.5% (every disagreement printed)', () => {
    const a = agreement(fx, { snapshot: loadSnapshot(join(DIR, `${version}.snapshot.yaml`)) });
    if (a.disagreements.length) process.stdout.write(`${version} snapshot: ${a.agree}/${a.total}\n${a.disagreements.join('\n')}\n`);
    expect(a.rate).toBeGreaterThanOrEqual(0.995);
  });
});
