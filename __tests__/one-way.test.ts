// One way to write a check: a fourth check (a test fixture, not shipped) needs only its file, its scenario file,
// this test and one registry line — the runner, explain, the README table and the scenario builder take it as is.
import { describe, expect, test } from '@jest/globals';
import { checksTable, explainText } from '../src/checks/docs.js';
import { CHECKS } from '../src/checks/registry.js';
import { runChecks } from '../src/checks/run.js';
import { build } from '../src/scenarios/index.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { pendingLoadBalancer } from './fixtures/demo-check/pending-load-balancer.js';
import { scenarios } from './fixtures/demo-check/pending-load-balancer.scenario.js';
import { runCheck } from './helpers/check.js';
import { R } from '../src/resources.js';

// the one registry line
const REGISTRY = [...CHECKS, pendingLoadBalancer];

describe('a fourth check, written the one way', () => {
  test('runs on its scenario, built by the shared builder, with findings stamped by the runner', () => {
    const { objects, header } = build(scenarios);
    const snap = new Snapshot(header);
    for (const o of objects) snap.addObject(o);
    const r = runChecks(REGISTRY, snap).find((c) => c.id === 'pending-load-balancer')!;
    expect(r.findings).toEqual([
      expect.objectContaining({
        code: 'ARCH-LB01',
        checkId: 'pending-load-balancer',
        title: 'Service sandbox/gateway has no external address',
      }),
    ]);
  });

  test('its "not visible" note comes from the need it declared, not from code it wrote', () => {
    const r = runCheck(pendingLoadBalancer, [], {
      without: [R.nodes],
      prepare: (s) => s.markUnavailable({ group: '', kind: 'Node', status: 403, reason: 'forbidden' }),
    });
    expect(r.notes).toEqual(['Node: forbidden — whether a cloud provider runs cannot be told']);
  });

  test('explain and the README table come from its docs', () => {
    expect(explainText(pendingLoadBalancer)).toMatch(/LoadBalancer Services without an address \[pending-load-balancer\][\s\S]*ARCH-LB01/);
    expect(checksTable(REGISTRY)).toContain(
      '| `pending-load-balancer` | LoadBalancer Services that never got an external address (no load-balancer implementation) | ARCH-LB01 |',
    );
  });
});
