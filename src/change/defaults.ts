// The defaults the API server fills in before it validates an update (pkg/apis/*/v1/defaults.go), where a manifest
// leaves them out and the rule compares them: a pod template's (a Job's, a Pod's), a StatefulSet's claim templates,
// a claim's or a volume's volumeMode, a StorageClass's policies, a CSIDriver's switches. Without them a manifest that
// leaves out what the server defaulted would look like a change of an immutable field. Fields whose defaults change
// nothing a rule reads (a Deployment's strategy) are left alone.
import type { KObject } from '../model.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const dflt = (o: Obj, k: string, v: unknown): void => {
  if (o[k] === undefined || o[k] === null) o[k] = v;
};

function probe(p: unknown): void {
  if (!isObj(p)) return;
  dflt(p, 'timeoutSeconds', 1);
  dflt(p, 'periodSeconds', 10);
  dflt(p, 'successThreshold', 1);
  dflt(p, 'failureThreshold', 3);
  if (isObj(p.httpGet)) dflt(p.httpGet, 'scheme', 'HTTP');
}

function container(c: unknown): void {
  if (!isObj(c)) return;
  dflt(c, 'terminationMessagePath', '/dev/termination-log');
  dflt(c, 'terminationMessagePolicy', 'File');
  if (c.imagePullPolicy === undefined && typeof c.image === 'string') {
    const tag = /:([^/:@]+)$/.exec(c.image)?.[1];
    c.imagePullPolicy = c.image.includes('@') ? 'IfNotPresent' : !tag || tag === 'latest' ? 'Always' : 'IfNotPresent';
  }
  for (const p of Array.isArray(c.ports) ? c.ports : []) if (isObj(p)) dflt(p, 'protocol', 'TCP');
  for (const e of Array.isArray(c.env) ? c.env : [])
    if (isObj(e) && isObj(e.valueFrom) && isObj(e.valueFrom.fieldRef)) dflt(e.valueFrom.fieldRef, 'apiVersion', 'v1');
  for (const k of ['livenessProbe', 'readinessProbe', 'startupProbe']) probe(c[k]);
  dflt(c, 'resources', {});
}

/** A pod spec as the server defaults it (core/v1 SetDefaults_PodSpec and friends). */
export function defaultPodSpec(s: unknown, restartPolicy = 'Always'): void {
  if (!isObj(s)) return;
  dflt(s, 'restartPolicy', restartPolicy);
  dflt(s, 'dnsPolicy', 'ClusterFirst');
  dflt(s, 'schedulerName', 'default-scheduler');
  dflt(s, 'securityContext', {});
  dflt(s, 'terminationGracePeriodSeconds', 30);
  // serviceAccount is the deprecated name of serviceAccountName: the server reads the new one when both are set
  if (typeof s.serviceAccountName === 'string' && s.serviceAccountName) s.serviceAccount = s.serviceAccountName;
  else if (typeof s.serviceAccount === 'string' && s.serviceAccount) s.serviceAccountName = s.serviceAccount;
  for (const k of ['containers', 'initContainers']) for (const c of Array.isArray(s[k]) ? s[k] : []) container(c);
  for (const v of Array.isArray(s.volumes) ? s.volumes : []) {
    if (!isObj(v)) continue;
    for (const k of ['configMap', 'secret', 'downwardAPI', 'projected']) if (isObj(v[k])) dflt(v[k] as Obj, 'defaultMode', 420);
    if (isObj(v.hostPath)) dflt(v.hostPath, 'type', '');
  }
}

function claimTemplate(t: unknown): void {
  if (!isObj(t)) return;
  dflt(t, 'apiVersion', 'v1');
  dflt(t, 'kind', 'PersistentVolumeClaim');
  if (isObj(t.spec)) dflt(t.spec, 'volumeMode', 'Filesystem');
  dflt(t, 'status', { phase: 'Pending' });
}

/** The object the API server validates: `o` (what it receives) with the defaults the rules read filled in. */
export function withDefaults(o: KObject): KObject {
  const out = JSON.parse(JSON.stringify(o)) as KObject;
  const spec = isObj(out.spec) ? out.spec : undefined;
  switch (out.kind) {
    case 'Pod':
      defaultPodSpec(spec);
      // the DefaultTolerationSeconds admission plugin (on by default), on create and update: 300 s on not-ready and
      // unreachable unless the pod tolerates them already
      if (spec) {
        const tols = (Array.isArray(spec.tolerations) ? spec.tolerations : []) as Obj[];
        for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'])
          if (!tols.some((t) => (t.key === key || (!t.key && t.operator === 'Exists')) && (!t.effect || t.effect === 'NoExecute')))
            tols.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
        spec.tolerations = tols;
      }
      break;
    case 'Job':
      if (spec) {
        defaultPodSpec((spec.template as Obj | undefined)?.spec, 'Never');
        dflt(spec, 'completionMode', 'NonIndexed');
        dflt(spec, 'suspend', false);
        dflt(spec, 'backoffLimit', 6);
        if (spec.completions === undefined && spec.parallelism === undefined) {
          spec.completions = 1;
          spec.parallelism = 1;
        }
        dflt(spec, 'parallelism', 1);
      }
      break;
    case 'Deployment':
    case 'ReplicaSet':
    case 'DaemonSet':
    case 'ReplicationController':
    case 'PodTemplate':
      defaultPodSpec(out.kind === 'PodTemplate' ? (out.template as Obj | undefined)?.spec : (spec?.template as Obj | undefined)?.spec);
      break;
    case 'StatefulSet':
      if (spec) {
        defaultPodSpec((spec.template as Obj | undefined)?.spec);
        dflt(spec, 'podManagementPolicy', 'OrderedReady');
        dflt(spec, 'revisionHistoryLimit', 10);
        dflt(spec, 'updateStrategy', { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
        for (const t of Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : []) claimTemplate(t);
      }
      break;
    case 'PersistentVolumeClaim':
      if (spec) dflt(spec, 'volumeMode', 'Filesystem');
      break;
    case 'PersistentVolume':
      if (spec) {
        dflt(spec, 'volumeMode', 'Filesystem');
        dflt(spec, 'persistentVolumeReclaimPolicy', 'Retain');
      }
      break;
    case 'StorageClass':
      dflt(out, 'reclaimPolicy', 'Delete');
      dflt(out, 'volumeBindingMode', 'Immediate');
      break;
    case 'CSIDriver':
      if (spec) {
        dflt(spec, 'attachRequired', true);
        dflt(spec, 'podInfoOnMount', false);
        dflt(spec, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
        dflt(spec, 'volumeLifecycleModes', ['Persistent']);
      }
      break;
    case 'PriorityClass':
      dflt(out, 'preemptionPolicy', 'PreemptLowerPriority');
      break;
    case 'Secret':
      dflt(out, 'type', 'Opaque');
      break;
    case 'EndpointSlice':
      break;
    default:
  }
  return out;
}
