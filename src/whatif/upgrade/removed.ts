// The door after an upgrade: the API versions the releases between the current one and the target stop serving
// (src/lib/api-removals.ts, generated from the types' lifecycle tags), and what in the cluster still goes through
// them — objects last written through one (managedFields entries and the last-applied apiVersion the door keeps of
// them: lib/removed-apis.ts), objects that are only
// served through one (a kind removed with no replacement), and what GitOps owners declare they apply (Argo CD
// status.resources[].version, Flux status.inventory.entries[].v). Computed once per snapshot and target, shared by the
// door and loop units.
import { refOf } from '../../lib/k8s.js';
import {
  apiVersionOf,
  API_REMOVALS,
  REMOVALS_KNOWN_TO,
  removalOf,
  writtenAsOf,
  type ApiRemoval,
  type WrittenAs,
} from '../../lib/removed-apis.js';
import { gkKey, groupOf, type KObject, type ObjectRef } from '../../model.js';
import { R, WRITTEN_FIELDS } from '../../resources.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { arr } from '../cluster.js';
import { minorsCrossed, type UpgradeHypothesis } from './version.js';

export interface RemovedWrite {
  object: KObject;
  ref: ObjectRef;
  removal: ApiRemoval;
  writes: WrittenAs[];
}

/** What a GitOps owner says it applies through a removed version (its own record, not the object's). */
export interface DeclaredApply {
  owner: KObject;
  ownerRef: ObjectRef;
  /** How the owner records it: "status.resources" (Argo CD) or "status.inventory" (Flux). */
  record: string;
  removal: ApiRemoval;
  target: { kind: string; namespace?: string; name: string };
}

export interface Removed {
  /** The removals between the current release (exclusive) and the target (inclusive). */
  removals: ApiRemoval[];
  writes: RemovedWrite[];
  /** Objects served today only through a removed version that has no replacement: gone with it. */
  orphaned: Array<{ object: KObject; ref: ObjectRef; removal: ApiRemoval }>;
  declared: DeclaredApply[];
  /** Kinds whose objects were not visible (not listed, and no scan of every type showed them absent). */
  unseenKinds: string[];
  /** Whether the objects were read with their managedFields. */
  managedFields: boolean;
  /** The target is past the newest release the table knows. */
  beyondKnown: boolean;
}

/** What finding the writes through removed versions reads: of every object how it was written (kept by the door only
 *  for removed versions), of APIServices which group versions are served now (their names). */
export const REMOVED_READS = [
  { group: '*', kind: '*', fields: WRITTEN_FIELDS },
  { ...R.apiservices, fields: [] },
];

export const removedKey = (r: Pick<ApiRemoval, 'group' | 'version' | 'kind'>): string => `${apiVersionOf(r)} ${r.kind}`;

export function removalsCrossed(u: UpgradeHypothesis): ApiRemoval[] {
  const { from, to } = minorsCrossed(u);
  return API_REMOVALS.filter((r) => r.removed >= from && r.removed <= to);
}

/** Managers that are the control plane itself (the name client-go gives a program: its binary's). */
export const CONTROL_PLANE =
  /^(kube-apiserver|kube-controller-manager|kube-scheduler|kubelet|kube-proxy|k3s|rke2|api-priority-and-fairness-config-producer-v\d+)$/;

const memo = new WeakMap<Snapshot, Map<string, Removed>>();

