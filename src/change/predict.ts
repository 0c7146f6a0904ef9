// `what-if -f`: what would happen if these manifests were applied, predicted read-only from the live objects (or a
// snapshot) — the object the API server would receive by how the change is applied (./apply.ts), the update
// validation of the cluster's version over the live one and that one (./rules/), and the owner that would retry a
// refusal, the objects an owner tracks that the render no longer holds (pruned or left
// behind), and the door: kinds not served, namespaces that do not exist, fail-closed webhooks with no backend. What
// could not be read is said per object, never guessed; the verdict is the node predictions' (src/whatif/predict.ts).
import { receive, type ApplyMode } from './apply.js';
import { withDefaults } from './defaults.js';
import { hasRule, judgeUpdate, type Refusal } from './rules/index.js';
import { admissionWebhooks } from '../checks/admission-webhooks/check.js';
import { selects } from '../checks/admission-webhooks/check.js';
import { runChecks } from '../checks/run.js';
import { gkKey, groupOf, refText, type KObject, type ObjectRef, type ResourceType, type Severity } from '../model.js';
import { CHANGE_FIELDS, CONFIGMAPS, R } from '../resources.js';
import { fieldTree } from '../snapshot/fields.js';
import { keptTree } from '../snapshot/scrub.js';
import type { NamedRef, NamedResult, Snapshot } from '../snapshot/snapshot.js';
import type { Prediction, Unjudged } from '../model.js';
import { ownerOf, retryText, type ObjectOwner } from './owners.js';
import type { ChangeCode } from './codes.js';
import type { Manifest } from './manifests.js';
import { command, inNamespace, type Step } from '../lib/shell.js';

/** What what-if -f reads of the cluster: how each owner applies and prunes, the kinds CRDs add, and of the objects it
 *  changes, when it judges from a snapshot (live, each is read whole by its own GET), what each kind's update rule
 *  compares (src/resources.ts CHANGE_FIELDS: digests where a rule only compares values). */
export const CHANGE_READS = [
  { ...R.argoApplications, fields: ['spec.syncPolicy.retry', 'spec.syncPolicy.syncOptions'] },
  { ...R.fluxKustomizations, fields: ['spec.prune', 'status.inventory.entries[].id'] },
  { ...R.fluxHelmReleases, fields: ['spec.upgrade.remediation.retries'] },
  // whether it is immutable, and then its values' digests
  { ...CONFIGMAPS, fields: ['immutable', 'data', 'binaryData'] },
  ...Object.entries(CHANGE_FIELDS).map(([k, fields]) => ({ ...R[k as keyof typeof CHANGE_FIELDS], fields })),
];

/** Where a prediction points in the manifests. */
export interface Place {
  file: string;
  line: number;
}

export interface ChangePrediction extends Prediction {
  code: ChangeCode;
  /** The line of the manifest it concerns (SARIF regions, the text's file:line). */
  location?: Place;
  /** The API server's answer, as it words it (for a refusal). */
  apiError?: string;
}

/** Each object of the manifests, and what applying it would do (one line each, as `kubectl apply` prints). */
export interface ObjectOutcome {
  ref: ObjectRef;
  location: Place;
  /** create: not there now; update: there, and fields change; unchanged: there, nothing changes; refused: the API
   *  server would refuse it; not judged: see why. */
  state: 'create' | 'update' | 'unchanged' | 'refused' | 'not judged';
  why?: string;
  /** update: the fields that change; refused: the fields the API server names. */
  fields?: string[];
  /** How it would be applied (the owner's way when it is known, else --apply-mode). */
  mode?: ApplyMode;
}

export interface ChangeResult {
  objects: ObjectOutcome[];
  predictions: ChangePrediction[];
  notJudged: Unjudged[];
  /** What the object received rests on that could not be read (a last apply, Helm's release), once each with a count. */
  notes: string[];
}

