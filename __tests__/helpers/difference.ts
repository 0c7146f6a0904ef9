// The difference test's generator (#45): from real objects as the API server holds them, changes one field at a time
// (and the known multi-field combinations), seeded and deterministic, each a new value any create of that kind would
// accept on its own — so what the API server refuses is the change, not the value. The e2e suite
// (e2e/difference.e2e.test.ts) asks a real kube-apiserver of each version whether it accepts each change (a PUT with
// dryRun=All) and records its answers as fixtures (__tests__/fixtures/difference/); what-if -f must predict the same,
// offline in `npm test` (__tests__/difference.test.ts) and live in the e2e.
import type { KObject } from '../../src/model.js';

export type Path = Array<string | number>;
export type Op = { op: 'set'; path: Path; value: unknown } | { op: 'remove'; path: Path };
export interface Change {
  /** Stable within a seed: "<Kind> <ns>/<name> #n". */
  id: string;
  /** The object changed, as "Kind ns/name" (or "Kind name"). */
  object: string;
  /** What the change is, in words (the path and the new value). */
  label: string;
  ops: Op[];
}
/** The API server's answer to one change (a PUT with dryRun=All). */
export interface Answer {
  status: number;
  /** The fields its causes name (422), in its order; empty when accepted. */
  fields: string[];
  message?: string;
}

/** mulberry32: a small seeded generator (the same sequence on every machine). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const objectText = (o: KObject): string => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
export const pathText = (p: Path): string => p.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');

export function getAt(o: unknown, p: Path): unknown {
  let cur = o;
  for (const k of p) cur = isObj(cur) || Array.isArray(cur) ? (cur as Record<string | number, unknown>)[k] : undefined;
  return cur;
}

/** The object with the change's operations applied (a deep copy). */
export function applyChange(o: KObject, ops: Op[]): KObject {
  const out = JSON.parse(JSON.stringify(o)) as KObject;
  for (const op of ops) {
    const parent = getAt(out, op.path.slice(0, -1)) as Record<string | number, unknown> | unknown[] | undefined;
    const last = op.path[op.path.length - 1]!;
    if (op.op === 'remove') {
      if (Array.isArray(parent) && typeof last === 'number') parent.splice(last, 1);
      else if (isObj(parent)) delete parent[last as string];
      continue;
    }
    // create the way there (a map)
    let cur: Record<string | number, unknown> = out as Record<string, unknown>;
    for (const k of op.path.slice(0, -1)) {
      if (!isObj(cur[k]) && !Array.isArray(cur[k])) cur[k] = {};
      cur = cur[k] as Record<string | number, unknown>;
    }
    cur[last] = JSON.parse(JSON.stringify(op.value));
  }
  return out;
}

/** Fields the server owns or a PUT cannot change: never generated. */
const SKIP_META = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
  'ownerReferences',
  'generateName',
]);

/** Kinds whose pod template must keep restartPolicy Always (a Deployment's may be nothing else). */
const ALWAYS_RESTART = new Set(['Deployment', 'ReplicaSet', 'DaemonSet', 'StatefulSet', 'ReplicationController']);

const cycle = (xs: readonly string[], v: string): string | undefined => (xs.includes(v) ? xs[(xs.indexOf(v) + 1) % xs.length] : undefined);

const QUANTITY_KEYS = /^(storage|cpu|memory|ephemeral-storage|requests\.cpu|requests\.memory|capacity|sizeLimit)$/;
function doubled(q: string): string | undefined {
  const m = /^(\d+)([a-zA-Z]*)$/.exec(q);
  return m ? `${Number(m[1]) * 2}${m[2]}` : undefined;
}
function halved(q: string): string | undefined {
  const m = /^(\d+)([a-zA-Z]*)$/.exec(q);
  return m && Number(m[1]) >= 2 && Number(m[1]) % 2 === 0 ? `${Number(m[1]) / 2}${m[2]}` : undefined;
}

