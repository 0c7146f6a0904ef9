// One retry loop per owner + rejected object + field, whatever the sources that show it: Warning Events,
// an Argo CD Application's conditions / operationState / per-resource sync results, a Flux Kustomization
// or HelmRelease's conditions, a K3s Addon's or HelmChart's events. Each loop gets one liveness state:
//   retrying  the owner is re-applying it now (attempts within its retry period)
//   stalled   the owner gave up or waits for a new revision, but still wants the change
//   one-off   rejected, then superseded by a later successful apply (or not repeated since)
import { condition, refOf } from '../../lib/k8s.js';
import { groupOf, type KObject, type ObjectRef } from '../../model.js';
import { cadence, normaliseEvents, type Cadence, type NormEvent } from '../../lib/events.js';
import { goLiteralText } from './golit.js';
import { isImmutableRejection, parseRejections, type Rejection } from './rejections.js';

export type LoopState = 'retrying' | 'stalled' | 'one-off';
export type OwnerTool = 'argocd' | 'flux' | 'k3s-addon' | 'k3s-helmchart' | 'controller';

export interface Owner {
  tool: OwnerTool;
  ref: ObjectRef;
  /** The owner object itself is in the snapshot (its status was read), not only its events. */
  seen: boolean;
}

export interface Source {
  /** e.g. "event", "argocd operationState", "argocd syncResult", "argocd condition SyncError", "flux Ready condition". */
  source: string;
  message: string;
  at?: string;
  attempts?: number;
}

export interface Loop {
  owner: Owner;
  object: ObjectRef;
  rejection: Rejection & { liveValue?: string };
  sources: Source[];
  state: LoopState;
  /** Why that state, in words. */
  stateWhy: string;
  cadence?: Cadence;
  /** Argo CD: retry limit (-1 forever) and retries so far; Flux: retry interval. */
  retry?: { limit?: number; count?: number; interval?: string };
}

const COND = condition;

const keyOf = (r: { kind?: string; namespace?: string; name?: string }): string => `${r.kind ?? ''}/${r.namespace ?? ''}/${r.name ?? ''}`;
const time = (s: unknown): number | undefined => {
  const t = typeof s === 'string' ? Date.parse(s) : NaN;
  return Number.isNaN(t) ? undefined : t;
};

interface Draft {
  owner: Owner;
  rejection: Rejection;
  source: Source;
  fallbackNs?: string;
  object?: ObjectRef;
}

/** The live value of a rejected field (`spec.clusterIPs[0]`), when the object is in the snapshot. */
function valueAt(o: KObject, path: string): string | undefined {
  let v: unknown = o;
  for (const part of path.split('.').flatMap((p) => p.split(/\[(\d+)\]/).filter((x) => x !== ''))) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : goLiteralText(JSON.stringify(v));
}

// ---------------------------------------------------------------- Argo CD

function argoDrafts(app: KObject): Draft[] {
  const owner: Owner = { tool: 'argocd', ref: refOf(app), seen: true };
  const out: Draft[] = [];
  const dest = app.spec?.destination?.namespace;
  const add = (source: string, message: unknown, at?: unknown, object?: ObjectRef): void => {
    if (typeof message !== 'string' || !isImmutableRejection(message)) return;
    for (const r of parseRejections(message)) {
      out.push({
        owner,
        rejection: r,
        source: { source, message, at: typeof at === 'string' ? at : undefined },
        fallbackNs: object?.namespace ?? dest,
        object,
      });
    }
  };
  for (const c of Array.isArray(app.status?.conditions) ? app.status.conditions : []) {
    if (c?.type === 'SyncError' || c?.type === 'ComparisonError') add(`argocd condition ${c.type}`, c.message, c.lastTransitionTime);
  }
  const op = app.status?.operationState ?? {};
  add('argocd operationState', op.message, op.finishedAt ?? op.startedAt);
  for (const r of Array.isArray(op.syncResult?.resources) ? op.syncResult.resources : []) {
    const object: ObjectRef = {
      kind: r?.kind,
      apiVersion: r?.group ? `${r.group}/${r.version}` : r?.version,
      namespace: r?.namespace || undefined,
      name: r?.name,
    };
    add('argocd syncResult', r?.message, op.finishedAt, object);
  }
  return out;
}

