// `kubectl arch doctor`: every check, one report.
import { CHECKS } from '../checks/registry.js';
import { runChecks } from '../checks/run.js';
import { fingerprint, FINGERPRINT_NEEDS } from '../fingerprint.js';
import type { Need } from '../model.js';
import { REPORT_API_VERSION, summarize, worst, type Report } from '../render/report.js';
import { acquire, exitFor, stdoutStyle, type GlobalArgs } from './common.js';
import { printStructured } from './output.js';

export interface DoctorArgs extends GlobalArgs {
  deep?: boolean;
}

export function allNeeds(deep: boolean): Need[] {
  return [...FINGERPRINT_NEEDS, ...CHECKS.flatMap((c) => [...c.needs, ...(deep ? c.deepNeeds ?? [] : [])])];
}

export function exitCodeFor(report: Report, failOn: GlobalArgs['fail-on']): number {
  return exitFor(worst(report.checks), failOn);
}

export async function doctor(args: DoctorArgs): Promise<number> {
  const { snap, source } = await acquire(args, allNeeds(Boolean(args.deep)), { allTypes: CHECKS.some((c) => c.allTypes) });
  const checks = runChecks(CHECKS, snap, { deep: args.deep });
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
  return exitCodeFor(report, args['fail-on']);
}