/** The values a string field may take instead, by its key (enumerations and formats the API server accepts). */
function stringAlternatives(o: KObject, kind: string, path: Path, key: string, v: string): string[] {
  const inTemplate = path.includes('template') || kind === 'Pod';
  switch (key) {
    case 'image':
      return [v.includes(':') ? `${v.slice(0, v.lastIndexOf(':'))}:diff-2` : `${v}:diff-2`];
    case 'imagePullPolicy':
      return [cycle(['Always', 'IfNotPresent', 'Never'], v)!].filter(Boolean);
    case 'restartPolicy':
      if (!inTemplate || ALWAYS_RESTART.has(kind)) return [];
      return kind === 'Job' || kind === 'CronJob' ? [v === 'Never' ? 'OnFailure' : 'Never'] : [cycle(['Always', 'OnFailure', 'Never'], v)!];
    case 'dnsPolicy':
      return [cycle(['ClusterFirst', 'Default', 'ClusterFirstWithHostNet'], v)!].filter(Boolean);
    case 'schedulerName':
      return ['other-scheduler'];
    case 'terminationMessagePolicy':
      return [cycle(['File', 'FallbackToLogsOnError'], v)!].filter(Boolean);
    case 'terminationMessagePath':
      return ['/tmp/termination-log'];
    case 'mountPath':
      return [`${v.replace(/\/$/, '')}-2`];
    case 'protocol':
      return path.includes('ports') ? [v === 'TCP' ? 'UDP' : 'TCP'] : [];
    case 'type':
      if (kind === 'Service') return [cycle(['ClusterIP', 'NodePort', 'LoadBalancer'], v)!].filter(Boolean);
      if (path[0] === 'strategy' || path[1] === 'strategy') return v === 'RollingUpdate' ? ['Recreate'] : [];
      if (path.includes('updateStrategy')) return [v === 'RollingUpdate' ? 'OnDelete' : 'RollingUpdate'];
      if (kind === 'Event') return [v === 'Normal' ? 'Warning' : 'Normal'];
      return [];
    case 'sessionAffinity':
      return [v === 'None' ? 'ClientIP' : 'None'];
    case 'externalTrafficPolicy':
      return [v === 'Cluster' ? 'Local' : 'Cluster'];
    case 'internalTrafficPolicy':
      return [v === 'Cluster' ? 'Local' : 'Cluster'];
    case 'ipFamilyPolicy':
      return v === 'SingleStack' ? ['PreferDualStack', 'RequireDualStack'] : ['SingleStack'];
    case 'clusterIP':
      if (v === 'None') return ['', '10.43.250.250'];
      return ['', '10.43.250.251', 'None'];
    case 'externalName':
      return [`alt-${v}`];
    case 'storageClassName':
      return [v === 'fixed-size' ? 'standard-expandable' : 'fixed-size'];
    case 'volumeMode':
      return [v === 'Filesystem' ? 'Block' : 'Filesystem'];
    case 'persistentVolumeReclaimPolicy':
    case 'reclaimPolicy':
      return [v === 'Delete' ? 'Retain' : 'Delete'];
    case 'volumeName':
      return [`${v}-other`];
    case 'serviceName':
      return [`${v}-2`];
    case 'podManagementPolicy':
      return [v === 'OrderedReady' ? 'Parallel' : 'OrderedReady'];
    case 'concurrencyPolicy':
      return [cycle(['Allow', 'Forbid', 'Replace'], v)!];
    case 'schedule':
      return ['*/10 * * * *'];
    case 'provisioner':
      return ['other.csi.example.com'];
    case 'volumeBindingMode':
      return [v === 'Immediate' ? 'WaitForFirstConsumer' : 'Immediate'];
    case 'fsGroupPolicy':
      return [cycle(['File', 'ReadWriteOnceWithFSType', 'None'], v)!];
    case 'handler':
      return [`${v}-2`];
    case 'controller':
      return kind === 'IngressClass' ? ['example.com/other-ingress'] : [];
    case 'pathType':
      return [cycle(['Prefix', 'Exact', 'ImplementationSpecific'], v)!];
    case 'host':
      return path.includes('rules') ? [`www.${v}`] : [];
    case 'preemptionPolicy':
      return [v === 'Never' ? 'PreemptLowerPriority' : 'Never'];
    case 'holderIdentity':
      return [`${v}-2`];
    case 'failurePolicy':
      return [v === 'Fail' ? 'Ignore' : 'Fail'];
    case 'matchPolicy':
      return [v === 'Exact' ? 'Equivalent' : 'Exact'];
    case 'sideEffects':
      return [v === 'None' ? 'NoneOnDryRun' : 'None'];
    case 'reinvocationPolicy':
      return [v === 'Never' ? 'IfNeeded' : 'Never'];
    case 'scope':
      if (kind === 'CustomResourceDefinition') return [v === 'Namespaced' ? 'Cluster' : 'Namespaced'];
      return path.includes('rules') ? [v === 'Namespaced' ? 'Cluster' : v === 'Cluster' ? '*' : 'Namespaced'] : [];
    case 'plural':
    case 'singular':
      return kind === 'CustomResourceDefinition' ? [`${v}x`] : [];
    case 'attacher':
      return ['other.csi.example.com'];
    case 'nodeName':
      return [`${v}-2`];
    case 'persistentVolumeName':
      return [`${v}-2`];
    case 'description':
    case 'message':
    case 'reason':
      return [`${v} (changed)`];
    case 'holder':
      return [];
    case 'value':
      // an env value, a label-ish value
      return path.includes('env') ? [`${v}-changed`] : [];
    case 'path':
      return path.includes('paths') || path.includes('hostPath') || path.includes('nfs') || path.includes('httpGet')
        ? [`${v.replace(/\/$/, '')}/v2`]
        : [];
    case 'server':
      return path.includes('nfs') ? ['192.0.2.11'] : [];
    case 'volumeHandle':
      return [`${v}-2`];
    case 'fsType':
      return [v === 'ext4' ? 'xfs' : 'ext4'];
    case 'driver':
      return path.includes('csi') ? ['other.csi.example.com'] : [];
    case 'providerID':
      return [`${v}-2`];
    case 'podCIDR':
      return ['10.42.8.0/24'];
    case 'holderIdentity2':
      return [];
    case 'signerName':
      return [];
    case 'policy':
      return [];
    case 'ingressClassName':
      return ['other'];
    case 'priorityClassName':
      return [v === 'system-cluster-critical' ? 'system-node-critical' : 'system-cluster-critical'];
    case 'serviceAccountName':
    case 'serviceAccount':
      return [`${v}-2`];
    case 'hostname':
      return [`${v}-2`];
    case 'subdomain':
      return [`${v}-2`];
    case 'secretName':
    case 'claimName':
      return [`${v}-2`];
    case 'name':
      // a reference by name (never a container's, a port's or a volume's own: others refer to those)
      return [
        'roleRef',
        'subjects',
        'scaleTargetRef',
        'service',
        'configMapKeyRef',
        'secretKeyRef',
        'configMap',
        'secret',
        'imagePullSecrets',
      ].some((k) => path.includes(k))
        ? [`${v}-2`]
        : [];
    case 'kind':
      if (path.includes('roleRef') && kind === 'ClusterRoleBinding') return [];
      if (path.includes('roleRef')) return [v === 'Role' ? 'ClusterRole' : 'Role'];
      if (path.includes('scaleTargetRef')) return [v === 'Deployment' ? 'StatefulSet' : 'Deployment'];
      if (path.includes('subjects')) return [];
      return [];
    case 'effect': {
      // a toleration with tolerationSeconds is a NoExecute one
      const t = getAt(o, path.slice(0, -1)) as { tolerationSeconds?: unknown } | undefined;
      if (t?.tolerationSeconds !== undefined) return [];
      return path.includes('taints') || path.includes('tolerations')
        ? [cycle(['NoSchedule', 'PreferNoSchedule', 'NoExecute'], v)!].filter(Boolean)
        : [];
    }
    case 'key':
      return path.includes('tolerations') || path.includes('taints') ? [`${v}-2`] : [];
    case 'scheme':
      return [v === 'HTTP' ? 'HTTPS' : 'HTTP'];
    case 'url':
      return v.startsWith('https://') ? [`${v}-2`] : [];
    case 'subPath':
    case 'workingDir':
      return [`/tmp/${kind.toLowerCase()}`];
    case 'fieldPath':
      return v === 'metadata.name' ? ['metadata.namespace'] : [];
    default:
      return [];
  }
}

