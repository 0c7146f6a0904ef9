// A small HTTPS server that speaks enough of the Kubernetes API for the client, the CLI and the real
// kubectl: discovery, lists with pagination and label selectors, metadata-only lists, bearer tokens.
// Faults are injectable so each failure mode has a test of what the user sees.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeCerts, type TestCerts } from './certs.js';
import type { KObject, ResourceType } from '../../src/model.js';

export interface Faults {
  /** Every request answers 401. */
  unauthorized?: boolean;
  /** Resource plurals (e.g. "secrets", "applications") answering 403. */
  forbidden?: Set<string>;
  /** Answer 410 Gone to the first N continue-token requests. */
  goneOnContinue?: number;
  /** Answer 429 with Retry-After to the first N requests for this plural. */
  tooMany?: { resource: string; times: number; retryAfter: number };
  /** Delay responses for this plural. */
  slow?: { resource: string; ms: number };
  /** Send half of the body for this plural, with a matching Content-Length (malformed JSON). */
  truncated?: string;
  /** clusterDNS per node served at nodes/<n>/proxy/configz (default 169.254.20.10). */
  kubeletDNS?: Record<string, string[]>;
  /** Answer 500 to the first N requests for this plural. */
  serverError?: { resource: string; times: number };
  /** Always answer this plural with the same continue token (a server that pages forever). */
  repeatContinue?: string;
  /** /readyz?verbose body (answered with 500 when a line starts with [-]). */
  readyz?: string;
  /** Extra API groups advertised by /apis, each serving one listable type. */
  bogusGroups?: number;
  /** Quorum reads (lists and GETs without resourceVersion=0) never answer, as when etcd is down. */
  quorumHang?: boolean;
  /** Names whose single-object GET answers 403 (e.g. argocd-cm). */
  forbiddenGet?: Set<string>;
  /** Lists of this plural answer `count` objects (default 1), each with an annotation of this many bytes, in pages
   *  (with `asMessage`, Warning events whose message is that long: a field a snapshot keeps; pages made as asked);
   *  with `together`, the answers wait until that many lists were asked, then go out at once (clients overlap). */
  giant?: { resource: string; bytes: number; count?: number; together?: number; asMessage?: boolean };
}

export interface RequestRecord {
  method: string;
  path: string;
  accept: string;
  status: number;
  auth?: string;
  /** A request left hanging (quorumHang) whose connection the client closed. */
  closed?: boolean;
}

export interface TestApiServer {
  url: string;
  certs: TestCerts;
  token: string;
  faults: Faults;
  requests: RequestRecord[];
  kubeconfigPath: string;
  close(): Promise<void>;
  setObjects(types: ResourceType[], objects: KObject[]): void;
}