function argoState(app: KObject, lastEvent: number | undefined): Pick<Loop, 'state' | 'stateWhy' | 'retry'> {
  const op = app.status?.operationState ?? {};
  const limit: number | undefined =
    typeof app.spec?.syncPolicy?.retry?.limit === 'number'
      ? app.spec.syncPolicy.retry.limit
      : typeof op.operation?.retry?.limit === 'number'
        ? op.operation.retry.limit
        : undefined;
  const retry = { limit, count: typeof op.retryCount === 'number' ? op.retryCount : undefined };
  const sync = app.status?.sync?.status;
  const opFailed = typeof op.message === 'string' && isImmutableRejection(op.message);
  if (op.phase === 'Running' && opFailed) {
    return {
      state: 'retrying',
      retry,
      stateWhy:
        limit !== undefined && limit < 0
          ? 'Argo CD retries forever (syncPolicy.retry.limit: -1) and is retrying now'
          : `Argo CD is retrying now (attempt ${retry.count ?? '?'}${limit !== undefined ? ` of ${limit}` : ''})`,
    };
  }
  const finished = time(op.finishedAt);
  if (
    sync === 'Synced' &&
    op.phase === 'Succeeded' &&
    !opFailed &&
    (lastEvent === undefined || (finished !== undefined && finished > lastEvent))
  ) {
    return { state: 'one-off', retry, stateWhy: `a later sync succeeded (${op.finishedAt}) and the app is Synced` };
  }
  const automated = Boolean(app.spec?.syncPolicy?.automated);
  const why =
    sync === 'Unknown'
      ? 'Argo CD cannot compare desired and live state (sync status Unknown): no sync is attempted until the manifest changes'
      : automated
        ? `Argo CD gave up on this revision${retry.count ? ` after ${retry.count} retries` : ''}; it fails again on every commit that touches the app (sync status ${sync ?? '?'})`
        : `the last sync failed and a manual sync will fail the same way (sync status ${sync ?? '?'})`;
  return { state: 'stalled', retry, stateWhy: why };
}

// ---------------------------------------------------------------- Flux

/** Where an owner's controller puts a namespaced object whose manifest names no namespace. */
function ownerTargetNamespace(o: KObject): string | undefined {
  if (o.kind === 'Application') return o.spec?.destination?.namespace || undefined;
  if (o.kind === 'HelmRelease') return o.spec?.targetNamespace ?? o.metadata.namespace;
  return o.spec?.targetNamespace || undefined;
}

function fluxDrafts(o: KObject): Draft[] {
  const owner: Owner = { tool: 'flux', ref: refOf(o), seen: true };
  const out: Draft[] = [];
  for (const type of ['Ready', 'Released', 'Stalled']) {
    const c = COND(o, type);
    if (!c || (c.status === 'True' && type !== 'Stalled') || typeof c.message !== 'string' || !isImmutableRejection(c.message)) continue;
    for (const r of parseRejections(c.message)) {
      out.push({
        owner,
        rejection: r,
        source: { source: `flux ${type} condition`, message: c.message, at: c.lastTransitionTime },
        fallbackNs: ownerTargetNamespace(o),
      });
    }
  }
  return out;
}

function fluxState(o: KObject, lastEvent: number | undefined): Pick<Loop, 'state' | 'stateWhy' | 'retry'> {
  const interval: string | undefined = o.spec?.retryInterval ?? o.spec?.interval;
  const ready = COND(o, 'Ready');
  const stalled = COND(o, 'Stalled');
  if (ready?.status === 'True' && (lastEvent === undefined || (time(ready.lastTransitionTime) ?? 0) > lastEvent)) {
    return { state: 'one-off', stateWhy: `${o.kind} is Ready again since ${ready.lastTransitionTime ?? '?'}`, retry: { interval } };
  }
  if (o.spec?.suspend === true)
    return { state: 'stalled', stateWhy: `${o.kind} is suspended (spec.suspend: true) and still declares the change`, retry: { interval } };
  if (stalled?.status === 'True')
    return {
      state: 'stalled',
      stateWhy: `helm-controller stopped retrying (Stalled: ${stalled.reason ?? ''} ${stalled.message ?? ''})`.trim(),
      retry: { interval },
    };
  // helm-controller (v2beta1 and later) stops upgrading once spec.upgrade.remediation.retries are used up, until the
  // spec, values or chart change (or a suspend and resume): it waits, it does not retry
  const exhausted = [ready, COND(o, 'Released')].find((c) => c && /retries exhausted/i.test(String(c.message ?? '')));
  if (exhausted)
    return {
      state: 'stalled',
      stateWhy: `helm-controller stopped trying ("${exhausted.message}"): it waits for a change to the HelmRelease, and still declares the change`,
      retry: { interval },
    };
  return { state: 'retrying', stateWhy: `Flux retries every ${interval ?? 'interval'} while Ready=False`, retry: { interval } };
}