/** The changes of one leaf: booleans flipped, numbers moved, strings to another valid value, quantities grown or shrunk. */
function leafChanges(o: KObject, path: Path, v: unknown): Array<{ label: string; ops: Op[] }> {
  const key = String([...path].reverse().find((k) => typeof k === 'string') ?? '');
  const out: Array<{ label: string; ops: Op[] }> = [];
  const set = (value: unknown, why = ''): void => {
    out.push({ label: `${pathText(path)} → ${JSON.stringify(value)}${why}`, ops: [{ op: 'set', path, value }] });
  };
  if (typeof v === 'boolean') {
    // automountServiceAccountToken, globalDefault, allowVolumeExpansion, suspend, readOnly…
    set(!v);
    return out;
  }
  if (typeof v === 'number') {
    if (key === 'nodePort') set(v >= 32767 ? v - 1 : v + 1);
    else if (key === 'port' || key === 'containerPort' || key === 'targetPort') set(v >= 65535 ? v - 1 : v + 1);
    else if (key === 'value' && o.kind === 'PriorityClass') set(v + 1);
    else if (key === 'revision') set(v + 1);
    // a webhook's timeout is 1 to 30 seconds
    else if (key === 'timeoutSeconds' && v >= 30) set(v - 1);
    else {
      set(v + 1);
      if (v > 1) set(v - 1);
    }
    return out;
  }
  if (typeof v !== 'string') return out;
  if (QUANTITY_KEYS.test(key) || (o.kind === 'CSIStorageCapacity' && key === 'capacity')) {
    // a container's requests stay at or below its limits: requests only shrink, limits only grow
    const up = path.includes('requests') && path.includes('containers') ? undefined : doubled(v);
    const down = path.includes('limits') ? undefined : halved(v);
    if (up) set(up);
    if (down) set(down);
    return out;
  }
  for (const alt of stringAlternatives(o, o.kind ?? '', path, key, v)) if (alt !== v) set(alt);
  return out;
}

