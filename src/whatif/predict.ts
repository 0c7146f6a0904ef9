// What breaks if these nodes go down (or are removed): every check run on the cluster as it would be
// (./hypothesis.ts), keeping the findings that appear, and what no check covers — the units of ./predictions/ (the
// only list: ./predictions/registry.ts). The verdict is made here, in one place: "safe" only when every input the
// predictions need was visible and nothing at or above --fail-on is predicted; "not safe" when something is; "not
// judged" otherwise, naming what was not visible (or that the deadline came first). The work yields between steps
// (progress, cancellation and an MCP server's pings go on) and stops at the run's deadline.
import { gapsOf, runChecks } from '../checks/run.js';
import type { Check } from '../checks/types.js';
import { quorumView } from '../etcd/quorum.js';
import { detectDistribution } from '../fingerprint.js';
import type { Deadline } from '../lib/deadline.js';
import type { MemoryGuard } from '../lib/memory.js';
import { faultKey, gkKey, SEVERITY_RANK, type CheckResult, type Finding, type Severity } from '../model.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { unjudgedBackends } from './backends.js';
import { Cluster } from './cluster.js';
import { CHANGED_TYPES, hypothesize, type Hypothesis } from './hypothesis.js';
import { UNITS } from './predictions/registry.js';
import type { Prediction, PredictionUnit, Unjudged, WhatIfContract } from './types.js';
import { command } from '../lib/shell.js';
export type { Prediction, WhatIfContract } from './types.js';

/** Findings that only restate the hypothesis (a server's lease goes stale with it) or cannot be predicted. */
const RESTATES = new Set(['ARCH-EQ05', 'ARCH-EQ07', 'ARCH-DNS03']);
const MANAGED = new Set(['EKS', 'GKE', 'AKS']);

const rank = (s: Severity): number => SEVERITY_RANK[s];

/** A finding's severity as a prediction: a reboot of one server of three keeps quorum, within what the cluster was
 *  built for — a warning, not a gate. */
export const severityIf = (f: Pick<Finding, 'code' | 'severity'>): Severity => (f.code === 'ARCH-EQ02' ? 'warning' : f.severity);

export type FailOn = Severity | 'none';

export interface WhatIfOptions {
  /** The gate: at or above it is "not safe" (default error). */
  failOn?: FailOn;
  /** The run's time limit: what is not judged by then is said so. */
  deadline?: Deadline;
  /** Near the memory limit the predictions not yet made are not judged (#48). */
  memory?: MemoryGuard;
  /** Cancellation (an MCP call cancelled): stops at the next step. */
  signal?: AbortSignal;
  /** Called between steps; resolves when the caller may go on (default: the next turn of the event loop). */
  pause?: () => Promise<void>;
  /** What is being predicted, for progress. */
  progress?: (what: string) => void;
  /** Keep the cluster as it would be for a page (asItWouldBe); otherwise it is let go as soon as it is judged, so each
   *  node alone is not predicted while every pod copied for all the nodes is still held (50,000 objects, three nodes:
   *  274 MB peak with it held). */
  keepCluster?: boolean;
}

export interface Verdict {
  /** true: safe; false: not safe; null: not judged, or no gate (--fail-on none). */
  safe: boolean | null;
  state: 'safe' | 'not safe' | 'not judged' | 'no gate';
  failOn: FailOn;
}

export interface OneAtATime {
  /** As the verdict: null when a node's prediction is not judged. */
  safe: boolean | null;
  each: Array<{ node: string; worst: Severity | null; notJudged?: string }>;
}

export interface WhatIfResult {
  hypothesis: Hypothesis;
  predictions: Prediction[];
  /** What could not be judged: by contract, what was not visible and who needed it. */
  notJudged: Unjudged[];
  /** For several nodes: each alone, and whether one at a time is safe (null for one node). */
  oneAtATime: OneAtATime | null;
  notes: string[];
  verdict: Verdict;
  /** The cluster as it would be and every check's result on it (what `what-if -o html` draws), with keepCluster only;
   *  not in -o json. */
  asItWouldBe: { snapshot: Snapshot; results: CheckResult[] } | null;
}

/** Why the work stopped: a cancellation, the memory limit, or the deadline. */
const cutWhy = (opts: WhatIfOptions, deadlineVerb: string): string =>
  opts.signal?.aborted
    ? 'cancelled'
    : opts.memory?.reached
      ? opts.memory.text()
      : `the deadline (${opts.deadline?.text()}) ${deadlineVerb}`;

