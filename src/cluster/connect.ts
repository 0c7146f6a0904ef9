// Turn a resolved kubeconfig into an ApiClient. Tokens, token files and exec plugins are ours (so a
// hung plugin times out and a missing credential is an error, not an anonymous request); client
// certificates, CAs and legacy auth providers go through @kubernetes/client-node, imported lazily
// because loading it costs time that offline commands should not pay.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { InputError } from '../errors.js';
import { whyNot } from '../lib/files.js';
import { termSafe } from '../lib/safe.js';
import { ApiClient, type ClientOptions, type TransportOptions } from './client.js';
import { runExecPlugin, type ExecConfig } from './exec.js';
import type { ResolvedConfig } from './kubeconfig.js';

type UserEntry = Record<string, unknown> & {
  token?: string;
  tokenFile?: string;
  'token-file'?: string;
  exec?: ExecConfig;
  'auth-provider'?: unknown;
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  username?: string;
};

/** What the kubeconfig says this user authenticates with (empty: deliberately anonymous). */
function declaredCredentials(u: UserEntry): string[] {
  return ['token', 'tokenFile', 'token-file', 'exec', 'auth-provider', 'client-certificate', 'client-certificate-data', 'username'].filter(
    (k) => u[k] !== undefined && u[k] !== null && u[k] !== '',
  );
}

function readTokenFile(user: string, file: string): string {
  let t: string;
  try {
    t = readFileSync(file, 'utf8').trim();
  } catch (e) {
    throw new InputError(`user "${user}": cannot read tokenFile ${file}: ${whyNot(e as NodeJS.ErrnoException)}`);
  }
  if (!t) throw new InputError(`user "${user}": tokenFile ${file} is empty`);
  return t;
}

interface Auth {
  opts: Record<string, unknown>;
  refresh: () => Promise<Record<string, string>>;
}

async function authOptions(cfg: ResolvedConfig, timeoutMs: number, signal?: AbortSignal): Promise<Auth> {
  const userEntry = cfg.raw.users[0]!;
  const userName = userEntry.name;
  const u = { ...((userEntry.user ?? {}) as UserEntry) };
  const declared = declaredCredentials(u);
  // ours: bearer tokens from a file (kubeconfig's key is tokenFile; client-node reads only token-file) and exec plugins
  const tokenFile = u.tokenFile ?? u['token-file'];
  const exec = u.exec;
  delete u.tokenFile;
  delete u['token-file'];
  delete u.exec;
  const clusterEntry = cfg.raw.clusters[0]!;
  const ours = async (): Promise<{ headers: Record<string, string>; cert?: string; key?: string }> => {
    if (exec) {
      const r = await runExecPlugin(userName, exec, { timeoutMs, cluster: clusterEntry.cluster as Record<string, unknown>, signal });
      return { headers: r.token ? { Authorization: `Bearer ${r.token}` } : {}, cert: r.cert, key: r.key };
    }
    if (typeof tokenFile === 'string' && tokenFile !== '' && !u.token)
      return { headers: { Authorization: `Bearer ${readTokenFile(userName, tokenFile)}` } };
    return { headers: {} };
  };

  const { KubeConfig } = await import('@kubernetes/client-node/dist/config.js');
  const kc = new KubeConfig();
  // plain http (kubectl proxy, a local test server) has no TLS to verify; client-node refuses it otherwise
  const cluster = cfg.server.startsWith('http:')
    ? { ...(clusterEntry.cluster as object), 'insecure-skip-tls-verify': true }
    : clusterEntry.cluster;
  // client-node sees one cluster, user and context under names of ours: it refuses names it finds invalid (a
  // context named "" is a kubeconfig's right), and it needs no name for anything
  const one = {
    clusters: [{ name: 'cluster', cluster }],
    users: [{ name: 'user', user: u }],
    contexts: [{ name: 'context', context: { cluster: 'cluster', user: 'user' } }],
    'current-context': 'context',
  };
  try {
    // handed over as JSON (YAML's subset): no YAML writer in this chunk
    kc.loadFromString(JSON.stringify(one));
  } catch (e) {
    throw new InputError(`kubeconfig context "${termSafe(cfg.contextName)}" is invalid: ${(e as Error).message}`);
  }
  const apply = async (): Promise<Record<string, unknown>> => {
    const opts: Record<string, unknown> = { headers: {} };
    try {
      await kc.applyToHTTPSOptions(opts);
    } catch (e) {
      throw new InputError(`cannot get credentials for context "${termSafe(cfg.contextName)}": ${(e as Error).message}`);
    }
    const o = await ours();
    opts.headers = { ...(opts.headers as Record<string, string>), ...o.headers };
    if (o.cert && o.key) {
      opts.cert = o.cert;
      opts.key = o.key;
    }
    const headers = opts.headers as Record<string, string>;
    const hasCredential = Boolean(headers.Authorization || headers.authorization || opts.cert || opts.auth);
    if (declared.length && !hasCredential) {
      throw new InputError(
        `user "${termSafe(userName)}" in context "${termSafe(cfg.contextName)}" declares ${declared.join(', ')} but produced no credential`,
        'kubectl-arch will not fall back to an anonymous request; fix the user entry in the kubeconfig',
      );
    }
    return opts;
  };
  const opts = await apply();
  return { opts, refresh: async () => ((await apply()).headers ?? {}) as Record<string, string> };
}

export async function connect(cfg: ResolvedConfig, clientOpts: ClientOptions): Promise<ApiClient> {
  const { opts, refresh } = await authOptions(
    cfg,
    clientOpts.deadline ? Math.max(1000, clientOpts.deadline.remaining()) : clientOpts.timeoutMs,
    clientOpts.signal,
  );
  const transport: TransportOptions = {
    server: cfg.server,
    ca: opts.ca as Buffer | undefined,
    cert: opts.cert as Buffer | undefined,
    key: opts.key as Buffer | undefined,
    rejectUnauthorized: opts.rejectUnauthorized as boolean | undefined,
    servername: opts.servername as string | undefined,
    headers: { ...((opts.headers ?? {}) as Record<string, string>) },
    refreshHeaders: refresh,
  };
  if (opts.cert) {
    try {
      const c = new X509Certificate(opts.cert as Buffer | string);
      transport.clientCert = {
        subject: c.subject.replace(/\n/g, ', '),
        issuer: c.issuer.replace(/\n/g, ', '),
        notAfter: new Date(c.validTo).toISOString(),
      };
    } catch {
      /* not parseable here: TLS will say so */
    }
  }
  if (typeof opts.auth === 'string') {
    transport.headers!.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  }
  return new ApiClient(transport, clientOpts);
}
