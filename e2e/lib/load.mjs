// Load a scenario (plain Kubernetes YAML) into the real API server as the admin, the way the objects
// would look in a live cluster: create, then write status through the /status subresource where the
// server resets it on create. Timestamps are shifted so the scenario's "now" is the real now; the
// shifted YAML is also written out, so the same files can be analysed offline with --snapshot.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump, loadAll } from 'js-yaml';

const TS = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?Z$/;

/** Shift every RFC 3339 timestamp in an object by deltaMs, keeping its precision (Lease renewTime is MicroTime). */
export function shiftTimes(v, deltaMs) {
  if (typeof v === 'string') {
    const m = TS.exec(v);
    // a time inside a message (an event naming an expiry date) moves with everything else
    if (!m) return v.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, (t) => shiftTimes(t, deltaMs));
    const d = new Date(Date.parse(v) + deltaMs).toISOString(); // .sssZ
    const frac = m[2] ?? '';
    return frac ? `${d.slice(0, 19)}${(d.slice(19, 23) + '000000000').slice(0, frac.length)}Z` : `${d.slice(0, 19)}Z`;
  }
  if (Array.isArray(v)) return v.map((x) => shiftTimes(x, deltaMs));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shiftTimes(x, deltaMs)]));
  return v;
}

export function readScenario(dir) {
  const objs = [];
  for (const f of readdirSync(dir)
    .filter((n) => /\.ya?ml$/.test(n))
    .sort()) {
    loadAll(readFileSync(join(dir, f), 'utf8'), (d) => {
      if (!d) return;
      if (d.kind?.endsWith('List') && Array.isArray(d.items)) objs.push(...d.items);
      else objs.push(d);
    });
  }
  return objs;
}

const STATUS_KINDS = new Set([
  'Node',
  'Pod',
  'Deployment',
  'ReplicaSet',
  'DaemonSet',
  'StatefulSet',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'Ingress',
  'Job',
]);
const ORDER = [
  'CustomResourceDefinition',
  'Namespace',
  'Node',
  'ClusterRole',
  'PersistentVolume',
  'ConfigMap',
  'Deployment',
  'DaemonSet',
  'StatefulSet',
  'ReplicaSet',
  'Pod',
  'Service',
  'Endpoints',
  'EndpointSlice',
  'PersistentVolumeClaim',
  'Ingress',
  'Lease',
  'Addon',
  'HelmChart',
  'Application',
];
// webhooks last: once a fail-closed webhook with no backend exists, the writes it matches are rejected
const LAST = new Set(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);
const rank = (k) => {
  if (LAST.has(k)) return ORDER.length + 1;
  const i = ORDER.indexOf(k);
  return i < 0 ? ORDER.length : i;
};
const groupOf = (av) => (av.includes('/') ? av.split('/')[0] : '');

async function discover(admin) {
  const map = new Map();
  const add = (gv, list) => {
    for (const r of list.resources ?? [])
      if (!r.name.includes('/'))
        map.set(`${groupOf(gv)}|${r.kind}`, {
          path: gv.includes('/') ? `/apis/${gv}` : `/api/${gv}`,
          resource: r.name,
          namespaced: r.namespaced,
        });
  };
  add('v1', (await admin('GET', '/api/v1')).json);
  for (const g of (await admin('GET', '/apis')).json.groups) {
    const gv = g.preferredVersion.groupVersion;
    const r = await admin('GET', `/apis/${gv}`);
    if (r.status === 200) add(gv, r.json);
  }
  return map;
}

/** Service cluster IPs outside the API server's --service-cluster-ip-range (10.43.0.0/16, K3s's default), e.g.
 *  kubeadm's 10.96.0.0/12: served through an extra ServiceCIDR (networking.k8s.io/v1), as a cluster admin would. */
async function serviceRanges(cp, objs) {
  const ranges = new Set(
    objs
      .filter((o) => o.kind === 'Service' && /^\d+\.\d+\./.test(o.spec?.clusterIP ?? '') && !o.spec.clusterIP.startsWith('10.43.'))
      .map((o) => o.spec.clusterIP.split('.').slice(0, 2).join('.')),
  );
  for (const r of ranges) {
    const name = `scenario-${r.replace('.', '-')}`;
    const res = await cp.admin('POST', '/apis/networking.k8s.io/v1/servicecidrs', {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'ServiceCIDR',
      metadata: { name },
      spec: { cidrs: [`${r}.0.0/16`] },
    });
    if (res.status >= 300 && res.status !== 409) throw new Error(`ServiceCIDR ${r}.0.0/16: ${res.status} ${res.json?.message ?? res.text}`);
    for (let i = 0; i < 100; i++) {
      const c = await cp.admin('GET', `/apis/networking.k8s.io/v1/servicecidrs/${name}`);
      if ((c.json?.status?.conditions ?? []).some((x) => x.type === 'Ready' && x.status === 'True')) break;
      await new Promise((r2) => setTimeout(r2, 100));
    }
  }
}

