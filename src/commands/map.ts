// `kubectl arch map`: the cluster's architecture by contract, with the checks that concern each part.
import { CHECKS } from '../checks/registry.js';
import { evidenceTime, runChecks } from '../checks/run.js';
import { InputError } from '../errors.js';
import { buildMap } from '../map/build.js';
import { R } from '../resources.js';
import { REPORT_API_VERSION } from '../render/report.js';
import { toTerminal, type Style } from '../render/style.js';
import { VERSION } from '../version.js';
import { acquire, stdoutStyle, type GlobalArgs } from './common.js';
import { collect } from './doctor.js';
import { printStructured, writeOut } from './output.js';

const MAP_OUTPUTS = ['table', 'json', 'yaml', 'html', 'mermaid', 'dot'];

/** The map as -o json|yaml prints it (structured), as text, and as a page or a graph. */
export async function mapReport(args: GlobalArgs): Promise<{
  structured: Record<string, unknown>;
  text(s: Style): Promise<string>;
  page(): Promise<string>;
  graph(kind: 'mermaid' | 'dot'): Promise<string>;
}> {
  const { needs, extra } = collect(false);
  // what only the map shows: Ingresses (by class) and Services' types are read by checks already; leases too
  const { snap, source } = await acquire(args, [...needs, { ...R.ingresses, optional: true }], extra);
  const results = runChecks(CHECKS, snap);
  const now = evidenceTime(snap);
  const m = buildMap(snap, results, now, CHECKS);
  return {
    structured: { apiVersion: REPORT_API_VERSION, kind: 'ArchMap', source, ...m },
    text: async (s) => (await import('../render/map.js')).renderMap(m, source, s),
    page: async () => {
      const [{ blastRadii, controlPlaneLayout }, { renderMapHtml }] = await Promise.all([
        import('../map/blast.js'),
        import('../render/html/map.js'),
      ]);
      return renderMapHtml({
        map: m,
        source,
        results,
        blast: blastRadii(snap, results, m, now),
        layout: controlPlaneLayout(snap, now),
        version: VERSION,
      });
    },
    graph: async (kind) => {
      const { renderMermaid, renderDot } = await import('../render/graph.js');
      return kind === 'mermaid' ? renderMermaid(m) : renderDot(m);
    },
  };
}

/** A view, like kubectl get: it exits 0 whatever it shows (doctor is the command that gates on findings). */
export async function map(args: GlobalArgs): Promise<number> {
  // a usage error before any request
  if (!MAP_OUTPUTS.includes(args.output))
    throw new InputError(`-o ${args.output} is not available for map`, `use -o ${MAP_OUTPUTS.join(', ')}`);
  const r = await mapReport(args);
  const out = args.output;
  if (out === 'html') await writeOut(await r.page());
  else if (out === 'mermaid' || out === 'dot') await writeOut(await r.graph(out));
  else if (out !== 'table') await printStructured(r.structured, out);
  else process.stdout.write(await r.text(toTerminal(stdoutStyle(args))));
  return 0;
}