/** The deadline or a cancellation came before the work was done. */
export class Cut extends Error {}

const contractOf = (checks: Check[], id: string): WhatIfContract => checks.find((c) => c.id === id)?.map[0]?.contract ?? 'workloads';
const typeKey = (n: { group: string; kind: string }): string => gkKey(n.group, n.kind);

/** The checks whose findings a node going down can make appear or worsen: those that judge by (subject or evidence) a
 *  type the hypothesis changes. One that reads such a type only as context (the orphan scan: whether an orphan still
 *  runs) can only find the same or milder, so its result on the cluster as it is stands. */
const reactive = (checks: Check[]): Check[] =>
  checks.filter((c) => c.needs.some((n) => n.role !== 'context' && CHANGED_TYPES.has(typeKey(n))));

/** The verdict at a gate, from what is predicted and what could not be judged. */
export function verdictOf(predictions: Array<Pick<Prediction, 'severity'>>, notJudged: unknown[], failOn: FailOn): Verdict {
  if (failOn === 'none') return { safe: null, state: 'no gate', failOn };
  if (predictions.some((p) => rank(p.severity) >= rank(failOn))) return { safe: false, state: 'not safe', failOn };
  if (notJudged.length) return { safe: null, state: 'not judged', failOn };
  return { safe: true, state: 'safe', failOn };
}

export interface Step {
  pause: () => Promise<void>;
}
export function stepper(opts: WhatIfOptions): Step {
  const wait = opts.pause ?? (() => new Promise<void>((r) => setImmediate(r)));
  return {
    pause: async () => {
      await wait();
      if (opts.signal?.aborted || opts.deadline?.passed() || opts.memory?.near()) throw new Cut();
    },
  };
}

/** The inputs a unit lacks (declared and relevant), as what could not be judged. */
function unitGaps(u: PredictionUnit, c: Cluster): { blind: boolean; unjudged: Unjudged[] } {
  const missing = u.needs.filter(
    (n) => n.role !== 'context' && (!n.relevant || n.relevant(c)) && c.snap.gap(n) && !(n.or && !c.snap.gap(n.or)),
  );
  const subjects = u.needs.filter((n) => n.role === 'subject');
  const blind = subjects.length > 0 && subjects.every((n) => missing.includes(n));
  return {
    blind,
    unjudged: missing.map((n) => ({ contract: u.contract, what: `${typeKey(n)} (${c.snap.gap(n)!.reason})`, by: u.id, lost: n.lost })),
  };
}

/** Units on one cluster as it would be: each that applies and sees a subject predicts; what each lacks is not judged. */
export function runUnits(c: Cluster, units: PredictionUnit[]): { predictions: Prediction[]; notJudged: Unjudged[] } {
  const predictions: Prediction[] = [];
  const notJudged: Unjudged[] = [];
  for (const u of units) {
    if (u.applies && !u.applies(c.h)) continue;
    const g = unitGaps(u, c);
    notJudged.push(...g.unjudged);
    if (g.blind) continue;
    const out = u.predict(c);
    predictions.push(...out.predictions);
    for (const x of out.unjudged ?? []) notJudged.push({ contract: u.contract, what: x.what, by: u.id });
  }
  return { predictions, notJudged };
}

