// Trustworthy under faults: each defect found by a hostile review, reproduced against the local API
// server or with crafted files, and what the user sees now.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiClient, DEFAULT_CLIENT_OPTIONS } from '../src/cluster/client.js';
import { connect } from '../src/cluster/connect.js';
import { fetchSnapshot } from '../src/cluster/fetch.js';
import { resolveConfig } from '../src/cluster/kubeconfig.js';
import { R } from '../src/resources.js';
import { loadSnapshot } from '../src/snapshot/load.js';
import { snapshotDocuments } from '../src/snapshot/save.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import type { KObject } from '../src/model.js';
import { EXAMPLE, EXAMPLE_TYPES, exampleObjects, obj } from './helpers/fixtures.js';
import { arch, BIN, run } from './helpers/run.js';
import { startTestApiServer, type TestApiServer } from './helpers/testApiServer.js';
import { tempDir } from './helpers/tmp.js';

let srv: TestApiServer;
const tmp = (): string => tempDir();
const ESC = '\x1b';

beforeAll(async () => {
  srv = await startTestApiServer({ types: EXAMPLE_TYPES, objects: exampleObjects() });
});
afterAll(async () => {
  await srv.close();
});
beforeEach(() => {
  for (const k of Object.keys(srv.faults)) delete (srv.faults as Record<string, unknown>)[k];
  srv.requests.length = 0;
  srv.setObjects(EXAMPLE_TYPES, exampleObjects());
});

/** A kubeconfig for the test server with the given user entry. */
function kubeconfig(user: unknown, server = srv.url): string {
  const f = join(tmp(), 'kubeconfig');
  writeFileSync(
    f,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'c',
      clusters: [{ name: 'c', cluster: { server, 'certificate-authority': srv.certs.caFile } }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    }),
  );
  return f;
}