const groupOf = (apiVersion?: string): string => (apiVersion && apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');

export async function startTestApiServer(opts: { types: ResourceType[]; objects: KObject[]; pageSize?: number }): Promise<TestApiServer> {
  const certs = makeCerts();
  const token = 'test-token-0123456789';
  const faults: Faults = {};
  const requests: RequestRecord[] = [];
  let types = opts.types;
  let objects = opts.objects;
  const counters = new Map<string, number>();
  const bump = (k: string): number => {
    const n = (counters.get(k) ?? 0) + 1;
    counters.set(k, n);
    return n;
  };

  const pending = new Set<ReturnType<typeof setTimeout>>();
  const giantBodies = new Map<string, Buffer>();
  const giantWaiting: Array<() => void> = [];
  const server = https.createServer({ cert: certs.cert, key: certs.key }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const accept = String(req.headers.accept ?? '');
    const rec: RequestRecord = {
      method: req.method ?? '',
      path: url.pathname + url.search,
      accept,
      status: 0,
      auth: req.headers.authorization,
    };
    requests.push(rec);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      rec.status = status;
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      res.writeHead(status, { 'Content-Type': typeof body === 'string' ? 'text/plain' : 'application/json', ...headers });
      res.end(text);
    };
    const status = (code: number, reason: string, message: string): void =>
      send(code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });

    if (req.method !== 'GET') return status(405, 'MethodNotAllowed', 'test server is read-only');
    if (faults.unauthorized || req.headers.authorization !== `Bearer ${token}`) return status(401, 'Unauthorized', 'Unauthorized');
    const p = url.pathname;
    if (p === '/version') return send(200, { major: '1', minor: '35', gitVersion: 'v1.35.4+k3s1', platform: 'linux/amd64' });
    if (p === '/readyz') {
      const body = faults.readyz ?? '[+]ping ok\n[+]etcd ok\nreadyz check passed\n';
      return send(/^\[-\]/m.test(body) ? 500 : 200, body);
    }
    if (p === '/api')
      return send(200, {
        kind: 'APIVersions',
        versions: ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }],
      });
    if (p === '/apis') {
      const bogus = Array.from({ length: faults.bogusGroups ?? 0 }, (_, i) => `bogus${i}.example.com/v1`);
      const groups = [...new Set([...types.filter((t) => t.group).map((t) => `${t.group}/${t.version}`), ...bogus])].map((gv) => {
        const [group, version] = gv.split('/') as [string, string];
        return { name: group, versions: [{ groupVersion: gv, version }], preferredVersion: { groupVersion: gv, version } };
      });
      return send(200, { kind: 'APIGroupList', apiVersion: 'v1', groups });
    }
    const disc = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(p);
    if (disc) {
      const group = disc[2] ?? '';
      const version = disc[1] ?? disc[3]!;
      if (group.startsWith('bogus') && faults.bogusGroups) {
        return send(200, {
          kind: 'APIResourceList',
          apiVersion: 'v1',
          groupVersion: `${group}/${version}`,
          resources: [{ name: 'widgets', namespaced: true, kind: 'Widget', verbs: ['list'] }],
        });
      }
      const res = types.filter((t) => t.group === group && t.version === version);
      if (res.length === 0) return status(404, 'NotFound', 'the server could not find the requested resource');
      return send(200, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: group ? `${group}/${version}` : version,
        resources: res.map((t) => ({
          name: t.resource,
          singularName: t.kind.toLowerCase(),
          namespaced: t.namespaced,
          kind: t.kind,
          verbs: ['get', 'list', 'watch'],
        })),
      });
    }
    if (
      faults.quorumHang &&
      /^\/(api\/v1|apis\/[^/]+\/[^/]+)\/[^/]+/.test(p) &&
      url.searchParams.get('resourceVersion') !== '0' &&
      !url.searchParams.get('continue')
    ) {
      rec.status = -1;
      res.on('close', () => {
        rec.closed = true;
      });
      return; // hang: the client's timeout or abort ends it
    }
    const configz = /^\/api\/v1\/nodes\/([^/]+)\/proxy\/configz$/.exec(p);
    if (configz) {
      if (faults.forbidden?.has('nodes/proxy'))
        return status(403, 'Forbidden', `nodes "${configz[1]}" is forbidden: User "reader" cannot get resource "nodes/proxy"`);
      const dns = faults.kubeletDNS?.[configz[1]!] ?? ['169.254.20.10'];
      return send(200, { kubeletconfig: { clusterDNS: dns, clusterDomain: 'cluster.local' } });
    }
    const one = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))(?:\/namespaces\/([^/]+))?\/([^/]+)\/([^/]+)$/.exec(p);
    if (one && one[5] !== 'namespaces') {
      const t = types.find((x) => x.group === (one[2] ?? '') && x.version === (one[1] ?? one[3]) && x.resource === one[5]);
      const o =
        t &&
        objects.find(
          (x) =>
            groupOf(x.apiVersion) === t.group &&
            x.kind === t.kind &&
            x.metadata.name === one[6] &&
            (x.metadata.namespace ?? undefined) === one[4],
        );
      if (!o) return status(404, 'NotFound', `${one[5]} "${one[6]}" not found`);
      if (faults.forbidden?.has(one[5]!) || faults.forbiddenGet?.has(one[6]!))
        return status(403, 'Forbidden', `${one[5]} "${one[6]}" is forbidden`);
      return send(200, o);
    }
    const m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))(?:\/namespaces\/([^/]+))?\/([^/]+)$/.exec(p);
    if (!m) return status(404, 'NotFound', 'the server could not find the requested resource');
    const group = m[2] ?? '';
    const version = m[1] ?? m[3]!;
    const ns = m[4];
    const plural = m[5]!;
    if (group.startsWith('bogus') && faults.bogusGroups)
      return send(200, { kind: 'WidgetList', apiVersion: `${group}/${version}`, metadata: {}, items: [] });
    const type = types.find((t) => t.group === group && t.version === version && t.resource === plural);
    if (!type) return status(404, 'NotFound', 'the server could not find the requested resource');
    if (faults.forbidden?.has(plural)) {
      return status(
        403,
        'Forbidden',
        `${plural}${group ? '.' + group : ''} is forbidden: User "reader" cannot list resource "${plural}" in API group "${group}" at the cluster scope`,
      );
    }
    if (faults.tooMany?.resource === plural && bump(`429:${plural}`) <= faults.tooMany.times) {
      rec.status = 429;
      res.writeHead(429, { 'Retry-After': String(faults.tooMany.retryAfter), 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'TooManyRequests', code: 429, message: 'too many requests' }));
      return;
    }
    if (faults.giant?.resource === plural) {
      // bodies built once per page asked (and kept): a Buffer sent to many sockets costs no copy per answer
      const { bytes, count = 1 } = faults.giant;
      const start = Number(url.searchParams.get('continue') ?? '0');
      const limit = Number(url.searchParams.get('limit') ?? '0') || count;
      const key = `${bytes}/${count}/${start}/${limit}`;
      let body = giantBodies.get(key);
      if (!body) {
        const asMessage = faults.giant.asMessage;
        const items = Array.from({ length: Math.max(0, Math.min(limit, count - start)) }, (_, i) => ({
          metadata: {
            name: `giant-${start + i}`,
            namespace: 'default',
            uid: `giant-${start + i}`,
            ...(asMessage ? {} : { annotations: { giant: 'x'.repeat(bytes) } }),
          },
          ...(asMessage
            ? {
                type: 'Warning',
                reason: 'BackOff',
                message: `${start + i} `.padEnd(bytes, 'x'),
                involvedObject: { kind: 'Pod', name: `giant-${start + i}`, namespace: 'default' },
              }
            : {}),
        }));
        const next = start + limit < count ? { continue: String(start + limit) } : {};
        const list = {
          kind: `${type.kind}List`,
          apiVersion: group ? `${group}/${version}` : version,
          metadata: { resourceVersion: '1', ...next },
          items,
        };
        body = Buffer.from(JSON.stringify(list));
        // many pages of events are made as asked, not kept: the server would hold what the client may not
        if (!asMessage) giantBodies.set(key, body);
      }
      const answer = (b: Buffer) => () => {
        rec.status = 200;
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': b.length });
        res.end(b);
      };
      const together = faults.giant.together ?? 0;
      giantWaiting.push(answer(body));
      if (giantWaiting.length >= together) for (const a of giantWaiting.splice(0)) a();
      return;
    }
    if (faults.serverError?.resource === plural && bump(`500:${plural}`) <= faults.serverError.times)
      return status(500, 'InternalError', 'etcdserver: request timed out');
    const cont = url.searchParams.get('continue');
    if (cont && faults.goneOnContinue && bump('410') <= faults.goneOnContinue) {
      return status(
        410,
        'Expired',
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
      );
    }
    const selector = url.searchParams.get('labelSelector');
    let items = objects.filter((o) => groupOf(o.apiVersion) === group && o.kind === type.kind && (!ns || o.metadata.namespace === ns));
    if (selector) {
      const reqs = selector.split(',').map((s) => s.split('=') as [string, string]);
      items = items.filter((o) => reqs.every(([k, v]) => o.metadata.labels?.[k] === v));
    }
    const fieldSel = url.searchParams.get('fieldSelector');
    if (fieldSel) {
      const get = (o: unknown, path: string): string =>
        String(path.split('.').reduce((v: any, k) => (v == null ? undefined : v[k]), o) ?? '');
      const terms = fieldSel.split(',').map((t) => /^([^!=]+)(!?=)(.*)$/.exec(t)!);
      items = items.filter((o) => terms.every(([, path, op, v]) => (op === '=' ? get(o, path!) === v : get(o, path!) !== v)));
    }
    const limit = Number(url.searchParams.get('limit') ?? '0') || opts.pageSize || 0;
    const start = cont ? Number(Buffer.from(cont, 'base64').toString()) : 0;
    const page = limit ? items.slice(start, start + limit) : items.slice(start);
    const next =
      faults.repeatContinue === plural
        ? Buffer.from('0').toString('base64')
        : limit && start + limit < items.length
          ? Buffer.from(String(start + limit)).toString('base64')
          : undefined;
    const metaOnly = accept.includes('as=PartialObjectMetadataList');
    const body = metaOnly
      ? {
          kind: 'PartialObjectMetadataList',
          apiVersion: 'meta.k8s.io/v1',
          metadata: { resourceVersion: '100', ...(next ? { continue: next } : {}) },
          items: page.map((o) => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata })),
        }
      : {
          kind: `${type.kind}List`,
          apiVersion: group ? `${group}/${version}` : version,
          metadata: { resourceVersion: '100', ...(next ? { continue: next } : {}) },
          items: page.map(({ apiVersion: _a, kind: _k, ...rest }) => rest),
        };
    const reply = (): void => {
      if (faults.truncated === plural) {
        const text = JSON.stringify(body);
        const half = text.slice(0, Math.floor(text.length / 2));
        rec.status = 200;
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(half) });
        res.end(half);
        return;
      }
      send(200, body);
    };
    if (faults.slow?.resource === plural) {
      // a slow answer is a timer in this (the test's) process: cleared on close, or it keeps jest alive for its ms
      const t = setTimeout(() => {
        pending.delete(t);
        if (!res.destroyed) reply();
      }, faults.slow.ms);
      pending.add(t);
    } else reply();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const url = `https://127.0.0.1:${port}`;
  const kubeconfigPath = join(certs.dir, 'kubeconfig');
  writeFileSync(
    kubeconfigPath,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: test',
      'clusters:',
      `- name: test`,
      '  cluster:',
      `    server: ${url}`,
      `    certificate-authority: ${certs.caFile}`,
      'users:',
      '- name: test',
      '  user:',
      `    token: ${token}`,
      '- name: wrong',
      '  user:',
      '    token: not-the-token',
      'contexts:',
      '- name: test',
      '  context:',
      '    cluster: test',
      '    user: test',
      '- name: wrong-user',
      '  context:',
      '    cluster: test',
      '    user: wrong',
      '',
    ].join('\n'),
  );
  return {
    url,
    certs,
    token,
    faults,
    requests,
    kubeconfigPath,
    setObjects(t, o) {
      types = t;
      objects = o;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const t of pending) clearTimeout(t);
        pending.clear();
        server.closeAllConnections();
        server.close(() => {
          rmSync(certs.dir, { recursive: true, force: true });
          r();
        });
      }),
  };
}
