// The one table of what the API server refuses to change on a live object, with the words it refuses in. The retry-loop
// check recognises rejections by these words after the fact (./rejections.ts); `what-if -f` predicts them before a
// change is applied (src/change/). Read from kube-apiserver's source (pkg/apis/{core,apps,batch}/validation, the
// registries' strategies, the PVC resize admission plugin; v1.30–v1.36), proven against a real kube-apiserver in the
// e2e suite (e2e/change.e2e.test.ts).
//
// How a manifest is compared with the live object: apply (kubectl apply, server-side apply, Helm's three-way patch,
// Argo CD, Flux) changes the fields the manifest writes and leaves the others; the server has defaulted many (a
// container's imagePullPolicy, a port's protocol, a claim template's volumeMode). So a field differs only when the
// manifest writes it with another value — fields it leaves out are not compared, and that is said in the docs. A
// selector is compared whole: it is one value, and the manifest is where it came from.
import type { KObject } from '../../model.js';

/** The API server's reasons, as it words them (newest first where it changed). */
export const DETAILS = {
  immutable: 'field is immutable',
  changeOnce: 'may not change once set',
  unsetIP: 'primary clusterIP can not be unset',
  unsetFamily: 'primary ipFamily can not be unset',
  statefulSet: 'updates to statefulset spec for fields other than',
  pvcSpec: 'spec is immutable after creation except resources.requests',
  pvSource: 'is immutable after creation',
  immutableSet: 'field is immutable when `immutable` is set',
  lessThanCapacity: 'field can not be less than status.capacity',
  lessThanPrevious: 'field can not be less than previous value',
  resize: 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
  releaseSecondary: "must be 'SingleStack' to release the secondary",
} as const;

/** What the retry-loop check recognises as "can never apply" (not a resize refusal: that one an owner can fix by a class). */
export const IMMUTABLE_WORDS: readonly string[] = [
  DETAILS.immutable,
  DETAILS.changeOnce,
  DETAILS.unsetIP,
  DETAILS.unsetFamily,
  DETAILS.statefulSet,
  DETAILS.pvSource,
  DETAILS.lessThanCapacity,
  DETAILS.lessThanPrevious,
  DETAILS.releaseSecondary,
];

/** One refusal the API server would answer. */
export interface Refusal {
  /** The field path as the API server names it (spec.clusterIPs[0], spec, volumeMode…). */
  field: string;
  /** Where the manifest writes the change, for a line number (e.g. ['spec', 'volumeClaimTemplates']). */
  at: ReadonlyArray<string | number>;
  /** The error as the API server words it, after `<Kind> "<name>" is invalid: ` (or `is forbidden: `). */
  error: string;
  /** 422 Invalid (validation) or 403 Forbidden (admission). */
  status: 422 | 403;
  /** The value now and the value the manifest writes, in words (for the text), and where they differ when that is
   *  deeper than the field the API server names (spec.volumeClaimTemplates[0].spec.resources.requests.storage). */
  live?: string;
  desired?: string;
  path?: string;
}

/** A field that could not be compared: the live one was not visible in full (a snapshot keeps less, a value masked). */
export interface Unseen {
  at: ReadonlyArray<string | number>;
  why: string;
}

export interface Comparison {
  refusals: Refusal[];
  unseen: Unseen[];
}

/** What else a comparison reads. */
export interface Context {
  /** The API server's minor version (e.g. 36), when known: a few words and rules changed between releases. */
  minor?: number;
  /** A StorageClass by name: undefined when StorageClasses are not visible, null when there is none of that name. */
  storageClass(name: string): KObject | null | undefined;
}

/** Where a snapshot masks what it keeps (src/snapshot/scrub.ts): such a value cannot be compared. */
const MASK = '********';

type Json = unknown;
const isObj = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);
const emptyish = (v: Json): boolean =>
  v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (isObj(v) && Object.keys(v).length === 0);

