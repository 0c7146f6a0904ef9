// `kubectl arch what-if NODE [NODE...] [--remove]`: what breaks before a reboot, a drain or a removal, predicted from
// the architecture: the checks run on the cluster as it would be (src/whatif/), read-only, live or on a snapshot.
// Exit 1 when a prediction is at or above --fail-on, so `kubectl arch what-if n3 && kubectl drain n3` is a gate.
import { CHECKS } from '../checks/registry.js';
import { evidenceTime } from '../checks/run.js';
import { EXIT, InputError } from '../errors.js';
import { fingerprint } from '../fingerprint.js';
import type { Need } from '../model.js';
import { R } from '../resources.js';
import { REPORT_API_VERSION } from '../render/report.js';
import { termSafe } from '../lib/safe.js';
import { severityIf, verdictOf, whatIf } from '../whatif/predict.js';
import { baselineFor, markAgainst, readReport, sameCommand, whatIfQuestion } from './baseline.js';
import { fingerprintOf } from '../model.js';
import { whatIfPage } from './whatif-page.js';
import { acquire, runDeadline, runMemory, stdoutStyle, type GlobalArgs } from './common.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { UNITS } from '../whatif/predictions/registry.js';
import { collect } from './doctor.js';
import { printStructured, writeOut } from './output.js';
import { changeReport, type ChangeArgs } from './change.js';
import { toTerminal } from '../render/style.js';
import type { UpgradeArgs } from './upgrade.js';

export interface WhatIfArgs extends GlobalArgs {
  nodes?: string[];
  remove?: boolean;
}

/** What what-if reads beyond doctor: every input its units declare (pods with their requests, tolerations and claims,
 *  ReplicaSets, Deployments, StatefulSets, budgets, volumes), and ingresses for -o html (the map draws them by class). */
const EXTRA: Need[] = [
  ...new Map(
    [...UNITS.flatMap((u) => u.needs), R.ingresses].map((n) => {
      const t = Object.values(R).find((r) => r.group === n.group && r.kind === n.kind)!;
      return [`${n.kind}.${n.group}`, { ...t, optional: true }] as const;
    }),
  ).values(),
];

/** The nodes a snapshot shows to exist when Nodes themselves are not visible: those its pods, node leases, CSINodes
 *  and etcd snapshot records name. */
function namedNodes(snap: Snapshot): Set<string> {
  return new Set([
    ...snap.of(R.pods).map((p) => String(p.spec?.nodeName ?? '')),
    ...snap
      .of(R.leases)
      .filter((l) => l.metadata.namespace === 'kube-node-lease')
      .map((l) => l.metadata.name),
    ...snap.of(R.csinodes).map((c) => c.metadata.name),
    ...snap.of(R.etcdSnapshotFiles).map((f) => String(f.spec?.nodeName ?? '')),
  ]);
}

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
  // a node is cluster-wide: what runs there and what depends on it is in every namespace
  if (args.namespace !== undefined && !args['all-namespaces'])
    throw new InputError(
      'what-if judges the whole cluster: a node runs pods of every namespace, and what breaks with it can be anywhere',
      'leave out -n/--namespace',
    );
  const deadline = args.runDeadline ?? (await runDeadline(args));
  // read before any request: a baseline that cannot be read is a usage error
  const base = args.baseline ? readReport(args.baseline) : undefined;
  if (base) sameCommand(base, 'what-if', whatIfQuestion({ nodes, remove: Boolean(args.remove) }), '--baseline');
  const { needs, extra } = collect(false);
  const { snap, source } = await acquire({ ...args, runDeadline: deadline }, [...needs, ...EXTRA], extra);
  const gap = snap.gap(R.nodes);
  const known = gap ? namedNodes(snap) : new Set(snap.of(R.nodes).map((n) => n.metadata.name));
  const missing = nodes.filter((n) => !known.has(n));
  if (missing.length) {
    const list = missing.map((n) => `"${termSafe(n)}"`).join(', ');
    const one = missing.length === 1;
    if (gap)
      throw new InputError(
        `cannot tell whether node${one ? '' : 's'} ${list} exist${one ? 's' : ''}: nodes are not visible (${termSafe(gap.reason)}) and nothing visible runs there`,
        'what-if needs to list nodes (kubectl auth can-i list nodes), or a snapshot that holds them',
      );
    throw new InputError(
      `node${one ? '' : 's'} ${list} ${one ? 'does' : 'do'} not exist (nodes: ${[...known].map((n) => termSafe(n)).join(', ') || 'none'})`,
      'kubectl get nodes lists them',
    );
  }
  const h = { nodes, remove: Boolean(args.remove) };
  const now = evidenceTime(snap);
  const r = await whatIf(snap, h, now, CHECKS, {
    failOn: args['fail-on'],
    deadline,
    memory: runMemory(args),
    signal: args.hooks?.signal,
    progress: args.hooks?.progress,
    keepCluster: args.output === 'html',
  });
  for (const p of r.predictions) (p as { fingerprint?: string }).fingerprint = fingerprintOf(p);
  // with a baseline, the gate counts what is new: the verdict still says what is predicted, all of it
  const baseline = base ? markAgainst(r.predictions, baselineFor(base, source.context), args.baseline!) : undefined;
  const gate = baseline
    ? verdictOf(
        r.predictions.filter((p) => (p as { baseline?: string }).baseline === 'new'),
        r.notJudged,
        args['fail-on'],
      )
    : r.verdict;
  const exitCode = gate.state === 'not safe' ? EXIT.FINDINGS : gate.state === 'not judged' ? EXIT.UNREACHABLE : EXIT.OK;
  const fp = fingerprint(snap);
  const structured = {
    apiVersion: REPORT_API_VERSION,
    kind: 'WhatIf',
    command: 'what-if',
    source,
    fingerprint: { distribution: fp.distribution, serverVersion: fp.serverVersion, nodes: fp.nodes.summary },
    hypothesis: r.hypothesis,
    predictions: r.predictions,
    oneAtATime: r.oneAtATime,
    notJudged: r.notJudged,
    notes: r.notes,
    verdict: { ...r.verdict, exitCode },
    ...(baseline ? { baseline } : {}),
  };
  return {
    structured,
    text: async (s) => (await import('../render/whatif.js')).renderWhatIf(structured as never, s),
    // the map of the cluster as it would be, with each prediction drawn on the part it concerns
    page: () =>
      whatIfPage(
        {
          snapshot: r.asItWouldBe!.snapshot,
          // the parts carry the severities the predictions do
          results: r.asItWouldBe!.results.map((c) => ({ ...c, findings: c.findings.map((f) => ({ ...f, severity: severityIf(f) })) })),
        },
        now,
        source,
        structured,
        r.predictions,
      ),
    exitCode,
  };
}