// ---------------------------------------------------------------- events

const OWNER_KINDS: Record<string, OwnerTool> = {
  'Application.argoproj.io': 'argocd',
  'Kustomization.kustomize.toolkit.fluxcd.io': 'flux',
  'HelmRelease.helm.toolkit.fluxcd.io': 'flux',
  'Addon.k3s.cattle.io': 'k3s-addon',
  'HelmChart.helm.cattle.io': 'k3s-helmchart',
};

function eventDraft(e: NormEvent): Draft[] {
  if (e.type !== 'Warning' || !isImmutableRejection(e.message)) return [];
  const g = groupOf(e.object.apiVersion);
  const ownerKey = `${e.object.kind}${g ? '.' + g : ''}`;
  const tool = OWNER_KINDS[ownerKey] ?? (e.object.kind === 'Application' ? 'argocd' : e.object.kind === 'Addon' ? 'k3s-addon' : undefined);
  const involved: ObjectRef = { kind: e.object.kind, apiVersion: e.object.apiVersion, namespace: e.object.namespace, name: e.object.name };
  const owner: Owner = tool
    ? { tool, ref: involved, seen: false }
    : { tool: 'controller', ref: { kind: 'controller', name: e.source || 'unknown controller' }, seen: false };
  const source: Source = {
    source: `event ${e.reason}${e.source ? ` from ${e.source}` : ''}`,
    message: e.message,
    at: e.last !== undefined ? new Date(e.last).toISOString() : undefined,
    attempts: e.count,
  };
  return parseRejections(e.message).map((r) => ({
    owner,
    rejection: r,
    source,
    fallbackNs: e.object.namespace,
    object: tool ? undefined : involved,
  }));
}

// ---------------------------------------------------------------- merge

export interface LoopInput {
  events: NormEvent[];
  apps: KObject[];
  flux: KObject[];
  /** Every object in the snapshot, by "Kind/namespace/name", for live values. */
  lookup: (kind: string, namespace: string | undefined, name: string) => KObject | undefined;
  now: Date;
}