export interface ChangeOptions {
  /** The namespace a manifest without one goes to (the kubeconfig context's, or default). */
  defaultNamespace: string;
  /** How the manifests are applied when no owner of the object says (--apply-mode; default client-side, as kubectl apply). */
  applyMode?: ApplyMode;
  /** The difference test's harness applies every change itself (a PUT): its way, whoever owns the object. */
  applyModeWins?: boolean;
}

/** How an object's owner applies it (Argo CD: its sync options; Flux: server-side; K3s: wrangler; Helm), and the field
 *  manager it applies as; undefined when it has no owner that applies it. */
function ownerMode(owner: ObjectOwner | undefined, live: KObject): { mode: ApplyMode; manager?: string } | undefined {
  if (!owner) return undefined;
  switch (owner.tool) {
    case 'argocd': {
      const opts = [
        ...((owner.object?.spec?.syncPolicy?.syncOptions ?? []) as string[]),
        ...String(live.metadata.annotations?.['argocd.argoproj.io/sync-options'] ?? '').split(','),
      ].map((x) => String(x).trim());
      if (opts.includes('Replace=true')) return { mode: 'replace' };
      if (opts.includes('ServerSideApply=true')) return { mode: 'server-side', manager: 'argocd-controller' };
      return { mode: 'client-side' };
    }
    case 'flux-kustomization':
      return { mode: 'server-side', manager: 'kustomize-controller' };
    case 'flux-helmrelease':
    case 'k3s-helmchart':
    case 'helm':
      return { mode: 'helm' };
    case 'k3s-addon':
      return { mode: 'wrangler' };
    default:
      return undefined;
  }
}

/** The IP families the cluster gives its Services, from the Services visible (the kubernetes Service first). */
function serviceFamilies(snap: Snapshot): string[] | undefined {
  if (snap.gap(R.services)) return undefined;
  const fams = new Set<string>();
  for (const s of snap.of(R.services)) for (const f of (s.spec?.ipFamilies ?? []) as string[]) fams.add(f);
  return fams.size ? [...fams].sort() : undefined;
}

/** The type of a kind: served, its resource and scope; undefined when not known. */
function typeOf(snap: Snapshot, group: string, kind: string): ResourceType | undefined {
  const live = snap.served?.types.get(gkKey(group, kind));
  if (live) return live;
  const known = Object.values(R).find((t) => t.group === group && t.kind === kind);
  if (known) return known;
  const crd = snap.of(R.crds).find((c) => c.spec?.group === group && c.spec?.names?.kind === kind);
  if (crd)
    return {
      group,
      kind,
      resource: String(crd.spec.names.plural ?? ''),
      namespaced: crd.spec.scope !== 'Cluster',
      version: String(((crd.spec.versions ?? []) as Array<{ name?: string; storage?: boolean }>).find((v) => v.storage)?.name ?? ''),
    };
  return undefined;
}

/** Is the kind served? true, false (a 404 on its list, or discovery answered in full without it), or undefined. */
function served(snap: Snapshot, group: string, kind: string): boolean | undefined {
  if (snap.served) return snap.served.types.has(gkKey(group, kind)) ? true : snap.served.complete ? false : undefined;
  if (snap.absent({ group, kind })) return false;
  // a built-in kind the update rules judge: served by every release they cover
  if (hasRule(group, kind)) return true;
  if (Object.values(R).some((t) => t.group === group && t.kind === kind) && !group.includes('.')) return true;
  if (snap.kinds().includes(gkKey(group, kind))) return true;
  if (!snap.gap(R.crds) && group.includes('.')) return snap.of(R.crds).some((c) => c.spec?.group === group && c.spec?.names?.kind === kind);
  return undefined;
}

/** A snapshot's copy listed metadata-only: nothing of it but its metadata is visible. */
const METADATA_ONLY = fieldTree(['metadata']);

const namedKey = (r: NamedRef): string => `${gkKey(r.group, r.kind)}\u0000${r.namespace ?? ''}\u0000${r.name}`;

