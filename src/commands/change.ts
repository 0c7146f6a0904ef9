// `kubectl arch what-if -f PATH|-`: what applying these manifests would do, predicted read-only (src/change/). The
// manifests are read before any request (a bad file is a usage error); each object they name is read with one GET
// (never a Secret), and what decides its fate around it — namespaces, StorageClasses, admission webhooks and their
// backends, the owners that track it — with lists. Exit 1 when a prediction is at or above --fail-on, 3 when something
// it rests on was not visible, as for nodes.
import { closeSync } from 'node:fs';
import { evidenceTime } from '../checks/run.js';
import { EXIT, InputError } from '../errors.js';
import { fingerprint, FINGERPRINT_NEEDS } from '../fingerprint.js';
import { readFull } from '../lib/files.js';
import { fingerprintOf, type Need } from '../model.js';
import { REPORT_API_VERSION } from '../render/report.js';
import { CONFIGMAPS, R } from '../resources.js';
import { verdictOf } from '../whatif/predict.js';
import { acquire, runDeadline, type GlobalArgs, type stdoutStyle } from './common.js';
import { baselineFor, markAgainst, readReport, sameCommand, whatIfQuestion } from './baseline.js';
import { MAX_MANIFEST_BYTES, parseManifests, readManifests } from '../change/manifests.js';
import { predictChange, writtenRefs } from '../change/predict.js';
import type { ApplyMode } from '../change/apply.js';
import { parseServerConfig, predictServerConfig, readServerConfig } from '../change/k3s-config.js';

export interface ChangeArgs extends GlobalArgs {
  filename?: string | string[];
  'k3s-config'?: string;
  'rke2-config'?: string;
  'apply-mode'?: string;
  /** The MCP server's: manifests and a config.yaml given as text, not files. */
  manifestsText?: string;
  k3sConfigText?: string;
}

/** CustomResourceDefinitions: which kinds they add and their scope (the type's trim leaves out their schemas). */
const CRDS: Need = { ...R.crds, optional: true };

/** What decides an object's fate around it (the objects themselves are read one by one). */
const CONTEXT: Need[] = [
  ...FINGERPRINT_NEEDS,
  CONFIGMAPS,
  R.storageclasses,
  R.validatingWebhooks,
  R.mutatingWebhooks,
  R.services,
  R.endpoints,
  { ...R.endpointslices, optional: true },
  { ...R.argoApplications, optional: true },
  { ...R.fluxKustomizations, optional: true },
  { ...R.fluxHelmReleases, optional: true },
  { ...R.helmcharts, optional: true },
  { ...R.addons, optional: true },
  CRDS,
];

/** stdin, bounded like the files. */
function readStdin(): string {
  const chunks: Buffer[] = [];
  let total = 0;
  const buf = Buffer.alloc(1 << 20);
  for (;;) {
    let n: number;
    try {
      n = readFull(0, buf, buf.length);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') continue;
      if ((e as NodeJS.ErrnoException).code === 'EOF') break;
      throw e;
    }
    if (n <= 0) break;
    total += n;
    if (total > MAX_MANIFEST_BYTES) throw new InputError(`-f -: stdin holds more than ${MAX_MANIFEST_BYTES >> 20} MiB`);
    chunks.push(Buffer.from(buf.subarray(0, n)));
    if (n < buf.length) continue;
  }
  void closeSync;
  return Buffer.concat(chunks).toString('utf8');
}