/** Does the scenario give this Service no ready address (so the aggregator has nothing to dial)? */
function noBackend(objs, svc) {
  const ep = objs.find((x) => x.kind === 'Endpoints' && x.metadata.namespace === svc.namespace && x.metadata.name === svc.name);
  return !(ep?.subsets ?? []).some((s) => (s.addresses ?? []).length);
}

/** Load objects (a list, or a directory of YAML files); returns how many (fixture uids mapped to the server's). */
export async function loadScenario(cp, src, { outDir, referenceTime, now = Date.now(), concurrency = 16 } = {}) {
  const delta = referenceTime ? now - referenceTime : 0;
  const srcDir = Array.isArray(src) ? 'scenario' : src;
  const objs = (Array.isArray(src) ? src : readScenario(src)).map((o) => shiftTimes(o, delta));
  if (outDir) {
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, 'scenario.yaml'), objs.map((o) => dump(o, { lineWidth: -1, noRefs: true })).join('---\n'));
  }
  const uidMap = new Map();
  const byRank = new Map();
  for (const o of objs) {
    const r = rank(o.kind);
    byRank.set(r, [...(byRank.get(r) ?? []), o]);
  }
  let types = await discover(cp.admin);
  await serviceRanges(cp, objs);
  const errors = [];
  for (const r of [...byRank.keys()].sort((a, b) => a - b)) {
    const batch = byRank.get(r);
    const queue = [...batch];
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (queue.length) {
          const o = queue.shift();
          // an APIService backed by a Service would be probed by the aggregator at its (non-loopback) pod
          // addresses: only those whose Service has no ready address (nothing to dial) are loaded
          if (o.kind === 'APIService' && o.spec?.service && !noBackend(objs, o.spec.service)) continue;
          const t = types.get(`${groupOf(o.apiVersion)}|${o.kind}`);
          if (!t) {
            errors.push(`${o.kind} ${o.metadata.name}: type not served`);
            continue;
          }
          const fixtureUid = o.metadata.uid;
          const body = JSON.parse(JSON.stringify(o));
          delete body.metadata.uid;
          delete body.metadata.resourceVersion;
          delete body.metadata.creationTimestamp;
          for (const ref of body.metadata.ownerReferences ?? []) ref.uid = uidMap.get(ref.uid) ?? ref.uid;
          if (body.involvedObject?.uid) body.involvedObject.uid = uidMap.get(body.involvedObject.uid) ?? body.involvedObject.uid;
          const base = `${t.path}${t.namespaced ? `/namespaces/${o.metadata.namespace}` : ''}/${t.resource}`;
          let res = await cp.admin('POST', base, body);
          // namespaces and the API server's own APIServices exist already
          if (res.status === 409 && (o.kind === 'Namespace' || o.kind === 'APIService')) continue;
          if (res.status >= 300) {
            errors.push(`${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}: ${res.status} ${res.json?.message ?? res.text}`);
            continue;
          }
          if (fixtureUid) uidMap.set(fixtureUid, res.json.metadata.uid);
          if (o.status && STATUS_KINDS.has(o.kind)) {
            res = await cp.admin('PUT', `${base}/${o.metadata.name}/status`, { ...res.json, status: body.status });
            if (res.status >= 300) errors.push(`${o.kind} ${o.metadata.name} status: ${res.status} ${res.json?.message ?? ''}`);
          }
          if (o.kind === 'CustomResourceDefinition') {
            for (let i = 0; i < 100; i++) {
              const c = await cp.admin('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${o.metadata.name}`);
              if ((c.json?.status?.conditions ?? []).some((x) => x.type === 'Established' && x.status === 'True')) break;
              await new Promise((r2) => setTimeout(r2, 100));
            }
          }
        }
      }),
    );
    if (batch[0].kind === 'CustomResourceDefinition') {
      // wait until discovery serves every new type
      const want = batch.map((c) => `${c.spec.group}|${c.spec.names.kind}`);
      for (let i = 0; i < 100; i++) {
        types = await discover(cp.admin);
        if (want.every((w) => types.has(w))) break;
        await new Promise((r2) => setTimeout(r2, 100));
      }
    }
  }
  if (errors.length) throw new Error(`loading ${srcDir}:\n${errors.slice(0, 20).join('\n')}`);
  // the aggregator judges each Service-backed APIService on its own (within a second): wait for its verdict
  for (const o of objs.filter((x) => x.kind === 'APIService' && x.spec?.service)) {
    for (let i = 0; i < 100; i++) {
      const a = await cp.admin('GET', `/apis/apiregistration.k8s.io/v1/apiservices/${o.metadata.name}`);
      if (a.status !== 200 || (a.json?.status?.conditions ?? []).some((c) => c.type === 'Available')) break;
      await new Promise((r2) => setTimeout(r2, 100));
    }
  }
  return objs.length;
}