/** The live copy of a named object: read whole (live), or as the snapshot keeps it. */
function liveOf(snap: Snapshot, r: NamedRef, t: ResourceType | undefined): NamedResult {
  const key = namedKey(r);
  const got = snap.named.get(key);
  if (got) return got;
  if (r.group === '' && r.kind === 'Secret') return { unseen: 'Secrets are never read' };
  const gap = snap.gap({ group: r.group, kind: r.kind, resource: t?.resource ?? `${r.kind.toLowerCase()}s` });
  const o = snap.list(r.group, r.kind).find((x) => x.metadata.name === r.name && (x.metadata.namespace ?? undefined) === r.namespace);
  if (o) return { object: o };
  // a snapshot keeps only warning events (and a few controllers'): one not there may well exist
  if (r.kind === 'Event' && (r.group === '' || r.group === 'events.k8s.io') && !gap)
    return { unseen: 'the snapshot keeps only warning events: whether this one exists is not known' };
  if (gap) return { unseen: gap.reason };
  return { absent: true };
}

/** The objects the manifests name, as written (a namespace only where one is written: the scope comes from discovery). */
export const writtenRefs = (manifests: Manifest[]): NamedRef[] =>
  manifests.map((m) => ({
    group: groupOf(m.object.apiVersion),
    kind: m.object.kind!,
    namespace: m.object.metadata.namespace,
    name: m.object.metadata.name,
  }));

function refOfManifest(m: Manifest, snap: Snapshot, opts: ChangeOptions): NamedRef {
  const group = groupOf(m.object.apiVersion);
  const t = typeOf(snap, group, m.object.kind!);
  // a namespaced kind without a namespace goes to the default one; a kind whose scope is not known keeps what it says
  const namespaced = t ? t.namespaced : Boolean(m.object.metadata.namespace);
  return {
    group,
    kind: m.object.kind!,
    namespace: namespaced ? (m.object.metadata.namespace ?? opts.defaultNamespace) : undefined,
    name: m.object.metadata.name,
  };
}

const minorOf = (snap: Snapshot): number | undefined => {
  const m = /^v?1\.(\d+)/.exec(snap.header.serverVersion?.gitVersion ?? '') ?? /^(\d+)/.exec(snap.header.serverVersion?.minor ?? '');
  return m ? Number(m[1]) : undefined;
};

/** The API server's whole message for refusals of one object (as kubectl and the controllers quote it). */
function apiMessage(r: NamedRef, refusals: Refusal[]): string {
  const admission = refusals.filter((x) => x.status === 403);
  if (admission.length) return `${pluralOf(r.kind)} "${r.name}" is forbidden: ${admission[0]!.error}`;
  const errs = [...new Set(refusals.map((x) => x.error))];
  const what = `${r.kind}${r.group ? `.${r.group}` : ''} "${r.name}" is invalid: `;
  return errs.length === 1 ? `${what}${errs[0]}` : `${what}[${errs.join(', ')}]`;
}
const pluralOf = (kind: string): string => (kind === 'PersistentVolumeClaim' ? 'persistentvolumeclaims' : `${kind.toLowerCase()}s`);

/** Fail-closed webhooks whose backend is down (the admission-webhooks check's ARCH-WH01 on the cluster as it is). */
function downWebhooks(snap: Snapshot, now: Date): Array<{ config: KObject; hook: Record<string, unknown>; why: string }> {
  const [res] = runChecks([admissionWebhooks], snap, { now });
  const out: Array<{ config: KObject; hook: Record<string, unknown>; why: string }> = [];
  for (const f of res?.findings ?? []) {
    if (f.code !== 'ARCH-WH01') continue;
    const cfgRef = f.objects[0]!;
    const type = cfgRef.kind === 'MutatingWebhookConfiguration' ? R.mutatingWebhooks : R.validatingWebhooks;
    const config = snap.of(type).find((c) => c.metadata.name === cfgRef.name);
    if (!config) continue;
    for (const w of (f.evidence as { webhooks?: Array<{ name?: string; why?: string }> } | undefined)?.webhooks ?? []) {
      const hook = ((config.webhooks ?? []) as Array<Record<string, unknown>>).find((h) => h.name === w.name);
      if (hook) out.push({ config, hook, why: String(w.why ?? '') });
    }
  }
  return out;
}