const UNITS: Record<string, number> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
/** A resource quantity ("10Gi", "500m", "1e3", 2) as a number; undefined when it is not one. */
export function quantity(v: Json): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return undefined;
  const m = /^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)(|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)$/.exec(v.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  return Number.isFinite(n) ? n * UNITS[m[2]!]! : undefined;
}

/** Values under these keys are quantities: "1Gi" and "1024Mi" are one value. */
const QUANTITY_PARENT = /^(requests|limits|capacity|allocatable|storage)$/;

/**
 * The first place where `desired` writes something `live` does not have (apply's view: only what the manifest writes
 * is compared), or 'masked' when the only differences are values the snapshot masked. null: no difference.
 */
export function firstDifference(
  desired: Json,
  live: Json,
  path: Array<string | number> = [],
  parent = '',
): Array<string | number> | 'masked' | null {
  if (desired === undefined) return null;
  if (typeof live === 'string' && live.includes(MASK)) return typeof desired === 'string' && desired === live ? null : 'masked';
  if (emptyish(desired) && emptyish(live)) return null;
  if (QUANTITY_PARENT.test(parent) || parent === 'storage') {
    const a = quantity(desired);
    const b = quantity(live);
    if (a !== undefined && b !== undefined) return a === b ? null : path;
  }
  if (isObj(desired)) {
    if (!isObj(live)) return path;
    let masked = false;
    for (const k of Object.keys(desired)) {
      const d = firstDifference(desired[k], live[k], [...path, k], k);
      if (d === 'masked') masked = true;
      else if (d) return d;
    }
    return masked ? 'masked' : null;
  }
  if (Array.isArray(desired)) {
    if (!Array.isArray(live) || live.length !== desired.length) return path;
    let masked = false;
    for (let i = 0; i < desired.length; i++) {
      const d = firstDifference(desired[i], live[i], [...path, i], parent);
      if (d === 'masked') masked = true;
      else if (d) return d;
    }
    return masked ? 'masked' : null;
  }
  // numbers written as strings in YAML ("80") are the same number to the API server only where it converts: not here
  return desired === live ? null : path;
}

const json = (v: Json): string => JSON.stringify(v ?? null);
const pathText = (p: ReadonlyArray<string | number>): string =>
  p.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');

/** A selector as the API server compares it: matchLabels as a map, matchExpressions in order. */
function sameSelector(a: Json, b: Json): boolean {
  const norm = (s: Json): string => {
    const o = isObj(s) ? s : {};
    const labels = isObj(o.matchLabels) ? o.matchLabels : {};
    const sorted = Object.fromEntries(
      Object.keys(labels)
        .sort()
        .map((k) => [k, labels[k]]),
    );
    return JSON.stringify({ matchLabels: sorted, matchExpressions: Array.isArray(o.matchExpressions) ? o.matchExpressions : [] });
  };
  return norm(a) === norm(b);
}

/** A selector as the API server prints it (v1.34+: JSON of the v1 type, empty fields left out). */
const selectorText = (s: Json): string => {
  const o = isObj(s) ? s : {};
  return json({
    ...(isObj(o.matchLabels) && Object.keys(o.matchLabels).length ? { matchLabels: o.matchLabels } : {}),
    ...(Array.isArray(o.matchExpressions) && o.matchExpressions.length ? { matchExpressions: o.matchExpressions } : {}),
  });
};