const authOf = (): Array<string | undefined> => srv.requests.map((r) => r.auth);
const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
async function waitFor(pred: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('credentials never silently become anonymous', () => {
  test('a kubeconfig user with tokenFile sends that token', async () => {
    const tf = join(tmp(), 'token');
    writeFileSync(tf, `${srv.token}\n`);
    const r = await arch(['doctor', '--kubeconfig', kubeconfig({ tokenFile: tf }), '-o', 'json', '--fail-on', 'none']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(new Set(authOf())).toEqual(new Set([`Bearer ${srv.token}`]));
  });

  test('the in-cluster service account (token file) is used, not anonymous', async () => {
    const sa = tmp();
    writeFileSync(join(sa, 'token'), srv.token);
    writeFileSync(join(sa, 'ca.crt'), readFileSync(srv.certs.caFile));
    writeFileSync(join(sa, 'namespace'), 'default');
    const cfg = resolveConfig({}, { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: new URL(srv.url).port }, sa);
    const c = await connect(cfg, DEFAULT_CLIENT_OPTIONS);
    try {
      await c.getJSON('/version');
    } finally {
      c.close();
    }
    expect(authOf()).toEqual([`Bearer ${srv.token}`]);
  });

  test('`user: "oops"` is bad input, exit 2, before any request', async () => {
    const r = await arch(['doctor', '--kubeconfig', kubeconfig('oops')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/"user" must be a mapping/);
    expect(srv.requests).toHaveLength(0);
  });

  test('an exec plugin that returns no token is an error, not an anonymous request', async () => {
    const plugin = join(tmp(), 'empty-cred.sh');
    writeFileSync(plugin, '#!/bin/sh\necho \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{}}\'\n', {
      mode: 0o755,
    });
    const r = await arch([
      'doctor',
      '--kubeconfig',
      kubeconfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin } }),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/returned no token and no client certificate/);
    expect(srv.requests).toHaveLength(0);
  });

  test('a server URL that is not a URL is bad input (exit 2), not an internal error', async () => {
    const r = await arch(['doctor', '--kubeconfig', kubeconfig({ token: 'x' }, 'not a url')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not an http\(s\) URL/);
  });

  test('an empty file in a KUBECONFIG list is skipped, as kubectl does', async () => {
    const empty = join(tmp(), 'empty');
    writeFileSync(empty, '');
    const r = await arch(['version'], { KUBECONFIG: `${empty}:${srv.kubeconfigPath}` });
    expect(r.code).toBe(0);
    const d = await arch(['doctor', '-o', 'json', '--fail-on', 'none'], { KUBECONFIG: `${empty}:${srv.kubeconfigPath}` });
    expect(d.stderr).toBe('');
    expect(d.code).toBe(0);
  });
});

describe('exec plugins and Ctrl-C', () => {
  const hanging = (): { cfg: string; pidFile: string } => {
    const d = tmp();
    const pidFile = join(d, 'pid');
    const plugin = join(d, 'hang.sh');
    writeFileSync(plugin, `#!/bin/sh\necho $$ > ${pidFile}\nexec sleep 1000\n`, { mode: 0o755 });
    return {
      cfg: kubeconfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' } }),
      pidFile,
    };
  };

  test('a hanging exec plugin is stopped at the deadline and killed', async () => {
    const { cfg, pidFile } = hanging();
    const r = await arch(['doctor', '--kubeconfig', cfg, '--deadline', '2s']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/did not answer within 2s/);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => !pidAlive(pid));
  });

  test('SIGINT ends the run promptly and kills the plugin', async () => {
    const { cfg, pidFile } = hanging();
    const child = spawn(BIN, ['doctor', '--kubeconfig', cfg, '--deadline', '10m'], {
      stdio: 'ignore',
      env: { ...process.env, KUBECONFIG: '/nonexistent' },
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    await waitFor(() => !pidAlive(pid));
  });

  test('SIGINT during a slow fetch exits 130 instead of waiting for the server', async () => {
    srv.faults.slow = { resource: 'pods', ms: 120_000 };
    const child = spawn(BIN, ['doctor', '--kubeconfig', srv.kubeconfigPath], {
      stdio: 'ignore',
      env: { ...process.env, KUBECONFIG: '/nonexistent' },
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await waitFor(() => srv.requests.some((q) => q.path.includes('/pods')));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
  });
});

describe('the spinner', () => {
  // `script` gives the CLI a real terminal; stty sets the width the terminal reports
  const inTerminal = (cols: number): Promise<{ stdout: string }> =>
    run(
      '/usr/bin/script',
      ['-qec', `stty cols ${cols} rows 24; ${BIN} doctor --kubeconfig ${srv.kubeconfigPath} --fail-on none >/dev/null`, '/dev/null'],
      { TERM: 'xterm' },
    );

  test('draws on a normal terminal (so the next test can see its absence)', async () => {
    srv.faults.slow = { resource: 'pods', ms: 1500 };
    const r = await inTerminal(80);
    expect(r.stdout).toMatch(/fetching|connecting/);
  });

  test('never runs on a terminal that reports 0 columns', async () => {
    srv.faults.slow = { resource: 'pods', ms: 1500 };
    const r = await inTerminal(0);
    expect(r.stdout).not.toMatch(/fetching|connecting/);
    expect(r.stdout).not.toContain(`${ESC}[`);
  });
});

describe('usage errors never reach the cluster', () => {
  test.each([[['doctor', '--bogus-flag']], [['doctor', '-o', 'xml']], [['orphans', '--fail-on', 'sometimes']], [['quorum', '--no-such']]])(
    '%j exits 2 with no request sent',
    async (args) => {
      const r = await arch([...args, '--kubeconfig', srv.kubeconfigPath]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(srv.requests).toHaveLength(0);
    },
  );

  test('--etcd-timeout zz names --etcd-timeout', async () => {
    const r = await arch(['quorum', '--etcd-endpoints', 'http://127.0.0.1:1', '--etcd-timeout', 'zz']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/invalid --etcd-timeout "zz"/);
  });
});

describe('a server that misbehaves', () => {
  const client = (opts: Partial<typeof DEFAULT_CLIENT_OPTIONS> = {}): Promise<ApiClient> =>
    connect(resolveConfig({ kubeconfig: srv.kubeconfigPath }), { ...DEFAULT_CLIENT_OPTIONS, ...opts });

  test('the same continue token forever: the list stops, the type is not visible', async () => {
    srv.faults.repeatContinue = 'nodes';
    const c = await client({ pageSize: 2 });
    const s = await fetchSnapshot(c, [R.nodes], { server: srv.url });
    c.close();
    expect(s.visibility(R.nodes)?.reason).toMatch(/same continue token twice/);
    expect(srv.requests.filter((q) => q.path.startsWith('/api/v1/nodes')).length).toBeLessThanOrEqual(3);
  });

  test('a page cap bounds a list that never ends', async () => {
    const c = await client({ pageSize: 1, maxPages: 3 });
    const s = await fetchSnapshot(c, [R.nodes], { server: srv.url });
    c.close();
    expect(s.visibility(R.nodes)?.reason).toMatch(/stopped after 3 pages/);
  });

  test('thousands of bogus API groups: discovery is capped and says so', async () => {
    srv.faults.bogusGroups = 3000;
    const r = await arch(['orphans', '--kubeconfig', srv.kubeconfigPath, '-o', 'json', '--fail-on', 'none']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).notes.join('\n')).toMatch(/advertises \d+ API groups; only the first 1000 were read/);
    expect(srv.requests.length).toBeLessThan(2500);
  });

  test('a forbidden GET of argocd-cm leaves a "could not be read" note', async () => {
    srv.faults.forbiddenGet = new Set(['argocd-cm']);
    const r = await arch(['doctor', '--kubeconfig', srv.kubeconfigPath, '-o', 'json', '--fail-on', 'none']);
    const rep = JSON.parse(r.stdout);
    const notes = rep.checks.find((c: { id: string }) => c.id === 'gitops-orphans').notes.join('\n');
    expect(notes).toMatch(/ConfigMap argocd\/argocd-cm could not be read \(forbidden\)/);
  });

  test('etcd failing in /readyz: a critical finding at the top, lists from the watch cache, exit 1', async () => {
    srv.faults.readyz =
      '[+]ping ok\n[-]etcd failed: reason withheld\n[+]poststarthook/start-apiextensions-controllers ok\nreadyz check failed\n';
    const r = await arch(['doctor', '--kubeconfig', srv.kubeconfigPath, '-o', 'json']);
    expect(r.code).toBe(1);
    const rep = JSON.parse(r.stdout);
    const f = rep.checks.find((c: { id: string }) => c.id === 'apiserver-readiness').findings[0];
    expect(f).toMatchObject({ code: 'ARCH-RZ01', severity: 'critical' });
    expect(rep.fingerprint.gaps.join('\n')).toMatch(/watch cache.*possibly stale/);
    const lists = srv.requests.filter((q) => /\/(pods|nodes|events)\?/.test(q.path) && !q.path.includes('continue='));
    expect(lists.length).toBeGreaterThan(0);
    for (const q of lists) expect(q.path).toContain('resourceVersion=0');
    const table = await arch(['doctor', '--kubeconfig', srv.kubeconfigPath]);
    const first = table.stdout.split('\n').findIndex((l) => /FAIL|PASS|SKIP/.test(l));
    expect(table.stdout.split('\n')[first]).toMatch(/API server readiness/);
  });

  test('etcd fails after /readyz said ok: a stalled quorum read makes it ask again, and lists move to the cache', async () => {
    srv.faults.quorumHang = true;
    // etcd "fails" once the first quorum read has been sent (by then /readyz was read and said ok): by order, not
    // by a timer (a 500 ms timer lost the race on a loaded machine, failing /readyz before its first read)
    const push = srv.requests.push.bind(srv.requests);
    srv.requests.push = (...recs) => {
      if (recs.some((q) => /^\/(api\/v1|apis\/[^/]+\/[^/]+)\/[^/]+\?/.test(q.path) && !q.path.includes('resourceVersion=0')))
        srv.faults.readyz = '[+]ping ok\n[-]etcd failed: reason withheld\nreadyz check failed\n';
      return push(...recs);
    };
    const r = await arch(['doctor', '--kubeconfig', srv.kubeconfigPath, '-o', 'json']).finally(() => {
      srv.requests.push = push;
    });
    expect(r.code).toBe(1);
    const rep = JSON.parse(r.stdout);
    expect(rep.checks.find((c: { id: string }) => c.id === 'apiserver-readiness').findings[0].code).toBe('ARCH-RZ01');
    expect(rep.fingerprint.nodes.total).toBe(6);
    expect(srv.requests.filter((q) => q.path.startsWith('/readyz')).length).toBeGreaterThan(1);
    expect(srv.requests.some((q) => q.path.startsWith('/api/v1/nodes?') && q.path.includes('resourceVersion=0'))).toBe(true);
  });

  test('healthy /readyz: lists are quorum reads (no resourceVersion)', async () => {
    await arch(['doctor', '--kubeconfig', srv.kubeconfigPath, '-o', 'json', '--fail-on', 'none']);
    expect(srv.requests.some((q) => q.path.includes('resourceVersion='))).toBe(false);
  });

  test('the run deadline: what is not fetched in time is not visible, and the report still arrives', async () => {
    srv.faults.slow = { resource: 'pods', ms: 30_000 };
    const r = await arch(['doctor', '--kubeconfig', srv.kubeconfigPath, '-o', 'json', '--deadline', '2s', '--fail-on', 'none']);
    expect(r.code).toBe(0);
    const rep = JSON.parse(r.stdout);
    expect(JSON.stringify(rep)).toMatch(/deadline \(2s\)/);
  });
});

describe('snapshots are safe to send', () => {
  const SECRETS = [
    's3cr3t-oidc-client',
    'hunter2-helm-values',
    'p4ss-flux-values',
    'tok-k3s-node-args',
    'env-k3s-token',
    'last-applied-pw',
    'helmchart-values-pw',
    'daemonset-env-pw',
    'kubeadm-oidc-secret',
    'applied-objectset-pw',
    'flux-substitute-pw',
    'argocd-repo-pw',
  ];

  test('no planted secret comes out of `kubectl arch snapshot`', async () => {
    const objects = exampleObjects().map((o) => JSON.parse(JSON.stringify(o)) as KObject);
    const cm = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'argocd-cm')!;
    cm.data = { ...(cm.data ?? {}), 'oidc.config': 'clientSecret: s3cr3t-oidc-client', repositories: 'password: argocd-repo-pw' };
    const node = objects.find((o) => o.kind === 'Node')!;
    node.metadata.annotations = {
      ...node.metadata.annotations,
      'k3s.io/node-args': '["server","--token","tok-k3s-node-args","--cluster-init"]',
      'k3s.io/node-env': '{"K3S_TOKEN":"env-k3s-token"}',
    };
    const svc = objects.find((o) => o.kind === 'Service')!;
    svc.metadata.annotations = {
      ...svc.metadata.annotations,
      'kubectl.kubernetes.io/last-applied-configuration': '{"password":"last-applied-pw"}',
    };
    const app = objects.find((o) => o.kind === 'Application')!;
    app.spec = { ...app.spec, source: { ...(app.spec.source ?? {}), helm: { values: 'password: hunter2-helm-values' } } };
    objects.push(
      obj('helm.cattle.io/v1', 'HelmChart', 'traefik', 'kube-system', {
        metadata: {
          name: 'traefik',
          namespace: 'kube-system',
          annotations: { 'objectset.rio.cattle.io/applied': '{"spec":{"valuesContent":"applied-objectset-pw"}}' },
        },
        spec: { chart: 'traefik', valuesContent: 'adminPassword: helmchart-values-pw' },
      }),
    );
    objects.push(
      obj('apps/v1', 'DaemonSet', 'agent', 'kube-system', {
        spec: { template: { spec: { containers: [{ name: 'a', env: [{ name: 'PW', value: 'daemonset-env-pw' }] }] } } },
      }),
    );
    objects.push(
      obj('v1', 'ConfigMap', 'kubeadm-config', 'kube-system', {
        data: {
          ClusterConfiguration:
            'apiServer:\n  extraArgs:\n    oidc-client-secret: kubeadm-oidc-secret\netcd:\n  local:\n    dataDir: /var/lib/etcd\n',
        },
      }),
    );
    const types = [...EXAMPLE_TYPES, R.fluxHelmReleases, R.fluxKustomizations];
    objects.push(
      obj('helm.toolkit.fluxcd.io/v2', 'HelmRelease', 'web', 'flux-system', { spec: { values: { password: 'p4ss-flux-values' } } }),
    );
    objects.push(
      obj('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'apps', 'flux-system', {
        spec: { postBuild: { substitute: { pw: 'flux-substitute-pw' } } },
      }),
    );
    srv.setObjects(types, objects);
    const r = await arch(['snapshot', '--kubeconfig', srv.kubeconfigPath]);
    expect(r.code).toBe(0);
    for (const s of SECRETS) expect(r.stdout).not.toContain(s);
    // what the checks read is still there
    expect(r.stdout).toContain('clusterDNS: 10.43.0.10');
    expect(r.stdout).toContain('dataDir: /var/lib/etcd');
    expect(r.stdout).toContain('--cluster-init');
    const f = join(tmp(), 'snap.yaml');
    writeFileSync(f, r.stdout);
    expect(loadSnapshot(f).of(R.argoApplications).length).toBeGreaterThan(0);
  });
});

describe('cluster text never drives the terminal', () => {
  const hostile = `Service "x" is invalid: spec.clusterIPs[0]: Invalid value: "${ESC}]0;pwned\x07${ESC}[2J${ESC}]8;;http://evil${ESC}\\\\link${ESC}]8;;${ESC}\\\\": may not change once set`;

  test('names that differ only in what cannot be seen print apart (they all read n1 before)', async () => {
    const r = await arch(['what-if', 'n1\u200b', 'n1\ufeff', 'n1\u2028', 'n1', '--snapshot', EXAMPLE]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nodes "n1\\u200b", "n1\\ufeff", "n1\\u2028", "n1" do not exist');
  });

  test('table output escapes control characters; JSON keeps the exact text', async () => {
    const dir = tmp();
    const ev = obj('v1', 'Event', 'e1', 'kube-system', {
      metadata: { name: 'e1', namespace: 'kube-system', uid: 'u-e1', annotations: { note: `${ESC}[31mred` } },
      involvedObject: { kind: 'Service', name: 'x', namespace: 'kube-system' },
      reason: 'FailedUpdate',
      type: 'Warning',
      message: hostile,
      count: 40,
      firstTimestamp: '2026-08-13T03:00:00Z',
      lastTimestamp: '2026-08-13T08:59:00Z',
      source: { component: `ctl${ESC}[2J` },
    });
    writeFileSync(
      join(dir, 'e.yaml'),
      JSON.stringify({ apiVersion: 'kubectl-arch/v1', kind: 'SnapshotHeader', capturedAt: '2026-08-13T09:00:00Z', captured: ['Event'] }) +
        '\n---\n' +
        JSON.stringify(ev),
    );
    const t = await arch(['doctor', '--snapshot', dir, '--fail-on', 'none']);
    expect(t.stdout).toContain('may not change once set');
    expect(t.stdout).not.toContain(ESC);
    expect(t.stdout).not.toContain('\x07');
    expect(t.stdout).toContain('\\x1b]0;pwned\\x07');
    const j = await arch(['doctor', '--snapshot', dir, '-o', 'json', '--fail-on', 'none']);
    expect(j.stdout).toContain('\\u001b]0;pwned\\u0007');
  });

  test('server error text on stderr is escaped', async () => {
    const bad = join(tmp(), `bad${ESC}[2J.yaml`);
    writeFileSync(bad, 'kind: [');
    const r = await arch(['doctor', '--snapshot', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain(ESC);
    expect(r.stderr).toContain('\\x1b[2J');
  });
});

describe('crafted snapshot files', () => {
  test('a very large scalar round-trips (written as JSON inside the YAML stream)', () => {
    const snap = new Snapshot({ capturedAt: '2026-08-13T09:00:00Z' });
    // a field a snapshot keeps (an Event's message; an annotation no check reads is not kept at all)
    snap.addList('', 'Event', [obj('v1', 'Event', 'big', 'default', { type: 'Warning', message: 'x'.repeat(8_000_000) })]);
    const f = join(tmp(), 's.yaml');
    writeFileSync(f, [...snapshotDocuments(snap, 'yaml')].join(''));
    const back = loadSnapshot(f);
    expect(back.of(R.events)[0]!.message).toHaveLength(8_000_000);
  });

  test('a snapshot cut before its end marker is rejected, not read as an empty cluster', () => {
    const text = [...snapshotDocuments(loadSnapshot(EXAMPLE), 'yaml')].join('');
    const f = join(tmp(), 'cut.yaml');
    writeFileSync(f, text.slice(0, Math.floor(text.length / 2)).replace(/\n[^\n]*$/, '\n'));
    expect(() => loadSnapshot(f)).toThrow(/incomplete snapshot: the end marker is missing/);
    const whole = join(tmp(), 'whole.yaml');
    writeFileSync(whole, text);
    expect(loadSnapshot(whole).of(R.nodes)).toHaveLength(6);
  });

  test('a YAML alias bomb is rejected quickly', async () => {
    const lines = [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: bomb',
      '  annotations: {}',
      'x0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
    ];
    for (let i = 1; i < 12; i++)
      lines.push(
        `x${i}: &a${i} [${Array(9)
          .fill(`*a${i - 1}`)
          .join(',')}]`,
      );
    const f = join(tmp(), 'bomb.yaml');
    writeFileSync(f, lines.join('\n') + '\n');
    const r = await arch(['doctor', '--snapshot', f, '-o', 'json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/alias/);
  });

  test('malformed but parsable objects are bad input (exit 2) naming the object and field', async () => {
    const f = join(tmp(), 'bad.yaml');
    writeFileSync(f, 'apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  conditions: "bad"\n');
    const r = await arch(['doctor', '--snapshot', f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.yaml:1: Node n1: status\.conditions must be a list of mappings/);
  });

  test('the same object twice is counted once (no invented etcd members)', () => {
    const dir = tmp();
    const nodes = readFileSync(join(EXAMPLE, 'nodes.json'), 'utf8');
    writeFileSync(join(dir, 'a.json'), nodes);
    writeFileSync(join(dir, 'b.json'), nodes);
    const s = loadSnapshot(dir);
    expect(s.of(R.nodes)).toHaveLength(6);
    expect(s.duplicates).toBe(6);
  });

  test('a JSON snapshot with a byte-order mark loads', () => {
    const f = join(tmp(), 'bom.json');
    writeFileSync(
      f,
      '\uFEFF' + JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'a' } }] }),
    );
    expect(loadSnapshot(f).of(R.nodes)).toHaveLength(1);
  });

  test('a snapshot directory is read, never waited on: a FIFO or a link to a device is refused at once (exit 2)', async () => {
    // a FIFO blocked the run forever (past --deadline, deaf to SIGTERM); a link to /dev/zero grew to 1.8 GB
    const fifoDir = tmp();
    cpSync(EXAMPLE, fifoDir, { recursive: true });
    execFileSync('mkfifo', [join(fifoDir, 'zz-pipe.yaml')]);
    const zeroDir = tmp();
    cpSync(EXAMPLE, zeroDir, { recursive: true });
    symlinkSync('/dev/zero', join(zeroDir, 'zz-zero.json'));
    for (const [dir, what] of [
      [fifoDir, 'a FIFO'],
      [zeroDir, 'a character device'],
    ] as const) {
      const r = await arch(['doctor', '--snapshot', dir, '--deadline', '30s']);
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(r.stderr).toContain(`is not a regular file (${what})`);
    }
    // a regular file behind a link is read as any other
    const linked = tmp();
    for (const f of readdirSync(EXAMPLE)) symlinkSync(join(EXAMPLE, f), join(linked, f));
    expect((await arch(['doctor', '--snapshot', linked, '-o', 'json', '--fail-on', 'none'])).code).toBe(0);
  }, 60_000);

  test('piping into head ends quietly (no EPIPE stack)', async () => {
    const r = await run('/bin/bash', ['-c', `set -o pipefail; ${BIN} doctor --snapshot ${EXAMPLE} -o yaml --fail-on none | head -1`]);
    expect(r.stdout.split('\n')).toHaveLength(2);
    expect(r.stderr).not.toMatch(/EPIPE|at /);
  });
});

describe('direct etcd probe', () => {
  test('no endpoint answering: alarms are unknown, not "none"', async () => {
    const r = await arch(['quorum', '--etcd-endpoints', 'http://127.0.0.1:1', '--etcd-timeout', '500ms']);
    expect(r.stdout).toMatch(/alarms: unknown/);
    expect(r.stdout).not.toMatch(/alarms: none/);
    const j = await arch(['quorum', '--etcd-endpoints', 'http://127.0.0.1:1', '--etcd-timeout', '500ms', '-o', 'json']);
    expect(JSON.parse(j.stdout).alarmsError).toBe('no endpoint answered');
  });
});