/** Does a webhook match creating or updating this object? (rules, namespaceSelector, objectSelector) */
function matches(
  hook: Record<string, unknown>,
  op: 'CREATE' | 'UPDATE',
  group: string,
  resource: string,
  namespaced: boolean,
  nsLabels: Record<string, string> | undefined,
  labels: Record<string, string>,
): boolean | undefined {
  const rules = (hook.rules ?? []) as Array<{ apiGroups?: string[]; resources?: string[]; operations?: string[]; scope?: string }>;
  const ruleMatch = rules.some(
    (r) =>
      (r.operations ?? []).some((o) => o === '*' || o === op) &&
      (r.apiGroups ?? []).some((g) => g === '*' || g === group) &&
      (r.resources ?? []).some((x) => x === '*' || x === resource || x === '*/*') &&
      (!r.scope || r.scope === '*' || (r.scope === 'Namespaced') === namespaced),
  );
  if (!ruleMatch) return false;
  if (!selects(hook.objectSelector as never, labels)) return false;
  // a cluster-scoped object is matched whatever the namespaceSelector says
  if (!namespaced) return true;
  if (!nsLabels) return undefined;
  return selects(hook.namespaceSelector as never, nsLabels);
}

/** The prediction for a manifest set. */
export function predictChange(manifests: Manifest[], snap: Snapshot, now: Date, opts: ChangeOptions): ChangeResult {
  const minor = minorOf(snap);
  const families = serviceFamilies(snap);
  const storageClass = (name: string): KObject | null | undefined =>
    snap.gap(R.storageclasses) ? undefined : (snap.of(R.storageclasses).find((s) => s.metadata.name === name) ?? null);
  const objects: ObjectOutcome[] = [];
  const applyNotes = new Map<string, number>();
  const predictions: ChangePrediction[] = [];
  const notJudged: Unjudged[] = [];
  const unjudged = (contract: Prediction['contract'], what: string, lost: string): void => {
    notJudged.push({ contract, what, by: 'what-if -f', lost });
  };
  // what the manifests themselves create: namespaces and CRDs applied first make the rest valid (kubectl applies in order)
  const newNamespaces = new Set(manifests.filter((m) => m.object.kind === 'Namespace').map((m) => m.object.metadata.name));
  const newKinds = new Set(
    manifests
      .filter((m) => m.object.kind === 'CustomResourceDefinition')
      .map((m) => gkKey(String(m.object.spec?.group ?? ''), String(m.object.spec?.names?.kind ?? ''))),
  );
  const namespaces = new Map(snap.of(R.namespaces).map((n) => [n.metadata.name, n] as const));
  const hooks = downWebhooks(snap, now);
  const seen = new Map<string, Manifest>();
  // every object the render holds, whatever could be read of it: what an owner tracks beyond these is dropped
  const rendered = new Set(
    manifests.map((m) => {
      const r = refOfManifest(m, snap, opts);
      return `${gkKey(r.group, r.kind)}/${r.namespace ?? ''}/${r.name}`;
    }),
  );
  const owners = new Map<string, ObjectOwner>();
  for (const m of manifests) {
    const ref = refOfManifest(m, snap, opts);
    const key = `${gkKey(ref.group, ref.kind)}/${ref.namespace ?? ''}/${ref.name}`;
    const objRef: ObjectRef = { kind: ref.kind, apiVersion: m.object.apiVersion, namespace: ref.namespace, name: ref.name };
    const location = { file: m.file, line: m.line };
    if (seen.has(key)) {
      // the second one wins when applied: both are judged, the first one is named
      const first = seen.get(key)!;
      unjudged(
        'door',
        `${refText(objRef)} is written twice (${first.file}:${first.line} and ${m.file}:${m.line})`,
        'the last one is what would be applied',
      );
    }
    seen.set(key, m);
    const t = typeOf(snap, ref.group, ref.kind);
    const isServed = served(snap, ref.group, ref.kind);
    if (isServed === false && !newKinds.has(gkKey(ref.group, ref.kind))) {
      predictions.push({
        contract: 'door',
        code: 'ARCH-WI24',
        from: 'what-if',
        severity: 'error',
        title: `${ref.kind} (${m.object.apiVersion}) is not served: ${refText(objRef)} would be refused`,
        message: `The API server serves no ${ref.kind} in ${ref.group || 'the core group'} (its CustomResourceDefinition is not installed, or the API version was removed): applying it fails with "no matches for kind \\"${ref.kind}\\" in version \\"${m.object.apiVersion}\\"".`,
        objects: [objRef],
        location: { file: m.file, line: m.lineOf(['kind']) },
        why: 'The API server is the only door, and it only opens for kinds it serves: a custom resource arrives after its CRD, never before.',
        fix: [
          `install the CustomResourceDefinition for ${ref.kind}.${ref.group} first (or apply it in an earlier wave/sync-wave), or correct apiVersion`,
        ],
      });
      objects.push({ ref: objRef, location, state: 'refused', why: 'kind not served' });
      continue;
    }
    if (isServed === undefined && !newKinds.has(gkKey(ref.group, ref.kind)))
      unjudged(
        'door',
        `whether ${ref.kind}.${ref.group || 'core'} is served (${snap.served?.errors[0] ?? 'not in the snapshot'})`,
        `${refText(objRef)}: a missing CRD would refuse it`,
      );
    if (ref.namespace && !newNamespaces.has(ref.namespace)) {
      if (snap.gap(R.namespaces))
        unjudged('door', `namespaces (${snap.gap(R.namespaces)!.reason})`, `whether namespace ${ref.namespace} exists`);
      else if (!namespaces.has(ref.namespace)) {
        predictions.push({
          contract: 'door',
          code: 'ARCH-WI25',
          from: 'what-if',
          severity: 'error',
          title: `namespace ${ref.namespace} does not exist: ${refText(objRef)} would be refused`,
          message: `namespaces "${ref.namespace}" not found: the manifests do not create it, and it is not there now.`,
          objects: [objRef, { kind: 'Namespace', apiVersion: 'v1', name: ref.namespace }],
          location: { file: m.file, line: m.lineOf(['metadata', 'namespace']) },
          why: 'Every namespaced object needs its namespace first; the API server refuses it otherwise.',
          fix: [
            command(['kubectl', 'create', 'namespace', ref.namespace], {
              say: 'create it first',
              note: 'or add a Namespace to the manifests; Argo CD: syncOptions CreateNamespace=true; Helm: --create-namespace',
            }),
          ],
        });
        objects.push({ ref: objRef, location, state: 'refused', why: 'namespace does not exist' });
        continue;
      }
    }
    const live = liveOf(snap, ref, t);
    if ('unseen' in live) {
      unjudged('loops', `${refText(objRef)} (${live.unseen})`, 'whether the API server would accept the change');
      objects.push({ ref: objRef, location, state: 'not judged', why: live.unseen });
      continue;
    }
    const op: 'CREATE' | 'UPDATE' = 'object' in live ? 'UPDATE' : 'CREATE';
    // the door: a fail-closed webhook with no backend that matches the request
    let refusedByDoor = false;
    for (const h of hooks) {
      const hit = matches(
        h.hook,
        op,
        ref.group,
        t?.resource ?? pluralOf(ref.kind),
        Boolean(ref.namespace),
        ref.namespace
          ? (namespaces.get(ref.namespace)?.metadata.labels ??
              (newNamespaces.has(ref.namespace)
                ? (manifests.find((x) => x.object.kind === 'Namespace' && x.object.metadata.name === ref.namespace)?.object.metadata
                    .labels ?? {})
                : undefined))
          : {},
        m.object.metadata.labels ?? {},
      );
      if (hit === undefined) {
        unjudged(
          'door',
          `${refText(objRef)}: the labels of namespace ${ref.namespace} (for webhook ${String(h.hook.name)})`,
          'whether a webhook with no backend would reject it',
        );
        continue;
      }
      if (!hit) continue;
      refusedByDoor = true;
      predictions.push({
        contract: 'door',
        code: 'ARCH-WI26',
        from: 'what-if',
        severity: 'error',
        title: `${refText(objRef)} would be rejected by webhook ${String(h.hook.name)} (fail-closed, no backend)`,
        message: `${op} ${refText(objRef)} matches ${h.config.kind} ${h.config.metadata.name}'s webhook ${String(h.hook.name)} (failurePolicy Fail): ${h.why}, so the API server answers "Internal error occurred: failed calling webhook \\"${String(h.hook.name)}\\"".`,
        objects: [objRef, { kind: h.config.kind!, apiVersion: h.config.apiVersion, name: h.config.metadata.name }],
        location: { file: m.file, line: m.line },
        why: 'The API server is the only door, and a fail-closed admission webhook that cannot be called shuts it for everything it matches.',
        fix: [`bring the webhook's backend back first (kubectl arch doctor shows it as ARCH-WH01), then apply`],
      });
      break;
    }
    if (refusedByDoor) {
      objects.push({ ref: objRef, location, state: 'refused', why: 'webhook with no backend' });
      continue;
    }
    if (!('object' in live)) {
      objects.push({ ref: objRef, location, state: 'create' });
      continue;
    }
    const cur = live.object;
    const owner = ownerOf(cur, snap);
    if (owner?.inventory) owners.set(owner.key, owner);
    const how = (opts.applyModeWins ? undefined : ownerMode(owner, cur)) ?? { mode: opts.applyMode ?? 'client-side' };
    // read whole by its own GET, or a snapshot's copy: what its type's door keeps (src/resources.ts CHANGE_FIELDS)
    const door = snap.named.has(namedKey(ref)) ? undefined : keptTree(ref.group, ref.kind);
    const rec = receive(m.object, cur, how.mode, how.manager, door);
    for (const n of rec.notes) applyNotes.set(n, (applyNotes.get(n) ?? 0) + 1);
    // a copy listed metadata-only holds nothing else
    const metadataOnly = Object.keys(cur).every((k) => k === 'apiVersion' || k === 'kind' || k === 'metadata');
    const kept = door && metadataOnly ? METADATA_ONLY : door;
    // the live copy with the server's defaults (a snapshot written by hand, or from an older server, may lack some)
    const c = judgeUpdate(withDefaults(cur), rec.object, { minor, storageClass, serviceFamilies: families, kept });
    if (c.noRule) {
      unjudged('loops', `${refText(objRef)}: ${c.noRule}`, 'whether the API server would accept the change');
      objects.push({ ref: objRef, location, state: 'not judged', why: c.noRule, mode: how.mode });
      continue;
    }
    for (const u of c.unseen) unjudged('loops', `${refText(objRef)}: ${u.why}`, 'whether the API server would accept that field');
    if (!c.refusals.length) {
      const written = c.changed.filter((f) => f !== 'metadata.resourceVersion');
      objects.push({
        ref: objRef,
        location,
        state: c.unseen.length ? 'not judged' : written.length ? 'update' : 'unchanged',
        ...(c.unseen.length ? { why: c.unseen[0]!.why } : written.length ? { fields: written } : {}),
        mode: how.mode,
      });
      continue;
    }
    objects.push({
      ref: objRef,
      location,
      state: 'refused',
      why: c.refusals.map((r) => r.field).join(', '),
      fields: c.refusals.map((r) => r.field),
      mode: how.mode,
    });
    const apiError = apiMessage(ref, c.refusals);
    const resize = c.refusals.every((r) => r.status === 403);
    const first = c.refusals[0]!;
    const changes = c.refusals
      .filter((r) => r.live !== undefined || r.desired !== undefined)
      .map((r) => `${r.path ?? r.field}: ${r.live ?? '?'} → ${r.desired ?? '?'}`);
    const loop = retryText(owner, snap);
    // the owner retries only if these manifests are what it applies (a pipeline rendering its source); by hand, the
    // apply fails once and the owner keeps applying its own
    const byOwner = owner && owner.tool !== 'controller' ? " Applied by hand instead (not from its owner's source), it fails once." : '';
    predictions.push({
      contract: 'loops',
      code: resize ? 'ARCH-WI21' : 'ARCH-WI20',
      from: 'what-if',
      severity: 'error',
      title: resize
        ? `${refText(objRef)} would not grow: the API server refuses the resize`
        : `the API server would refuse ${refText(objRef)}: ${c.refusals.map((r) => r.field).join(', ')} cannot change`,
      message: `${changes.length ? `${changes.join('; ')}. ` : ''}The API server answers: ${apiError}. ${loop.text.charAt(0).toUpperCase()}${loop.text.slice(1)}${byOwner}`,
      objects: [objRef, ...(owner && owner.tool !== 'helm' ? [owner.ref] : [])],
      location: { file: m.file, line: m.lineOf(first.at) },
      apiError,
      why: resize
        ? 'A volume grows only through its StorageClass: the resize admission plugin refuses a claim whose class does not allow expansion.'
        : `Some fields can never change once the object exists: the API server refuses every attempt${loop.forever ? ', and the reconcile loop that owns the object retries without end' : ''}.`,
      fix: fixFor(ref, first, resize, owner, loop.forever, volumeOf(snap, ref, cur)),
    });
  }
  // owners whose render no longer holds what they track
  for (const owner of owners.values()) {
    const gone = (owner.inventory ?? []).filter((r) => !rendered.has(`${gkKey(r.group, r.kind)}/${r.namespace ?? ''}/${r.name}`));
    if (!gone.length) continue;
    const refs: ObjectRef[] = gone.map((g) => ({ kind: g.kind, namespace: g.namespace, name: g.name }));
    const data = gone.filter((g) => ['PersistentVolumeClaim', 'PersistentVolume', 'Namespace', 'StatefulSet'].includes(g.kind));
    const severity: Severity = owner.prunes && data.length ? 'error' : owner.prunes ? 'warning' : 'info';
    const list = refs.slice(0, 10).map(refText).join(', ') + (refs.length > 10 ? ` and ${refs.length - 10} more` : '');
    predictions.push({
      contract: 'loops',
      code: owner.prunes ? 'ARCH-WI22' : 'ARCH-WI23',
      from: 'what-if',
      severity,
      title: owner.prunes
        ? `${owner.label} would prune ${refs.length} object${refs.length === 1 ? '' : 's'} the new render does not hold`
        : `${owner.label} would leave ${refs.length} object${refs.length === 1 ? '' : 's'} behind (it does not prune)`,
      message: `${owner.label} tracks ${list}, which the manifests do not contain. ${owner.prunes ? `It prunes (${owner.pruneWhy}): they would be deleted at the next sync${data.length ? ` — ${data.map((d) => refText({ kind: d.kind, namespace: d.namespace, name: d.name })).join(', ')} hold${data.length === 1 ? 's' : ''} data or a whole namespace` : ''}.` : `It does not prune (${owner.pruneWhy}): they would keep running, out of sync, owned by nothing that updates them.`} This assumes the manifests are the owner's whole render.`,
      objects: [owner.ref, ...refs.slice(0, 20)],
      why: 'GitOps owners delete what their source stops declaring only when they prune; either way, what a render drops is a decision, better made knowingly.',
      fix: owner.prunes
        ? [
            'if they should stay: keep them in the source, or mark them (Argo CD: argocd.argoproj.io/sync-options: Prune=false; Flux: kustomize.toolkit.fluxcd.io/prune: disabled) — before the sync',
          ]
        : ['if they should go: delete them after the sync (kubectl arch orphans lists them then), or enable pruning'],
    });
  }
  const notes = [...applyNotes].map(([n, count]) => `${n} (${count} object${count === 1 ? '' : 's'})`);
  return { objects, predictions, notJudged, notes };
}

