// apps and batch: what a workload's update may change (kube-apiserver pkg/apis/{apps,batch}/validation and the Job
// strategy's options), v1.24–v1.36, each rule with the release it holds from.
import { pathText, shortJson } from './diff.js';
import { DETAILS, selectorMatchesTemplate } from './core.js';
import type { Rule, Update } from './update.js';

const json = (v: unknown): string => JSON.stringify(v ?? null);

/** A selector as the API server prints it (JSON of the v1 type, empty fields left out). */
const selectorText = (s: unknown): string => {
  const o = (s && typeof s === 'object' ? s : {}) as Record<string, unknown>;
  return json({
    ...(o.matchLabels && Object.keys(o.matchLabels).length ? { matchLabels: o.matchLabels } : {}),
    ...(Array.isArray(o.matchExpressions) && o.matchExpressions.length ? { matchExpressions: o.matchExpressions } : {}),
  });
};

function selectorImmutable(u: Update): void {
  const ds = u.known(u.cover('spec.selector'), 'the selector');
  if (ds.length)
    u.refuse({
      field: 'spec.selector',
      at: ['spec', 'selector'],
      // the value is the selector as apply merges it (a key the manifest leaves out may stay): elided
      error: `spec.selector: Invalid value: …: ${DETAILS.immutable}`,
      status: 422,
      live: selectorText(u.old.spec?.selector),
      desired: selectorText(u.next.spec?.selector),
    });
}

function templateMatchesSelector(u: Update): void {
  const sel = (u.next.spec?.selector ?? {}) as { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
  selectorMatchesTemplate(u, sel.matchLabels, sel.matchExpressions ?? []);
}

const deployment: Rule = (u) => {
  selectorImmutable(u);
  templateMatchesSelector(u);
  u.allow(
    'spec.replicas',
    'spec.template',
    'spec.minReadySeconds',
    'spec.revisionHistoryLimit',
    'spec.paused',
    'spec.progressDeadlineSeconds',
  );
  u.cover('spec.strategy');
  const st = (u.next.spec?.strategy ?? {}) as { type?: string; rollingUpdate?: { maxSurge?: unknown; maxUnavailable?: unknown } };
  const zero = (v: unknown): boolean => v === 0 || v === '0%' || v === '0';
  if (st.type === 'RollingUpdate' && st.rollingUpdate && zero(st.rollingUpdate.maxSurge) && zero(st.rollingUpdate.maxUnavailable))
    u.refuse({
      field: 'spec.strategy.rollingUpdate.maxUnavailable',
      at: ['spec', 'strategy', 'rollingUpdate'],
      error: 'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0',
      status: 422,
    });
  if (st.type === 'Recreate' && st.rollingUpdate)
    u.refuse({
      field: 'spec.strategy.rollingUpdate',
      at: ['spec', 'strategy', 'type'],
      error: "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
      status: 422,
    });
};

const replicaSet: Rule = (u) => {
  selectorImmutable(u);
  templateMatchesSelector(u);
  u.allow('spec.replicas', 'spec.template', 'spec.minReadySeconds');
};

const daemonSet: Rule = (u) => {
  selectorImmutable(u);
  templateMatchesSelector(u);
  // templateGeneration is the server's (it moves with the template)
  u.allow('spec.template', 'spec.minReadySeconds', 'spec.revisionHistoryLimit', 'spec.templateGeneration');
  u.cover('spec.updateStrategy');
  const st = (u.next.spec?.updateStrategy ?? {}) as { type?: string; rollingUpdate?: { maxSurge?: unknown; maxUnavailable?: unknown } };
  const nonZero = (v: unknown): boolean => v !== undefined && v !== 0 && v !== '0%' && v !== '0';
  if (st.type === 'RollingUpdate' && nonZero(st.rollingUpdate?.maxSurge) && nonZero(st.rollingUpdate?.maxUnavailable))
    u.refuse({
      field: 'spec.updateStrategy.rollingUpdate.maxSurge',
      at: ['spec', 'updateStrategy', 'rollingUpdate', 'maxSurge'],
      error: 'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: …: may not be set when maxUnavailable is non-zero',
      status: 422,
    });
};

/** The fields a StatefulSet update may change, as the API server lists them in its refusal. */
export function statefulSetAllowed(minor: number | undefined): string[] {
  // ordinals joined in v1.26 (the field), revisionHistoryLimit in v1.33
  if (minor !== undefined && minor < 26)
    return ['replicas', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];
  if (minor !== undefined && minor <= 32)
    return ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];
  return [
    'replicas',
    'ordinals',
    'template',
    'updateStrategy',
    'revisionHistoryLimit',
    'persistentVolumeClaimRetentionPolicy',
    'minReadySeconds',
  ];
}
const quoteList = (xs: string[]): string =>
  `${xs
    .slice(0, -1)
    .map((x) => `'${x}'`)
    .join(', ')} and '${xs[xs.length - 1]}'`;