/** Maps whose keys are free (labels, annotations, selectors, data): a value changed, a key added, a key removed. */
const FREE_MAPS = /^(labels|annotations|nodeSelector|matchLabels|data|selector|parameters)$/;

function mapChanges(o: KObject, path: Path, m: Record<string, unknown>): Array<{ label: string; ops: Op[] }> {
  const key = String(path[path.length - 1]);
  const out: Array<{ label: string; ops: Op[] }> = [];
  const keys = Object.keys(m).sort();
  // a Service's selector is a plain map; a workload's is a LabelSelector (handled by matchLabels)
  if (key === 'selector' && !(o.kind === 'Service' || o.kind === 'ReplicationController')) return out;
  if (key === 'data' && o.kind !== 'ConfigMap' && o.kind !== 'Secret') return out;
  const newKey = key === 'annotations' ? 'example.com/changed-by' : key === 'data' ? 'EXTRA_SETTING' : 'diff.example.com/extra';
  // a Secret's data is base64
  const b64 = o.kind === 'Secret' && key === 'data';
  out.push({ label: `${pathText(path)}: add ${newKey}`, ops: [{ op: 'set', path: [...path, newKey], value: b64 ? 'eWVz' : 'yes' }] });
  const first = keys[0];
  if (first !== undefined && typeof m[first] === 'string') {
    // a number kept as text (an annotation the server parses) stays a number
    const v = m[first] as string;
    const other = b64 ? 'Y2hhbmdlZA==' : /^\d+$/.test(v) ? String(Number(v) + 1) : `${v || 'x'}-2`;
    out.push({ label: `${pathText(path)}.${first} → another value`, ops: [{ op: 'set', path: [...path, first], value: other }] });
    if (keys.length > 1 || key === 'annotations' || key === 'labels' || key === 'data' || key === 'nodeSelector')
      out.push({ label: `${pathText(path)}: remove ${first}`, ops: [{ op: 'remove', path: [...path, first] }] });
  }
  return out;
}

