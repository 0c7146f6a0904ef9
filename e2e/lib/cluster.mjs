// A real control plane for the end-to-end suite and the scale benchmark: Debian's etcd and a
// kube-apiserver built from k8s.io/kubernetes (e2e/build-kube-apiserver.sh), on loopback, the way
// envtest does it — no containers, no kubelet — and, when asked, a kube-controller-manager built from
// the same module running only the controllers that cannot fight the scenarios (DEFAULT_CONTROLLERS).
// Everything started here is stopped by its PID.
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
import { etcdBinary } from './etcd-bin.mjs';

/** Path of a component built by e2e/build-kube-apiserver.sh (kube-apiserver or kube-controller-manager). */
function buildKube(component) {
  // cached outside the repo; rebuilt only when the pinned version changes. Whichever is asked for, the
  // script builds every missing binary of the pair in one `go build` (one module download, shared packages).
  return execFileSync('bash', [join(ROOT, 'e2e/build-kube-apiserver.sh'), component], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .trim()
    .split('\n')
    .pop();
}

export const buildApiserver = () => buildKube('kube-apiserver');
/** kube-apiserver alone at another release (what-if --upgrade's real upgrade: one minor apart): built once, cached. */
export const buildApiserverAt = (version) =>
  execFileSync('bash', [join(ROOT, 'e2e/build-kube-apiserver.sh'), '--only', 'kube-apiserver'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, K8S_VERSION: version },
  })
    .trim()
    .split('\n')
    .pop();
export const buildControllerManager = () => buildKube('kube-controller-manager');

/**
 * The controllers the harness runs by default: those that make Services, namespaces and ownerReferences behave as
 * in a real cluster and never touch what the scenarios load by hand. Deliberately absent: deployment, replicaset,
 * daemonset, statefulset, job (they would create, replace or scale the ReplicaSets and Pods the scenarios load
 * with a written status, and no kubelet would ever run them), node-lifecycle and the taint/pod GC controllers (they
 * would mark the scenario's Nodes NotReady and evict or delete their pods: no kubelet posts node status),
 * serviceaccount and serviceaccount-token (the ServiceAccount admission plugin is off, pods need none) and
 * resourcequota. None of the enabled ones needs --service-account-private-key-file (legacy token secrets) or
 * --root-ca-file (the serviceaccount-token controller and the kube-root-ca.crt publisher are off).
 */
export const DEFAULT_CONTROLLERS = Object.freeze([
  'endpoints-controller',
  'endpointslice-controller',
  'endpointslice-mirroring-controller',
  'namespace-controller',
  'garbage-collector-controller',
]);

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

/**
 * A serving certificate of our own for kube-apiserver (instead of the self-signed one --cert-dir makes): a CA and a
 * leaf for 127.0.0.1/localhost valid `days` days from now, made by openssl in the test dir; the kubeconfig trusts the
 * CA. So a test can choose the expiry that kubectl-arch should read from the TLS handshake.
 */
