// What-if --upgrade VERSION: what upgrading the cluster to that version would break, predicted read-only from the
// cluster as it is. The upgrade's own units (../predictions/upgrade-*: the door, the loops that follow, version rules,
// the nodes' interfaces) judge the cluster for the target; the rollout (./rollout.ts) is the order in which the
// distribution takes the nodes down, and each of its steps is judged as `what-if NODE...` judges it (the checks on the
// cluster as it would be, and the node units). One verdict, made as what-if makes it: safe only when every input was
// visible.
import { runChecks } from '../../checks/run.js';
import type { Check } from '../../checks/types.js';
import { faultKey, SEVERITY_RANK, type Severity } from '../../model.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { Cluster } from '../cluster.js';
import { Cut, dedupe, predictOnce, runUnits, stepper, verdictOf, type WhatIfOptions, type WhatIfResult } from '../predict.js';
import { UPGRADE_UNITS } from '../predictions/registry.js';
import type { Prediction, Unjudged } from '../types.js';
import { command } from '../../lib/shell.js';
import { rolloutPlan, type Rollout } from './rollout.js';
import { versionText, type UpgradeHypothesis } from './version.js';
import { removedFor } from './removed.js';
import { apiVersionText } from './words.js';

const rank = (s: Severity): number => SEVERITY_RANK[s];

export interface UpgradeReport {
  from?: string;
  to: string;
  /** The minor releases crossed. */
  minors: number[];
  /** Every API version the releases crossed stop serving, with what the cluster still does through it. */
  removals: Array<{
    apiVersion: string;
    kind: string;
    removed: string;
    replacement?: string;
    written: number;
    gone: number;
    applied: number;
    source: string;
  }>;
  rollout: { how: string; steps: Array<{ nodes: string[]; by: string; worst: Severity | null; notJudged?: string }> };
}

export type UpgradeResult = WhatIfResult & { upgrade: UpgradeReport };