/** One hypothesis: the checks' new findings and every unit's predictions, with what could not be judged. */
export async function predictOnce(
  snap: Snapshot,
  h: Hypothesis,
  now: Date,
  checks: Check[],
  base: CheckResult[],
  step: Step,
  keep: boolean,
): Promise<{ predictions: Prediction[]; notJudged: Unjudged[]; asItWouldBe: WhatIfResult['asItWouldBe'] }> {
  const hyp = hypothesize(snap, h, now);
  const before = new Map(base.flatMap((r) => r.findings.map((f) => [faultKey(f), f] as const)));
  const objs = (f: Finding): Set<string> => new Set(f.objects.map((o) => `${o.kind}/${o.namespace ?? ''}/${o.name}`));
  // the same fault already reported, as it is: the same code on some of the same objects (its object list can shrink
  // with the nodes), or the same objects under a milder code of the same check (an orphan that stops running)
  const known = (f: Finding): boolean =>
    base.some((r) =>
      r.findings.some((b) => {
        if (rank(b.severity) < rank(f.severity)) return false;
        const a = objs(b);
        const shared = [...objs(f)].some((x) => a.has(x));
        return (
          (b.code === f.code && (shared || (!a.size && !f.objects.length))) ||
          (b.checkId === f.checkId && shared && faultKey(b) !== faultKey(f) && a.size === objs(f).size)
        );
      }),
    );
  const predicted: Prediction[] = [];
  const notJudged: Unjudged[] = [];
  // quorum findings end with the count as it would be; removing several members says how to do it safely
  let quorumAfter: string | undefined;
  const afterLine = (): string => (quorumAfter ??= quorumView(hyp, now).verdictLine);
  const membersRemoved = h.remove ? quorumView(snap, now).members.filter((m) => m.node && h.nodes.includes(m.node)).length : 0;
  const results: CheckResult[] = [];
  const moving = new Set(reactive(checks).map((c) => c.id));
  for (const check of checks) {
    // a check that reads nothing the hypothesis changes finds what it found before
    const r = moving.has(check.id) ? runChecks([check], hyp, { now })[0]! : base.find((b) => b.id === check.id)!;
    results.push(r);
    if (moving.has(check.id)) {
      // what the check could not see, with why (the type's reason) — and what only the check knows it missed
      const gaps = gapsOf(check, snap).filter((g) => g.role !== 'context');
      for (const g of gaps)
        notJudged.push({ contract: contractOf(checks, check.id), what: `${typeKey(g.need)} (${g.reason})`, by: check.id });
      const said = new Set(gaps.map((g) => typeKey(g.need)));
      for (const t of r.unjudged ?? []) if (!said.has(t)) notJudged.push({ contract: contractOf(checks, check.id), what: t, by: check.id });
      // what it saw cannot decide, as the cluster would be (etcd members of unknown health): never "safe" on that
      if (r.status === 'skipped' && r.undecided)
        notJudged.push({ contract: contractOf(checks, check.id), what: r.reason ?? 'undecided', by: check.id });
      await step.pause();
    }
    for (const f of r.findings) {
      if (!moving.has(check.id) || RESTATES.has(f.code)) continue;
      const was = before.get(faultKey(f));
      if (was && rank(was.severity) >= rank(f.severity)) continue;
      if (known(f)) continue;
      const quorum = f.checkId === 'etcd-quorum';
      predicted.push({
        contract: contractOf(checks, r.id),
        code: f.code,
        from: r.id,
        severity: severityIf(f),
        title: f.title,
        message:
          !quorum || `${f.title} ${f.message}`.includes(afterLine())
            ? f.message
            : `${f.message} After this: ${afterLine()}.${
                membersRemoved > 1
                  ? ' Remove the servers one at a time: delete one node (its etcd member goes with it), wait until the others report healthy, then the next — never stop two before removing them.'
                  : ''
              }`,
        objects: f.objects,
        ...(f.why ? { why: f.why } : {}),
        ...(f.code === 'ARCH-EQ02'
          ? {
              // a planned reboot of one server of three: the advice is for the window, not for repairing
              fix: [
                `while ${h.nodes.join(', ')} ${h.nodes.length === 1 ? 'is' : 'are'} down, take no other server down: one more failure loses quorum`,
                command(['kubectl', 'arch', 'quorum'], { say: 'afterwards, before the next server, wait until this says HEALTHY again' }),
              ],
            }
          : f.fix
            ? { fix: f.fix }
            : {}),
      });
    }
  }
  // a backend at an address no visible pod or node has is never counted live (a webhook, an APIService, cluster DNS)
  notJudged.push(...unjudgedBackends(snap, h, (id) => contractOf(checks, id)));
  const own = runUnits(new Cluster(snap, h, now, checks), UNITS);
  predicted.push(...own.predictions);
  notJudged.push(...own.notJudged);
  return {
    predictions: predicted.sort((a, b) => rank(b.severity) - rank(a.severity)),
    notJudged,
    asItWouldBe: keep ? { snapshot: hyp, results } : null,
  };
}

/** A removal passes through the moment the nodes are down and their members not yet removed: judged at its worst. */
function worstMoment(removed: Prediction[], down: Prediction[], h: Hypothesis): Prediction[] {
  const out = [...removed];
  const seen = new Map(removed.map((p) => [faultKey(p), p] as const));
  for (const p of down) {
    const r = seen.get(faultKey(p));
    if (r && rank(r.severity) >= rank(p.severity)) continue;
    if (!['state', 'door'].includes(p.contract)) continue;
    const at = `While ${h.nodes.join(' and ')} ${h.nodes.length === 1 ? 'is' : 'are'} down and ${h.nodes.length === 1 ? 'its member is' : 'their members are'} not yet removed: `;
    const moment: Prediction = {
      ...p,
      message: `${at}${p.message}`,
      fix:
        h.nodes.length > 1
          ? [
              command(['kubectl', 'delete', 'node', h.nodes[0]!], {
                say: `remove them one at a time: stop ${h.nodes[0]}, then delete its node (its etcd member goes with it)`,
                note: 'wait until `kubectl arch quorum` says HEALTHY, then the next',
              }),
              ...(p.fix ?? []),
            ]
          : p.fix,
    };
    if (r) out[out.indexOf(r)] = moment;
    else out.push(moment);
  }
  return out.sort((a, b) => rank(b.severity) - rank(a.severity));
}