/** The volume behind a claim (or the volume itself), and its reclaim policy, when visible: what deleting it costs. */
function volumeOf(snap: Snapshot, ref: NamedRef, live: KObject): { name: string; reclaim?: string } | undefined {
  if (ref.kind === 'PersistentVolume') return { name: ref.name, reclaim: live.spec?.persistentVolumeReclaimPolicy };
  if (ref.kind !== 'PersistentVolumeClaim' || !live.spec?.volumeName) return undefined;
  const pv = snap.of(R.persistentvolumes).find((v) => v.metadata.name === live.spec.volumeName);
  return { name: String(live.spec.volumeName), reclaim: pv?.spec?.persistentVolumeReclaimPolicy };
}

/** A claim or a volume holds data: the way to change what cannot change is a migration, never a delete and re-apply. */
function migration(ref: NamedRef, volume: { name: string; reclaim?: string } | undefined): string {
  const policy = volume
    ? `; PersistentVolume ${volume.name}'s reclaim policy is ${volume.reclaim ?? 'not visible'}${volume.reclaim === 'Delete' ? ' (deleting the claim deletes the data)' : ''}`
    : '';
  return ref.kind === 'PersistentVolume'
    ? `if the change is wanted, migrate (keeps the data): a new PersistentVolume with the new source and a claim bound to it, the data copied, the workload switched to the new claim${policy}`
    : `if the change is wanted, migrate (keeps the data): a new claim of another name with the new spec, the data copied (a Job mounting both), the workload switched to it, the old claim deleted last${policy}`;
}

