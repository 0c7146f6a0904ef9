// The one way tests run a check: objects in, its result out, at one fixed capture time, with every type the
// check needs counted as captured (an empty list means "none exist") unless the test says otherwise.
import { runChecks } from '../../src/checks/run.js';
import type { Check } from '../../src/checks/types.js';
import type { CheckResult, KObject, Need } from '../../src/model.js';
import { CAPTURED } from '../../scenarios/field-notes.js';
import type { Snapshot } from '../../src/snapshot/snapshot.js';
import { snapshotOf } from './fixtures.js';

export const NOW = CAPTURED;
/** An ISO time `min` minutes before the capture. */
export const ago = (min: number): string => new Date(NOW - min * 60_000).toISOString();

export interface RunOptions {
  /** Types (beyond the check's needs) that count as captured. */
  captured?: Array<Pick<Need, 'group' | 'kind'>>;
  /** Needs of the check that were NOT captured (e.g. to test "not visible" notes). */
  without?: Array<Pick<Need, 'group' | 'kind'>>;
  readyz?: string;
  deep?: boolean;
  /** Per-node --deep answers, by NodeGet id. */
  perNode?: Record<string, Array<{ node: string; value?: unknown; error?: string }>>;
  /** Adjust the snapshot before the check runs (e.g. mark a type unavailable). */
  prepare?: (snap: Snapshot) => void;
}

export function checkSnapshot(check: Check, objects: KObject[], o: RunOptions = {}): Snapshot {
  const skip = new Set((o.without ?? []).map((n) => `${n.group}|${n.kind}`));
  const captured = [...check.needs, ...(o.captured ?? [])]
    .filter((n) => !skip.has(`${n.group}|${n.kind}`))
    .map((n) => ({ group: n.group, kind: n.kind }));
  const snap = snapshotOf(objects, { captured, readyz: o.readyz });
  if (o.perNode) snap.header.perNode = o.perNode;
  o.prepare?.(snap);
  return snap;
}

export function runCheck(check: Check, objects: KObject[], o: RunOptions = {}): CheckResult {
  return runChecks([check], checkSnapshot(check, objects, o), { deep: o.deep })[0]!;
}
