// `kubectl arch map`: the cluster's architecture by contract, with the checks that concern each part.
import { CHECKS } from '../checks/registry.js';
import { evidenceTime, runChecks } from '../checks/run.js';
import { buildMap } from '../map/build.js';
import { R } from '../resources.js';
import { REPORT_API_VERSION } from '../render/report.js';
import type { Style } from '../render/style.js';
import { acquire, stdoutStyle, type GlobalArgs } from './common.js';
import { collect } from './doctor.js';
import { printStructured } from './output.js';

/** The map as -o json|yaml prints it (structured), and as text. */
export async function mapReport(args: GlobalArgs): Promise<{ structured: Record<string, unknown>; text(s: Style): Promise<string> }> {
  const { needs, extra } = collect(false);
  // what only the map shows: Ingresses (by class) and Services' types are read by checks already; leases too
  const { snap, source } = await acquire(args, [...needs, { ...R.ingresses, optional: true }], extra);
  const results = runChecks(CHECKS, snap);
  const m = buildMap(snap, results, evidenceTime(snap));
  return {
    structured: { apiVersion: REPORT_API_VERSION, kind: 'ArchMap', source, ...m },
    text: async (s) => (await import('../render/map.js')).renderMap(m, source, s),
  };
}

/** A view, like kubectl get: it exits 0 whatever it shows (doctor is the command that gates on findings). */
export async function map(args: GlobalArgs): Promise<number> {
  const r = await mapReport(args);
  if (args.output !== 'table') {
    await printStructured(r.structured, args.output);
    return 0;
  }
  process.stdout.write(await r.text(stdoutStyle(args)));
  return 0;
}