/** Lists that may grow or shrink by an item of their own kind. */
function listChanges(o: KObject, path: Path, xs: unknown[]): Array<{ label: string; ops: Op[] }> {
  const key = String(path[path.length - 1]);
  const out: Array<{ label: string; ops: Op[] }> = [];
  const add = (value: unknown, what: string): void => {
    out.push({ label: `${pathText(path)}: add ${what}`, ops: [{ op: 'set', path: [...path, xs.length], value }] });
  };
  switch (key) {
    case 'tolerations':
      add({ key: 'diff.example.com/spot', operator: 'Exists', effect: 'NoSchedule' }, 'a toleration');
      break;
    case 'env':
      add({ name: 'DIFF_EXTRA', value: 'yes' }, 'an env var');
      break;
    case 'args':
      if (xs.every((x) => typeof x === 'string')) add('--v=2', 'an argument');
      break;
    case 'finalizers':
      add('example.com/protect', 'a finalizer');
      break;
    case 'imagePullSecrets':
      add({ name: 'regcred' }, 'a pull secret');
      break;
    case 'accessModes':
      if (!xs.includes('ReadOnlyMany')) add('ReadOnlyMany', 'ReadOnlyMany');
      break;
    case 'verbs':
      if (!xs.includes('delete')) add('delete', 'a verb');
      break;
    case 'shortNames':
      add('wdx', 'a short name');
      break;
    case 'externalIPs':
      add('192.0.2.200', 'an external IP');
      break;
    case 'subjects':
      add({ kind: 'ServiceAccount', name: 'extra', namespace: 'diff' }, 'a subject');
      break;
    case 'policyTypes':
      if (!xs.includes('Egress')) add('Egress', 'Egress');
      break;
    case 'ports':
      if (o.kind === 'Service' && isObj(xs[0]) && !o.spec?.type?.includes('ExternalName'))
        add({ name: 'diff-extra', port: 19100, targetPort: 19100, protocol: 'TCP' }, 'a port');
      break;
    default:
  }
  // one item fewer (never the last one: an empty list is often invalid on its own)
  if (
    xs.length > 1 &&
    [
      'tolerations',
      'env',
      'args',
      'ports',
      'containers',
      'accessModes',
      'rules',
      'subjects',
      'verbs',
      'paths',
      'addresses',
      'endpoints',
    ].includes(key)
  )
    out.push({ label: `${pathText(path)}: remove the last item`, ops: [{ op: 'remove', path: [...path, xs.length - 1] }] });
  return out;
}

