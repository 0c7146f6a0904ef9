// What leaves the cluster in a snapshot (and what stays in memory) is only what checks read. A snapshot is meant to
// be sent to a colleague, so anything that can carry credentials is cut where every object comes in — listed from
// the API server or loaded from files — by rules on the shape of the data, not by a list of paths (a path list
// misses the next copy: Argo CD writes its source again under status.sync.comparedTo, operationState.syncResult,
// operationState.operation.sync and operation.sync):
// - Argo CD: every `source` / `sources` / `drySource` anywhere in an Application keeps only where the source is
//   (repository, path, chart, revision) — never Helm values, valuesObject, parameters, plugin env, jsonnet vars.
// - Any URL with credentials (`https://user:pass@host`, `postgres://u:p@h`) anywhere: the user-info is masked.
// - Container env values, and the value of every argument whose flag name says token, secret, password, key or
//   credential — nested too (`--kube-apiserver-arg=oidc-client-secret=x`) — in args, command and the K3s/RKE2
//   `*.io/node-args` annotations.
// - Any string under a key whose name says so (password, token, secret, private or access key…), except keys that
//   name a reference (secretName, tokenSecretRef…); labels are names, never values, and stay.
// - Secret objects keep their metadata only; last-applied annotations, K3s node env and K3s's applied-objectset copy
//   outside Services are dropped. Per-type trims (pod and node bodies, ConfigMap keys, Helm and Flux values) live
//   with the types in resources.ts and run first.
import type { KObject } from '../model.js';
import { gkKey, groupOf } from '../model.js';
import { CONFIGMAPS, R } from '../resources.js';

const MASK = '********';
const DROP_ANNOTATIONS = ['kubectl.kubernetes.io/last-applied-configuration', 'k3s.io/node-env', 'rke2.io/node-env'];
/** A flag (or config key) whose value is a credential. */
const SECRET_FLAG = /token|secret|password|passwd|credential|private[-_]?key|access[-_]?key|api[-_]?key|(^|[-_])key$/i;
const SECRET_ENDPOINT = /datastore-endpoint/;
/** A struct key whose string value is a credential (storageAccountKey, restuserkey, apiToken, clientSecret…). */
const SECRET_KEY =
  /token|secret|password|passwd|credential|(access|secret|private|api|account|ssh|signing|encryption|master|client|auth|shared|storage|user)[-_]?key$|[-_]key$/i;
/** Keys that name or point at a secret rather than hold one. */
const REFERENCE_KEY = /(Name|Names|Ref|Refs|Namespace|Path|File|Kind|Selector|Hash|Id|ID|Type|Mode|Seconds|Count)$/;
/** Maps of labels: their values are names, never credentials. */
const LABEL_MAP = /^(labels|matchLabels|nodeSelector|selector)$/;
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s@"'<>]+@/gi;

/** A string with the credentials of every URL in it masked. */
export const maskUrls = (s: string): string => (s.includes('@') ? s.replace(URL_CREDENTIALS, `$1${MASK}@`) : s);

/** `name=value` with the value masked when the name says it is a credential (nested: `a=b=c`). */
function maskAssignment(a: string): string {
  const eq = a.indexOf('=');
  if (eq <= 0) return maskUrls(a);
  const name = a.slice(0, eq).replace(/^-+/, '');
  if (SECRET_FLAG.test(name) || SECRET_ENDPOINT.test(name)) return `${a.slice(0, eq)}=${MASK}`;
  return `${a.slice(0, eq + 1)}${maskAssignment(a.slice(eq + 1))}`;
}

/** An argument list (`["server","--token","abc","--kube-apiserver-arg=oidc-client-secret=x"]`) with credentials masked. */
export function maskArgs(args: readonly unknown[]): string[] {
  const out: string[] = [];
  let maskNext = false;
  for (const v of args.map(String)) {
    if (maskNext) {
      maskNext = false;
      if (!v.startsWith('-')) {
        out.push(MASK);
        continue;
      }
    }
    const flag = /^--?([\w.-]+)$/.exec(v);
    if (flag && (SECRET_FLAG.test(flag[1]!) || SECRET_ENDPOINT.test(flag[1]!))) {
      maskNext = true;
      out.push(v);
    } else out.push(maskAssignment(v));
  }
  return out;
}

/** The JSON text of an argument list with credentials masked; text that is not one is masked whole. */
export function redactArgs(json: string): string {
  let args: unknown;
  try {
    args = JSON.parse(json);
  } catch {
    return MASK;
  }
  return Array.isArray(args) ? JSON.stringify(maskArgs(args)) : MASK;
}

/** Where an Argo CD source is; everything that renders it (values, parameters, env) is left out. */
function trimSource(src: unknown): unknown {
  if (!src || typeof src !== 'object' || Array.isArray(src)) return src;
  const s = src as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of ['repoURL', 'path', 'chart', 'targetRevision', 'ref', 'name']) if (s[k] !== undefined) out[k] = s[k];
  return out;
}

const ARGO_SOURCE = new Set(['source', 'drySource', 'syncSource']);

/** Deep copy with every rule above applied; `argo`: inside an Argo CD object. */
function clean(v: unknown, key: string, argo: boolean, inLabels: boolean): unknown {
  if (typeof v === 'string') {
    if (!inLabels && SECRET_KEY.test(key) && !REFERENCE_KEY.test(key)) return v === '' ? v : MASK;
    return maskUrls(v);
  }
  if (Array.isArray(v)) {
    if (argo && key === 'sources') return v.map((s) => clean(trimSource(s), '', argo, false));
    if ((key === 'args' || key === 'command') && v.every((x) => typeof x === 'string')) return maskArgs(v);
    if (key === 'env') return v.map((e) => (e && typeof e === 'object' && 'value' in e ? { ...(e as object), value: MASK } : e));
    return v.map((x) => clean(x, key, argo, false));
  }
  if (v && typeof v === 'object') {
    if (argo && ARGO_SOURCE.has(key)) v = trimSource(v);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = clean(x, k, argo, LABEL_MAP.test(key));
    return out;
  }
  return v;
}

export function scrub(o: KObject): KObject {
  const md = o.metadata as KObject['metadata'] & { managedFields?: unknown };
  // managedFields are often half an object's metadata and no check reads them
  delete md.managedFields;
  const a = md.annotations;
  if (a && typeof a === 'object') {
    for (const k of DROP_ANNOTATIONS) delete a[k];
    // K3s/wrangler keep the whole applied object here; only a Service's is read (its clusterIP)
    if (o.kind !== 'Service') delete a['objectset.rio.cattle.io/applied'];
    for (const k of Object.keys(a)) if (/(^|\.)(k3s|rke2)\.io\/node-args$/.test(k) && typeof a[k] === 'string') a[k] = redactArgs(a[k]);
  }
  if (o.kind === 'Secret') {
    delete o.data;
    delete o.stringData;
  }
  const argo = groupOf(o.apiVersion) === 'argoproj.io';
  return clean(o, '', argo, false) as KObject;
}

const TRIMS = new Map<string, (o: KObject) => KObject>();
for (const n of [...Object.values(R), CONFIGMAPS]) if (n.trim) TRIMS.set(gkKey(n.group, n.kind), n.trim);

/** One object as it enters a snapshot from files: the same trim and scrub as a listed one. */
export function ingest(o: KObject): KObject {
  const trim = TRIMS.get(gkKey(groupOf(o.apiVersion), o.kind ?? ''));
  return scrub(trim ? trim(o) : o);
}
