// `kubectl arch orphans`: what deleted GitOps owners left running, in depth.
import { deletingFinding, elsewhereFinding, gitopsOrphans, groupFinding } from '../checks/gitops-orphans.js';
import { FINGERPRINT_NEEDS } from '../fingerprint.js';
import { worstRank } from '../model.js';
import { cleanupPlan } from '../orphans/plan.js';
import { scanOrphans } from '../orphans/scan.js';
import { REPORT_API_VERSION } from '../render/report.js';
import { acquire, exitFor, stdoutStyle, type GlobalArgs } from './common.js';
import { renderOrphans } from '../render/orphans.js';
import { printStructured } from './output.js';
import { evidenceTime } from '../checks/run.js';

export async function orphans(args: GlobalArgs & { 'cleanup-plan'?: boolean }): Promise<number> {
  const { snap, source } = await acquire(args, [...FINGERPRINT_NEEDS, ...gitopsOrphans.needs], { allTypes: true });
  const rep = scanOrphans(snap);
  const now = evidenceTime(snap);
  const all = [...rep.groups.map(groupFinding), ...rep.elsewhere.map(elsewhereFinding), ...rep.deleting.map(deletingFinding)];
  const code = exitFor(worstRank(all), args['fail-on']);
  if (args['cleanup-plan']) {
    process.stdout.write(cleanupPlan(rep.groups));
    return code;
  }
  if (args.output !== 'table') {
    await printStructured({ apiVersion: REPORT_API_VERSION, kind: 'OrphanReport', source, ...rep }, args.output);
    return code;
  }
  process.stdout.write(renderOrphans(rep, source, stdoutStyle(args), now));
  return code;
}
