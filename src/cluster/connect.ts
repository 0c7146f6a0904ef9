// Turn a resolved kubeconfig into an ApiClient. @kubernetes/client-node is imported here, lazily,
// because loading it costs hundreds of milliseconds that offline commands should not pay.
import { dump } from 'js-yaml';
import { InputError } from '../errors.js';
import { ApiClient, type ClientOptions, type TransportOptions } from './client.js';
import type { ResolvedConfig } from './kubeconfig.js';

async function authOptions(cfg: ResolvedConfig): Promise<{ opts: Record<string, unknown>; refresh: () => Promise<Record<string, string>> }> {
  const { KubeConfig } = await import('@kubernetes/client-node/dist/config.js');
  const kc = new KubeConfig();
  // plain http (kubectl proxy, a local test server) has no TLS to verify; client-node refuses it otherwise
  const raw = cfg.server.startsWith('http:')
    ? { ...cfg.raw, clusters: cfg.raw.clusters.map((c) => ({ ...c, cluster: { ...(c.cluster as object), 'insecure-skip-tls-verify': true } })) }
    : cfg.raw;
  try {
    kc.loadFromString(dump(raw));
  } catch (e) {
    throw new InputError(`kubeconfig context "${cfg.contextName}" is invalid: ${(e as Error).message}`);
  }
  const apply = async (): Promise<Record<string, unknown>> => {
    const opts: Record<string, unknown> = { headers: {} };
    try {
      await kc.applyToHTTPSOptions(opts);
    } catch (e) {
      throw new InputError(`cannot get credentials for context "${cfg.contextName}": ${(e as Error).message}`,
        'if the user runs an exec credential plugin, run it by hand to see its error');
    }
    return opts;
  };
  const opts = await apply();
  return { opts, refresh: async () => ((await apply()).headers ?? {}) as Record<string, string> };
}

export async function connect(cfg: ResolvedConfig, clientOpts: ClientOptions): Promise<ApiClient> {
  const { opts, refresh } = await authOptions(cfg);
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
  if (typeof opts.auth === 'string') {
    transport.headers!.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  }
  return new ApiClient(transport, clientOpts);
}
