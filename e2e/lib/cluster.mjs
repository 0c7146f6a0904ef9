// A real control plane for the end-to-end suite and the scale benchmark: Debian's etcd and a
// kube-apiserver built from k8s.io/kubernetes (e2e/build-kube-apiserver.sh), on loopback, the way
// envtest does it — no containers, no kubelet. Everything started here is stopped by its PID.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
import { etcdBinary } from './etcd-bin.mjs';

export function buildApiserver() {
  // cached outside the repo; rebuilt only when the pinned version changes
  return execFileSync('bash', [join(ROOT, 'e2e/build-kube-apiserver.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    .trim()
    .split('\n')
    .pop();
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function stopProc(p) {
  if (!p || p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, 5000);
    p.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    try {
      process.kill(p.pid, 'SIGTERM');
    } catch {
      clearTimeout(t);
      resolve();
    }
  });
}

export const USERS = {
  admin: { token: 'e2e-admin-token-7f3a', name: 'e2e-admin', groups: 'system:masters' },
  reader: { token: 'e2e-reader-token-2c9d', name: 'e2e-reader', groups: '' },
  limited: { token: 'e2e-limited-token-91be', name: 'e2e-limited', groups: '' },
};

export async function startControlPlane({ apiserver = buildApiserver(), log = () => {} } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-arch-e2e-'));
  const procs = [];
  const stop = async () => {
    for (const p of procs.reverse()) await stopProc(p);
    if (!process.env.KEEP_E2E_DIR) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const etcdClient = await freePort();
    const etcdPeer = await freePort();
    const etcd = spawn(
      etcdBinary(),
      [
        '--name',
        'e2e',
        '--data-dir',
        join(dir, 'etcd'),
        '--listen-client-urls',
        `http://127.0.0.1:${etcdClient}`,
        '--advertise-client-urls',
        `http://127.0.0.1:${etcdClient}`,
        '--listen-peer-urls',
        `http://127.0.0.1:${etcdPeer}`,
        '--initial-advertise-peer-urls',
        `http://127.0.0.1:${etcdPeer}`,
        '--initial-cluster',
        `e2e=http://127.0.0.1:${etcdPeer}`,
        '--quota-backend-bytes',
        String(4 * 1024 ** 3),
        '--unsafe-no-fsync',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    procs.push(etcd);
    let etcdErr = '';
    etcd.stderr.on('data', (d) => {
      etcdErr = (etcdErr + d).slice(-4000);
    });
    execFileSync('openssl', ['genrsa', '-out', join(dir, 'sa.key'), '2048'], { stdio: 'ignore' });
    execFileSync('openssl', ['rsa', '-in', join(dir, 'sa.key'), '-pubout', '-out', join(dir, 'sa.pub')], { stdio: 'ignore' });
    writeFileSync(
      join(dir, 'tokens.csv'),
      Object.values(USERS)
        .map((u) => `${u.token},${u.name},${u.name}${u.groups ? `,"${u.groups}"` : ''}`)
        .join('\n') + '\n',
    );
    // every request at Metadata level: who, verb, path, status — never bodies
    writeFileSync(
      join(dir, 'audit-policy.yaml'),
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n',
    );
    const port = await freePort();
    const args = [
      `--etcd-servers=http://127.0.0.1:${etcdClient}`,
      `--cert-dir=${join(dir, 'certs')}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${port}`,
      '--authorization-mode=RBAC',
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${join(dir, 'sa.pub')}`,
      `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
      '--service-cluster-ip-range=10.43.0.0/16',
      `--audit-policy-file=${join(dir, 'audit-policy.yaml')}`,
      `--audit-log-path=${join(dir, 'audit.log')}`,
      '--audit-log-mode=blocking',
      // no controller-manager runs: pods need no ServiceAccount, and nothing else should mutate what the scenarios load
      '--disable-admission-plugins=ServiceAccount,DefaultStorageClass,DefaultIngressClass,StorageObjectInUseProtection,PersistentVolumeClaimResize,ResourceQuota,Priority',
      '--enable-priority-and-fairness=false',
      '--max-requests-inflight=2000',
      '--max-mutating-requests-inflight=1000',
      '--event-ttl=24h',
      // webhook and APIService backends are resolved through their Endpoints: a Service with no ready address
      // fails at once ("no endpoints available for service") and no cluster IP outside loopback is ever dialed
      '--enable-aggregator-routing=true',
    ];
    const api = spawn(apiserver, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    procs.push(api);
    let apiErr = '';
    api.stderr.on('data', (d) => {
      apiErr = (apiErr + d).slice(-8000);
    });
    const url = `https://127.0.0.1:${port}`;
    const caFile = join(dir, 'certs', 'apiserver.crt');
    const deadline = Date.now() + 90_000;
    let ready = false;
    while (Date.now() < deadline) {
      if (api.exitCode !== null) throw new Error(`kube-apiserver exited (${api.exitCode}): ${apiErr.slice(-2000)}`);
      if (existsSync(caFile)) {
        try {
          const r = await request({ url, caFile, token: USERS.admin.token }, 'GET', '/readyz');
          if (r.status === 200) {
            ready = true;
            break;
          }
        } catch {
          /* not yet */
        }
      }
      await sleep(250);
    }
    if (!ready) throw new Error(`kube-apiserver not ready after 90 s: ${apiErr.slice(-2000)} ${etcdErr.slice(-500)}`);
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: admin',
        'clusters:',
        '- name: e2e',
        '  cluster:',
        `    server: ${url}`,
        `    certificate-authority: ${caFile}`,
        'users:',
        ...Object.entries(USERS).flatMap(([k, u]) => [`- name: ${k}`, '  user:', `    token: ${u.token}`]),
        'contexts:',
        ...Object.keys(USERS).flatMap((k) => [`- name: ${k}`, '  context:', '    cluster: e2e', `    user: ${k}`]),
        '',
      ].join('\n'),
    );
    log(`control plane up: ${url} (dir ${dir})`);
    const conn = { url, caFile, token: USERS.admin.token };
    // the sick-cluster case: etcd dies under a running API server (SIGKILL, by PID)
    const killEtcd = () =>
      new Promise((resolve) => {
        if (etcd.exitCode !== null || etcd.signalCode !== null) return resolve();
        etcd.once('exit', () => resolve());
        process.kill(etcd.pid, 'SIGKILL');
      });
    return {
      dir,
      url,
      caFile,
      kubeconfig,
      auditLog: join(dir, 'audit.log'),
      pids: procs.map((p) => p.pid),
      etcdPid: etcd.pid,
      killEtcd,
      admin: (m, p, b) => request(conn, m, p, b),
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

const agents = new Map();
/** One admin request (the harness's writes; the plugin itself never uses this). */
export function request({ url, caFile, token }, method, path, body) {
  let agent = agents.get(caFile);
  if (!agent) {
    agent = new https.Agent({ ca: readFileSync(caFile), keepAlive: true, maxSockets: 32 });
    agents.set(caFile, agent);
  }
  const u = new URL(path, url);
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      u,
      {
        method,
        agent,
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'application/json',
          ...(data ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => {
          let json;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode, json, text });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** Read the audit log: one event per request (ResponseComplete stage). */
export function readAudit(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}
