// A synthetic API server for benchmarks (plain HTTP on 127.0.0.1, bearer token): discovery, paginated
// lists, metadata-only lists. Objects are generated up front: N objects across M namespaces, some
// tracked by Argo CD Applications that no longer exist. Not used by tests (they use a TLS test server).
import http from 'node:http';

const T = (group, version, resource, kind, namespaced) => ({ group, version, resource, kind, namespaced });
export const TYPES = [
  T('', 'v1', 'namespaces', 'Namespace', false),
  T('', 'v1', 'nodes', 'Node', false),
  T('', 'v1', 'pods', 'Pod', true),
  T('', 'v1', 'services', 'Service', true),
  T('', 'v1', 'endpoints', 'Endpoints', true),
  T('', 'v1', 'configmaps', 'ConfigMap', true),
  T('', 'v1', 'events', 'Event', true),
  T('', 'v1', 'persistentvolumes', 'PersistentVolume', false),
  T('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true),
  T('', 'v1', 'serviceaccounts', 'ServiceAccount', true),
  T('apps', 'v1', 'deployments', 'Deployment', true),
  T('apps', 'v1', 'replicasets', 'ReplicaSet', true),
  T('apps', 'v1', 'daemonsets', 'DaemonSet', true),
  T('apps', 'v1', 'statefulsets', 'StatefulSet', true),
  T('networking.k8s.io', 'v1', 'ingresses', 'Ingress', true),
  T('coordination.k8s.io', 'v1', 'leases', 'Lease', true),
  T('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false),
  T('argoproj.io', 'v1alpha1', 'applications', 'Application', true),
];

/** Build `total` objects over `namespaces` namespaces. Mix per namespace: pods 40%, configmaps 20%,
 *  services 10%, endpoints 10%, replicasets 8%, deployments 8%, events 4%. */
export function generate(total, namespaces) {
  const byType = new Map(TYPES.map((t) => [`${t.group}/${t.resource}`, []]));
  let uid = 0;
  const put = (t, o) => byType.get(t).push(o);
  const meta = (name, ns, extra = {}) => ({
    name,
    ...(ns ? { namespace: ns } : {}),
    uid: `b-${++uid}`,
    resourceVersion: String(uid),
    creationTimestamp: '2026-01-01T00:00:00Z',
    ...extra,
  });
  for (let n = 0; n < 6; n++)
    put('/nodes', {
      metadata: meta(`node-${n}`, undefined, { labels: { 'node-role.kubernetes.io/control-plane': n < 3 ? 'true' : undefined } }),
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        nodeInfo: { kubeletVersion: 'v1.35.4', containerRuntimeVersion: 'containerd://2.2.3' },
      },
    });
  const perNs = Math.max(1, Math.floor((total - namespaces) / namespaces));
  const apps = [];
  for (let i = 0; i < namespaces; i++) {
    const ns = `ns-${String(i).padStart(3, '0')}`;
    put('/namespaces', { metadata: meta(ns) });
    const app = `app-${i}`;
    const live = i % 10 !== 0; // every tenth app was deleted without its finalizer
    if (live)
      apps.push({
        metadata: meta(app, 'argocd', { finalizers: ['resources-finalizer.argocd.argoproj.io'] }),
        spec: { destination: { namespace: ns } },
      });
    const track = (group, kind, name) => ({
      labels: { 'app.kubernetes.io/instance': app },
      annotations: { 'argocd.argoproj.io/tracking-id': `${app}:${group}/${kind}:${ns}/${name}` },
    });
    const counts = { pods: 0.4, configmaps: 0.2, services: 0.1, endpoints: 0.1, replicasets: 0.08, deployments: 0.08, events: 0.04 };
    const k = Object.fromEntries(Object.entries(counts).map(([r, f]) => [r, Math.max(1, Math.round(perNs * f))]));
    for (let d = 0; d < k.deployments; d++) {
      const name = `web-${d}`;
      const dep = {
        metadata: meta(name, ns, { ...track('apps', 'Deployment', name) }),
        spec: { replicas: 2, selector: { matchLabels: { app: name } } },
        status: { readyReplicas: 2 },
      };
      put('apps/deployments', dep);
      if (d < k.replicasets)
        put('apps/replicasets', {
          metadata: meta(`${name}-abc`, ns, {
            ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: dep.metadata.uid, controller: true }],
          }),
          spec: { replicas: 2 },
        });
    }
    const rs = byType.get('apps/replicasets').filter((r) => r.metadata.namespace === ns);
    for (let p = 0; p < k.pods; p++) {
      const owner = rs[p % Math.max(1, rs.length)];
      put('/pods', {
        metadata: meta(`pod-${p}`, ns, {
          labels: { app: `web-${p % k.deployments}` },
          ownerReferences: owner
            ? [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner.metadata.name, uid: owner.metadata.uid, controller: true }]
            : undefined,
        }),
        spec: {
          nodeName: `node-${p % 6}`,
          containers: [{ name: 'app', image: 'registry.example/app:1.0', resources: { requests: { cpu: '10m' } } }],
        },
        status: { phase: 'Running', podIP: `10.42.${i % 250}.${p % 250}`, conditions: [{ type: 'Ready', status: 'True' }] },
      });
    }
    for (let s = 0; s < k.services; s++) {
      put('/services', {
        metadata: meta(`svc-${s}`, ns, track('', 'Service', `svc-${s}`)),
        spec: { clusterIP: `10.43.${i % 250}.${s % 250}`, selector: { app: `web-${s % k.deployments}` }, ports: [{ port: 80 }] },
      });
      put('/endpoints', {
        metadata: meta(`svc-${s}`, ns),
        subsets: [{ addresses: [{ ip: `10.42.${i % 250}.${s % 250}` }], ports: [{ port: 80 }] }],
      });
    }
    for (let c = 0; c < k.configmaps; c++)
      put('/configmaps', { metadata: meta(`cm-${c}`, ns, track('', 'ConfigMap', `cm-${c}`)), data: { key: 'x'.repeat(200) } });
    for (let e = 0; e < k.events; e++)
      put('/events', {
        metadata: meta(`ev-${e}`, ns),
        involvedObject: { kind: 'Pod', name: `pod-${e}`, namespace: ns },
        reason: 'Pulled',
        type: 'Normal',
        message: 'Container image already present on machine',
        count: 1,
        firstTimestamp: '2026-01-01T00:00:00Z',
        lastTimestamp: '2026-01-01T00:00:00Z',
      });
  }
  for (const a of apps) put('argoproj.io/applications', a);
  put('/configmaps', {
    metadata: meta('argocd-cm', 'argocd', { labels: { 'app.kubernetes.io/part-of': 'argocd' } }),
    data: { 'application.resourceTrackingMethod': 'annotation+label' },
  });
  let count = 0;
  for (const l of byType.values()) count += l.length;
  return { byType, count };
}