function servingCert(dir, days) {
  const pki = join(dir, 'pki');
  mkdirSync(pki);
  const f = (n) => join(pki, n);
  const ssl = (args) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  ssl(['genrsa', '-out', f('ca.key'), '2048']);
  ssl([
    'req',
    '-x509',
    '-new',
    '-key',
    f('ca.key'),
    '-sha256',
    '-days',
    '3650',
    '-subj',
    '/CN=kubectl-arch-e2e-ca',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-out',
    f('ca.crt'),
  ]);
  ssl(['genrsa', '-out', f('apiserver.key'), '2048']);
  ssl(['req', '-new', '-key', f('apiserver.key'), '-subj', '/CN=kube-apiserver', '-out', f('apiserver.csr')]);
  writeFileSync(
    f('apiserver.ext'),
    [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth',
      'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default.svc',
      '',
    ].join('\n'),
  );
  ssl([
    'x509',
    '-req',
    '-in',
    f('apiserver.csr'),
    '-CA',
    f('ca.crt'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-sha256',
    '-days',
    String(days),
    '-extfile',
    f('apiserver.ext'),
    '-out',
    f('apiserver.crt'),
  ]);
  return { caFile: f('ca.crt'), certFile: f('apiserver.crt'), keyFile: f('apiserver.key') };
}

function kubeconfigText(url, caFile, users) {
  return [
    'apiVersion: v1',
    'kind: Config',
    `current-context: ${Object.keys(users)[0]}`,
    'clusters:',
    '- name: e2e',
    '  cluster:',
    `    server: ${url}`,
    `    certificate-authority: ${caFile}`,
    'users:',
    ...Object.entries(users).flatMap(([k, u]) => [`- name: ${k}`, '  user:', `    token: ${u.token}`]),
    'contexts:',
    ...Object.keys(users).flatMap((k) => [`- name: ${k}`, '  context:', '    cluster: e2e', `    user: ${k}`]),
    '',
  ].join('\n');
}

/**
 * Options:
 * - apiserver: path of kube-apiserver (default: built and cached by e2e/build-kube-apiserver.sh).
 * - controllerManager: path of kube-controller-manager, or true to build it like kube-apiserver; when given, it
 *   runs against the API server with `controllers` (default DEFAULT_CONTROLLERS).
 * - servingCertDays: serve kube-apiserver with a certificate of ours valid that many days (see servingCert).
 * - hostname: run kube-apiserver in a UTS namespace of its own with this host name (root only: unshare(1)), so its
 *   identity lease names that "node"; addApiserver(hostname) then starts another on the same etcd as another node.
 * - netns: run etcd, kube-apiserver and kube-controller-manager in a network namespace of their own (root only:
 *   ip netns), so a test can give "nodes" addresses there that are not loopback (Endpoints refuse 127.0.0.0/8) and
 *   the API server really dials them. The harness reaches the API server through a Unix socket bridge
 *   (netns-bridge.mjs) on a loopback port outside; `cp.netns` names the namespace, and stop() deletes it.
 */
export async function startControlPlane({
  apiserver = buildApiserver(),
  controllerManager,
  controllers = DEFAULT_CONTROLLERS,
  controllerManagerFlags = [],
  servingCertDays,
  hostname,
  // admission plugins to keep on that the harness turns off for the other suites (e.g. PersistentVolumeClaimResize,
  // which what-if -f predicts)
  admission = [],
  netns = false,
  log = () => {},
} = {}) {
  if (controllerManager === true) controllerManager = buildControllerManager();
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-arch-e2e-'));
  const procs = [];
  const ns = netns ? `kxa-e2e-${randomUUID().slice(0, 8)}` : undefined;
  const stop = async () => {
    for (const p of procs.reverse()) await stopProc(p);
    if (ns) {
      try {
        execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
      } catch {
        /* already gone */
      }
    }
    if (!process.env.KEEP_E2E_DIR) rmSync(dir, { recursive: true, force: true });
  };
  if (ns) {
    execFileSync('ip', ['netns', 'add', ns], { stdio: ['ignore', 'ignore', 'pipe'] });
    execFileSync('ip', ['-n', ns, 'link', 'set', 'lo', 'up'], { stdio: ['ignore', 'ignore', 'pipe'] });
  }
  /** A process of the control plane, in the network namespace when there is one (ip netns exec execs it: the PID
   *  is the process's own). */
  const run = (bin, argv, opts) => (ns ? spawn('ip', ['netns', 'exec', ns, bin, ...argv], opts) : spawn(bin, argv, opts));
  try {
    const etcdClient = await freePort();
    const etcdPeer = await freePort();
    const etcd = run(
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
    const own = servingCertDays === undefined ? undefined : servingCert(dir, servingCertDays);
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
      ...(own ? [`--tls-cert-file=${own.certFile}`, `--tls-private-key-file=${own.keyFile}`] : []),
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
      // no serviceaccount controller runs (not even with the controller manager, see DEFAULT_CONTROLLERS): pods need
      // no ServiceAccount, and nothing else should mutate what the scenarios load
      `--disable-admission-plugins=${['ServiceAccount', 'DefaultStorageClass', 'DefaultIngressClass', 'StorageObjectInUseProtection', 'PersistentVolumeClaimResize', 'ResourceQuota', 'Priority'].filter((a) => !admission.includes(a)).join(',')}`,
      '--enable-priority-and-fairness=false',
      '--max-requests-inflight=2000',
      '--max-mutating-requests-inflight=1000',
      '--event-ttl=24h',
      // webhook and APIService backends are resolved through their Endpoints: a Service with no ready address
      // fails at once ("no endpoints available for service") and no cluster IP outside loopback is ever dialed
      '--enable-aggregator-routing=true',
    ];
    // a host name of its own (an identity lease per "node"): unshare a UTS namespace, set it, then exec kube-apiserver
    const named = (host, bin, argv) =>
      host
        ? run('unshare', ['--uts', '--', 'sh', '-c', 'hostname "$0" && exec "$@"', host, bin, ...argv], {
            stdio: ['ignore', 'ignore', 'pipe'],
          })
        : run(bin, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    let api = named(hostname, apiserver, args);
    procs.push(api);
    let apiErr = '';
    const listen = (p) =>
      p.stderr.on('data', (d) => {
        apiErr = (apiErr + d).slice(-8000);
      });
    listen(api);
    // inside the network namespace the API server is at its own port; the harness reaches it through the bridge
    const inner = `https://127.0.0.1:${port}`;
    const url = ns ? `https://127.0.0.1:${await bridge(ns, dir, port, procs)}` : inner;
    const caFile = own ? own.caFile : join(dir, 'certs', 'apiserver.crt');
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
    writeFileSync(kubeconfig, kubeconfigText(url, caFile, USERS));
    const conn = { url, caFile, token: USERS.admin.token };
    const admin = (m, p, b) => request(conn, m, p, b);

    let kcm;
    let kcmErr = '';
    if (controllerManager) {
      // its own kubeconfig with only the admin (system:masters): with --use-service-account-credentials=false every
      // controller uses it. --secure-port=0: no serving endpoint (nothing scrapes it), so no delegated authn lookups.
      const kcmConfig = join(dir, 'controller-manager.kubeconfig');
      writeFileSync(kcmConfig, kubeconfigText(inner, caFile, { admin: USERS.admin }));
      kcm = run(
        controllerManager,
        [
          `--kubeconfig=${kcmConfig}`,
          '--leader-elect=false',
          '--secure-port=0',
          '--use-service-account-credentials=false',
          `--controllers=${controllers.join(',')}`,
          // the default 20 QPS makes the first sync of ~30 Services and ~700 objects take seconds longer
          '--kube-api-qps=200',
          '--kube-api-burst=400',
          ...controllerManagerFlags,
        ],
        // argv[0] as in a real deployment: client-go derives the User-Agent from it (audit logs show kube-controller-manager/v1.36.3 …)
        { stdio: ['ignore', 'ignore', 'pipe'], argv0: 'kube-controller-manager' },
      );
      procs.push(kcm);
      kcm.stderr.on('data', (d) => {
        kcmErr = (kcmErr + d).slice(-8000);
      });
    }
    const controllerManagerLog = () => kcmErr;
    const assertControllerManager = () => {
      if (kcm && (kcm.exitCode !== null || kcm.signalCode !== null))
        throw new Error(`kube-controller-manager exited (${kcm.exitCode ?? kcm.signalCode}): ${kcmErr.slice(-2000)}`);
    };
    let probeN = 0;
    /**
     * Returns once the garbage collector has collected an object created now whose owner does not exist: it has
     * synced its monitors and is working through what it saw. Objects created before the probe with a missing owner
     * take the same path (graph, virtual owner, lookup, delete), so in practice they are gone by then too; informers
     * of different types are not ordered, so this is a barrier in practice, not by contract. The probe (a ConfigMap
     * in default) leaves nothing behind.
     */
    const gcBarrier = async (boundMs = 120_000) => {
      if (!kcm || !controllers.includes('garbage-collector-controller')) throw new Error('no garbage collector runs');
      const name = `kubectl-arch-e2e-gc-probe-${++probeN}`;
      const r = await admin('POST', '/api/v1/namespaces/default/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name,
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: `${name}-owner`, uid: randomUUID() }],
        },
      });
      if (r.status !== 201) throw new Error(`gc probe: ${r.status} ${r.text}`);
      const until = Date.now() + boundMs;
      while (Date.now() < until) {
        assertControllerManager();
        if ((await admin('GET', `/api/v1/namespaces/default/configmaps/${name}`)).status === 404) return;
        await sleep(200);
      }
      throw new Error(`the garbage collector did not collect ${name} within ${boundMs / 1000} s: ${kcmErr.slice(-2000)}`);
    };
    // a controller manager that connected, synced and acts (under a second when it works): tests start with it ready
    if (kcm && controllers.includes('garbage-collector-controller')) await gcBarrier();
    log(`control plane up: ${url} (dir ${dir})${kcm ? `, kube-controller-manager (${controllers.join(', ')})` : ''}`);
    // the sick-cluster case: etcd dies under a running API server (SIGKILL, by PID)
    const killEtcd = () =>
      new Promise((resolve) => {
        if (etcd.exitCode !== null || etcd.signalCode !== null) return resolve();
        etcd.once('exit', () => resolve());
        process.kill(etcd.pid, 'SIGKILL');
      });
    /** Another kube-apiserver on the same etcd, as another control-plane node (its own port, certificates and host
     *  name); stop() ends it (SIGKILL: it leaves its identity lease behind, as a crashed server does). */
    const addApiserver = async (host) => {
      const p2 = await freePort();
      const argv = args
        .filter((a) => !/^--(secure-port|cert-dir|audit-log-path)=/.test(a))
        .concat([`--secure-port=${p2}`, `--cert-dir=${join(dir, `certs-${host}`)}`, `--audit-log-path=${join(dir, `audit-${host}.log`)}`]);
      const a2 = named(host, apiserver, argv);
      procs.push(a2);
      let err2 = '';
      a2.stderr.on('data', (d) => {
        err2 = (err2 + d).slice(-4000);
      });
      const c2 = { url: `https://127.0.0.1:${p2}`, caFile: join(dir, `certs-${host}`, 'apiserver.crt'), token: USERS.admin.token };
      const until = Date.now() + 90_000;
      for (;;) {
        if (a2.exitCode !== null) throw new Error(`second kube-apiserver exited (${a2.exitCode}): ${err2.slice(-2000)}`);
        if (existsSync(c2.caFile) && (await request(c2, 'GET', '/readyz').catch(() => ({ status: 0 }))).status === 200) break;
        if (Date.now() > until) throw new Error(`second kube-apiserver not ready after 90 s: ${err2.slice(-2000)}`);
        await sleep(250);
      }
      return {
        url: c2.url,
        stop: () =>
          new Promise((resolve) => {
            if (a2.exitCode !== null || a2.signalCode !== null) return resolve();
            a2.once('exit', () => resolve());
            process.kill(a2.pid, 'SIGKILL');
          }),
      };
    };
    /** An upgrade (or a downgrade) for real: the kube-apiserver stopped (SIGTERM, as a rolling upgrade does) and this
     *  binary started in its place on the same etcd, with the same flags, port and certificates; resolves when ready. */
    const replaceApiserver = async (binary) => {
      await stopProc(api);
      apiErr = '';
      api = named(hostname, binary, args);
      procs.push(api);
      listen(api);
      const until = Date.now() + 90_000;
      for (;;) {
        if (api.exitCode !== null) throw new Error(`kube-apiserver ${binary} exited (${api.exitCode}): ${apiErr.slice(-2000)}`);
        if ((await request(conn, 'GET', '/readyz').catch(() => ({ status: 0 }))).status === 200) break;
        if (Date.now() > until) throw new Error(`kube-apiserver ${binary} not ready after 90 s: ${apiErr.slice(-2000)}`);
        await sleep(250);
      }
      log(`kube-apiserver replaced by ${binary}`);
    };
    return {
      addApiserver,
      replaceApiserver,
      dir,
      netns: ns,
      url,
      caFile,
      kubeconfig,
      servingCert: own?.certFile,
      auditLog: join(dir, 'audit.log'),
      get pids() {
        return procs.map((p) => p.pid);
      },
      etcdPid: etcd.pid,
      controllerManagerPid: kcm?.pid,
      controllers: kcm ? [...controllers] : [],
      controllerManagerLog,
      assertControllerManager,
      gcBarrier,
      killEtcd,
      admin,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

const BRIDGE = fileURLToPath(new URL('./netns-bridge.mjs', import.meta.url));

/** Starts a bridge process and resolves once it prints "ready" (or rejects with its stderr if it exits first). */
function started(child, what) {
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr?.on('data', (d) => {
      err = (err + d).slice(-2000);
    });
    child.stdout.on('data', (d) => {
      if (String(d).includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}): ${err}`)));
  });
}

/** The API server's port inside network namespace ns, reached from a loopback port outside: a Unix socket in dir
 *  between a forwarder inside and a listener outside. Resolves to the outside port. */
async function bridge(ns, dir, port, procs) {
  const sock = join(dir, 'apiserver.sock');
  const inside = spawn('ip', ['netns', 'exec', ns, process.execPath, BRIDGE, 'listen-unix', sock, '127.0.0.1', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  procs.push(inside);
  await started(inside, 'the bridge inside the network namespace');
  const outer = await freePort();
  const outside = spawn(process.execPath, [BRIDGE, 'listen-tcp', '127.0.0.1', String(outer), sock], { stdio: ['ignore', 'pipe', 'pipe'] });
  procs.push(outside);
  await started(outside, 'the bridge outside the network namespace');
  return outer;
}

/** A process in network namespace ns (a test's webhook server), resolved once it prints "ready"; stopped by PID. */
export async function startInNetns(ns, bin, argv) {
  const child = spawn('ip', ['netns', 'exec', ns, bin, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
  await started(child, `${bin} in ${ns}`);
  return { pid: child.pid, stop: () => stopProc(child) };
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
