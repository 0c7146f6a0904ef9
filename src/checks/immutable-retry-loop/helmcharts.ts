// K3s/RKE2 HelmCharts whose install fails on every attempt. The helm-controller runs a Job helm-install-<name> (an
// upgrade re-runs it; helm-delete-<name> uninstalls) in the chart's namespace, one container `helm`, restartPolicy
// OnFailure and backoffLimit 1000: a chart that cannot install is one pod whose restarts grow for days
// (CrashLoopBackOff) before the Job fails. The HelmChart's own status says little: no conditions before
// helm-controller v0.15.12/v0.16.3, Failed=False while the pod crash-loops until v0.16.25/v0.17.6, and Failed=True
// only once the Job has failed. So every piece of evidence counts — the HelmChart (conditions, failurePolicy), the
// Job (active, failed, BackoffLimitExceeded, Complete), its pods (restarts, waiting reason, last termination and its
// message) and Events (BackOff, BackoffLimitExceeded, JobFailed) — merged into one finding per chart; a chart with
// only some of them visible is still judged, naming what it lacks.
import { condition } from '../../lib/k8s.js';
import type { NormEvent } from '../../lib/events.js';
import { human } from '../../lib/events.js';
import type { KObject, ObjectRef } from '../../model.js';
import { isImmutableRejection } from './rejections.js';

export interface ChartEvidence {
  namespace: string;
  /** The HelmChart's name (also the Helm release name). */
  name: string;
  chart?: KObject;
  /** Its HelmChartConfig (same name and namespace): user values and a failurePolicy that overrides the chart's. */
  config?: KObject;
  job?: KObject;
  pods: KObject[];
  events: NormEvent[];
}

/** What a packaged component provides, by its chart name: what is lost while it cannot install. */
const COMPONENTS: Array<[RegExp, string, string]> = [
  [/^(rke2-)?traefik$/, 'Traefik', 'no ingress controller: Ingress and IngressRoute objects route nothing'],
  [/^(rke2-)?ingress-nginx$/, 'ingress-nginx', 'no ingress controller: Ingress objects route nothing'],
  [/crd$/, 'its CRDs', 'the CRDs the component needs; the component itself cannot install or upgrade without them'],
  [/coredns/, 'CoreDNS', 'no cluster DNS — the cluster-dns check says whether kube-dns answers'],
  [/^rke2-(canal|calico|cilium|flannel|multus)$/, 'the CNI', 'no pod network: new pods stay ContainerCreating'],
  [/metrics-server/, 'metrics-server', 'kubectl top and the autoscalers (HPA) have no metrics'],
  [/snapshot-(controller|validation)/, 'the volume snapshot controller', 'VolumeSnapshots are not taken'],
];

const JOB_OF = /^helm-(install|delete)-(.+)$/;

/** The chart a Job or pod belongs to: its label, else its name (helm-install-<chart>, a pod adds -<hash>). */
export function chartOf(o: KObject): { name: string; action: 'install' | 'delete' } | undefined {
  const label = o.metadata.labels?.['helmcharts.helm.cattle.io/chart'];
  const jobName =
    o.kind === 'Job'
      ? o.metadata.name
      : (o.metadata.labels?.['batch.kubernetes.io/job-name'] ??
        o.metadata.labels?.['job-name'] ??
        (o.metadata.ownerReferences ?? []).find((r) => r?.kind === 'Job')?.name);
  const m = jobName ? JOB_OF.exec(jobName) : null;
  if (label) return { name: label, action: m?.[1] === 'delete' ? 'delete' : 'install' };
  if (m) return { name: m[2]!, action: m[1] as 'install' | 'delete' };
  return undefined;
}

interface Run {
  restarts: number;
  waiting?: string;
  last?: { exitCode?: number; reason?: string; message?: string; finishedAt?: string };
  now?: { exitCode?: number; reason?: string; message?: string };
  phase?: string;
}

const helmContainer = (p: KObject): Run => {
  const cs: any[] = Array.isArray(p.status?.containerStatuses) ? p.status.containerStatuses : [];
  const c = cs.find((x) => x?.name === 'helm') ?? cs[0];
  return {
    restarts: typeof c?.restartCount === 'number' ? c.restartCount : 0,
    waiting: c?.state?.waiting?.reason,
    last: c?.lastState?.terminated,
    now: c?.state?.terminated,
    phase: p.status?.phase,
  };
};