export function removedFor(snap: Snapshot, u: UpgradeHypothesis): Removed {
  const key = `${u.current?.version.minor ?? '?'}>${u.target.minor}`;
  const per = memo.get(snap) ?? new Map<string, Removed>();
  memo.set(snap, per);
  const had = per.get(key);
  if (had) return had;
  const removals = removalsCrossed(u);
  const crossed = new Set(removals.map(removedKey));
  const writes: RemovedWrite[] = [];
  const orphaned: Removed['orphaned'] = [];
  // the same stored object listed twice (core and events.k8s.io Events) is one object
  const seen = new Set<string>();
  for (const [, items] of snap.lists()) {
    for (const o of items) {
      const id = `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const own = removalOf(o.apiVersion ?? '', o.kind ?? '');
      if (own && crossed.has(removedKey(own)) && !own.replacement) orphaned.push({ object: o, ref: refOf(o), removal: own });
      const w = writtenAsOf(o);
      if (!w.length) continue;
      const byRemoval = new Map<string, { removal: ApiRemoval; writes: WrittenAs[] }>();
      for (const x of w) {
        // the control plane's own writes move with it: the upgraded API server, controller manager and scheduler write
        // through the versions they serve (the API server's flow-control bootstrap rewrites its FlowSchemas itself)
        if (x.via === 'managedFields' && CONTROL_PLANE.test(x.manager ?? '')) continue;
        const r = removalOf(x.apiVersion, o.kind ?? '');
        if (!r || !crossed.has(removedKey(r))) continue;
        const e = byRemoval.get(removedKey(r)) ?? { removal: r, writes: [] };
        e.writes.push(x);
        byRemoval.set(removedKey(r), e);
      }
      for (const e of byRemoval.values()) writes.push({ object: o, ref: refOf(o), removal: e.removal, writes: e.writes });
    }
  }
  const declared: DeclaredApply[] = [];
  for (const app of snap.of(R.argoApplications))
    for (const r of arr<Record<string, unknown>>(app.status?.resources)) {
      const version = typeof r?.version === 'string' ? r.version : '';
      const group = typeof r?.group === 'string' ? r.group : '';
      const kind = typeof r?.kind === 'string' ? r.kind : '';
      const removal = removalOf(group ? `${group}/${version}` : version, kind);
      if (!removal || !crossed.has(removedKey(removal))) continue;
      declared.push({
        owner: app,
        ownerRef: refOf(app),
        record: 'status.resources',
        removal,
        target: { kind, namespace: typeof r.namespace === 'string' && r.namespace ? r.namespace : undefined, name: String(r.name ?? '') },
      });
    }
  for (const ks of snap.of(R.fluxKustomizations))
    for (const e of arr<Record<string, unknown>>(ks.status?.inventory?.entries)) {
      // id: <namespace>_<name>_<group>_<kind>, v: the version it was applied through
      const p = String(e?.id ?? '').split('_');
      if (p.length !== 4 || typeof e?.v !== 'string') continue;
      const removal = removalOf(p[2] ? `${p[2]}/${e.v}` : e.v, p[3]!);
      if (!removal || !crossed.has(removedKey(removal))) continue;
      declared.push({
        owner: ks,
        ownerRef: refOf(ks),
        record: 'status.inventory',
        removal,
        target: { kind: p[3]!, namespace: p[0] || undefined, name: p[1]! },
      });
    }
  // a kind is visible when it was listed under its removed group or under the group that replaces it (objects written
  // through extensions/v1beta1 Ingress are listed as networking.k8s.io Ingress), or when every type was scanned
  const unseen = new Set<string>();
  if (!snap.header.allTypes)
    for (const r of removals) {
      if (r.stored === false || servedNow(snap, r) === false) continue;
      const groups = [r.group, ...(r.replacement ? [groupOf(r.replacement)] : [])];
      const seen = groups.some((g) => !snap.gap({ group: g, kind: r.kind, resource: `${r.kind.toLowerCase()}s` }));
      if (!seen) unseen.add(gkKey(groups[groups.length - 1]!, r.kind));
    }
  const out: Removed = {
    removals,
    writes,
    orphaned,
    declared,
    unseenKinds: [...unseen],
    managedFields: snap.header.writtenAs === 'managedFields',
    beyondKnown: u.target.minor > REMOVALS_KNOWN_TO,
  };
  per.set(key, out);
  return out;
}

/** Whether the API server serves this group version now: every built-in group version it serves has a local
 *  APIService (<version>.<group>, registered by its autoregister controller). undefined when APIServices are not
 *  visible. A version not served now is written through by no one. */
export function servedNow(snap: Snapshot, r: Pick<ApiRemoval, 'group' | 'version'>): boolean | undefined {
  if (snap.gap(R.apiservices)) return undefined;
  const name = r.group ? `${r.version}.${r.group}` : r.version;
  return snap.of(R.apiservices).some((a) => a.metadata.name === name);
}
