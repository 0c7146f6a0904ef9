// Load a scenario (plain Kubernetes YAML) into the real API server as the admin, the way the objects
// would look in a live cluster: create, then write status through the /status subresource where the
// server resets it on create. Timestamps are shifted so the scenario's "now" is the real now; the
// shifted YAML is also written out, so the same files can be analysed offline with --snapshot.
//
// With kube-controller-manager running (startControlPlane({ controllerManager })), what its controllers
// write is theirs: see controllerOwned, settleEndpoints and assertNotCollected below.
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

const key = (ns, name) => `${ns ?? ''}/${name}`;
const SERVICE_NAME = 'kubernetes.io/service-name';
const MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';

/**
 * The scenario's objects that a running controller writes itself, so the loader must not: the endpoints
 * controller owns the Endpoints of every Service with a selector (created under the Service's name: a POST
 * of ours would race it and fail with 409, or be overwritten), the EndpointSlice controller owns the slices
 * labelled as its own (it names them itself, `<service>-<random>`, and rewrites or deletes any slice carrying
 * its label), the mirroring controller the slices it mirrors from selector-less Endpoints. The builder's
 * copies stay in the shifted YAML written for --snapshot: they are what the controllers should write, and
 * settleEndpoints holds the controllers' objects to them.
 */
function controllerOwned(objs, controllers) {
  const selected = new Set(
    objs.filter((o) => o.kind === 'Service' && o.spec?.selector).map((o) => key(o.metadata.namespace, o.metadata.name)),
  );
  const endpoints = controllers.includes('endpoints-controller');
  const slices = controllers.includes('endpointslice-controller');
  const mirror = controllers.includes('endpointslice-mirroring-controller');
  return (o) => {
    if (o.kind === 'Endpoints' && o.apiVersion === 'v1') return endpoints && selected.has(key(o.metadata.namespace, o.metadata.name));
    if (o.kind !== 'EndpointSlice' || o.apiVersion !== 'discovery.k8s.io/v1') return false;
    const by = o.metadata.labels?.[MANAGED_BY];
    const svc = key(o.metadata.namespace, o.metadata.labels?.[SERVICE_NAME]);
    return (
      (slices && by === 'endpointslice-controller.k8s.io' && selected.has(svc)) ||
      (mirror && by === 'endpointslicemirroring-controller.k8s.io')
    );
  };
}

const addrName = (a) => a?.targetRef?.name ?? a?.ip ?? a?.addresses?.[0] ?? '?';
/** What the check reads from Endpoints: ready and not-ready addresses. */
const endpointsFacts = (e) =>
  JSON.stringify({
    ready: (e.subsets ?? []).flatMap((s) => (s.addresses ?? []).map(addrName)).sort(),
    notReady: (e.subsets ?? []).flatMap((s) => (s.notReadyAddresses ?? []).map(addrName)).sort(),
  });
/** What the check reads from a Service's EndpointSlices: each endpoint and whether it is ready. */
const slicesFacts = (slices) =>
  JSON.stringify(
    slices
      .flatMap((s) => s.endpoints ?? [])
      .map((e) => `${addrName(e)} ${e.conditions?.ready === false ? 'not ready' : 'ready'}`)
      .sort(),
  );

/**
 * Waits until the controllers' Endpoints and EndpointSlices say what the scenario's say (the same ready and
 * not-ready pods per Service): the plugin must not run while they are still catching up with the pods just
 * loaded, and a scenario whose hand-written endpoints no real controller would write fails here, loudly,
 * instead of giving a verdict on a cluster that cannot exist. Bounded generously (a busy 2-core machine).
 */
async function settleEndpoints(cp, skipped, boundMs) {
  const wantEp = new Map();
  const wantSlices = new Map();
  for (const o of skipped) {
    if (o.kind === 'Endpoints') wantEp.set(key(o.metadata.namespace, o.metadata.name), endpointsFacts(o));
    else {
      const k = key(o.metadata.namespace, o.metadata.labels?.[SERVICE_NAME]);
      wantSlices.set(k, [...(wantSlices.get(k) ?? []), o]);
    }
  }
  for (const [k, v] of wantSlices) wantSlices.set(k, slicesFacts(v));
  const until = Date.now() + boundMs;
  let diff = [];
  for (;;) {
    cp.assertControllerManager?.();
    diff = [];
    if (wantEp.size) {
      const live = new Map(
        ((await cp.admin('GET', '/api/v1/endpoints')).json?.items ?? []).map((e) => [key(e.metadata.namespace, e.metadata.name), e]),
      );
      for (const [k, want] of wantEp) {
        const got = live.has(k) ? endpointsFacts(live.get(k)) : 'none';
        if (got !== want) diff.push(`Endpoints ${k}: controller ${got}, scenario ${want}`);
      }
    }
    if (wantSlices.size) {
      const bySvc = new Map();
      for (const s of (await cp.admin('GET', '/apis/discovery.k8s.io/v1/endpointslices')).json?.items ?? []) {
        const k = key(s.metadata.namespace, s.metadata.labels?.[SERVICE_NAME]);
        bySvc.set(k, [...(bySvc.get(k) ?? []), s]);
      }
      for (const [k, want] of wantSlices) {
        const got = bySvc.has(k) ? slicesFacts(bySvc.get(k)) : 'none';
        if (got !== want) diff.push(`EndpointSlices of Service ${k}: controller ${got}, scenario ${want}`);
      }
    }
    if (!diff.length) return;
    if (Date.now() > until) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `after ${boundMs / 1000} s the endpoint controllers still disagree with the scenario (a scenario must hold what they would write):\n${diff.slice(0, 10).join('\n')}`,
  );
}