export type ChartState = 'retrying' | 'failed' | 'abort';

export interface ChartVerdict {
  state: ChartState;
  /** What shows it, one phrase per source. */
  seen: string[];
  /** The sources that were not visible. */
  lacks: string[];
  /** The helm job's last line (its termination message): an error, or only the step it was at. */
  reason?: string;
  reasonIsError: boolean;
  since?: number;
  immutable: boolean;
}

const TEN_MIN = 10 * 60_000;

/**
 * Whether this chart fails on every attempt, from what is visible. undefined: no failure (a chart whose Job
 * completed after failing once, a first attempt still running) or nothing to judge.
 */
export function judgeChart(
  e: ChartEvidence,
  now: Date,
  visible: { charts: boolean; jobs: boolean; pods: boolean; events: boolean },
): ChartVerdict | undefined {
  const seen: string[] = [];
  const t = now.getTime();
  const jobDone =
    e.job &&
    (condition(e.job, 'Complete')?.status === 'True' || (typeof e.job.status?.succeeded === 'number' && e.job.status.succeeded > 0));
  // a Job that completed: the last attempt succeeded, whatever failed before it
  if (jobDone) return undefined;
  const jobFailed = e.job ? condition(e.job, 'Failed') : undefined;
  const failedCond = e.chart ? condition(e.chart, 'Failed') : undefined;
  const runs = e.pods.map(helmContainer);
  const succeededPod = e.pods.some((p) => p.status?.phase === 'Succeeded');
  if (succeededPod && !jobFailed) return undefined;
  const crashing = runs.filter((r) => r.waiting === 'CrashLoopBackOff' || (r.restarts > 0 && ((r.last?.exitCode ?? 0) !== 0 || r.waiting)));
  const errored = runs.filter((r) => r.phase === 'Failed' || (r.now?.exitCode ?? 0) !== 0);
  // the events are the chart's own job's and pods' ("Back-off restarting failed container [helm in pod …]")
  const backoff = e.events.filter((v) => v.reason === 'BackOff');
  const limit = e.events.filter((v) => v.reason === 'BackoffLimitExceeded' || v.reason === 'JobFailed');
  if (jobFailed?.status === 'True')
    seen.push(`Job ${e.job!.metadata.name} failed (${jobFailed.reason ?? 'Failed'}${jobFailed.message ? `: ${jobFailed.message}` : ''})`);
  if (failedCond?.status === 'True')
    seen.push(`HelmChart condition Failed=True (${failedCond.reason ?? ''}${failedCond.message ? `: ${failedCond.message}` : ''})`);
  const maxRestarts = Math.max(0, ...runs.map((r) => r.restarts));
  if (crashing.length)
    seen.push(
      `pod ${e.pods[runs.indexOf(crashing[0]!)]!.metadata.name}: ${crashing[0]!.waiting ?? 'restarting'}, ${maxRestarts} restart${maxRestarts === 1 ? '' : 's'}${crashing[0]!.last ? `, last exit ${crashing[0]!.last.exitCode ?? '?'}${crashing[0]!.last.reason ? ` (${crashing[0]!.last.reason})` : ''}` : ''}`,
    );
  else if (errored.length) seen.push(`${errored.length} pod${errored.length === 1 ? '' : 's'} of the job failed`);
  if (e.job && typeof e.job.status?.failed === 'number' && e.job.status.failed > 0 && !jobFailed)
    seen.push(`Job ${e.job.metadata.name}: ${e.job.status.failed} failed pod${e.job.status.failed === 1 ? '' : 's'}`);
  if (backoff.length) {
    const n = backoff.reduce((a, v) => a + v.count, 0);
    seen.push(`${n} BackOff event${n === 1 ? '' : 's'} ("${backoff[0]!.message}")`);
  }
  if (limit.length) seen.push(`event ${limit[0]!.reason}: ${limit[0]!.message}`);
  if (!seen.length) return undefined;
  // a first failure is not a loop: it takes a retry after a failure (a restart, a second failed pod, repeated events)
  const repeated =
    jobFailed?.status === 'True' ||
    failedCond?.status === 'True' ||
    maxRestarts >= 2 ||
    crashing.some((r) => r.waiting === 'CrashLoopBackOff') ||
    (e.job?.status?.failed ?? 0) >= 2 ||
    errored.length >= 2 ||
    backoff.reduce((a, v) => a + v.count, 0) >= 2 ||
    limit.length > 0;
  if (!repeated) return undefined;
  const messages = [
    ...runs.flatMap((r) => [r.last?.message, r.now?.message]),
    failedCond?.status === 'True' ? failedCond.message : undefined,
    jobFailed?.message,
  ].filter((m): m is string => typeof m === 'string' && m.trim() !== '');
  const reason = messages.find((m) => !/backoff limit|reached configured number of retries/i.test(m)) ?? messages[0];
  const abort =
    messages.some((m) => /waiting for operator intervention/.test(m)) || (e.chart?.spec?.failurePolicy === 'abort' && crashing.length > 0);
  // retrying: the evidence shows an attempt after the last failure (a pod waiting to restart, a BackOff just now)
  const lastBackoff = Math.max(0, ...backoff.map((v) => v.last ?? 0));
  const retrying =
    !(jobFailed?.status === 'True') &&
    (crashing.some((r) => r.waiting === 'CrashLoopBackOff' || r.phase === 'Running') || (lastBackoff > 0 && t - lastBackoff < TEN_MIN));
  const starts = [
    e.job?.status?.startTime,
    ...e.pods.map((p) => p.metadata.creationTimestamp),
    ...e.events.map((v) => (v.first ? new Date(v.first).toISOString() : undefined)),
  ]
    .map((x) => Date.parse(String(x ?? '')))
    .filter((x) => !Number.isNaN(x));
  const lacks = [
    ...(visible.charts ? [] : ['HelmChart']),
    ...(visible.jobs ? [] : ['Job']),
    ...(visible.pods ? [] : ['Pod']),
    ...(visible.events ? [] : ['Event']),
  ];
  return {
    state: abort ? 'abort' : retrying ? 'retrying' : 'failed',
    seen,
    lacks,
    reason,
    reasonIsError: reason !== undefined && /error|fail|cannot|invalid|not found|forbidden|denied|timed out|conflict|exists/i.test(reason),
    since: starts.length ? Math.min(...starts) : undefined,
    immutable: messages.some(isImmutableRejection),
  };
}