function fixFor(
  ref: NamedRef,
  r: Refusal,
  resize: boolean,
  owner: ObjectOwner | undefined,
  forever: boolean,
  volume?: { name: string; reclaim?: string },
): Step[] {
  const del = (...rest: string[]): string[] => [
    'kubectl',
    ...inNamespace(ref.namespace),
    'delete',
    ref.kind.toLowerCase(),
    ref.name,
    ...rest,
  ];
  if (resize)
    return [
      `use a StorageClass with allowVolumeExpansion: true for a volume that must grow (a new claim, data copied), or keep the size — only an administrator can set allowVolumeExpansion on the class`,
      ...(volume ? [migration(ref, volume)] : []),
    ];
  const keep = `keep ${r.path ?? r.field} as it is live (${r.live ?? 'the live value'}) in the manifests`;
  const recreate =
    ref.kind === 'StatefulSet'
      ? command(del('--cascade=orphan'), {
          say: 'if the change is wanted (cost: none for the pods, which keep running and are adopted; the new volumeClaimTemplates apply only to new claims — existing PVCs must be resized on their own)',
          note: 'then apply',
        })
      : ref.kind === 'Job'
        ? command(del(), {
            say: 'if the change is wanted, delete the Job first (cost: its pods and their logs go with it)',
            note: 'then apply — Helm: a hook with hook-delete-policy before-hook-creation; Argo CD: Replace=true or a hook',
          })
        : ref.kind === 'Service'
          ? command(del(), {
              say: 'only if the new address is really wanted (cost: the Service is down until recreated, and clients holding the old address break)',
              note: 'then apply',
            })
          : ref.kind === 'PersistentVolumeClaim' || ref.kind === 'PersistentVolume'
            ? migration(ref, volume)
            : command(del(), {
                say: 'only if the change is really wanted (cost: everything it runs stops until recreated)',
                note: 'then apply',
              });
  return [
    keep,
    recreate,
    ...(owner && forever ? [`${owner.label} retries on its own: fix the source it applies from, not the live object`] : []),
  ];
}