function service(d: KObject, l: KObject, ctx: Context): Comparison {
  const out: Refusal[] = [];
  const ds = d.spec ?? {};
  const ls = l.spec ?? {};
  const liveIPs: string[] = Array.isArray(ls.clusterIPs) ? ls.clusterIPs : ls.clusterIP ? [ls.clusterIP] : [];
  // an ExternalName service has no address to keep; the API server allocates one when the type changes
  const external = (s: Record<string, Json>): boolean => s.type === 'ExternalName';
  if (!external(ls) && !external(ds) && liveIPs.length) {
    // clusterIP "" or left out: the server keeps the live one (patchAllocatedValues); only another address is a change
    const wantIPs: string[] = Array.isArray(ds.clusterIPs) && ds.clusterIPs.length ? ds.clusterIPs : ds.clusterIP ? [ds.clusterIP] : [];
    const i = wantIPs.findIndex((ip, k) => liveIPs[k] !== undefined && ip !== liveIPs[k]);
    if (i >= 0) {
      const at = Array.isArray(ds.clusterIPs) && ds.clusterIPs.length ? ['spec', 'clusterIPs', i] : ['spec', 'clusterIP'];
      out.push({
        field: `spec.clusterIPs[${i}]`,
        at,
        error: `spec.clusterIPs[${i}]: Invalid value: ${json(wantIPs)}: ${DETAILS.changeOnce}`,
        status: 422,
        live: liveIPs[i],
        desired: wantIPs[i],
      });
    }
    const liveFam: string[] = Array.isArray(ls.ipFamilies) ? ls.ipFamilies : [];
    const wantFam: string[] = Array.isArray(ds.ipFamilies) ? ds.ipFamilies : [];
    // dual-stack to one family: only with ipFamilyPolicy SingleStack (kube-apiserver's allocator, before validation)
    const policy = String(ds.ipFamilyPolicy ?? ls.ipFamilyPolicy ?? 'SingleStack');
    const dropsIP = wantIPs.length === 1 && liveIPs.length === 2 && Array.isArray(ds.clusterIPs);
    const dropsFamily = wantFam.length === 1 && liveFam.length === 2;
    if (i < 0 && policy !== 'SingleStack' && (dropsIP || dropsFamily))
      out.push({
        field: 'spec.ipFamilyPolicy',
        at: ds.ipFamilyPolicy !== undefined ? ['spec', 'ipFamilyPolicy'] : ['spec', dropsIP ? 'clusterIPs' : 'ipFamilies'],
        error: `spec.ipFamilyPolicy: Invalid value: ${json(policy)}: ${DETAILS.releaseSecondary} ${dropsIP ? 'cluster IP' : 'IP family'}`,
        status: 422,
        live: `${liveFam.join(',') || liveIPs.join(',')} (${String(ls.ipFamilyPolicy ?? 'SingleStack')})`,
        desired: `${(dropsIP ? wantIPs : wantFam).join(',')} (${policy})`,
      });
    if (i < 0 && !out.length && wantFam[0] && liveFam[0] && wantFam[0] !== liveFam[0])
      out.push({
        field: 'spec.ipFamilies[0]',
        at: ['spec', 'ipFamilies', 0],
        error: `spec.ipFamilies[0]: Invalid value: ${json(wantFam)}: ${DETAILS.changeOnce}`,
        status: 422,
        live: liveFam[0],
        desired: wantFam[0],
      });
  }
  if (
    ls.type === 'LoadBalancer' &&
    ds.type === 'LoadBalancer' &&
    ds.loadBalancerClass !== undefined &&
    ds.loadBalancerClass !== ls.loadBalancerClass
  )
    out.push({
      field: 'spec.loadBalancerClass',
      at: ['spec', 'loadBalancerClass'],
      error: `spec.loadBalancerClass: Invalid value: ${json(ds.loadBalancerClass)}: ${DETAILS.changeOnce}`,
      status: 422,
      live: String(ls.loadBalancerClass ?? '(none)'),
      desired: String(ds.loadBalancerClass),
    });
  void ctx;
  return { refusals: out, unseen: [] };
}

/** Deployment, ReplicaSet, DaemonSet: the selector. */
function selectorOnly(d: KObject, l: KObject): Comparison {
  const want = d.spec?.selector;
  if (want === undefined || sameSelector(want, l.spec?.selector)) return { refusals: [], unseen: [] };
  return {
    refusals: [
      {
        field: 'spec.selector',
        at: ['spec', 'selector'],
        // the value is the selector as apply merges it (a key the manifest leaves out may stay): elided
        error: `spec.selector: Invalid value: …: ${DETAILS.immutable}`,
        status: 422,
        live: selectorText(l.spec?.selector),
        desired: selectorText(want),
      },
    ],
    unseen: [],
  };
}

