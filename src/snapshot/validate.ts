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

/** A rule with its path split once: every object of a snapshot is checked (measured: splitting paths and
 *  joining rule lists per object made validation a third of loading the example). */
type Compiled = { path: string; keys: string[]; rule: Rule };
const compileRule = (path: string, rule: Rule): Compiled => ({ path, keys: path.split('.'), rule });
const GENERIC: Compiled[] = RULES.filter(([kinds]) => !kinds).map(([, path, rule]) => compileRule(path, rule));
/** The generic rules followed by the kind's own, by kind; kinds with none of their own share GENERIC. */
const BY_KIND = new Map<string, Compiled[]>();
for (const [kinds, path, rule] of RULES) {
  for (const k of kinds ?? []) BY_KIND.set(k, [...(BY_KIND.get(k) ?? GENERIC), compileRule(path, rule)]);
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
      if (!Array.isArray(v)) return false;
      for (let i = 0; i < v.length; i++) if (!isObj(v[i])) return false;
      return true;
    case 'strings':
      if (!Array.isArray(v)) return false;
      for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
      return true;
    case 'stringMap':
      if (!isObj(v)) return false;
      for (const k in v) {
        const x = v[k];
        if (typeof x !== 'string' && x !== null) return false;
      }
      return true;
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

function at(o: Record<string, unknown>, keys: string[]): unknown {
  let v: unknown = o;
  for (let i = 0; i < keys.length; i++) {
    if (!isObj(v)) return undefined;
    v = v[keys[i]!];
  }
  return v;
}

/** null when the object has the shapes checks read; otherwise what is wrong, e.g. "status.conditions must be a list of mappings". */
export function shapeProblem(o: Record<string, unknown>): string | null {
  const md = o.metadata;
  if (!isObj(md) || typeof md.name !== 'string' || md.name === '') return 'metadata.name must be a non-empty string';
  // indexed loops: this runs for every object while the code is still cold (interpreted), where for-of
  // and destructuring cost an iterator each
  for (let i = 0; i < META.length; i++) {
    const [k, rule] = META[i]!;
    const v = md[k];
    if (v !== undefined && v !== null && !fits(v, rule)) return `metadata.${k} must be ${WANT[rule]}`;
  }
  const refs = md.ownerReferences as Array<Record<string, unknown>> | undefined;
  for (let i = 0; refs && i < refs.length; i++) {
    const r = refs[i]!;
    if (typeof r.kind !== 'string' || typeof r.name !== 'string') return 'metadata.ownerReferences entries need kind and name strings';
  }
  // metadata-only objects (most of a live scan) carry nothing else to check
  const rules = BY_KIND.get(String(o.kind));
  if (o.spec === undefined && o.status === undefined && !rules) return null;
  const list = rules ?? GENERIC;
  for (let i = 0; i < list.length; i++) {
    const r = list[i]!;
    const v = at(o, r.keys);
    if (v !== undefined && v !== null && !fits(v, r.rule)) return `${r.path} must be ${WANT[r.rule]}`;
  }
  return null;
}