export async function whatif(args: WhatIfArgs & ChangeArgs & UpgradeArgs): Promise<number> {
  const change = args.filename !== undefined || args['k3s-config'] !== undefined || args['rke2-config'] !== undefined;
  if (args.upgrade !== undefined) {
    if (change || args.nodes?.length)
      throw new InputError(
        'what-if takes nodes, -f/--k3s-config, or --upgrade: one of them',
        'one prediction at a time: kubectl arch what-if --upgrade v1.33, or kubectl arch what-if NODE',
      );
    if (args.remove) throw new InputError('--remove is for nodes, not for --upgrade');
    const r = await (await import('./upgrade.js')).upgradeReport(args);
    if (args.output === 'html') await writeOut(await r.page());
    else await emit(r, args);
    return r.exitCode;
  }
  if (change && args.nodes?.length)
    throw new InputError(
      'what-if takes nodes, or -f/--k3s-config: not both',
      'one prediction at a time: kubectl arch what-if -f FILE, or kubectl arch what-if NODE',
    );
  if (change && args.remove) throw new InputError('--remove is for nodes, not for -f/--k3s-config');
  if (args['apply-mode'] !== undefined && args.filename === undefined)
    throw new InputError('--apply-mode is for -f: how the manifests would be applied');
  if (change && args.output === 'html')
    throw new InputError('-o html draws nodes on the map; for -f use -o table, json, yaml, sarif or junit');
  if (args['sarif-all'] && args.output !== 'sarif')
    throw new InputError('--sarif-all is for -o sarif', 'add -o sarif, or leave out --sarif-all');
  const r = change ? await changeReport(args) : await whatIfReport(args);
  if (args.output === 'html') await writeOut(await (r as Awaited<ReturnType<typeof whatIfReport>>).page());
  else await emit(r, args);
  return r.exitCode;
}

/** A prediction in the -o it was asked for (html aside). */
async function emit(
  r: { structured: Record<string, unknown>; text: (s: ReturnType<typeof stdoutStyle>) => Promise<string> },
  args: WhatIfArgs,
): Promise<void> {
  if (args.output === 'sarif' || args.output === 'junit') {
    const { renderWhatIfFormat } = await import('./whatif-formats.js');
    await writeOut(await renderWhatIfFormat(r.structured, args.output, args['fail-on'], args));
  } else if (args.output !== 'table') await printStructured(r.structured, args.output);
  else process.stdout.write(await r.text(toTerminal(stdoutStyle(args))));
}
