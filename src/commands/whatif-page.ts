// `what-if -o html` and `what-if --upgrade -o html`: the map of the cluster as it would be, with each prediction drawn
// on the part it concerns. Its modules are loaded only when a page is asked for.
import { CHECKS } from '../checks/registry.js';
import type { CheckResult, ReportSource } from '../model.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import type { Prediction } from '../whatif/predict.js';
import { VERSION } from '../version.js';

export async function whatIfPage(
  asItWouldBe: { snapshot: Snapshot; results: CheckResult[] },
  now: Date,
  source: ReportSource,
  doc: Record<string, unknown>,
  predictions: Prediction[],
): Promise<string> {
  const [{ blastRadii, controlPlaneLayout }, { renderMapHtml }, { buildMap }, { drawPredictions }] = await Promise.all([
    import('../map/blast.js'),
    import('../render/html/map.js'),
    import('../map/build.js'),
    import('../whatif/draw.js'),
  ]);
  const { snapshot, results } = asItWouldBe;
  const m = buildMap(snapshot, results, now, CHECKS);
  return renderMapHtml({
    map: m,
    source,
    results,
    blast: blastRadii(snapshot, results, m, now),
    layout: controlPlaneLayout(snapshot, now),
    version: VERSION,
    whatIf: { doc: doc as never, ...drawPredictions(m, results, predictions) },
  });
}
