// Every scenario (src/checks/<id>/scenario.ts) held to its declared expectations offline, as built: the same
// declarations the real-cluster suite loads into a real kube-apiserver (e2e/), so a scenario that is wrong
// shows here first, in seconds.
import { describe, expect, test } from '@jest/globals';
import { CHECKS } from '../src/checks/registry.js';
import { runChecks } from '../src/checks/run.js';
import { exitFor } from '../src/commands/common.js';
import { worstRank } from '../src/model.js';
import { build } from '../scenarios/index.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { allScenarios } from './helpers/scenarios.js';

const scenarios = await allScenarios();
const title = (want: string | undefined, got: string): boolean =>
  !want || (want.startsWith('/') && want.endsWith('/') ? new RegExp(want.slice(1, -1)).test(got) : want === got);

test('every registered check has a scenario that shows one of its codes (those a real API server cannot show say so)', () => {
  for (const c of CHECKS) {
    const mine = scenarios.filter((s) => s.expect.findings.some((f) => f.code in c.codes));
    expect([c.id, mine.length > 0]).toEqual([c.id, true]);
  }
  for (const s of scenarios.filter((x) => x.offlineOnly)) expect(s.offlineOnly!.length).toBeGreaterThan(20);
});

describe.each(scenarios.map((s) => [s.name, s] as const))('scenario %s offline', (_name, scenario) => {
  test('its declared findings, absences and exit code', () => {
    const { objects, header } = build([scenario]);
    const snap = new Snapshot(header);
    for (const o of objects) snap.addObject(o);
    const results = runChecks(CHECKS, snap);
    const all = results.flatMap((r) => r.findings);
    for (const want of scenario.expect.findings) {
      const hit = all.find((f) => f.code === want.code && (!want.severity || f.severity === want.severity) && title(want.title, f.title));
      expect([want.code, hit?.title ?? all.map((f) => `${f.code} ${f.severity} ${f.title}`).join(' | ')]).toEqual([want.code, hit?.title]);
    }
    for (const code of scenario.expect.absent ?? []) expect(all.map((f) => f.code)).not.toContain(code);
    if (scenario.expect.onlyInfo) expect(all.filter((f) => f.severity !== 'info').map((f) => f.code)).toEqual([]);
    if (scenario.expect.exitCode !== undefined) expect(exitFor(worstRank(all), 'error')).toBe(scenario.expect.exitCode);
    // no check may fail inside
    expect(results.filter((r) => /internal error/.test(r.reason ?? '')).map((r) => r.id)).toEqual([]);
  });
});