export async function whatIfUpgrade(
  snap: Snapshot,
  u: UpgradeHypothesis,
  now: Date,
  checks: Check[],
  opts: WhatIfOptions = {},
): Promise<UpgradeResult> {
  const failOn = opts.failOn ?? 'error';
  const step = stepper(opts);
  const h = { nodes: [], remove: false, upgrade: u };
  const c = new Cluster(snap, h, now, checks);
  const notes: string[] = [];
  const predictions: Prediction[] = [];
  const notJudged: Unjudged[] = [];
  opts.progress?.(`what-if --upgrade ${versionText(u.target)}: the door, the loops, the versions, the nodes`);
  const own = runUnits(c, UPGRADE_UNITS);
  predictions.push(...own.predictions);
  notJudged.push(...own.notJudged);
  if (!u.current)
    notJudged.push({
      contract: 'state',
      what: 'the version the cluster runs (no server version, no control-plane kubelet visible): every removal up to the target is judged',
      by: 'what-if',
    });
  // the rollout: each step as what-if NODE judges it
  const plan = rolloutPlan(c);
  notes.push(...plan.notes);
  for (const x of plan.unjudged) notJudged.push({ contract: 'state', what: x.what, by: 'rollout' });
  predictions.push(...widePlans(plan));
  const steps: UpgradeReport['rollout']['steps'] = [];
  const merged = new Map<string, { p: Prediction; steps: number[] }>();
  // the checks on the cluster as it is: what each step's findings are new against, and what -o html draws
  let base: ReturnType<typeof runChecks> | undefined = opts.keepCluster ? runChecks(checks, snap, { now }) : undefined;
  for (let i = 0; i < plan.steps.length; i++) {
    const s = plan.steps[i]!;
    try {
      base ??= runChecks(checks, snap, { now });
      await step.pause();
      opts.progress?.(`what-if --upgrade: step ${i + 1} of ${plan.steps.length}, ${s.nodes.join(', ')} down`);
      const r = await predictOnce(snap, { nodes: s.nodes, remove: false }, now, checks, base, step, false);
      const v = verdictOf(r.predictions, dedupe(r.notJudged), failOn);
      const worst = r.predictions.reduce<Severity | null>((a, x) => (!a || rank(x.severity) > rank(a) ? x.severity : a), null);
      steps.push({
        nodes: s.nodes,
        by: s.by,
        worst,
        ...(v.state === 'not judged' ? { notJudged: 'not everything it needs was visible' } : {}),
      });
      notJudged.push(...r.notJudged);
      for (const p of r.predictions) {
        const k = faultKey(p);
        const had = merged.get(k);
        if (!had) merged.set(k, { p, steps: [i] });
        else {
          had.steps.push(i);
          if (rank(p.severity) > rank(had.p.severity)) had.p = p;
        }
      }
    } catch (e) {
      if (!(e instanceof Cut)) throw e;
      const why = opts.signal?.aborted ? 'cancelled' : `the deadline (${opts.deadline?.text()}) came first`;
      for (let j = i; j < plan.steps.length; j++)
        steps.push({ nodes: plan.steps[j]!.nodes, by: plan.steps[j]!.by, worst: null, notJudged: why });
      notJudged.push({ contract: 'state', what: `steps ${i + 1} to ${plan.steps.length} of the rollout: ${why}`, by: 'what-if' });
      break;
    }
  }
  for (const { p, steps: at } of merged.values()) {
    const nodes = [...new Set(at.flatMap((i) => plan.steps[i]!.nodes))];
    predictions.push({
      ...p,
      message: `While ${nodes.join(', ')} ${nodes.length === 1 ? 'is' : 'are'} upgraded (step ${at.map((i) => i + 1).join(', ')} of ${plan.steps.length}: ${plan.steps[at[0]!]!.by}): ${p.message}`,
    });
  }
  const joint = dedupe(notJudged);
  for (const n of joint) notes.push(`${n.what}: not judged by ${n.by}${n.lost ? ` (${n.lost})` : ''}`);
  predictions.sort((a, b) => rank(b.severity) - rank(a.severity));
  const rm = removedFor(snap, u);
  const minors: number[] = [];
  for (let m = (u.current?.version.minor ?? u.target.minor - 1) + 1; m <= u.target.minor; m++) minors.push(m);
  const count = (f: (k: string) => boolean, xs: Array<{ removal: { group: string; version: string; kind: string } }>): number =>
    xs.filter((x) => f(`${apiVersionText(x.removal)} ${x.removal.kind}`)).length;
  return {
    hypothesis: h,
    predictions,
    notJudged: joint,
    oneAtATime: null,
    notes,
    verdict: verdictOf(predictions, joint, failOn),
    // the map of an upgrade is the cluster as it is, with the predictions drawn on it
    asItWouldBe: opts.keepCluster ? { snapshot: snap, results: base ?? runChecks(checks, snap, { now }) } : null,
    upgrade: {
      ...(u.current ? { from: u.current.version.text } : {}),
      to: u.target.text,
      minors,
      removals: rm.removals.map((r) => {
        const k = `${apiVersionText(r)} ${r.kind}`;
        return {
          apiVersion: apiVersionText(r),
          kind: r.kind,
          removed: `v1.${r.removed}`,
          ...(r.replacement ? { replacement: r.replacement } : {}),
          written: count((x) => x === k, rm.writes),
          gone: count((x) => x === k, rm.orphaned),
          applied: count((x) => x === k, rm.declared),
          source: r.source,
        };
      }),
      rollout: { how: plan.how, steps },
    },
  };
}

/** ARCH-WI44: a Plan that may take more etcd members down at once than quorum allows. */
function widePlans(plan: Rollout): Prediction[] {
  return plan.wide.map((w) => {
    const quorum = Math.floor(w.voters / 2) + 1;
    const atOnce = Math.min(w.concurrency, w.members.length);
    const lost = w.voters - atOnce < quorum;
    return {
      contract: 'state' as const,
      code: 'ARCH-WI44',
      from: 'what-if',
      severity: lost ? ('critical' as const) : ('warning' as const),
      title: `${w.plan.kind} ${w.plan.namespace}/${w.plan.name} upgrades ${w.concurrency} nodes at once, ${atOnce} of them etcd servers`,
      message: `It selects the etcd members ${w.members.join(', ')} with concurrency ${w.concurrency}: the controller may restart ${atOnce} of ${w.voters} voters together${lost ? `, below quorum (${quorum}): etcd stops accepting writes and the API servers stop serving until enough are back` : ', leaving no failure tolerated while they restart'}.`,
      objects: [w.plan],
      why: 'State lives only in etcd: quorum is lost when more voters are down at once than the cluster was built to tolerate, however briefly.',
      fix: [
        command(
          [
            'kubectl',
            '-n',
            w.plan.namespace ?? 'system-upgrade',
            'patch',
            'plan',
            w.plan.name,
            '--type',
            'merge',
            '-p',
            '{"spec":{"concurrency":1}}',
          ],
          {
            say: 'upgrade the servers one at a time',
          },
        ),
      ],
    };
  });
}