/** Optional fields whose removal is a change a manifest makes by leaving them out (a PUT that omits them). */
const REMOVABLE = new Set([
  'clusterIP',
  'clusterIPs',
  'activeDeadlineSeconds',
  'revisionHistoryLimit',
  'storageClassName',
  'nodeSelector',
  'externalTrafficPolicy',
  'loadBalancerClass',
  'ttlSecondsAfterFinished',
  'backoffLimit',
  'minReadySeconds',
  'description',
  'timeoutSeconds',
  'sessionAffinity',
  'terminationGracePeriodSeconds',
  'priorityClassName',
  'immutable',
  'ipFamilyPolicy',
  'ipFamilies',
  'volumeName',
  'providerID',
  'podCIDR',
  'podCIDRs',
  'taints',
  'overhead',
  'scheduling',
  'holderIdentity',
  'tls',
  'ingressClassName',
  'parallelism',
  'completions',
  'completionMode',
  'suspend',
  'allowVolumeExpansion',
  'mountOptions',
  'fsGroupPolicy',
  'podInfoOnMount',
  'attachRequired',
  'tolerations',
  'affinity',
  'hostname',
  'subdomain',
  'automountServiceAccountToken',
]);

/** Every change of one object: one field at a time. */
function singleChanges(o: KObject): Array<{ label: string; ops: Op[] }> {
  const out: Array<{ label: string; ops: Op[] }> = [];
  const walk = (v: unknown, path: Path): void => {
    const key = path[path.length - 1];
    // a CRD's schemas are not judged (a structural-schema validator is out of scope): what-if -f says so
    if (o.kind === 'CustomResourceDefinition' && path.includes('schema')) return;
    // with the host's network a container's port is the host's: both change together or not at all
    if (
      (key === 'containerPort' || key === 'hostPort') &&
      (getAt(o, ['spec', 'template', 'spec', 'hostNetwork']) === true || getAt(o, ['spec', 'hostNetwork']) === true)
    )
      return;
    if (path.length === 1 && (key === 'status' || key === 'apiVersion' || key === 'kind')) return;
    if (path[0] === 'metadata' && path.length === 2 && SKIP_META.has(String(key))) return;
    if (path[0] === 'metadata' && path.length === 2 && key !== 'labels' && key !== 'annotations' && key !== 'finalizers') return;
    if (typeof key === 'string' && REMOVABLE.has(key) && path.length > 1)
      out.push({ label: `${pathText(path)}: removed`, ops: [{ op: 'remove', path }] });
    if (isObj(v)) {
      if (typeof key === 'string' && FREE_MAPS.test(key)) {
        out.push(...mapChanges(o, path, v));
        if (key === 'data' || key === 'annotations' || key === 'labels' || key === 'nodeSelector' || key === 'parameters') return;
      }
      for (const k of Object.keys(v).sort()) walk(v[k], [...path, k]);
      return;
    }
    if (Array.isArray(v)) {
      out.push(...listChanges(o, path, v));
      v.forEach((x, i) => walk(x, [...path, i]));
      return;
    }
    out.push(...leafChanges(o, path, v));
  };
  walk(o, []);
  return out;
}

