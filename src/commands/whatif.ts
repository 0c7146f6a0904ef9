// `kubectl arch what-if NODE [NODE...] [--remove]`: what breaks before a reboot, a drain or a removal, predicted from
// the architecture: the checks run on the cluster as it would be (src/whatif/), read-only, live or on a snapshot.
// Exit 1 when a prediction is at or above --fail-on, so `kubectl arch what-if n3 && kubectl drain n3` is a gate.
import { CHECKS } from '../checks/registry.js';
import { evidenceTime } from '../checks/run.js';
import { EXIT, InputError } from '../errors.js';
import { fingerprint } from '../fingerprint.js';
import { SEVERITY_RANK, worstRank } from '../model.js';
import { R } from '../resources.js';
import { REPORT_API_VERSION } from '../render/report.js';
import { termSafe } from '../lib/safe.js';
import { severityIf, whatIf } from '../whatif/predict.js';
import { VERSION } from '../version.js';
import { acquire, exitFor, stdoutStyle, type GlobalArgs } from './common.js';
import { collect } from './doctor.js';
import { printStructured, writeOut } from './output.js';

export interface WhatIfArgs extends GlobalArgs {
  nodes?: string[];
  remove?: boolean;
}

/** What what-if reads beyond doctor: pods with their requests, tolerations and claims, ReplicaSets, budgets. */
const EXTRA = [
  { ...R.pods, optional: true },
  { ...R.replicasets, optional: true },
  { ...R.deployments, optional: true },
  { ...R.statefulsets, optional: true },
  { ...R.pdbs, optional: true },
  { ...R.persistentvolumes, optional: true },
  { ...R.persistentvolumeclaims, optional: true },
  // for -o html: the map draws ingress by class
  { ...R.ingresses, optional: true },
];

/** The prediction as -o json|yaml prints it, and the exit code. */
export async function whatIfReport(args: WhatIfArgs): Promise<{
  structured: Record<string, unknown>;
  text: (s: ReturnType<typeof stdoutStyle>) => Promise<string>;
  page: () => Promise<string>;
  exitCode: number;
}> {
  const nodes = [...new Set((args.nodes ?? []).map(String))];
  if (!nodes.length)
    throw new InputError('what-if needs at least one node name', 'e.g. kubectl arch what-if node-3 (kubectl get nodes lists them)');
  const { needs, extra } = collect(false);
  const { snap, source } = await acquire(args, [...needs, ...EXTRA], extra);
  const known = snap.of(R.nodes).map((n) => n.metadata.name);
  if (!snap.gap(R.nodes)) {
    const missing = nodes.filter((n) => !known.includes(n));
    if (missing.length)
      throw new InputError(
        `node${missing.length === 1 ? '' : 's'} ${missing.map((n) => `"${termSafe(n)}"`).join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist (nodes: ${known.map((n) => termSafe(n)).join(', ') || 'none'})`,
        'kubectl get nodes lists them',
      );
  }
  const h = { nodes, remove: Boolean(args.remove) };
  const now = evidenceTime(snap);
  const r = whatIf(snap, h, now, CHECKS);
  const worst = worstRank(r.predictions);
  const exitCode = exitFor(worst, args['fail-on']);
  const fp = fingerprint(snap);
  const at = args['fail-on'] === 'none' ? undefined : SEVERITY_RANK[args['fail-on']];
  const structured = {
    apiVersion: REPORT_API_VERSION,
    kind: 'WhatIf',
    source,
    fingerprint: { distribution: fp.distribution, serverVersion: fp.serverVersion, nodes: fp.nodes.summary },
    hypothesis: r.hypothesis,
    predictions: r.predictions,
    oneAtATime: r.oneAtATime,
    notes: r.notes,
    verdict: {
      // no gate, no verdict: null, never "safe"
      safe: at === undefined ? null : !r.predictions.some((p) => SEVERITY_RANK[p.severity] >= at),
      failOn: args['fail-on'],
      exitCode,
    },
  };
  return {
    structured,
    text: async (s) => (await import('../render/whatif.js')).renderWhatIf(structured as never, s),
    // the map of the cluster as it would be, with each prediction drawn on the part it concerns
    page: async () => {
      const [{ blastRadii, controlPlaneLayout }, { renderMapHtml }, { buildMap }, { drawPredictions }] = await Promise.all([
        import('../map/blast.js'),
        import('../render/html/map.js'),
        import('../map/build.js'),
        import('../whatif/draw.js'),
      ]);
      // the cluster as the prediction saw it; the parts carry the severities the predictions do
      const hyp = r.asItWouldBe.snapshot;
      const results = r.asItWouldBe.results.map((c) => ({
        ...c,
        findings: c.findings.map((f) => ({ ...f, severity: severityIf(f) })),
      }));
      const m = buildMap(hyp, results, now, CHECKS);
      return renderMapHtml({
        map: m,
        source,
        results,
        blast: blastRadii(hyp, results, m, now),
        layout: controlPlaneLayout(hyp, now),
        version: VERSION,
        whatIf: { doc: structured as never, ...drawPredictions(m, results, r.predictions) },
      });
    },
    exitCode,
  };
}

export async function whatif(args: WhatIfArgs): Promise<number> {
  if (!['table', 'json', 'yaml', 'html'].includes(args.output))
    throw new InputError(`-o ${args.output} is not available for what-if`, 'use -o table, json, yaml or html');
  const r = await whatIfReport(args);
  if (args.output === 'html') await writeOut(await r.page());
  else if (args.output !== 'table') await printStructured(r.structured, args.output);
  else process.stdout.write(await r.text(stdoutStyle(args)));
  return r.exitCode === EXIT.OK ? EXIT.OK : r.exitCode;
}