/** The whole prediction, with its verdict; each node alone too when there are several. */
export async function whatIf(snap: Snapshot, h: Hypothesis, now: Date, checks: Check[], opts: WhatIfOptions = {}): Promise<WhatIfResult> {
  const failOn = opts.failOn ?? 'error';
  const step = stepper(opts);
  const notes: string[] = [];
  const d = detectDistribution(snap).distribution;
  if (MANAGED.has(d)) notes.push(`${d} runs etcd and the API servers itself: the state and the door are the provider's, not predicted`);
  // only the joint prediction is drawn: each node alone, and the moment before a removal, keep nothing
  const once = async (hh: Hypothesis, base: CheckResult[], keep = false) => {
    const r = await predictOnce(snap, hh, now, checks, base, step, keep);
    if (!hh.remove) return r;
    const down = await predictOnce(snap, { ...hh, remove: false }, now, checks, base, step, false);
    return { ...r, predictions: worstMoment(r.predictions, down.predictions, hh) };
  };
  let base: CheckResult[];
  let joint: Awaited<ReturnType<typeof once>>;
  try {
    opts.progress?.('what-if: the cluster as it is');
    base = runChecks(checks, snap, { now });
    await step.pause();
    opts.progress?.(`what-if: ${h.nodes.join(', ')} ${h.remove ? 'removed' : 'down'}`);
    joint = await once(h, base, Boolean(opts.keepCluster));
  } catch (e) {
    if (!(e instanceof Cut)) throw e;
    const why = cutWhy(opts, 'passed');
    const notJudged = [{ contract: 'workloads' as const, what: `${why} before the prediction was made`, by: 'what-if' }];
    return {
      hypothesis: h,
      predictions: [],
      notJudged,
      oneAtATime: null,
      notes: [...notes, `${why} before the prediction was made`],
      verdict: verdictOf([], notJudged, failOn),
      asItWouldBe: opts.keepCluster ? { snapshot: snap, results: [] } : null,
    };
  }
  const notJudged = dedupe(joint.notJudged);
  let oneAtATime: OneAtATime | null = null;
  if (h.nodes.length > 1) {
    const each: OneAtATime['each'] = [];
    for (const node of h.nodes) {
      try {
        opts.progress?.(`what-if: ${node} alone`);
        const p = await once({ nodes: [node], remove: h.remove }, base);
        const worst = p.predictions.reduce<Severity | null>((a, x) => (!a || rank(x.severity) > rank(a) ? x.severity : a), null);
        const v = verdictOf(p.predictions, dedupe(p.notJudged), failOn);
        each.push({ node, worst, ...(v.state === 'not judged' ? { notJudged: 'not everything it needs was visible' } : {}) });
      } catch (e) {
        if (!(e instanceof Cut)) throw e;
        each.push({
          node,
          worst: null,
          notJudged: cutWhy(opts, 'came first'),
        });
      }
    }
    const states = each.map((e) =>
      e.notJudged ? 'not judged' : failOn !== 'none' && e.worst && rank(e.worst) >= rank(failOn) ? 'not safe' : 'safe',
    );
    oneAtATime = {
      safe: failOn === 'none' ? null : states.includes('not safe') ? false : states.includes('not judged') ? null : true,
      each,
    };
  }
  for (const n of notJudged) notes.push(`${n.what}: not judged by ${n.by}${n.lost ? ` (${n.lost})` : ''}`);
  return {
    hypothesis: h,
    predictions: joint.predictions,
    notJudged,
    oneAtATime,
    notes,
    verdict: verdictOf(joint.predictions, notJudged, failOn),
    asItWouldBe: joint.asItWouldBe,
  };
}

/** One entry per contract, input and who needed it. */
export function dedupe(xs: Unjudged[]): Unjudged[] {
  const seen = new Map<string, Unjudged>();
  for (const x of xs) seen.set(`${x.contract}|${x.what}|${x.by}`, x);
  return [...seen.values()];
}