const statefulSet: Rule = (u) => {
  const allowed = statefulSetAllowed(u.minor);
  templateMatchesSelector(u);
  u.allow(...allowed.map((k) => `spec.${k}`));
  u.cover('spec.updateStrategy');
  const st = (u.next.spec?.updateStrategy ?? {}) as { type?: string; rollingUpdate?: unknown };
  if (st.type === 'OnDelete' && st.rollingUpdate)
    u.refuse({
      field: 'spec.updateStrategy.rollingUpdate',
      at: ['spec', 'updateStrategy'],
      error: "spec.updateStrategy.rollingUpdate: Invalid value: …: only allowed for updateStrategy 'RollingUpdate'",
      status: 422,
    });
  const rest = u.known(u.coverRest('spec'), 'a StatefulSet spec');
  if (rest.length) {
    const d = rest[0]!;
    u.refuse({
      field: 'spec',
      at: d.path,
      error: `spec: Forbidden: ${DETAILS.statefulSet} ${quoteList(allowed)} are forbidden`,
      status: 422,
      path: pathText(d.path),
      live: shortJson(d.old),
      desired: shortJson(d.new),
    });
  }
};

const controllerRevision: Rule = (u) => {
  u.immutable('data', 'data');
  u.allow('revision');
};

// ---- batch

/** Where a Job that is suspended and never started may run (nodeSelector, tolerations, node affinity, gates, template
 *  labels and annotations: v1.23 beta, GA v1.27). */
const SCHEDULING = [
  'spec.template.spec.nodeSelector',
  'spec.template.spec.tolerations',
  'spec.template.spec.affinity.nodeAffinity',
  'spec.template.metadata.labels',
  'spec.template.metadata.annotations',
];

