// The cluster client against a local HTTPS API server, real transport, with injected faults.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { ApiClient, ApiStatusError, BodyBudget, connectionError, DEFAULT_CLIENT_OPTIONS, METADATA_ACCEPT } from '../src/cluster/client.js';
import { connect } from '../src/cluster/connect.js';
import { fetchSnapshot } from '../src/cluster/fetch.js';
import { resolveConfig } from '../src/cluster/kubeconfig.js';
import { ClusterError, EXIT } from '../src/errors.js';
import type { Need } from '../src/model.js';
import { R } from '../src/resources.js';
import { EXAMPLE_TYPES, exampleObjects } from './helpers/fixtures.js';
import { startTestApiServer, type TestApiServer } from './helpers/testApiServer.js';
import { tempDir } from './helpers/tmp.js';
import { makeExpiredServing } from './helpers/certs.js';

let srv: TestApiServer;
const objects = exampleObjects();

beforeAll(async () => {
  srv = await startTestApiServer({ types: EXAMPLE_TYPES, objects });
});
afterAll(async () => {
  await srv.close();
});
beforeEach(() => {
  for (const k of Object.keys(srv.faults)) delete (srv.faults as Record<string, unknown>)[k];
  srv.requests.length = 0;
});

async function client(opts: Partial<typeof DEFAULT_CLIENT_OPTIONS> = {}, context = 'test'): Promise<ApiClient> {
  const cfg = resolveConfig({ kubeconfig: srv.kubeconfigPath, context });
  return connect(cfg, { ...DEFAULT_CLIENT_OPTIONS, maxRetryAfterMs: 3000, ...opts });
}

async function snap(needs: Need[], opts: Partial<typeof DEFAULT_CLIENT_OPTIONS> = {}, context = 'test') {
  const c = await client(opts, context);
  try {
    return await fetchSnapshot(c, needs, { server: srv.url, contextName: context });
  } finally {
    c.close();
  }
}

