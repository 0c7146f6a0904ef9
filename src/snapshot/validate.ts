// Objects from files (or a misbehaving server) are checked for the shapes the checks rely on, so
// a malformed-but-parsable object is reported as bad input with its path, instead of crashing a
// check. Only what kubectl-arch reads is checked; everything else may hold anything.

type Rule = 'object' | 'string' | 'number' | 'objects' | 'strings' | 'stringMap';

/** Paths read by checks, with the shape the API guarantees for them; kinds null = every kind. */
const RULES: Array<[string[] | null, string, Rule]> = [
  [null, 'spec', 'object'],
  [null, 'status', 'object'],
  [null, 'status.conditions', 'objects'],
  [['Pod'], 'status.containerStatuses', 'objects'],
  [['Node'], 'status.addresses', 'objects'],
  [['Node'], 'status.nodeInfo', 'object'],
  [['Node'], 'spec.taints', 'objects'],
  [['Endpoints'], 'subsets', 'objects'],
  [['EndpointSlice'], 'endpoints', 'objects'],
  [['Ingress', 'HTTPRoute'], 'spec.rules', 'objects'],
  [['ConfigMap'], 'data', 'stringMap'],
  [['Event'], 'involvedObject', 'object'],
  [['Event'], 'regarding', 'object'],
  [['Event'], 'series', 'object'],
  [['Event'], 'source', 'object'],
  [['Event'], 'message', 'string'],
  [['Event'], 'note', 'string'],
  [['Event'], 'reason', 'string'],
  [['Event'], 'count', 'number'],
  [['Application'], 'spec.destination', 'object'],
  [['Application'], 'spec.syncPolicy', 'object'],
  [['Application'], 'status.operationState', 'object'],
  [['Application'], 'status.operationState.syncResult', 'object'],
  [['Application'], 'status.operationState.syncResult.resources', 'objects'],
  [['Service'], 'spec.clusterIPs', 'strings'],
  [['Service'], 'spec.clusterIP', 'string'],
  [['Service'], 'spec.selector', 'stringMap'],
];

const META: Array<[string, Rule]> = [
  ['namespace', 'string'],
  ['uid', 'string'],
  ['labels', 'stringMap'],
  ['annotations', 'stringMap'],
  ['ownerReferences', 'objects'],
  ['finalizers', 'strings'],
  ['creationTimestamp', 'string'],
  ['deletionTimestamp', 'string'],
  ['resourceVersion', 'string'],
];

/** Rules by kind (and the ones for every kind), so a check costs only what applies to the object. */
const BY_KIND = new Map<string, Array<[string, Rule]>>();
const GENERIC: Array<[string, Rule]> = [];
for (const [kinds, path, rule] of RULES) {
  if (!kinds) GENERIC.push([path, rule]);
  else for (const k of kinds) BY_KIND.set(k, [...(BY_KIND.get(k) ?? []), [path, rule]]);
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function fits(v: unknown, rule: Rule): boolean {
  switch (rule) {
    case 'object':
      return isObj(v);
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number';
    case 'objects':
      return Array.isArray(v) && v.every(isObj);
    case 'strings':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'stringMap':
      return isObj(v) && Object.values(v).every((x) => typeof x === 'string' || x === null);
  }
}

const WANT: Record<Rule, string> = {
  object: 'a mapping',
  string: 'a string',
  number: 'a number',
  objects: 'a list of mappings',
  strings: 'a list of strings',
  stringMap: 'a mapping of strings',
};

function at(o: Record<string, unknown>, path: string): unknown {
  let v: unknown = o;
  for (const p of path.split('.')) {
    if (!isObj(v)) return undefined;
    v = v[p];
  }
  return v;
}

/** null when the object has the shapes checks read; otherwise what is wrong, e.g. "status.conditions must be a list of mappings". */
export function shapeProblem(o: Record<string, unknown>): string | null {
  const md = o.metadata;
  if (!isObj(md) || typeof md.name !== 'string' || md.name === '') return 'metadata.name must be a non-empty string';
  for (const [k, rule] of META) {
    const v = md[k];
    if (v !== undefined && v !== null && !fits(v, rule)) return `metadata.${k} must be ${WANT[rule]}`;
  }
  for (const r of (md.ownerReferences as Array<Record<string, unknown>> | undefined) ?? []) {
    if (typeof r.kind !== 'string' || typeof r.name !== 'string') return 'metadata.ownerReferences entries need kind and name strings';
  }
  // metadata-only objects (most of a live scan) carry nothing else to check
  if (o.spec === undefined && o.status === undefined && !BY_KIND.has(String(o.kind))) return null;
  for (const [path, rule] of [...GENERIC, ...(BY_KIND.get(String(o.kind)) ?? [])]) {
    const v = at(o, path);
    if (v !== undefined && v !== null && !fits(v, rule)) return `${path} must be ${WANT[rule]}`;
  }
  return null;
}