const job: Rule = (u) => {
  const old = (u.old.spec ?? {}) as Record<string, unknown>;
  const s = (u.next.spec ?? {}) as Record<string, unknown>;
  const status = (u.old.status ?? {}) as Record<string, unknown>;
  const suspended = old.suspend === true;
  const notStarted = !status.startTime;
  const suspendedCondition = ((status.conditions ?? []) as Array<{ type?: string; status?: string }>).some(
    (c) => c.type === 'Suspended' && c.status === 'True',
  );
  // v1.36: a suspended Job (never started, or stopped with no active pods) may change its pods' resources and where
  // they run (MutablePodResourcesForSuspendedJobs, MutableSchedulingDirectivesForSuspendedJobs: beta, on)
  const mutableTemplate = u.since(36) && suspended && (notStarted || suspendedCondition) && !Number(status.active ?? 0);
  const scheduling = (suspended && notStarted) || mutableTemplate;
  if (scheduling) u.cover(...SCHEDULING, ...(u.since(27) ? ['spec.template.spec.schedulingGates'] : []));
  // the affinity may be dropped when it held nothing but node affinity
  const oldAff = ((old.template as { spec?: { affinity?: Record<string, unknown> } } | undefined)?.spec?.affinity ?? {}) as Record<
    string,
    unknown
  >;
  const newAff = ((s.template as { spec?: { affinity?: Record<string, unknown> } } | undefined)?.spec?.affinity ?? undefined) as
    Record<string, unknown> | undefined;
  if (scheduling && newAff === undefined && Object.keys(oldAff).every((k) => k === 'nodeAffinity')) u.cover('spec.template.spec.affinity');
  const tmpl = u.known(u.cover('spec.template'), 'a Job template (env values the snapshot masks: a capture without digests)');
  if (mutableTemplate) {
    // only the containers' resources may change on top of where they run
    const rest = tmpl.filter(
      (d) =>
        !(d.path[2] === 'spec' && (d.path[3] === 'containers' || d.path[3] === 'initContainers') && d.path[5] === 'resources') &&
        d.path[2] === 'spec',
    );
    if (rest.length)
      u.refuse({
        field: 'spec.template.spec',
        at: rest[0]!.path,
        error: `spec.template.spec: Invalid value: …: ${DETAILS.immutable}`,
        status: 422,
        path: pathText(rest[0]!.path),
        live: shortJson(rest[0]!.old),
        desired: shortJson(rest[0]!.new),
      });
  } else if (tmpl.length)
    u.refuse({
      field: 'spec.template',
      at: tmpl[0]!.path,
      // the value is the whole template as the server holds it (kilobytes of JSON): elided
      error: `spec.template: Invalid value: …: ${DETAILS.immutable}`,
      status: 422,
      path: pathText(tmpl[0]!.path),
      live: shortJson(tmpl[0]!.old),
      desired: shortJson(tmpl[0]!.new),
    });
  // the selector and the template's labels are the server's own (controller-uid), unless manualSelector
  if (s.manualSelector !== true) {
    // the label the server selects by: batch.kubernetes.io/controller-uid from v1.27, controller-uid before
    const sel = (old.selector as { matchLabels?: Record<string, string> } | undefined)?.matchLabels ?? {};
    const key = sel['batch.kubernetes.io/controller-uid'] !== undefined ? 'batch.kubernetes.io/controller-uid' : 'controller-uid';
    const uid = sel[key];
    const labels = ((s.template as { metadata?: { labels?: Record<string, string> } } | undefined)?.metadata?.labels ?? {}) as Record<
      string,
      string
    >;
    if (uid && labels[key] !== uid)
      u.refuse({
        field: `spec.template.metadata.labels[${key}]`,
        at: ['spec', 'template', 'metadata', 'labels'],
        error: `spec.template.metadata.labels[${key}]: ${labels[key] === undefined ? 'Required value' : 'Invalid value: …'}: must be '${uid}'`,
        status: 422,
      });
    if (u.changed('spec.selector').length)
      u.refuse({
        field: 'spec.selector',
        at: ['spec', 'selector'],
        error: 'spec.selector: Invalid value: …: `selector` not auto-generated',
        status: 422,
      });
  }
  selectorImmutable(u);
  // completions: fixed, except an Indexed Job's together with parallelism (elastic, v1.27+)
  const comp = u.cover('spec.completions');
  if (comp.length) {
    const elastic =
      u.since(27) &&
      s.completionMode === 'Indexed' &&
      old.completionMode === 'Indexed' &&
      s.completions === s.parallelism &&
      old.completions === old.parallelism;
    if (!elastic)
      u.refuse({
        field: 'spec.completions',
        at: ['spec', 'completions'],
        error: `spec.completions: Invalid value: ${json(s.completions)}: ${DETAILS.immutable}`,
        status: 422,
        live: String(old.completions ?? '(not set)'),
        desired: String(s.completions ?? '(not set)'),
      });
  }
  for (const k of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy']) {
    const ds = u.known(u.cover(`spec.${k}`), k);
    if (ds.length)
      u.refuse({
        field: `spec.${k}`,
        at: ['spec', k],
        error: `spec.${k}: Invalid value: ${json(s[k])}: ${DETAILS.immutable}`,
        status: 422,
        live: shortJson(old[k]),
        desired: shortJson(s[k]),
      });
  }
  u.allow(
    'spec.parallelism',
    'spec.activeDeadlineSeconds',
    'spec.backoffLimit',
    'spec.ttlSecondsAfterFinished',
    'spec.suspend',
    'spec.manualSelector',
    'spec.podReplacementPolicy',
    'spec.maxFailedIndexes',
  );
  if (s.completionMode === 'Indexed' && s.completions === undefined)
    u.refuse({
      field: 'spec.completions',
      at: ['spec', 'completions'],
      error: 'spec.completions: Required value: when completion mode is Indexed',
      status: 422,
    });
};

const cronJob: Rule = (u) => {
  u.allow(
    'spec.schedule',
    'spec.timeZone',
    'spec.startingDeadlineSeconds',
    'spec.concurrencyPolicy',
    'spec.suspend',
    'spec.jobTemplate',
    'spec.successfulJobsHistoryLimit',
    'spec.failedJobsHistoryLimit',
  );
};

export const WORKLOAD_RULES: Record<string, Rule> = {
  'Deployment.apps': deployment,
  'ReplicaSet.apps': replicaSet,
  'DaemonSet.apps': daemonSet,
  'StatefulSet.apps': statefulSet,
  'ControllerRevision.apps': controllerRevision,
  'Job.batch': job,
  'CronJob.batch': cronJob,
};