describe('cluster client', () => {
  test('lists every page with limit/continue, sends only GET with the bearer token', async () => {
    const s = await snap([R.pods], { pageSize: 50 });
    expect(s.of(R.pods)).toHaveLength(objects.filter((o) => o.kind === 'Pod').length);
    const podReqs = srv.requests.filter((r) => r.path.startsWith('/api/v1/pods'));
    expect(podReqs.length).toBe(Math.ceil(295 / 50));
    expect(podReqs.slice(1).every((r) => r.path.includes('continue='))).toBe(true);
    expect(srv.requests.every((r) => r.method === 'GET')).toBe(true);
    expect(srv.requests.every((r) => r.auth === `Bearer ${srv.token}`)).toBe(true);
    // items get their apiVersion/kind back (lists omit them)
    expect(s.of(R.pods)[0]?.kind).toBe('Pod');
  });

  test('metadata-only lists ask for PartialObjectMetadataList', async () => {
    const s = await snap([{ ...R.configmaps, metadataOnly: true }]);
    const req = srv.requests.find((r) => r.path.startsWith('/api/v1/configmaps'));
    expect(req?.accept).toBe(METADATA_ACCEPT);
    const cm = s.of(R.configmaps).find((c) => c.metadata.name === 'cluster-dns');
    expect(cm?.kind).toBe('ConfigMap');
    expect(cm?.data).toBeUndefined();
  });

  test('ConfigMaps: metadata-only list, full bodies only for the few a check reads', async () => {
    const { CONFIGMAPS } = await import('../src/resources.js');
    const s = await snap([CONFIGMAPS]);
    const cms = s.of(R.configmaps);
    expect(cms.find((c) => c.metadata.name === 'cluster-dns')?.data).toEqual({ clusterDNS: '10.43.0.10', clusterDomain: 'cluster.local' });
    expect(cms.find((c) => c.metadata.name === 'argocd-cm')?.data).toBeDefined();
    expect(cms.find((c) => c.metadata.name === 'blog-config')?.data).toBeUndefined();
    expect(
      srv.requests
        .filter((r) => /\/configmaps\/[^?]+$/.test(r.path))
        .map((r) => r.path)
        .sort(),
    ).toEqual(['/api/v1/namespaces/argocd/configmaps/argocd-cm', '/api/v1/namespaces/kube-system/configmaps/cluster-dns']);
  });

  test('discovery: every listable type, preferred versions, metadata only, never Secrets', async () => {
    const c = await client();
    const s = await fetchSnapshot(c, [], { server: srv.url, allTypes: true });
    c.close();
    expect(s.header.allTypes).toBe(true);
    expect(s.visibility({ group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', resource: 'clusterroles' })).toBeNull();
    const lists = srv.requests.filter((r) => r.path.includes('?limit='));
    expect(lists.length).toBeGreaterThan(10);
    expect(lists.every((r) => r.accept === METADATA_ACCEPT)).toBe(true);
    expect(srv.requests.some((r) => r.path.includes('secrets'))).toBe(false);
    expect(srv.requests.some((r) => r.path.startsWith('/api/v1/events'))).toBe(false);
  });

  test('lean pods: metadata-only, Running unless a status.phase!=Running list names them; events filtered server-side', async () => {
    // two pods that do not run: a finished one and one waiting for a node
    const stopped = new Map([
      [objects.filter((o) => o.kind === 'Pod')[3]!.metadata.name, 'Succeeded'],
      [objects.filter((o) => o.kind === 'Pod')[7]!.metadata.name, 'Pending'],
    ]);
    srv.setObjects(
      EXAMPLE_TYPES,
      objects.map((o) =>
        o.kind === 'Pod' && stopped.has(o.metadata.name)
          ? { ...o, status: { ...(o.status ?? {}), phase: stopped.get(o.metadata.name) } }
          : o,
      ),
    );
    const s = await snap([R.podsLean, R.events]);
    srv.setObjects(EXAMPLE_TYPES, objects);
    const pods = s.of(R.pods);
    expect(pods).toHaveLength(295);
    expect(
      pods
        .filter((p) => p.status?.phase !== 'Running')
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual([...stopped.keys()].sort());
    expect(pods.filter((p) => p.status?.phase === 'Running')).toHaveLength(293);
    const podReqs = srv.requests.filter((r) => r.path.startsWith('/api/v1/pods'));
    expect(podReqs.every((r) => r.accept === METADATA_ACCEPT)).toBe(true);
    // the inverse filter: in a working cluster it matches few pods, so the second list stays small
    expect(
      podReqs.filter((r) => r.path.includes('fieldSelector=')).map((r) => new URL(r.path, 'https://x').searchParams.get('fieldSelector')),
    ).toEqual(['status.phase!=Running']);
    const evReqs = srv.requests.filter((r) => r.path.startsWith('/api/v1/events'));
    expect(evReqs.map((r) => new URL(r.path, 'https://x').searchParams.get('fieldSelector'))).toEqual(R.events.fieldSelectors);
    // the K3s addon events (Warning and Normal) are kept, no duplicates
    expect(
      s
        .of(R.events)
        .map((e) => e.reason)
        .sort(),
    ).toEqual(['AppliedManifest', 'ApplyManifestFailed', 'ApplyingManifest']);
  });

  test('with discovery, a named need follows the served version of its type', async () => {
    const c = await client();
    const old = EXAMPLE_TYPES.map((t) => (t.kind === 'Application' ? { ...t, version: 'v1beta1' } : t));
    srv.setObjects(
      old,
      objects.map((o) => (o.kind === 'Application' ? { ...o, apiVersion: 'argoproj.io/v1beta1' } : o)),
    );
    try {
      const s = await fetchSnapshot(c, [R.argoApplications], { server: srv.url, allTypes: true });
      expect(s.of(R.argoApplications)).toHaveLength(5);
      expect(srv.requests.some((r) => r.path.startsWith('/apis/argoproj.io/v1beta1/applications'))).toBe(true);
    } finally {
      srv.setObjects(EXAMPLE_TYPES, objects);
      c.close();
    }
  });

  test('namespace scope lists through /namespaces/<ns>/', async () => {
    const c = await client();
    const s = await fetchSnapshot(c, [R.pods, R.nodes], { server: srv.url, namespace: 'blog' });
    c.close();
    expect(s.of(R.pods).every((p) => p.metadata.namespace === 'blog')).toBe(true);
    expect(srv.requests.some((r) => r.path.startsWith('/api/v1/namespaces/blog/pods'))).toBe(true);
    expect(srv.requests.some((r) => r.path.startsWith('/api/v1/nodes'))).toBe(true);
  });

  test('401 is a cluster error with exit code 3 and a hint, not a crash', async () => {
    const err = await snap([R.nodes], {}, 'wrong-user').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClusterError);
    expect((err as ClusterError).exitCode).toBe(EXIT.UNREACHABLE);
    expect((err as ClusterError).message).toMatch(/rejected the credentials \(401/);
    expect((err as ClusterError).hint).toMatch(/expired/);
  });

  test('403 on one resource: that type is "not visible" with the reason, the rest is fetched', async () => {
    srv.faults.forbidden = new Set(['events']);
    const s = await snap([R.nodes, R.events]);
    expect(s.of(R.nodes)).toHaveLength(6);
    const v = s.visibility(R.events);
    expect(v?.status).toBe(403);
    expect(v?.reason).toMatch(/forbidden: cannot list events \(RBAC\)/);
  });

  test('404 for a CRD that is not installed', async () => {
    const s = await snap([R.fluxKustomizations]);
    expect(s.visibility(R.fluxKustomizations)).toMatchObject({ status: 404, reason: expect.stringMatching(/CRD not installed/) });
  });

  test('410 Gone on a continue token restarts the list once and keeps no duplicates', async () => {
    srv.faults.goneOnContinue = 1;
    const s = await snap([R.pods], { pageSize: 100 });
    expect(s.of(R.pods)).toHaveLength(295);
    expect(new Set(s.of(R.pods).map((p) => p.metadata.uid)).size).toBe(295);
    expect(srv.requests.filter((r) => r.status === 410)).toHaveLength(1);
  });

  test('410 twice: the type is reported not visible, not half-listed', async () => {
    srv.faults.goneOnContinue = 5;
    const s = await snap([R.pods], { pageSize: 100 });
    expect(s.visibility(R.pods)?.status).toBe(410);
    expect(s.of(R.pods)).toHaveLength(0);
  });

  test('429 with Retry-After is retried after waiting at least that long', async () => {
    srv.faults.tooMany = { resource: 'nodes', times: 1, retryAfter: 1 };
    const t0 = Date.now();
    const s = await snap([R.nodes]);
    const nodeReqs = srv.requests.filter((r) => r.path.startsWith('/api/v1/nodes'));
    expect(nodeReqs.map((r) => r.status)).toEqual([429, 200]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(s.of(R.nodes)).toHaveLength(6);
  });

  test('5xx retries are bounded; then the type is not visible with the status', async () => {
    srv.faults.serverError = { resource: 'nodes', times: 100 };
    const s = await snap([R.nodes], { maxRetries: 2 });
    expect(srv.requests.filter((r) => r.path.startsWith('/api/v1/nodes'))).toHaveLength(3);
    expect(s.visibility(R.nodes)?.reason).toMatch(/500 listing nodes: etcdserver: request timed out/);
  });

  test('a response slower than the timeout: that type is not visible, with the timeout', async () => {
    srv.faults.slow = { resource: 'leases', ms: 1500 };
    const s = await snap([R.leases, R.nodes], { timeoutMs: 300 });
    expect(s.visibility(R.leases)?.reason).toMatch(/timed out after 0.3s/);
    expect(s.of(R.nodes)).toHaveLength(6);
  });

  test('a stopped run (its signal aborted): requests in flight are destroyed, none is sent after', async () => {
    srv.faults.quorumHang = true;
    const ac = new AbortController();
    const c = await client({ signal: ac.signal, timeoutMs: 3_600_000 });
    try {
      const pending = c.getJSON('/api/v1/nodes').catch((e: unknown) => e);
      while (!srv.requests.some((r) => r.status === -1)) await new Promise((r) => setTimeout(r, 10));
      ac.abort();
      expect(await pending).toMatchObject({ code: 'ABORTED' });
      while (!srv.requests.every((r) => r.status !== -1 || r.closed)) await new Promise((r) => setTimeout(r, 10));
      const seen = srv.requests.length;
      expect(await c.getJSON('/version').catch((e: unknown) => e)).toMatchObject({ code: 'ABORTED' });
      expect(srv.requests.length).toBe(seen);
    } finally {
      c.close();
    }
  });

  test('truncated JSON: not visible with "malformed JSON", no partial data', async () => {
    srv.faults.truncated = 'nodes';
    const s = await snap([R.nodes]);
    expect(s.visibility(R.nodes)?.reason).toMatch(/malformed JSON/);
    expect(s.of(R.nodes)).toHaveLength(0);
  });

  test('unreachable server: one clear error, exit code 3', async () => {
    const c = new ApiClient({ server: 'https://127.0.0.1:1' }, { ...DEFAULT_CLIENT_OPTIONS, maxRetries: 0 });
    const err = await fetchSnapshot(c, [R.nodes], { server: 'https://127.0.0.1:1' }).catch((e: unknown) => e);
    c.close();
    expect(err).toBeInstanceOf(ClusterError);
    expect((err as Error).message).toMatch(/connection refused/);
  });

  test('TLS mismatch (CA not trusted) is reported as such', async () => {
    const c = new ApiClient({ server: srv.url, headers: { Authorization: `Bearer ${srv.token}` } }, DEFAULT_CLIENT_OPTIONS);
    const err = await fetchSnapshot(c, [R.nodes], { server: srv.url }).catch((e: unknown) => e);
    c.close();
    expect((err as Error).message).toMatch(/TLS verification failed/);
  });

  test('the serving certificate is read from the handshake the client makes anyway, into the snapshot header', async () => {
    const s = await snap([R.nodes]);
    expect(s.header.tls?.serving).toMatchObject({ subject: '127.0.0.1', issuer: 'kubectl-arch-test-ca' });
    expect(Date.parse(s.header.tls!.serving!.notAfter)).toBeGreaterThan(Date.now());
  });

  test('an expired serving certificate: the error names it, when it expired and how to renew it', async () => {
    const old = makeExpiredServing(srv.certs);
    const https = await import('node:https');
    const server = https.createServer({ cert: old.cert, key: old.key }, (_req, res) => res.end('{}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
    const c = new ApiClient({ server: url, ca: srv.certs.ca }, { ...DEFAULT_CLIENT_OPTIONS, maxRetries: 0 });
    const err = await fetchSnapshot(c, [R.nodes], { server: url }).catch((e: unknown) => e);
    c.close();
    server.close();
    expect(err).toBeInstanceOf(ClusterError);
    expect((err as Error).message).toMatch(
      /serving certificate \(CN 127\.0\.0\.1, issued by kubectl-arch-test-ca\) expired on 2025-04-01, \d+ days ago/,
    );
    expect((err as ClusterError).hint).toMatch(/K3s\/RKE2 renew certificates within 90 days of expiry when the service restarts/);
  });

  test('401 with an expired client certificate: the error says the certificate expired, not just "rejected"', () => {
    const e = connectionError(
      new ApiStatusError(401, '/version', 'Unauthorized'),
      'https://10.0.0.1:6443',
      {
        client: { subject: 'system:admin', notAfter: '2026-01-10T00:00:00.000Z' },
      },
      Date.parse('2026-01-20T00:00:00Z'),
    );
    expect(e.message).toBe(
      'the API server at https://10.0.0.1:6443 rejected the credentials (401 Unauthorized): your client certificate (CN system:admin) expired on 2026-01-10, 10 days ago',
    );
    // a valid client certificate keeps the generic hint
    const ok = connectionError(
      new ApiStatusError(401, '/version', 'Unauthorized'),
      'https://10.0.0.1:6443',
      {
        client: { notAfter: '2027-01-10T00:00:00.000Z' },
      },
      Date.parse('2026-01-20T00:00:00Z'),
    );
    expect(ok.message).toBe('the API server at https://10.0.0.1:6443 rejected the credentials (401 Unauthorized)');
  });

  test('exec credential plugin (client.authentication.k8s.io/v1, kubelogin/aws style) supplies the token', async () => {
    const { writeFileSync, chmodSync } = await import('node:fs');
    const { join } = await import('node:path');
    const dir = tempDir();
    const plugin = join(dir, 'get-token');
    writeFileSync(
      plugin,
      `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${srv.token}"}}'\n`,
    );
    chmodSync(plugin, 0o755);
    const kc = join(dir, 'kubeconfig');
    writeFileSync(
      kc,
      `apiVersion: v1\nkind: Config\ncurrent-context: exec\nclusters:\n- name: c\n  cluster:\n    server: ${srv.url}\n    certificate-authority: ${srv.certs.caFile}\nusers:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${plugin}\n      interactiveMode: Never\ncontexts:\n- name: exec\n  context: {cluster: c, user: u}\n`,
    );
    const c = await connect(resolveConfig({ kubeconfig: kc }), DEFAULT_CLIENT_OPTIONS);
    const s = await fetchSnapshot(c, [R.nodes], { server: srv.url });
    c.close();
    expect(s.of(R.nodes)).toHaveLength(6);
    expect(srv.requests.every((r) => r.auth === `Bearer ${srv.token}`)).toBe(true);
  });

  test('readyz verbose text is kept in the snapshot header', async () => {
    const s = await snap([R.nodes]);
    expect(s.header.readyz).toMatch(/\[\+\]etcd ok/);
    expect(s.header.serverVersion?.gitVersion).toBe('v1.35.4+k3s1');
  });

  test('a list page larger than one body may be is asked again a tenth the size; an object larger than that is not visible', async () => {
    const MiB = 1024 * 1024;
    srv.faults.giant = { resource: 'configmaps', bytes: 300_000, count: 10 };
    const s = await snap([R.configmaps], { maxBodyBytes: MiB });
    expect(s.of(R.configmaps)).toHaveLength(10);
    const limits = srv.requests
      .filter((r) => r.path.startsWith('/api/v1/configmaps'))
      .map((r) => new URL(r.path, srv.url).searchParams.get('limit'));
    expect(limits).toEqual(['500', '50', '5', ...Array(10).fill('1')]);
    srv.requests.length = 0;
    srv.faults.giant = { resource: 'configmaps', bytes: 2 * MiB };
    const big = await snap([R.configmaps], { maxBodyBytes: MiB });
    expect(big.visibility(R.configmaps)?.reason).toMatch(/response to GET \/api\/v1\/configmaps\?limit=1 is larger than 1 MiB/);
  });

  test('clients sharing a budget hold at most about its limit of response bodies together, and every list completes', async () => {
    const MiB = 1024 * 1024;
    // the eight answers go out together, once all eight lists were asked: the clients read at the same time
    srv.faults.giant = { resource: 'configmaps', bytes: 4 * MiB, together: 8 };
    const run = async (bodies: BodyBudget) => {
      // eight contexts at once, each reading a 4 MiB list
      const all = await Promise.all(Array.from({ length: 8 }, () => snap([R.configmaps], { bodies })));
      // every list completed (the 4 MiB annotation is read, then dropped at the door: no check declares it)
      for (const s of all) expect([s.of(R.configmaps).length, s.of(R.configmaps)[0]?.metadata.annotations?.giant]).toEqual([1, undefined]);
      expect(bodies.held).toBe(0);
      return bodies.peak;
    };
    // the limit, plus what the first reader holds (one body and small change), plus a chunk for each paused reader
    const bound = 4 * MiB + 4.1 * MiB + 7 * 64 * 1024;
    expect(await run(new BodyBudget(4 * MiB))).toBeLessThanOrEqual(bound);
    // without a limit (as before the budget) the same eight hold far more at once: the case is a real one
    expect(await run(new BodyBudget(Infinity))).toBeGreaterThan(bound);
  });
});