/** The known multi-field combinations (the threads' and the API server's cross-field rules). */
function combinations(o: KObject): Array<{ label: string; ops: Op[] }> {
  const out: Array<{ label: string; ops: Op[] }> = [];
  const s = (o.spec ?? {}) as Record<string, unknown>;
  const add = (label: string, ops: Op[]): void => {
    out.push({ label, ops });
  };
  switch (o.kind) {
    case 'Service': {
      if (s.clusterIP === 'None') add('headless → LoadBalancer', [{ op: 'set', path: ['spec', 'type'], value: 'LoadBalancer' }]);
      if (s.type !== 'ExternalName')
        add('→ ExternalName (address released)', [
          { op: 'set', path: ['spec', 'type'], value: 'ExternalName' },
          { op: 'set', path: ['spec', 'externalName'], value: 'moved.example.com' },
          { op: 'remove', path: ['spec', 'clusterIP'] },
          { op: 'remove', path: ['spec', 'clusterIPs'] },
          { op: 'remove', path: ['spec', 'ipFamilies'] },
          { op: 'remove', path: ['spec', 'ipFamilyPolicy'] },
        ]);
      if (s.type === 'ExternalName')
        add('ExternalName → ClusterIP', [
          { op: 'set', path: ['spec', 'type'], value: 'ClusterIP' },
          { op: 'remove', path: ['spec', 'externalName'] },
          { op: 'set', path: ['spec', 'ports'], value: [{ name: 'db', port: 5432, protocol: 'TCP', targetPort: 5432 }] },
        ]);
      if (s.type === 'NodePort' || s.type === 'LoadBalancer') {
        const ports = (s.ports as Array<Record<string, unknown>>).map((p) =>
          Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'nodePort')),
        );
        add(`${String(s.type)} → ClusterIP, node ports dropped`, [
          { op: 'set', path: ['spec', 'type'], value: 'ClusterIP' },
          { op: 'set', path: ['spec', 'ports'], value: ports },
          { op: 'remove', path: ['spec', 'externalTrafficPolicy'] },
          { op: 'remove', path: ['spec', 'allocateLoadBalancerNodePorts'] },
        ]);
        add(`${String(s.type)}: node ports dropped`, [{ op: 'set', path: ['spec', 'ports'], value: ports }]);
      }
      if (s.type === 'LoadBalancer')
        add('loadBalancerClass set', [{ op: 'set', path: ['spec', 'loadBalancerClass'], value: 'example.com/lb' }]);
      if (s.type !== 'LoadBalancer' && s.type !== 'ExternalName')
        add('→ LoadBalancer with a class', [
          { op: 'set', path: ['spec', 'type'], value: 'LoadBalancer' },
          { op: 'set', path: ['spec', 'loadBalancerClass'], value: 'example.com/lb' },
        ]);
      if (s.type !== 'ExternalName' && s.clusterIP !== 'None') {
        add('clusterIP "" and clusterIPs left out (apply of clusterIP: "")', [
          { op: 'set', path: ['spec', 'clusterIP'], value: '' },
          { op: 'remove', path: ['spec', 'clusterIPs'] },
        ]);
        add('dual-stack asked (PreferDualStack, IPv4 and IPv6)', [
          { op: 'set', path: ['spec', 'ipFamilyPolicy'], value: 'PreferDualStack' },
          { op: 'set', path: ['spec', 'ipFamilies'], value: ['IPv4', 'IPv6'] },
        ]);
      }
      break;
    }
    case 'Deployment':
    case 'ReplicaSet':
    case 'DaemonSet':
    case 'StatefulSet': {
      const sel = (s.selector as { matchLabels?: Record<string, string> } | undefined)?.matchLabels;
      const k = sel ? Object.keys(sel).sort()[0] : undefined;
      if (k) {
        add('selector and template labels changed together', [
          { op: 'set', path: ['spec', 'selector', 'matchLabels', k], value: `${sel![k]}-v2` },
          { op: 'set', path: ['spec', 'template', 'metadata', 'labels', k], value: `${sel![k]}-v2` },
        ]);
        add('a label added to the selector and the template', [
          { op: 'set', path: ['spec', 'selector', 'matchLabels', 'diff.example.com/track'], value: 'stable' },
          { op: 'set', path: ['spec', 'template', 'metadata', 'labels', 'diff.example.com/track'], value: 'stable' },
        ]);
      }
      if (o.kind === 'StatefulSet')
        add('replicas and image together', [
          { op: 'set', path: ['spec', 'replicas'], value: Number(s.replicas ?? 1) + 1 },
          { op: 'set', path: ['spec', 'template', 'spec', 'containers', 0, 'image'], value: 'docker.io/bitnami/postgresql:16.3.0' },
        ]);
      break;
    }
    case 'Job': {
      if (s.suspend === true) {
        add('suspended, never started: node affinity added', [
          {
            op: 'set',
            path: ['spec', 'template', 'spec', 'affinity'],
            value: {
              nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                  nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['batch', 'spot'] }] }],
                },
              },
            },
          },
        ]);
        add('suspended, never started: pod affinity added', [
          {
            op: 'set',
            path: ['spec', 'template', 'spec', 'affinity'],
            value: {
              podAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: [
                  { labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'kubernetes.io/hostname' },
                ],
              },
            },
          },
        ]);
        add('suspended, never started: template annotation added', [
          { op: 'set', path: ['spec', 'template', 'metadata', 'annotations'], value: { 'example.com/queue': 'night' } },
        ]);
      }
      if (s.completionMode === 'Indexed' && s.completions === s.parallelism)
        add('Indexed: completions and parallelism grown together', [
          { op: 'set', path: ['spec', 'completions'], value: Number(s.completions) + 2 },
          { op: 'set', path: ['spec', 'parallelism'], value: Number(s.parallelism) + 2 },
        ]);
      if (s.suspend !== true)
        add('suspended, then its image changed', [
          { op: 'set', path: ['spec', 'suspend'], value: true },
          { op: 'set', path: ['spec', 'template', 'spec', 'containers', 0, 'image'], value: 'perl:5.36.0' },
        ]);
      break;
    }
    case 'PersistentVolumeClaim': {
      const req = (s.resources as { requests?: { storage?: string } } | undefined)?.requests?.storage;
      const up = req ? doubled(req) : undefined;
      if (up && (o.metadata.annotations ?? {})['volume.beta.kubernetes.io/storage-class'])
        add('grown, its class named by the beta annotation', [
          { op: 'set', path: ['spec', 'resources', 'requests', 'storage'], value: up },
        ]);
      break;
    }
    case 'Pod': {
      add('activeDeadlineSeconds lowered', [{ op: 'set', path: ['spec', 'activeDeadlineSeconds'], value: 60 }]);
      add('image and a toleration together', [
        { op: 'set', path: ['spec', 'containers', 0, 'image'], value: 'nginx:1.25.4' },
        {
          op: 'set',
          path: ['spec', 'tolerations', ((s.tolerations as unknown[]) ?? []).length],
          value: { key: 'diff.example.com/maintenance', operator: 'Exists', effect: 'NoExecute' },
        },
      ]);
      break;
    }
    default:
  }
  return out;
}