export function findLoops(inp: LoopInput): Loop[] {
  const drafts: Draft[] = [];
  const owners = new Map<string, KObject>();
  for (const a of inp.apps) {
    owners.set(keyOf(refOf(a)), a);
    drafts.push(...argoDrafts(a));
  }
  for (const f of inp.flux) {
    owners.set(keyOf(refOf(f)), f);
    drafts.push(...fluxDrafts(f));
  }
  const fromEvents: Array<[Draft, NormEvent]> = [];
  for (const e of inp.events) {
    if (e.object.kind === 'Addon' && e.reason === 'ApplyManifestFailed') continue; // the K3s addon pass reads these
    for (const d of eventDraft(e)) {
      // an event on an owner whose object we have: it is that owner's loop
      const owned = owners.get(keyOf(d.owner.ref));
      if (owned) d.owner = { ...d.owner, seen: true };
      // an event on an owner is recorded in the owner's namespace, not the rejected object's: a name without a
      // namespace in its message resolves where that owner's controller applies (Argo CD: spec.destination.namespace;
      // Flux: spec.targetNamespace, else the HelmRelease's own namespace); unknown is better than wrong
      if (d.owner.tool === 'argocd' || d.owner.tool === 'flux') d.fallbackNs = owned ? ownerTargetNamespace(owned) : undefined;
      drafts.push(d);
      fromEvents.push([d, e]);
    }
  }
  // a message may not say the namespace that another source of the same rejection does: share it
  const nsOf = new Map<string, string>();
  const loose = (d: Draft): string => {
    const o = objectOf(d);
    return `${d.owner.tool}|${keyOf(d.owner.ref)}|${o.kind}|${o.name}|${d.rejection.field ?? ''}`;
  };
  for (const d of drafts) {
    const o = objectOf(d);
    if (o.namespace) nsOf.set(loose(d), o.namespace);
  }
  for (const d of drafts) {
    if (!objectOf(d).namespace && nsOf.has(loose(d))) d.rejection = { ...d.rejection, namespace: nsOf.get(loose(d)) };
  }
  const eventsByLoop = new Map<string, NormEvent[]>();
  for (const [d, e] of fromEvents) eventsByLoop.set(draftKey(d), [...(eventsByLoop.get(draftKey(d)) ?? []), e]);
  const loops = new Map<string, Loop>();
  for (const d of drafts) {
    const k = draftKey(d);
    const cur = loops.get(k);
    if (cur) {
      if (!cur.sources.some((s) => s.source === d.source.source && s.message === d.source.message)) cur.sources.push(d.source);
      // prefer the most detailed reading of the rejection (a Go diff, a value)
      if (!cur.rejection.changes && d.rejection.changes) cur.rejection.changes = d.rejection.changes;
      if (cur.rejection.value === undefined && d.rejection.value !== undefined) cur.rejection.value = d.rejection.value;
      continue;
    }
    const object = objectOf(d);
    const live = object.kind && object.name ? inp.lookup(object.kind, object.namespace, object.name) : undefined;
    const liveValue = live && d.rejection.field && d.rejection.field !== 'spec' ? valueAt(live, d.rejection.field) : undefined;
    loops.set(k, {
      owner: d.owner,
      object,
      rejection: { ...d.rejection, namespace: object.namespace, ...(liveValue !== undefined ? { liveValue } : {}) },
      sources: [d.source],
      state: 'retrying',
      stateWhy: '',
    });
  }
  for (const [k, loop] of loops) {
    const evs = eventsByLoop.get(k) ?? [];
    const c = evs.length ? eventCadence(evs, inp.now) : undefined;
    if (c) loop.cadence = c;
    const lastEvent = c?.last ? Date.parse(c.last) : undefined;
    const ownerObj = owners.get(keyOf(loop.owner.ref));
    if (ownerObj && loop.owner.tool === 'argocd') Object.assign(loop, argoState(ownerObj, lastEvent));
    else if (ownerObj && loop.owner.tool === 'flux') Object.assign(loop, fluxState(ownerObj, lastEvent));
    else if (c)
      Object.assign(
        loop,
        c.live
          ? { state: 'retrying', stateWhy: `rejected ${c.attempts} times, the last ${ago(c.lastAgoSeconds)} before capture` }
          : {
              state: 'one-off',
              stateWhy:
                c.attempts > 1
                  ? `not repeated in the ${ago(c.lastAgoSeconds)} before capture: it stopped (superseded, or its owner gave up)`
                  : 'rejected once',
            },
      );
  }
  return [...loops.values()];
}

const ago = (s: number | undefined): string => (s === undefined ? 'unknown time' : s < 120 ? `${s}s` : `${Math.round(s / 60)} min`);

function objectOf(d: Draft): ObjectRef {
  const r = d.rejection;
  if (r.kind && r.name) {
    const sameAsGiven = d.object && d.object.kind === r.kind && d.object.name === r.name;
    return {
      kind: r.kind,
      name: r.name,
      namespace: r.namespace ?? (sameAsGiven ? d.object!.namespace : undefined) ?? d.fallbackNs,
      ...(sameAsGiven && d.object!.apiVersion ? { apiVersion: d.object!.apiVersion } : {}),
    };
  }
  if (d.object) return d.object;
  return { kind: r.kind ?? 'object', name: r.name ?? '?', namespace: d.fallbackNs };
}

function draftKey(d: Draft): string {
  const o = objectOf(d);
  return `${d.owner.tool}|${keyOf(d.owner.ref)}|${keyOf(o)}|${d.rejection.field ?? ''}`;
}

function eventCadence(evs: NormEvent[], now: Date): Cadence {
  const count = evs.reduce((n, e) => n + e.count, 0);
  const first = Math.min(...evs.map((e) => e.first ?? Infinity));
  const last = Math.max(...evs.map((e) => e.last ?? -Infinity));
  return cadence(count, Number.isFinite(first) ? first : undefined, Number.isFinite(last) ? last : undefined, now);
}

export { normaliseEvents };