/** The fields a StatefulSet update may change, as the API server lists them in its refusal. */
export function statefulSetAllowed(minor: number | undefined): string[] {
  // revisionHistoryLimit joined in v1.33; before v1.30 there was no 'ordinals' (the oldest servers allowed only three)
  if (minor !== undefined && minor < 30)
    return ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];
  return minor !== undefined && minor <= 32
    ? ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds']
    : [
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

function statefulSet(d: KObject, l: KObject, ctx: Context): Comparison {
  const allowed = statefulSetAllowed(ctx.minor);
  const ds = (d.spec ?? {}) as Record<string, Json>;
  const ls = (l.spec ?? {}) as Record<string, Json>;
  const unseen: Unseen[] = [];
  for (const k of Object.keys(ds)) {
    if (allowed.includes(k)) continue;
    const diff = k === 'selector' ? (sameSelector(ds[k], ls[k]) ? null : ['spec', k]) : firstDifference(ds[k], ls[k], ['spec', k], k);
    if (diff === 'masked') {
      unseen.push({ at: ['spec', k], why: `spec.${k}: the live value is masked in the snapshot` });
      continue;
    }
    if (!diff) continue;
    return {
      refusals: [
        {
          field: 'spec',
          at: diff,
          error: `spec: Forbidden: ${DETAILS.statefulSet} ${quoteList(allowed)} are forbidden`,
          status: 422,
          path: pathText(diff),
          live: shortJson(valueAt(l, diff)),
          desired: shortJson(valueAt(d, diff)),
        },
      ],
      unseen,
    };
  }
  return { refusals: [], unseen };
}

const JOB_IMMUTABLE = [
  'selector',
  'completions',
  'completionMode',
  'podFailurePolicy',
  'backoffLimitPerIndex',
  'managedBy',
  'successPolicy',
];

function job(d: KObject, l: KObject): Comparison {
  const ds = (d.spec ?? {}) as Record<string, Json>;
  const ls = (l.spec ?? {}) as Record<string, Json>;
  const out: Refusal[] = [];
  const unseen: Unseen[] = [];
  for (const k of JOB_IMMUTABLE) {
    if (ds[k] === undefined) continue;
    const diff = k === 'selector' ? (sameSelector(ds[k], ls[k]) ? null : ['spec', k]) : firstDifference(ds[k], ls[k], ['spec', k], k);
    if (diff === 'masked') unseen.push({ at: ['spec', k], why: `spec.${k}: the live value is masked in the snapshot` });
    else if (diff)
      out.push({
        field: `spec.${k}`,
        at: ['spec', k],
        error: `spec.${k}: Invalid value: ${k === 'selector' ? selectorText(ds[k]) : json(ds[k])}: ${DETAILS.immutable}`,
        status: 422,
        live: shortJson(ls[k]),
        desired: shortJson(ds[k]),
      });
  }
  if (ds.template !== undefined) {
    if (!isObj(ls.template) || !isObj((ls.template as Record<string, Json>).spec)) {
      unseen.push({
        at: ['spec', 'template'],
        why: 'spec.template: the live Job template is not in the snapshot (snapshots keep only its labels)',
      });
    } else {
      // a Job suspended before it started may change where it runs (kube-apiserver's JobValidationOptions)
      const fresh = ls.suspend === true && !(l.status as Record<string, Json> | undefined)?.startTime;
      const want = fresh ? withoutSchedulingDirectives(ds.template) : ds.template;
      const diff = firstDifference(want, ls.template, ['spec', 'template'], 'template');
      if (diff === 'masked')
        unseen.push({ at: ['spec', 'template'], why: 'spec.template: values the snapshot masks (env values) cannot be compared' });
      else if (diff)
        out.push({
          field: 'spec.template',
          at: diff,
          // the value is the whole template as the server holds it (kilobytes of JSON): elided
          error: `spec.template: Invalid value: …: ${DETAILS.immutable}`,
          status: 422,
          path: pathText(diff),
          live: shortJson(valueAt(l, diff)),
          desired: shortJson(valueAt(d, diff)),
        });
    }
  }
  return { refusals: out, unseen };
}

function withoutSchedulingDirectives(t: Json): Json {
  if (!isObj(t)) return t;
  const spec = isObj(t.spec) ? { ...t.spec } : undefined;
  if (spec) for (const k of ['nodeSelector', 'tolerations', 'affinity', 'schedulingGates']) delete spec[k];
  const meta = isObj(t.metadata) ? { ...t.metadata, labels: undefined, annotations: undefined } : undefined;
  return { ...t, ...(spec ? { spec } : {}), ...(meta ? { metadata: meta } : {}) };
}

function pvc(d: KObject, l: KObject, name: string, ctx: Context): Comparison {
  const ds = (d.spec ?? {}) as Record<string, Json>;
  const ls = (l.spec ?? {}) as Record<string, Json>;
  const bound = (l.status as Record<string, Json> | undefined)?.phase === 'Bound';
  const out: Refusal[] = [];
  const unseen: Unseen[] = [];
  // the spec, but what may change: the size and the attributes class of a bound claim, a volumeName or
  // storageClassName set for the first time
  for (const k of Object.keys(ds)) {
    if (k === 'resources' && bound) continue;
    if (k === 'volumeAttributesClassName' && bound) continue;
    if (k === 'volumeName' && !ls.volumeName) continue;
    if (k === 'storageClassName' && (ls.storageClassName === undefined || ls.storageClassName === null)) continue;
    const diff = firstDifference(ds[k], ls[k], ['spec', k], k);
    if (!diff || diff === 'masked') continue;
    if (k === 'volumeMode') {
      out.push({
        field: 'volumeMode',
        at: ['spec', 'volumeMode'],
        error: `volumeMode: Invalid value: ${json(ds[k])}: ${DETAILS.immutable}`,
        status: 422,
        live: String(ls[k]),
        desired: String(ds[k]),
      });
      continue;
    }
    out.push({
      field: 'spec',
      at: diff,
      error: `spec: Forbidden: ${DETAILS.pvcSpec} and volumeAttributesClassName for bound claims`,
      status: 422,
      path: pathText(diff),
      live: shortJson(valueAt(l, diff)),
      desired: shortJson(valueAt(d, diff)),
    });
    break;
  }
  const want = quantity((ds.resources as { requests?: { storage?: Json } } | undefined)?.requests?.storage);
  const had = quantity((ls.resources as { requests?: { storage?: Json } } | undefined)?.requests?.storage);
  if (bound && want !== undefined && had !== undefined && want !== had) {
    const at = ['spec', 'resources', 'requests', 'storage'];
    const wantText = String((ds.resources as { requests: { storage: Json } }).requests.storage);
    const hadText = String((ls.resources as { requests: { storage: Json } }).requests.storage);
    if (want < had) {
      // RecoverVolumeExpansionFailure (beta, on, since v1.32): down to above what the volume has, not below
      const capacity = quantity((l.status as { capacity?: { storage?: Json } } | undefined)?.capacity?.storage);
      const recover = ctx.minor === undefined || ctx.minor >= 32;
      if (!recover || capacity === undefined || want < capacity)
        out.push({
          field: 'spec.resources.requests.storage',
          at,
          error: `spec.resources.requests.storage: Forbidden: ${recover ? DETAILS.lessThanCapacity : DETAILS.lessThanPrevious}`,
          status: 422,
          live: hadText,
          desired: wantText,
        });
    } else {
      // growing: the resize admission plugin asks the claim's StorageClass
      const cls = typeof ls.storageClassName === 'string' ? ls.storageClassName : '';
      const sc = cls ? ctx.storageClass(cls) : null;
      if (sc === undefined)
        unseen.push({ at, why: `the size grows, and StorageClasses are not visible to say whether ${cls} allows expansion` });
      else if (!sc || sc.allowVolumeExpansion !== true)
        out.push({
          field: 'spec.resources.requests.storage',
          at,
          error: DETAILS.resize,
          status: 403,
          live: hadText,
          desired: `${wantText} (${cls ? (sc ? `StorageClass ${cls} has no allowVolumeExpansion: true` : `no StorageClass ${cls}`) : 'no StorageClass: a statically provisioned volume'})`,
        });
    }
  }
  void name;
  return { refusals: out, unseen };
}

const PV_SOURCES = [
  'awsElasticBlockStore',
  'azureDisk',
  'azureFile',
  'cephfs',
  'cinder',
  'csi',
  'fc',
  'flexVolume',
  'flocker',
  'gcePersistentDisk',
  'glusterfs',
  'hostPath',
  'iscsi',
  'local',
  'nfs',
  'photonPersistentDisk',
  'portworxVolume',
  'quobyte',
  'rbd',
  'scaleIO',
  'storageos',
  'vsphereVolume',
];

function pv(d: KObject, l: KObject): Comparison {
  const ds = (d.spec ?? {}) as Record<string, Json>;
  const ls = (l.spec ?? {}) as Record<string, Json>;
  for (const k of PV_SOURCES) {
    if (ds[k] === undefined && ls[k] === undefined) continue;
    const diff = ds[k] === undefined ? null : firstDifference(ds[k], ls[k], ['spec', k], k);
    // another source type written where the live one has its own: a change of source
    const other = ds[k] !== undefined && ls[k] === undefined && PV_SOURCES.some((s) => ls[s] !== undefined);
    if ((diff && diff !== 'masked') || other)
      return {
        refusals: [
          {
            field: 'spec.persistentvolumesource',
            at: diff && diff !== 'masked' ? diff : ['spec', k],
            error: `spec.persistentvolumesource: Forbidden: spec.persistentvolumesource ${DETAILS.pvSource}`,
            status: 422,
            live: shortJson(PV_SOURCES.filter((s) => ls[s] !== undefined).map((s) => ({ [s]: ls[s] }))[0]),
            desired: shortJson({ [k]: ds[k] }),
          },
        ],
        unseen: [],
      };
  }
  if (ds.volumeMode !== undefined && ls.volumeMode !== undefined && ds.volumeMode !== ls.volumeMode)
    return {
      refusals: [
        {
          field: 'volumeMode',
          at: ['spec', 'volumeMode'],
          error: `volumeMode: Invalid value: ${json(ds.volumeMode)}: ${DETAILS.immutable}`,
          status: 422,
          live: String(ls.volumeMode),
          desired: String(ds.volumeMode),
        },
      ],
      unseen: [],
    };
  return { refusals: [], unseen: [] };
}

/** A ConfigMap whose live copy says `immutable: true` (its body must have been read: a metadata-only copy cannot say). */
function configMap(d: KObject, l: KObject): Comparison {
  if (l.immutable === undefined && l.data === undefined && l.binaryData === undefined)
    return {
      refusals: [],
      unseen: [{ at: ['data'], why: "the live ConfigMap's body was not read (whether it is immutable is not known)" }],
    };
  if (l.immutable !== true) return { refusals: [], unseen: [] };
  const out: Refusal[] = [];
  if (d.immutable === false)
    out.push({
      field: 'immutable',
      at: ['immutable'],
      error: `immutable: Forbidden: ${DETAILS.immutableSet}`,
      status: 422,
      live: 'true',
      desired: 'false',
    });
  for (const k of ['data', 'binaryData'] as const) {
    if (d[k] !== undefined && json(sortKeys(d[k])) !== json(sortKeys(l[k])))
      out.push({ field: k, at: [k], error: `${k}: Forbidden: ${DETAILS.immutableSet}`, status: 422 });
  }
  return { refusals: out, unseen: [] };
}

const sortKeys = (v: Json): Json =>
  isObj(v)
    ? Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, v[k]]),
      )
    : (v ?? {});