/**
 * With the garbage collector running: an object whose ownerReference names an owner that is not in the
 * cluster (not in the scenario, or a uid we could not map) is collected, as in a real cluster, which would
 * silently change a scenario's verdict. After a GC barrier, every loaded object must still be there.
 */
async function assertNotCollected(cp, loaded) {
  await cp.gcBarrier();
  const byType = new Map();
  for (const l of loaded) byType.set(l.list, [...(byType.get(l.list) ?? []), l]);
  const gone = [];
  for (const [list, items] of byType) {
    const live = new Set(((await cp.admin('GET', list)).json?.items ?? []).map((o) => key(o.metadata.namespace, o.metadata.name)));
    for (const l of items)
      if (!live.has(key(l.namespace, l.name)))
        gone.push(`${l.kind} ${key(l.namespace, l.name)}${l.owners ? ` (owners: ${l.owners})` : ''}`);
  }
  if (gone.length)
    throw new Error(
      `the garbage collector deleted ${gone.length} loaded object(s) (an ownerReference to an owner not in the cluster?):\n${gone.slice(0, 10).join('\n')}`,
    );
}

/**
 * Load order: by kind (CRDs and namespaces first, owners' kinds before their dependents'), then owners before
 * dependents whatever their kinds, so every ownerReference can be rewritten to the owner's real uid before the
 * dependent is created (with the garbage collector running, a dependent pointing at a uid that does not exist
 * is collected).
 */
function loadRanks(objs) {
  const ranks = objs.map((o) => rank(o.kind));
  const at = new Map(objs.map((o, i) => [o.metadata.uid, i]).filter(([u]) => u));
  for (let changed = true, n = 0; changed && n < objs.length; n++) {
    changed = false;
    objs.forEach((o, i) => {
      for (const ref of o.metadata.ownerReferences ?? []) {
        const j = at.get(ref.uid);
        if (j !== undefined && j !== i && ranks[j] >= ranks[i]) {
          ranks[i] = ranks[j] + 1;
          changed = true;
        }
      }
    });
  }
  return ranks;
}

/** Load objects (a list, or a directory of YAML files); returns how many (fixture uids mapped to the server's). */
export async function loadScenario(cp, src, { outDir, referenceTime, now = Date.now(), concurrency = 16, settleMs = 120_000 } = {}) {
  const delta = referenceTime ? now - referenceTime : 0;
  const srcDir = Array.isArray(src) ? 'scenario' : src;
  const objs = (Array.isArray(src) ? src : readScenario(src)).map((o) => shiftTimes(o, delta));
  if (outDir) {
    mkdirSync(outDir, { recursive: true });
    // in the order the API server lists them (its storage key, namespace/name), as a snapshot taken from the live
    // cluster would hold them: a check that shows "the first few" of something then shows the same ones both ways
    const storageKey = (o) => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name);
    const listed = [...objs].sort((a, b) => (storageKey(a) < storageKey(b) ? -1 : storageKey(a) > storageKey(b) ? 1 : 0));
    writeFileSync(join(outDir, 'scenario.yaml'), listed.map((o) => dump(o, { lineWidth: -1, noRefs: true })).join('---\n'));
  }
  const controllers = cp.controllers ?? [];
  const owned = controllerOwned(objs, controllers);
  const skipped = objs.filter(owned);
  const toLoad = objs.filter((o) => !owned(o));
  const uidMap = new Map();
  const byRank = new Map();
  const ranks = loadRanks(toLoad);
  toLoad.forEach((o, i) => byRank.set(ranks[i], [...(byRank.get(ranks[i]) ?? []), o]));
  let types = await discover(cp.admin);
  await serviceRanges(cp, objs);
  const errors = [];
  const loaded = [];
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
          // a local APIService (no Service) is the API server's own: its autoregister controller creates one per
          // built-in group and per CRD group, and deletes any it did not create for a group it does not serve
          if (o.kind === 'APIService' && !o.spec?.service) continue;
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
          const entry = {
            kind: o.kind,
            namespace: t.namespaced ? o.metadata.namespace : undefined,
            name: o.metadata.name,
            list: `${t.path}/${t.resource}`,
            owners: (o.metadata.ownerReferences ?? []).map((x) => `${x.kind} ${x.name}`).join(', '),
          };
          let res = await cp.admin('POST', base, body);
          // namespaces and the API server's own APIServices exist already
          if (res.status === 409 && (o.kind === 'Namespace' || o.kind === 'APIService')) {
            loaded.push(entry);
            continue;
          }
          if (res.status >= 300) {
            errors.push(`${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}: ${res.status} ${res.json?.message ?? res.text}`);
            continue;
          }
          loaded.push(entry);
          if (fixtureUid) uidMap.set(fixtureUid, res.json.metadata.uid);
          if (o.status && STATUS_KINDS.has(o.kind)) {
            // a running controller (the node lifecycle controller taints a new Node at once) may write the
            // object between our create and this write: read it again and retry on a conflict
            let current = res.json;
            for (let i = 0; i < 20; i++) {
              res = await cp.admin('PUT', `${base}/${o.metadata.name}/status`, { ...current, status: body.status });
              if (res.status !== 409) break;
              current = (await cp.admin('GET', `${base}/${o.metadata.name}`)).json;
              await new Promise((r2) => setTimeout(r2, 50 * (i + 1)));
            }
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
    const crds = batch.filter((c) => c.kind === 'CustomResourceDefinition');
    if (crds.length) {
      // wait until discovery serves every new type
      const want = crds.map((c) => `${c.spec.group}|${c.spec.names.kind}`);
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
  if (skipped.length) await settleEndpoints(cp, skipped, settleMs);
  if (controllers.includes('garbage-collector-controller')) await assertNotCollected(cp, loaded);
  return objs.length;
}
