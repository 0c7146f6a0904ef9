// What leaves the cluster in a snapshot (and what stays in memory) is only what checks read.
// A snapshot is meant to be sent to a colleague, so anything that can carry credentials is cut
// while the objects are fetched: last-applied annotations (a full copy of what was applied, which
// for many objects includes literal env values), K3s's applied-objectset annotation outside
// Services, K3s node env, and secret-looking values in K3s node args. Per-type trims (ConfigMap
// keys, Helm values, Argo CD source parameters) live with the types in resources.ts.
import type { KObject } from '../model.js';

const DROP_ANNOTATIONS = ['kubectl.kubernetes.io/last-applied-configuration', 'k3s.io/node-env'];
const SECRET_FLAG = /token|secret|password|passwd|credential|private[-_]?key|(^|-)key$/i;

/** `["server","--token","abc","--datastore-endpoint=postgres://u:p@h"]` with secret values masked. */
export function redactArgs(json: string): string {
  let args: unknown;
  try {
    args = JSON.parse(json);
  } catch {
    return '********';
  }
  if (!Array.isArray(args)) return '********';
  const out: string[] = [];
  let maskNext = false;
  for (const a of args.map(String)) {
    if (maskNext) {
      out.push('********');
      maskNext = false;
      continue;
    }
    const m = /^(--?[\w-]+)(=(.*))?$/.exec(a);
    const secretish = m && (SECRET_FLAG.test(m[1]!) || /datastore-endpoint|etcd-s3-(access|secret)/.test(m[1]!));
    if (m && secretish && m[2] !== undefined) out.push(`${m[1]}=********`);
    else {
      if (m && secretish) maskNext = true;
      out.push(a);
    }
  }
  return JSON.stringify(out);
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
    if (typeof a['k3s.io/node-args'] === 'string') a['k3s.io/node-args'] = redactArgs(a['k3s.io/node-args']);
  }
  return o;
}