export async function changeReport(args: ChangeArgs): Promise<{
  structured: Record<string, unknown>;
  text: (s: ReturnType<typeof stdoutStyle>) => Promise<string>;
  exitCode: number;
}> {
  const paths = [args.filename ?? []].flat().map(String);
  const program = args['rke2-config'] !== undefined ? 'rke2' : 'k3s';
  const configFile = args['k3s-config'] ?? args['rke2-config'];
  if (args['k3s-config'] !== undefined && args['rke2-config'] !== undefined)
    throw new InputError('--k3s-config and --rke2-config: give one (a cluster runs one of them)');
  if (!paths.length && configFile === undefined && args.manifestsText === undefined && args.k3sConfigText === undefined)
    throw new InputError('what-if -f needs a file, a directory or - (stdin)');
  // read before any request: a bad file is a usage error
  const manifests =
    args.manifestsText !== undefined
      ? parseManifests(args.manifestsText, 'manifests')
      : paths.length
        ? readManifests(paths, readStdin)
        : [];
  if (args.manifestsText !== undefined && !manifests.length) throw new InputError('manifests: no objects in them');
  const config =
    args.k3sConfigText !== undefined
      ? parseServerConfig(args.k3sConfigText, 'k3sConfig', 'k3s')
      : configFile !== undefined
        ? readServerConfig(String(configFile), program)
        : undefined;
  const deadline = args.runDeadline ?? (await runDeadline(args));
  const base = args.baseline ? readReport(args.baseline) : undefined;
  if (base) sameCommand(base, 'what-if', whatIfQuestion({ change: true }), '--baseline');
  const defaultNamespace = args.namespace ?? 'default';
  // the names as written: a kind's scope is known after discovery, which the step that reads them does itself
  const { snap, source } = await acquire({ ...args, namespace: undefined, 'all-namespaces': true, runDeadline: deadline }, CONTEXT, {
    named: args.snapshot ? undefined : { refs: writtenRefs(manifests), defaultNamespace },
  });
  const now = evidenceTime(snap);
  const r = predictChange(manifests, snap, now, { defaultNamespace, applyMode: args['apply-mode'] as ApplyMode | undefined });
  const cfg = config ? predictServerConfig(config, snap, program) : undefined;
  if (cfg) {
    r.predictions.unshift(...cfg.predictions);
    r.notJudged.push(...cfg.notJudged);
  }
  for (const p of r.predictions) (p as { fingerprint?: string }).fingerprint = fingerprintOf(p);
  const baseline = base ? markAgainst(r.predictions, baselineFor(base, source.context), args.baseline!) : undefined;
  const verdict = verdictOf(r.predictions, r.notJudged, args['fail-on']);
  const gate = baseline
    ? verdictOf(
        r.predictions.filter((p) => (p as { baseline?: string }).baseline === 'new'),
        r.notJudged,
        args['fail-on'],
      )
    : verdict;
  const exitCode = gate.state === 'not safe' ? EXIT.FINDINGS : gate.state === 'not judged' ? EXIT.UNREACHABLE : EXIT.OK;
  const fp = fingerprint(snap);
  const counts = { create: 0, update: 0, unchanged: 0, refused: 0, 'not judged': 0 };
  for (const o of r.objects) counts[o.state]++;
  const structured = {
    apiVersion: REPORT_API_VERSION,
    kind: 'WhatIf',
    command: 'what-if',
    source,
    fingerprint: { distribution: fp.distribution, serverVersion: fp.serverVersion, nodes: fp.nodes.summary },
    hypothesis: {
      change: {
        files: args.manifestsText !== undefined ? ['manifests'] : paths,
        objects: r.objects.length,
        ...counts,
        ...(config ? { config: { program, file: config.file, settings: cfg!.settings } } : {}),
      },
    },
    objects: r.objects,
    predictions: r.predictions,
    oneAtATime: null,
    notJudged: r.notJudged,
    notes: [
      `each object is judged as its owner applies it (Argo CD: its sync options; Flux: server-side; K3s: wrangler; Helm), else as ${args['apply-mode'] ?? 'client-side'} apply${args['apply-mode'] ? '' : ' (kubectl apply; --apply-mode says otherwise)'}, against the update validation of ${/^v?1\.\d+/.test(fp.serverVersion ?? '') ? fp.serverVersion : 'the newest release it knows (v1.36: the server version is not known)'}`,
      ...r.notes,
    ],
    verdict: { ...verdict, exitCode },
    ...(baseline ? { baseline } : {}),
  };
  return {
    structured,
    text: async () =>
      (await import('../render/change.js')).renderChange(structured as never, (await import('./common.js')).stdoutStyle(args)),
    exitCode,
  };
}