/** What the chart provides, for the finding's cost sentence. */
export function costOf(name: string, packaged: boolean): string {
  for (const [re, what, cost] of COMPONENTS) if (re.test(name)) return `${what}${packaged ? ' (a packaged component)' : ''}: ${cost}`;
  return `release ${name}: what the chart deploys is not installed or not upgraded`;
}

/** What the chart provides, by name (Traefik, CoreDNS...), or its release. */
export function componentOf(name: string): string {
  for (const [re, what] of COMPONENTS) if (re.test(name)) return what;
  return `release ${name}`;
}

/** The component's own pods, as its chart labels them: the release as instance (K3s's Traefik: traefik-kube-system),
 *  or the component's name (rke2-canal: k8s-app canal; rke2-coredns: k8s-app kube-dns). */
export function componentPods(pods: KObject[], name: string, target: string): KObject[] {
  const bare = name.replace(/^rke2-/, '');
  const names = new Set([name, `${name}-${target}`, bare, ...(bare === 'coredns' ? ['kube-dns'] : [])]);
  return pods.filter((p) => {
    if (p.metadata.namespace !== target || chartOf(p)) return false;
    const l = p.metadata.labels ?? {};
    return ['app.kubernetes.io/instance', 'release', 'app.kubernetes.io/name', 'k8s-app', 'app'].some(
      (k) => l[k] !== undefined && names.has(l[k]!),
    );
  });
}

/** Packaged: applied by the K3s/RKE2 deploy controller from the server's manifests (owned by an Addon). */
export const isPackaged = (chart: KObject | undefined): boolean =>
  /k3s\.cattle\.io\/v1, Kind=Addon/.test(chart?.metadata.annotations?.['objectset.rio.cattle.io/owner-gvk'] ?? '');

export const chartRef = (namespace: string, name: string): ObjectRef => ({
  kind: 'HelmChart',
  apiVersion: 'helm.cattle.io/v1',
  namespace,
  name,
});

export const sinceText = (since: number | undefined, now: Date): string =>
  since === undefined ? '' : ` for ${human(Math.max(0, Math.round((now.getTime() - since) / 1000)))}`;