/** A kubeconfig for the fake cluster: its URL and bearer token, one context. */
export const kubeconfigFor = ({ url, token }) =>
  `apiVersion: v1\nkind: Config\ncurrent-context: b\nclusters:\n- name: b\n  cluster: {server: "${url}"}\nusers:\n- name: b\n  user: {token: ${token}}\ncontexts:\n- name: b\n  context: {cluster: b, user: b}\n`;

export function startFakeCluster({ byType }, { token = 'bench-token' } = {}) {
  const stats = { requests: 0, paths: [] };
  const filtered = new Map();
  const server = http.createServer((req, res) => {
    stats.requests++;
    const url = new URL(req.url, 'http://x');
    const send = (code, body) => {
      const t = JSON.stringify(body);
      res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(t) });
      res.end(t);
    };
    if (req.method !== 'GET') return send(405, { kind: 'Status', code: 405 });
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { kind: 'Status', code: 401, message: 'Unauthorized' });
    const p = url.pathname;
    if (p === '/version') return send(200, { major: '1', minor: '35', gitVersion: 'v1.35.4' });
    if (p === '/readyz') {
      res.writeHead(200);
      return res.end('[+]ping ok\n[+]etcd ok\nreadyz check passed\n');
    }
    if (p === '/api') return send(200, { kind: 'APIVersions', versions: ['v1'] });
    if (p === '/apis') {
      const gs = [...new Set(TYPES.filter((t) => t.group).map((t) => `${t.group}/${t.version}`))];
      return send(200, {
        kind: 'APIGroupList',
        groups: gs.map((gv) => {
          const [name, version] = gv.split('/');
          return { name, versions: [{ groupVersion: gv, version }], preferredVersion: { groupVersion: gv, version } };
        }),
      });
    }
    const d = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(p);
    if (d) {
      const group = d[2] ?? '';
      return send(200, {
        kind: 'APIResourceList',
        resources: TYPES.filter((t) => t.group === group).map((t) => ({
          name: t.resource,
          kind: t.kind,
          namespaced: t.namespaced,
          verbs: ['get', 'list', 'watch'],
        })),
      });
    }
    const m = /^\/(?:api\/v1|apis\/([^/]+)\/[^/]+)(?:\/namespaces\/([^/]+))?\/([^/]+)$/.exec(p);
    if (!m) return send(404, { kind: 'Status', code: 404 });
    const list = byType.get(`${m[1] ?? ''}/${m[3]}`);
    if (!list) return send(404, { kind: 'Status', code: 404 });
    const fs = url.searchParams.get('fieldSelector');
    const cacheKey = `${p}?${fs ?? ''}`;
    let items = filtered.get(cacheKey);
    if (!items) {
      items = m[2] ? list.filter((o) => o.metadata.namespace === m[2]) : list;
      if (fs) {
        // equality and inequality on dotted paths, like the API server's field selectors
        const get = (o, path) => String(path.split('.').reduce((v, k) => (v == null ? undefined : v[k]), o) ?? '');
        const terms = fs.split(',').map((t) => /^([^!=]+)(!?=)(.*)$/.exec(t));
        items = items.filter((o) => terms.every(([, path, op, v]) => (op === '=' ? get(o, path) === v : get(o, path) !== v)));
      }
      // filter once per list, not once per page (a real API server serves pages from its watch cache)
      filtered.set(cacheKey, items);
    }
    const limit = Number(url.searchParams.get('limit') ?? 0) || items.length;
    const start = Number(url.searchParams.get('continue') ?? 0);
    const page = items.slice(start, start + limit);
    const next = start + limit < items.length ? String(start + limit) : undefined;
    const metaOnly = String(req.headers.accept ?? '').includes('PartialObjectMetadataList');
    send(200, {
      kind: metaOnly ? 'PartialObjectMetadataList' : 'List',
      metadata: { resourceVersion: '1', ...(next ? { continue: next } : {}) },
      items: metaOnly ? page.map((o) => ({ metadata: o.metadata })) : page,
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, stats, url: `http://127.0.0.1:${server.address().port}`, token })),
  );
}
