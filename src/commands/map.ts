// `kubectl arch map`: the cluster's architecture by contract, with the checks that concern each part.
import { CHECKS } from '../checks/registry.js';
import { evidenceTime, runChecks } from '../checks/run.js';
import { buildMap } from '../map/build.js';
import { R } from '../resources.js';
import { REPORT_API_VERSION } from '../render/report.js';
import { acquire, stdoutStyle, type GlobalArgs } from './common.js';
import { collect } from './doctor.js';
import { printStructured } from './output.js';

/** A view, like kubectl get: it exits 0 whatever it shows (doctor is the command that gates on findings). */
export async function map(args: GlobalArgs): Promise<number> {
  const { needs, extra } = collect(false);
  // what only the map shows: Ingresses (by class) and Services' types are read by checks already; leases too
  const { snap, source } = await acquire(args, [...needs, { ...R.ingresses, optional: true }], extra);
  const results = runChecks(CHECKS, snap);
  const m = buildMap(snap, results, evidenceTime(snap), CHECKS);
  if (args.output !== 'table') {
    await printStructured({ apiVersion: REPORT_API_VERSION, kind: 'ArchMap', source, ...m }, args.output);
    return 0;
  }
  const { renderMap } = await import('../render/map.js');
  process.stdout.write(renderMap(m, source, stdoutStyle(args)));
  return 0;
}