/**
 * The changes for a set of objects: every single-field change and every combination of each object, then a seeded
 * sample of at most `perKind` per kind (kinds with many objects — Deployments, Pods — would otherwise be most of it).
 */
export function generate(objects: KObject[], seed: number, perKind = 300): Change[] {
  const random = rng(seed);
  const byKind = new Map<string, Array<{ o: KObject; label: string; ops: Op[] }>>();
  const sorted = [...objects].sort((a, b) => objectText(a).localeCompare(objectText(b)));
  for (const o of sorted) {
    const all = [...singleChanges(o), ...combinations(o)];
    const list = byKind.get(o.kind!) ?? [];
    for (const c of all) list.push({ o, ...c });
    byKind.set(o.kind!, list);
  }
  const out: Change[] = [];
  for (const kind of [...byKind.keys()].sort()) {
    const list = byKind.get(kind)!;
    // Fisher–Yates with the seeded generator, then the first perKind; combinations always stay
    const combos = list.filter(
      (c) => c.ops.length > 1 || /→ ExternalName|headless|grown, its class|activeDeadlineSeconds lowered/.test(c.label),
    );
    const singles = list.filter((c) => !combos.includes(c));
    for (let i = singles.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [singles[i], singles[j]] = [singles[j]!, singles[i]!];
    }
    const chosen = [...combos, ...singles.slice(0, Math.max(0, perKind - combos.length))];
    chosen.sort((a, b) => objectText(a.o).localeCompare(objectText(b.o)) || a.label.localeCompare(b.label));
    const n = new Map<string, number>();
    for (const c of chosen) {
      const obj = objectText(c.o);
      const i = (n.get(obj) ?? 0) + 1;
      n.set(obj, i);
      out.push({ id: `${obj} #${i}`, object: obj, label: c.label, ops: c.ops });
    }
  }
  return out;
}