function valueAt(o: Json, path: ReadonlyArray<string | number>): Json {
  let cur: Json = o;
  for (const k of path) cur = isObj(cur) || Array.isArray(cur) ? (cur as Record<string | number, Json>)[k] : undefined;
  return cur;
}
function shortJson(v: Json): string {
  if (v === undefined) return '(not set)';
  const t = typeof v === 'string' ? v : JSON.stringify(v);
  return t.length > 120 ? `${t.slice(0, 117)}…` : t;
}

/** The kinds whose changes the API server refuses, and the fields it names (for explain and the docs). */
export const IMMUTABLE_TABLE: ReadonlyArray<{ kind: string; group: string; fields: string; words: string }> = [
  {
    kind: 'Service',
    group: '',
    fields: 'spec.clusterIP(s) set to another address, spec.ipFamilies[0], spec.loadBalancerClass',
    words: DETAILS.changeOnce,
  },
  { kind: 'Deployment', group: 'apps', fields: 'spec.selector', words: DETAILS.immutable },
  { kind: 'ReplicaSet', group: 'apps', fields: 'spec.selector', words: DETAILS.immutable },
  { kind: 'DaemonSet', group: 'apps', fields: 'spec.selector', words: DETAILS.immutable },
  {
    kind: 'StatefulSet',
    group: 'apps',
    fields: 'spec other than the fields the refusal lists (volumeClaimTemplates, serviceName, podManagementPolicy, selector…)',
    words: DETAILS.statefulSet,
  },
  {
    kind: 'Job',
    group: 'batch',
    fields: `spec.template (where it runs may change while suspended and not started), spec.${JOB_IMMUTABLE.join(', spec.')}`,
    words: DETAILS.immutable,
  },
  {
    kind: 'PersistentVolumeClaim',
    group: '',
    fields:
      "spec other than a bound claim's size and attributes class; a size below status.capacity; growth where the StorageClass has no allowVolumeExpansion (admission, 403)",
    words: `${DETAILS.pvcSpec} / ${DETAILS.lessThanCapacity} / ${DETAILS.resize}`,
  },
  {
    kind: 'PersistentVolume',
    group: '',
    fields: 'the volume source (spec.nfs, spec.hostPath, spec.csi…), volumeMode',
    words: DETAILS.pvSource,
  },
  { kind: 'ConfigMap', group: '', fields: 'data, binaryData and immutable once `immutable: true`', words: DETAILS.immutableSet },
  {
    kind: 'Secret',
    group: '',
    fields: 'data and immutable once `immutable: true`, type (never compared here: Secrets are never read)',
    words: DETAILS.immutableSet,
  },
];

/** What the API server would refuse if `desired` were applied over `live` (same kind, namespace and name). */
export function compare(desired: KObject, live: KObject, ctx: Context): Comparison {
  const g = (desired.apiVersion ?? '').includes('/') ? desired.apiVersion!.split('/')[0] : '';
  const key = `${desired.kind}.${g}`;
  switch (key) {
    case 'Service.':
      return service(desired, live, ctx);
    case 'Deployment.apps':
    case 'ReplicaSet.apps':
    case 'DaemonSet.apps':
      return selectorOnly(desired, live);
    case 'StatefulSet.apps':
      return statefulSet(desired, live, ctx);
    case 'Job.batch':
      return job(desired, live);
    case 'PersistentVolumeClaim.':
      return pvc(desired, live, desired.metadata.name, ctx);
    case 'PersistentVolume.':
      return pv(desired, live);
    case 'ConfigMap.':
      return configMap(desired, live);
    default:
      return { refusals: [], unseen: [] };
  }
}
