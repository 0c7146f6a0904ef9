// Normalise core/v1 and events.k8s.io/v1 Events into one shape, deduplicated (the two APIs
// show the same stored objects).
import type { KObject } from '../model.js';
export { human } from './time.js';

export interface NormEvent {
  uid: string;
  namespace?: string;
  reason: string;
  type: string;
  message: string;
  object: { kind: string; name: string; namespace?: string; apiVersion?: string; uid?: string };
  count: number;
  first?: number;
  last?: number;
  source: string;
  /** The node (or instance) that reported it, e.g. the kubelet's host. */
  host?: string;
}

const ts = (...vals: Array<string | undefined>): number | undefined => {
  for (const v of vals) {
    if (!v) continue;
    const t = Date.parse(v);
    if (!Number.isNaN(t)) return t;
  }
  return undefined;
};

/** The object an event is about: core/v1 calls it involvedObject, events.k8s.io/v1 regarding. */
const about = (r: Partial<NormEvent['object']> | undefined): NormEvent['object'] => ({
  kind: r?.kind ?? '',
  name: r?.name ?? '',
  namespace: r?.namespace,
  apiVersion: r?.apiVersion,
  uid: r?.uid,
});

/** What normaliseEvents reads of a core/v1 Event (its declared fields: src/snapshot/fields.ts). */
export const CORE_EVENT_FIELDS = [
  'type',
  'reason',
  'message',
  'count',
  'series',
  'firstTimestamp',
  'lastTimestamp',
  'eventTime',
  'involvedObject.apiVersion',
  'involvedObject.kind',
  'involvedObject.name',
  'involvedObject.namespace',
  'involvedObject.uid',
  'source.component',
  'source.host',
  'reportingComponent',
  'reportingInstance',
] as const;

/** What normaliseEvents reads of an events.k8s.io/v1 Event. */
export const V1_EVENT_FIELDS = [
  'type',
  'reason',
  'note',
  'series',
  'deprecatedCount',
  'deprecatedFirstTimestamp',
  'deprecatedLastTimestamp',
  'eventTime',
  'regarding.apiVersion',
  'regarding.kind',
  'regarding.name',
  'regarding.namespace',
  'regarding.uid',
  'deprecatedSource.component',
  'deprecatedSource.host',
  'reportingController',
  'reportingInstance',
] as const;

export function normaliseEvents(core: KObject[], v1: KObject[]): NormEvent[] {
  const seen = new Map<string, NormEvent>();
  for (const e of core) {
    const key = e.metadata.uid ?? `${e.metadata.namespace}/${e.metadata.name}`;
    seen.set(key, {
      uid: key,
      namespace: e.metadata.namespace,
      reason: e.reason ?? '',
      type: e.type ?? '',
      message: e.message ?? '',
      object: about(e.involvedObject),
      count: Math.max(e.count ?? 0, e.series?.count ?? 0, 1),
      first: ts(e.firstTimestamp, e.eventTime, e.metadata.creationTimestamp),
      last: ts(e.series?.lastObservedTime, e.lastTimestamp, e.eventTime, e.firstTimestamp),
      source: e.reportingComponent || e.source?.component || '',
      host: e.source?.host || e.reportingInstance || undefined,
    });
  }
  for (const e of v1) {
    const key = e.metadata.uid ?? `${e.metadata.namespace}/${e.metadata.name}`;
    if (seen.has(key)) continue;
    seen.set(key, {
      uid: key,
      namespace: e.metadata.namespace,
      reason: e.reason ?? '',
      type: e.type ?? '',
      message: e.note ?? '',
      object: about(e.regarding),
      count: Math.max(e.series?.count ?? 0, e.deprecatedCount ?? 0, 1),
      first: ts(e.deprecatedFirstTimestamp, e.eventTime, e.metadata.creationTimestamp),
      last: ts(e.series?.lastObservedTime, e.deprecatedLastTimestamp, e.eventTime),
      source: e.reportingController || e.deprecatedSource?.component || '',
      host: e.deprecatedSource?.host || e.reportingInstance || undefined,
    });
  }
  return [...seen.values()];
}

/** client-go lets a burst of 25 through, then about one event per 5 minutes per source+object. */
export const SPAM_REFILL_MS = 5 * 60_000;
/** A loop is live when its last attempt is within two refill intervals of the capture time. */
export const LIVE_WINDOW_MS = 2 * SPAM_REFILL_MS;

export interface Cadence {
  attempts: number;
  first?: string;
  last?: string;
  spanSeconds?: number;
  lastAgoSeconds?: number;
  perHour?: number;
  loop: boolean;
  live: boolean;
}

export function cadence(count: number, first: number | undefined, last: number | undefined, now: Date): Cadence {
  const span = first !== undefined && last !== undefined ? Math.max(0, last - first) : undefined;
  const ago = last !== undefined ? Math.max(0, now.getTime() - last) : undefined;
  const loop = count >= 2 && span !== undefined && span >= 60_000;
  return {
    attempts: count,
    first: first !== undefined ? new Date(first).toISOString() : undefined,
    last: last !== undefined ? new Date(last).toISOString() : undefined,
    spanSeconds: span !== undefined ? Math.round(span / 1000) : undefined,
    lastAgoSeconds: ago !== undefined ? Math.round(ago / 1000) : undefined,
    perHour: loop && span ? Math.round((count - 1) / (span / 3_600_000)) : undefined,
    loop,
    live: loop && ago !== undefined && ago <= LIVE_WINDOW_MS,
  };
}
