// `kubectl arch orphans`: what deleted GitOps owners left running, in depth (per context with --contexts).
import { deletingFinding, elsewhereFinding, gitopsOrphans, groupFinding } from '../checks/gitops-orphans/check.js';
import { partition, type SuppressedFinding } from '../config/accepted.js';
import { fingerprint, FINGERPRINT_NEEDS } from '../fingerprint.js';
import { InputError } from '../errors.js';
import { worstRank, type CheckResult, type Finding } from '../model.js';
import { cleanupPlan } from '../orphans/plan.js';
import { scanOrphans } from '../orphans/scan.js';
import { REPORT_API_VERSION } from '../render/report.js';
import { acquire, type GlobalArgs } from './common.js';
import { renderOrphans } from '../render/orphans.js';
import { evidenceTime, stamp } from '../checks/run.js';
import { execute, fleetContexts, type PerContext } from './fleet.js';
import { acceptedRisks, placeOf, risksInfo, sayRisks } from './risks.js';
import type { Draft } from '../checks/types.js';
import { forTerminal } from '../render/style.js';

type OrphanArgs = GlobalArgs & { 'cleanup-plan'?: boolean };

/** Items whose finding an accepted-risk rule silences leave the report (their findings are listed as suppressed). */
function keep<T>(items: T[], toFinding: (t: T) => Draft, rules: Parameters<typeof partition>[1], place: ReturnType<typeof placeOf>) {
  const kept: T[] = [];
  const findings: Finding[] = [];
  const suppressed: SuppressedFinding[] = [];
  for (const item of items) {
    const f = stamp(gitopsOrphans, toFinding(item));
    const p = partition([f], rules, place);
    if (p.suppressed.length) suppressed.push(...p.suppressed);
    else {
      kept.push(item);
      findings.push(f);
    }
  }
  return { kept, findings, suppressed };
}

/** `--cleanup-plan`'s text: the kubectl delete commands for the groups kept, and what the accepted risks left out. */
function planText(kept: Parameters<typeof cleanupPlan>[0], suppressed: SuppressedFinding[]): string {
  let plan = cleanupPlan(kept);
  if (suppressed.length)
    plan += `# not in this plan: ${suppressed.length} group(s) suppressed as accepted risks (${suppressed.map((f) => f.title.replace(/[\r\n]+/g, ' ')).join('; ')})\n`;
  return plan;
}

export const orphansOne: PerContext = async (args: OrphanArgs, risks) => {
  const { snap, source } = await acquire(args, [...FINGERPRINT_NEEDS, ...gitopsOrphans.needs], { allTypes: true });
  const scanned = scanOrphans(snap);
  const now = evidenceTime(snap);
  const place = placeOf(source);
  const g = keep(scanned.groups, groupFinding, risks, place);
  const e = keep(scanned.elsewhere, elsewhereFinding, risks, place);
  const d = keep(scanned.deleting, deletingFinding, risks, place);
  const rep = { ...scanned, groups: g.kept, elsewhere: e.kept, deleting: d.kept };
  const findings = [...g.findings, ...e.findings, ...d.findings];
  const suppressed = [...g.suppressed, ...e.suppressed, ...d.suppressed];
  const judged = scanned.argo.state !== 'not-visible' || scanned.flux.state !== 'not-visible';
  const check: CheckResult & { suppressed?: number } = {
    id: gitopsOrphans.id,
    title: gitopsOrphans.title,
    status: findings.length ? 'findings' : judged ? 'passed' : 'skipped',
    ...(findings.length
      ? {}
      : { reason: judged ? 'no objects of deleted GitOps owners found' : 'neither Argo CD nor Flux objects are visible' }),
    findings,
    notes: scanned.notes,
    ...(suppressed.length ? { suppressed: suppressed.length } : {}),
  };
  const fp = fingerprint(snap);
  return {
    structured: {
      apiVersion: REPORT_API_VERSION,
      kind: 'OrphanReport',
      command: 'orphans',
      source,
      ...rep,
      // the findings the groups, owners elsewhere and deletions give (codes and fingerprints: --baseline, diff)
      findings,
      suppressed,
      acceptedRisks: risksInfo(risks, suppressed),
    },
    text: async (s) => {
      const { afterTitle, renderSuppressed, risksHeader } = await import('../render/text.js');
      const info = risksInfo(risks, suppressed);
      const tail = renderSuppressed(suppressed, info, s);
      return (
        afterTitle(
          renderOrphans(rep, { groups: g.findings, elsewhere: e.findings, deleting: d.findings }, source, s, now),
          risksHeader(info, s.width),
        ) + (tail.length ? `\n${tail.join('\n')}\n` : '')
      );
    },
    checks: [check],
    suppressed,
    worstRank: worstRank(findings),
    source,
    distribution: fp.distribution,
    serverVersion: fp.serverVersion,
    plan: () => planText(g.kept, g.suppressed),
  };
};

export async function orphans(args: OrphanArgs): Promise<number> {
  if (args['cleanup-plan']) {
    // its kubectl delete commands carry no --context: one cluster at a time
    if (await fleetContexts(args))
      throw new InputError('--cleanup-plan works on one context (its commands carry no --context)', 'use --context NAME');
    const risks = acceptedRisks(args);
    const { snap, source } = await acquire(args, [...FINGERPRINT_NEEDS, ...gitopsOrphans.needs], { allTypes: true });
    const rep = scanOrphans(snap);
    const g = keep(rep.groups, groupFinding, risks, placeOf(source));
    const all = [
      ...g.findings,
      ...rep.elsewhere.map((x) => stamp(gitopsOrphans, elsewhereFinding(x))),
      ...rep.deleting.map((x) => stamp(gitopsOrphans, deletingFinding(x))),
    ];
    process.stdout.write(planText(g.kept, g.suppressed));
    sayRisks(risks, g.suppressed, [{ findings: all, place: placeOf(source) }]);
    const { exitFor } = await import('./common.js');
    return exitFor(worstRank(all), args['fail-on']);
  }
  return execute('orphans', args, forTerminal(orphansOne));
}
