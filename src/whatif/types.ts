// What a prediction is, and what one unit of what-if's own predictions declares — the way a check declares itself:
// its code, the inputs it reads (and what is lost without each), its docs, and the function that predicts. The
// runner (./predict.ts), not the unit, says "not judged: X was not visible" for every input a unit lacks, and the
// verdict and the --fail-on gate come from one place for all of them.
import type { Prediction, Unjudged, WhatIfContract } from '../model.js';

export type { Prediction, Unjudged, WhatIfContract };
import type { Cluster } from './cluster.js';
import type { Hypothesis } from './hypothesis.js';

/** An input of a unit. subject: without it the unit predicts nothing; evidence: it predicts, but cannot say that
 *  nothing breaks — either way, when it is not visible the verdict cannot be "safe"; context: read when there, a
 *  prediction is as sound without it (what-if fetches it, nothing is lost). */
export interface UnitNeed {
  group: string;
  kind: string;
  resource: string;
  role: 'subject' | 'evidence' | 'context';
  /** What cannot be predicted without it. */
  lost: string;
  /** Only where this holds (e.g. PersistentVolumes only when a pod there has a claim). */
  relevant?: (c: Cluster) => boolean;
  /** Another type that serves as well (EndpointSlices or Endpoints): not missing while that one is visible. */
  or?: { group: string; kind: string; resource: string };
  /** The field paths it reads of this type (what a snapshot keeps is held to these declarations). */
  fields: readonly string[];
}

/** What a unit could not judge beyond its declared inputs (e.g. a budget whose status is missing). */

export interface UnitResult {
  predictions: Prediction[];
  unjudged?: Array<{ what: string }>;
}

export interface PredictionUnit {
  id: string;
  code: string;
  /** One line: what the code means (explain, completion). */
  title: string;
  contract: WhatIfContract;
  needs: UnitNeed[];
  /** Types it reads when they are there, without needing them (a workload's wanted replicas), with the fields. */
  reads?: ReadonlyArray<{ group: string; kind: string; fields: readonly string[] }>;
  /** Only for some hypotheses (WI08: a removal). */
  applies?: (h: Hypothesis) => boolean;
  docs: { what: string; why: string; limits: string };
  predict(c: Cluster): UnitResult;
}

export const definePrediction = (u: PredictionUnit): PredictionUnit => u;

/** A unit's input from a resource type (src/resources.ts): its role, what is lost without it, and what it reads of it. */
export const input = (
  t: { group: string; kind: string; resource: string },
  role: UnitNeed['role'],
  lost: string,
  more: { relevant?: UnitNeed['relevant']; or?: UnitNeed['or']; fields: readonly string[] },
): UnitNeed => ({
  group: t.group,
  kind: t.kind,
  resource: t.resource,
  role,
  lost,
  fields: more.fields,
  ...(more.relevant ? { relevant: more.relevant } : {}),
  ...(more.or ? { or: more.or } : {}),
});

export const refText = (r: { kind: string; namespace?: string; name: string }): string =>
  `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
export const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
