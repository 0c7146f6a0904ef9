// `kubectl arch map`: the cluster's architecture by contract, with the checks that concern each part.
import { CHECKS } from '../checks/registry.js';
import { evidenceTime, runChecks } from '../checks/run.js';
import { InputError } from '../errors.js';
import { buildMap } from '../map/build.js';
import { R } from '../resources.js';
import { REPORT_API_VERSION } from '../render/report.js';
import { VERSION } from '../version.js';
import { acquire, stdoutStyle, type GlobalArgs } from './common.js';
import { collect } from './doctor.js';
import { printStructured } from './output.js';

const MAP_OUTPUTS = ['table', 'json', 'yaml', 'html', 'mermaid', 'dot'];

/** A view, like kubectl get: it exits 0 whatever it shows (doctor is the command that gates on findings). */
export async function map(args: GlobalArgs): Promise<number> {
  // a usage error before any request
  if (!MAP_OUTPUTS.includes(args.output))
    throw new InputError(`-o ${args.output} is not available for map`, `use -o ${MAP_OUTPUTS.join(', ')}`);
  const { needs, extra } = collect(false);
  // what only the map shows: Ingresses (by class) and Services' types are read by checks already; leases too
  const { snap, source } = await acquire(args, [...needs, { ...R.ingresses, optional: true }], extra);
  const results = runChecks(CHECKS, snap);
  const now = evidenceTime(snap);
  const m = buildMap(snap, results, now, CHECKS);
  const out = args.output;
  if (out === 'html') {
    const [{ blastRadii, controlPlaneLayout }, { renderMapHtml }] = await Promise.all([
      import('../map/blast.js'),
      import('../render/html/map.js'),
    ]);
    await write(
      renderMapHtml({
        map: m,
        source,
        results,
        blast: blastRadii(snap, results, m, now),
        layout: controlPlaneLayout(snap, now),
        version: VERSION,
      }),
    );
    return 0;
  }
  if (out === 'mermaid' || out === 'dot') {
    const { renderMermaid, renderDot } = await import('../render/graph.js');
    await write(out === 'mermaid' ? renderMermaid(m) : renderDot(m));
    return 0;
  }
  if (out !== 'table') {
    await printStructured({ apiVersion: REPORT_API_VERSION, kind: 'ArchMap', source, ...m }, out);
    return 0;
  }
  const { renderMap } = await import('../render/map.js');
  process.stdout.write(renderMap(m, source, stdoutStyle(args)));
  return 0;
}

function write(text: string): Promise<void> {
  return new Promise<void>((resolve) => process.stdout.write(text, () => resolve()));
}
