// One way to write a check (src/checks/<id>/check.ts, see registry.ts): a stable id, its finding codes (declared
// `as const`, so a mistyped code does not compile), where it belongs on the map, the inputs it needs (each with its
// role and what is lost without it: the runner turns that into the "not visible" note), which inputs prove each
// code, its documentation (explain and the README's checks table are generated from it) and a pure function from
// the snapshot to findings.
import type { Step } from '../lib/shell.js';
import type { Contract, Finding, Need, NodeGet, ObjectRef, Severity } from '../model.js';
import { detectDistribution, type Distribution } from '../fingerprint.js';
import type { Snapshot } from '../snapshot/snapshot.js';

export interface CheckContext {
  snap: Snapshot;
  /** The time the evidence was captured (snapshot header), else now: "recent" is relative to it. */
  now: Date;
  deep: boolean;
  settings: Settings;
}

/** Thresholds a user can set (doctor flags); checks read them here, never from the command line. */
export interface Settings {
  /** How long an object or namespace may stay deleting before it counts as stuck (--stuck-after). */
  stuckAfterMs: number;
}

export const DEFAULT_SETTINGS: Settings = { stuckAfterMs: 10 * 60_000 };

/**
 * What an input is to a check (the rule: judge from what is visible; skip only when nothing is):
 * - subject: the objects it judges (webhook configurations, APIServices, Events, Applications…); with none of
 *   its subjects visible a check is skipped, with some it judges those;
 * - evidence: without it a finding could be missed (whether a Service has ready endpoints): a clean result is then
 *   "partial", never "passed";
 * - context: refines what is found (liveness, live values, advice): without it a clean result stays "passed".
 * A type that is not served at all (CRD not installed: 404) holds no objects, so it is visible and empty.
 */
export type NeedRole = 'subject' | 'evidence' | 'context';

/** An input of a check: what to list, its role, and what the check can no longer judge without it (the runner's
 *  "not visible" note, and `explain`'s WITHOUT section). */
export type CheckNeed = Need & {
  role: NeedRole;
  lost: string;
  /** The role on this cluster, when it depends on what else is visible (namespaces become what the aggregated-APIs
   *  check judges when APIServices are not visible). */
  roleHere?: (snap: Snapshot) => NeedRole;
  /** Another type that carries the same evidence (Endpoints and EndpointSlices): with either visible, nothing is lost. */
  or?: Pick<Need, 'group' | 'kind'>;
  /** Whether the input matters on this cluster (a k0s EtcdMember on K3s does not): when not, its absence is no gap. */
  relevant?: (snap: Snapshot) => boolean;
};

const distributions = new WeakMap<Snapshot, Distribution>();
/** An input that matters only on these distributions (and wherever the distribution cannot be told). */
export const onlyOn =
  (...ds: Distribution[]) =>
  (snap: Snapshot): boolean => {
    let d = distributions.get(snap);
    if (!d) distributions.set(snap, (d = detectDistribution(snap).distribution));
    return d === 'unknown' || ds.includes(d);
  };

/** A finding as a check makes it; the runner stamps the check's id. */
export type Draft<C extends string = string> = Omit<Finding, 'checkId' | 'code'> & { code: C };

export interface CheckOutput<C extends string = string> {
  findings: Array<Draft<C>>;
  /** One line for a clean result: what was looked at. */
  passed?: string;
  /** Set when nothing could be evaluated, or the evidence cannot decide. */
  skipped?: string;
  /** With skipped: the inputs were there, but what they show cannot decide (etcd quorum with members of unknown
   *  health) — never a sign that nothing is wrong (what-if: never "safe" on it). */
  undecided?: boolean;
  /** Inputs the check found it could not judge by although they were visible or absent (e.g. a type a version should
   *  serve, not served): a clean result is then partial, as for a gap. */
  unjudged?: string[];
  /** What could not be seen beyond the declared needs (partial visibility). */
  notes?: string[];
}

export interface CheckDocs {
  /** One line for the README's checks table. */
  summary: string;
  what: string;
  why: string;
  fix: string;
  /** What the evidence can and cannot prove. */
  limits?: string;
}

export type { NodeGet };

/** Where a check's results belong on the map (and the page): a contract, a part of it, and for a part whose
 *  objects the findings do not name, which findings concern it. The first check on a part is the primary one. */
export interface MapPlace {
  contract: Contract;
  /** A part the map draws ('etcd', 'admission webhooks', 'DNS'…), or a new one: it is then drawn as its own line. */
  part: string;
  /** Findings that concern this part, by their words (when a check's findings concern several parts). */
  about?: RegExp;
  /** Listed first on the part (e.g. etcd-quorum before apiserver-readiness on etcd). */
  primary?: boolean;
}

/** Words that make a finding concern a GitOps controller's part of the map (retry loops and orphans share them). */
export const ABOUT = {
  argo: /Argo CD|argoproj\.io|\bApplication\b/,
  flux: /Flux|fluxcd\.io|\bKustomization\b|\bHelmRelease\b/,
} as const;

export interface Check<C extends string = string> {
  id: string;
  /** Where its results belong on `map` (contract and parts); the map reads it, no check id is written there. */
  map: MapPlace[];
  title: string;
  /** The worst severity it can report. */
  severity: Severity;
  /** Finding codes it can emit, with their meaning (stable, never reused). */
  codes: Readonly<Record<C, string>>;
  needs: CheckNeed[];
  /** Types it reads when another input brought them, without needing them (a live value for its advice), with the
   *  fields it reads of each. */
  reads?: ReadonlyArray<Pick<Need, 'group' | 'kind' | 'fields'>>;
  /** The inputs a finding of a code is proven by (types as Kind or Kind.group): without one of them it may not appear,
   *  or appear as another code (an orphan's liveness, a member's health). The rest of its inputs only refine it. */
  proofs?: Partial<Record<C, readonly string[]>>;
  /** Also read every listable type the API server offers (discovery), metadata only. */
  allTypes?: boolean;
  /** What --deep adds: per-node GETs. */
  deep?: NodeGet[];
  docs: CheckDocs;
  run(ctx: CheckContext): CheckOutput<C>;
}

/** Infers the check's codes so every finding it makes is checked against them. */
export const defineCheck = <const C extends string>(c: Check<C>): Check<C> => c;

/** The one way to make a finding. */
export function finding<C extends string>(
  code: C,
  severity: Severity,
  title: string,
  message: string,
  rest: { objects?: ObjectRef[]; evidence?: Record<string, unknown>; why?: string; fix?: Step[] } = {},
): Draft<C> {
  return {
    code,
    severity,
    title,
    message,
    objects: rest.objects ?? [],
    evidence: rest.evidence ?? {},
    ...(rest.why ? { why: rest.why } : {}),
    ...(rest.fix ? { fix: rest.fix } : {}),
  };
}
