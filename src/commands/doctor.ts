// `kubectl arch doctor`: every check, one report.
import { CHECKS } from '../checks/registry.js';
import { runChecks } from '../checks/run.js';
import { fingerprint, FINGERPRINT_NEEDS } from '../fingerprint.js';
import type { Need } from '../model.js';
import { DEFAULT_SETTINGS, type NodeGet } from '../checks/types.js';
import { REPORT_API_VERSION, summarize, worst, type Report } from '../render/report.js';
import { acquire, exitFor, parseDuration, stdoutStyle, type GlobalArgs } from './common.js';
import { printStructured } from './output.js';

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

export async function doctor(args: DoctorArgs): Promise<number> {
  // a usage error is reported before any request
  // (0 means every deletion counts; parseDuration's 0 is "no limit", which is the opposite here)
  const stuckAfterMs = /^0+(\.0+)?(ms|s|m|h)?$/.test(args['stuck-after'] ?? '')
    ? 0
    : parseDuration(args['stuck-after'], DEFAULT_SETTINGS.stuckAfterMs, '--stuck-after');
  const { needs, extra } = collect(Boolean(args.deep));
  const { snap, source } = await acquire(args, needs, extra);
  const checks = runChecks(CHECKS, snap, { deep: args.deep, settings: { stuckAfterMs } });
  const report: Report = {
    apiVersion: REPORT_API_VERSION,
    kind: 'Report',
    command: 'doctor',
    source,
    fingerprint: fingerprint(snap),
    summary: summarize(checks),
    checks,
  };
  if (args.output === 'table') {
    const { renderText } = await import('../render/text.js');
    process.stdout.write(renderText(report, stdoutStyle(args)));
  } else {
    await printStructured(report, args.output);
  }
  return exitFor(worst(report.checks), args['fail-on']);
}
