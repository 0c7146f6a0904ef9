// `kubectl arch doctor`: every check, one report (per context with --contexts / --all-contexts).
import { CHECKS } from '../checks/registry.js';
import { runChecks } from '../checks/run.js';
import { suppressInChecks } from '../config/accepted.js';
import { fingerprint, FINGERPRINT_NEEDS } from '../fingerprint.js';
import type { Need } from '../model.js';
import { DEFAULT_SETTINGS, type NodeGet, type Settings } from '../checks/types.js';
import { REPORT_API_VERSION, summarize, worst, type Report } from '../render/report.js';
import { acquire, parseDuration, type GlobalArgs } from './common.js';
import { execute, runAll, type PerContext, type Runs } from './fleet.js';
import { placeOf, risksInfo } from './risks.js';
import { forTerminal } from '../render/style.js';

export interface DoctorArgs extends GlobalArgs {
  deep?: boolean;
  'stuck-after'?: string;
}

export function allNeeds(): Need[] {
  return [...FINGERPRINT_NEEDS, ...CHECKS.flatMap((c) => c.needs)];
}

/** What every check needs, and with --deep the per-node reads they declared. */
export const collect = (deep: boolean): { needs: Need[]; extra: { allTypes: boolean; nodeGets: NodeGet[] } } => ({
  needs: allNeeds(),
  extra: { allTypes: CHECKS.some((c) => c.allTypes), nodeGets: deep ? CHECKS.flatMap((c) => c.deep ?? []) : [] },
});

/** --stuck-after in ms; a usage error is reported before any request. */
function stuckAfter(args: DoctorArgs): number {
  // 0 means every deletion counts; parseDuration's 0 is "no limit", which is the opposite here
  return /^0+(\.0+)?(ms|s|m|h)?$/.test(args['stuck-after'] ?? '')
    ? 0
    : parseDuration(args['stuck-after'], DEFAULT_SETTINGS.stuckAfterMs, '--stuck-after');
}

/** One context: acquire, run every check with these settings, apply the accepted-risk rules. */
const doctorOne =
  (settings: Settings): PerContext =>
  async (args: DoctorArgs, risks) => {
    const { needs, extra } = collect(Boolean(args.deep));
    const { snap, source } = await acquire(args, needs, extra);
    const after = suppressInChecks(runChecks(CHECKS, snap, { deep: args.deep, settings }), risks, placeOf(source));
    const fp = fingerprint(snap);
    const report: Report = {
      apiVersion: REPORT_API_VERSION,
      kind: 'Report',
      command: 'doctor',
      source,
      fingerprint: fp,
      summary: summarize(after.checks, after.suppressed.length),
      checks: after.checks,
      suppressed: after.suppressed,
      acceptedRisks: risksInfo(risks, after.suppressed),
    };
    return {
      structured: report as unknown as Record<string, unknown>,
      text: async (s) => (await import('../render/text.js')).renderText(report, s),
      checks: after.checks,
      suppressed: after.suppressed,
      worstRank: worst(after.checks),
      source,
      distribution: fp.distribution,
      serverVersion: fp.serverVersion,
    };
  };

export async function doctor(args: DoctorArgs): Promise<number> {
  const settings = { stuckAfterMs: stuckAfter(args) }; // before any request, once for every context
  return execute('doctor', args, forTerminal(doctorOne(settings)));
}

/** doctor's runs, unprinted (the MCP server's doctor tool). */
export function doctorRuns(args: DoctorArgs): Promise<Runs> {
  return runAll('doctor', args, doctorOne({ stuckAfterMs: stuckAfter(args) }));
}
