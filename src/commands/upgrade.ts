// `kubectl arch what-if --upgrade VERSION`: what upgrading the cluster to VERSION would break, predicted read-only from
// the cluster as it is (live or --snapshot): src/whatif/upgrade/. It reads what doctor reads (every type, metadata only,
// with the managedFields that say through which version each object was written), the owners' records, the
// system-upgrade-controller Plans, and the kinds the releases crossed stop serving with no replacement. Exit 1 when a
// prediction is at or above --fail-on, 3 when something it rests on was not visible.
import { CHECKS } from '../checks/registry.js';
import { evidenceTime } from '../checks/run.js';
import { EXIT, InputError } from '../errors.js';
import { fingerprint } from '../fingerprint.js';
import { fingerprintOf, type Need } from '../model.js';
import { REPORT_API_VERSION } from '../render/report.js';
import { R } from '../resources.js';
import { UNITS, UPGRADE_UNITS } from '../whatif/predictions/registry.js';
import { verdictOf } from '../whatif/predict.js';
import { removalsCrossed } from '../whatif/upgrade/removed.js';
import { whatIfUpgrade } from '../whatif/upgrade/predict.js';
import { currentVersion, parseTarget, suffixDistribution, versionText, type UpgradeHypothesis } from '../whatif/upgrade/version.js';
import { baselineFor, markAgainst, readReport } from './baseline.js';
import { acquire, runDeadline, type GlobalArgs, type stdoutStyle } from './common.js';
import { collect } from './doctor.js';
import { whatIfPage } from './whatif-page.js';

export interface UpgradeArgs extends GlobalArgs {
  upgrade?: string;
}

/** What the upgrade's units and the rollout's steps read beyond doctor. */
function needs(u: UpgradeHypothesis): Need[] {
  const typed = (n: { group: string; kind: string }): Need => ({
    ...Object.values(R).find((r) => r.group === n.group && r.kind === n.kind)!,
    optional: true,
  });
  return [
    ...[...UNITS, ...UPGRADE_UNITS].flatMap((x) => x.needs).map(typed),
    { ...R.sucPlans, optional: true },
    { ...R.crds, optional: true },
    { ...R.argoApplications, optional: true },
    { ...R.fluxKustomizations, optional: true },
    { ...R.fluxHelmReleases, optional: true },
    // kinds the releases crossed stop serving with no replacement are listed through their own version (discovery
    // lists each group at its preferred version only: policy/v1beta1 PodSecurityPolicy is not there)
    ...removalsCrossed(u)
      .filter((r) => !r.replacement && r.stored !== false)
      .map((r) => ({
        group: r.group,
        version: r.version,
        resource: r.resource,
        kind: r.kind,
        namespaced: false,
        clusterWide: true,
        metadataOnly: true,
        optional: true,
      })),
  ];
}

export async function upgradeReport(args: UpgradeArgs): Promise<{
  structured: Record<string, unknown>;
  text: (s: ReturnType<typeof stdoutStyle>) => Promise<string>;
  page: () => Promise<string>;
  exitCode: number;
}> {
  // read before any request: a version that is not one, or a baseline that cannot be read, is a usage error
  const target = parseTarget(String(args.upgrade ?? ''));
  if (args.namespace !== undefined && !args['all-namespaces'])
    throw new InputError('what-if --upgrade judges the whole cluster: an upgrade changes every namespace', 'leave out -n/--namespace');
  const deadline = args.runDeadline ?? (await runDeadline(args));
  const base = args.baseline ? readReport(args.baseline) : undefined;
  const { needs: doctorNeeds, extra } = collect(false);
  // the kinds with no replacement depend on the releases crossed: every one up to the target, before the version is read
  const { snap, source } = await acquire({ ...args, runDeadline: deadline }, [...doctorNeeds, ...needs({ target })], {
    ...extra,
    allTypes: true,
  });
  const current = currentVersion(snap);
  if (current && target.minor < current.version.minor)
    throw new InputError(
      `--upgrade ${target.text} is older than the cluster (${current.version.text}): Kubernetes does not support going back a minor version`,
      'name a version at or after the one it runs',
    );
  const fp = fingerprint(snap);
  const named = suffixDistribution(target);
  if (named && fp.distribution !== 'unknown' && named !== fp.distribution)
    throw new InputError(
      `--upgrade ${target.text} is a ${named} version, and the cluster runs ${fp.distribution}`,
      `name a ${fp.distribution} version, or one without a suffix`,
    );
  const u: UpgradeHypothesis = { target, ...(current ? { current } : {}) };
  const now = evidenceTime(snap);
  const r = await whatIfUpgrade(snap, u, now, CHECKS, {
    failOn: args['fail-on'],
    deadline,
    signal: args.hooks?.signal,
    progress: args.hooks?.progress,
    keepCluster: args.output === 'html',
  });
  for (const p of r.predictions) (p as { fingerprint?: string }).fingerprint = fingerprintOf(p);
  const baseline = base ? markAgainst(r.predictions, baselineFor(base, ''), args.baseline!) : undefined;
  const gate = baseline
    ? verdictOf(
        r.predictions.filter((p) => (p as { baseline?: string }).baseline === 'new'),
        r.notJudged,
        args['fail-on'],
      )
    : r.verdict;
  const exitCode = gate.state === 'not safe' ? EXIT.FINDINGS : gate.state === 'not judged' ? EXIT.UNREACHABLE : EXIT.OK;
  const structured = {
    apiVersion: REPORT_API_VERSION,
    kind: 'WhatIf',
    source,
    fingerprint: { distribution: fp.distribution, serverVersion: fp.serverVersion, nodes: fp.nodes.summary },
    hypothesis: {
      upgrade: {
        to: target.text,
        ...(current ? { from: current.version.text, fromEvidence: current.from } : {}),
        minors: r.upgrade.minors.map((m) => versionText({ minor: m })),
      },
    },
    upgrade: r.upgrade,
    predictions: r.predictions,
    oneAtATime: null,
    notJudged: r.notJudged,
    notes: r.notes,
    verdict: { ...r.verdict, exitCode },
    ...(baseline ? { baseline } : {}),
  };
  return {
    structured,
    text: async (s) => (await import('../render/upgrade.js')).renderUpgrade(structured as never, s),
    // the map of the cluster as it is, each prediction drawn on the part it concerns
    page: () => whatIfPage(r.asItWouldBe!, now, source, structured, r.predictions),
    exitCode,
  };
}
