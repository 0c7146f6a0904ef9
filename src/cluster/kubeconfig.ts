// kubeconfig with kubectl's semantics: KUBECONFIG is a list merged first-wins (missing files skipped),
// --kubeconfig replaces it, --context/--cluster/--user override, in-cluster service account as fallback.
// Parsing and merging are ours (so errors name the file and line); authentication is delegated to
// @kubernetes/client-node (tokens, certs, exec plugins, auth providers), loaded only when a cluster is used.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { load } from 'js-yaml';
import { InputError } from '../errors.js';
import { termSafe } from '../lib/safe.js';

/** A name from a kubeconfig inside a message: on one line whatever it holds (messages keep their own line breaks). */
const q = (name: string | undefined): string => termSafe(name ?? '');

export interface ConnectionFlags {
  kubeconfig?: string;
  context?: string;
  cluster?: string;
  user?: string;
  namespace?: string;
}

type Named = { name: string; [k: string]: unknown };

export interface RawKubeconfig {
  clusters: Named[];
  users: Named[];
  contexts: Named[];
  'current-context'?: string;
}

export interface ResolvedConfig {
  /** Merged kubeconfig restricted to the chosen context, in kubeconfig format. */
  raw: RawKubeconfig;
  contextName: string;
  server: string;
  namespace?: string;
  inCluster: boolean;
  sources: string[];
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

function absolutise(obj: Record<string, unknown> | undefined, keys: string[], base: string): void {
  if (!obj) return;
  for (const k of keys) {
    const v = obj[k];
    if (typeof v === 'string' && v !== '' && !isAbsolute(v)) obj[k] = join(base, v);
  }
}

function readKubeconfig(file: string): RawKubeconfig {
  let doc: unknown;
  try {
    // kubectl accepts an empty file in a KUBECONFIG list (and a byte-order mark)
    const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
    if (text.trim() === '') return { clusters: [], users: [], contexts: [] };
    doc = load(text, { maxAliases: 100 });
  } catch (e) {
    const ye = e as { mark?: { line?: number }; line?: number; reason?: string; message: string; code?: string };
    if (ye.code === 'ENOENT') throw new InputError(`kubeconfig ${file} does not exist`, 'check --kubeconfig or KUBECONFIG');
    if (ye.code) throw new InputError(`cannot read kubeconfig ${file}: ${ye.message}`);
    const line = (ye.mark?.line ?? ye.line ?? 0) + 1;
    throw new InputError(`kubeconfig ${file}:${line}: malformed YAML: ${ye.reason ?? ye.message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return { clusters: [], users: [], contexts: [] };
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new InputError(`kubeconfig ${file}: not a kubeconfig (expected a mapping)`);
  const d = doc as Record<string, unknown>;
  const list = (k: string): Named[] => {
    const v = d[k];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw new InputError(`kubeconfig ${file}: "${k}" must be a list`);
    const field = k === 'clusters' ? 'cluster' : k === 'users' ? 'user' : 'context';
    for (const e of v) {
      if (!e || typeof e !== 'object' || typeof (e as Named).name !== 'string') {
        throw new InputError(`kubeconfig ${file}: every entry of "${k}" needs a name`);
      }
      // `user: "oops"` must not quietly become an anonymous user
      const body = (e as Named)[field];
      if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
        throw new InputError(
          `kubeconfig ${file}: ${k} entry "${q((e as Named).name)}": "${field}" must be a mapping, found ${Array.isArray(body) ? 'a list' : typeof body}`,
        );
      }
    }
    return v as Named[];
  };
  const base = dirname(file);
  const cfg: RawKubeconfig = { clusters: list('clusters'), users: list('users'), contexts: list('contexts') };
  // current-context: "" is none, as in kubectl
  if (typeof d['current-context'] === 'string' && d['current-context'] !== '') cfg['current-context'] = d['current-context'];
  for (const c of cfg.clusters) absolutise(c.cluster as Record<string, unknown>, ['certificate-authority'], base);
  for (const u of cfg.users) absolutise(u.user as Record<string, unknown>, ['client-certificate', 'client-key', 'tokenFile'], base);
  // a relative exec command with a path ("./bin/auth") is relative to the kubeconfig, like kubectl
  for (const u of cfg.users) {
    const exec = (u.user as { exec?: { command?: unknown } } | undefined)?.exec;
    if (exec && typeof exec.command === 'string' && exec.command.includes('/') && !isAbsolute(exec.command))
      exec.command = join(base, exec.command);
  }
  return cfg;
}

/** The names of the contexts (clusters, users) in the kubeconfig files kubectl would read, merged first-wins: the
 *  one reader behind --all-contexts and shell completion. Lenient (completion): a file that cannot be read offers
 *  nothing instead of an error. */
export function kubeconfigNames(
  flags: Pick<ConnectionFlags, 'kubeconfig'>,
  kind: 'contexts' | 'clusters' | 'users',
  lenient = false,
): string[] {
  const configs: RawKubeconfig[] = [];
  for (const f of kubeconfigPaths(flags)) {
    try {
      configs.push(readKubeconfig(f));
    } catch (e) {
      if (!lenient) throw e;
    }
  }
  return mergeKubeconfigs(configs)[kind].map((c) => c.name);
}

/** Merge like kubectl: the first file to define a name (or current-context) wins. */
export function mergeKubeconfigs(configs: RawKubeconfig[]): RawKubeconfig {
  const out: RawKubeconfig = { clusters: [], users: [], contexts: [] };
  const add = (into: Named[], from: Named[]): void => {
    for (const e of from) if (!into.some((x) => x.name === e.name)) into.push(e);
  };
  for (const c of configs) {
    add(out.clusters, c.clusters);
    add(out.users, c.users);
    add(out.contexts, c.contexts);
    if (!out['current-context'] && c['current-context']) out['current-context'] = c['current-context'];
  }
  return out;
}

export function kubeconfigPaths(flags: ConnectionFlags, env = process.env): string[] {
  if (flags.kubeconfig) return [flags.kubeconfig];
  if (env.KUBECONFIG) return env.KUBECONFIG.split(delimiter).filter((p) => p !== '' && existsSync(p));
  const home = join(env.HOME ?? homedir(), '.kube', 'config');
  return existsSync(home) ? [home] : [];
}

function inClusterConfig(env: NodeJS.ProcessEnv, saDir: string): RawKubeconfig | null {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  if (!host || !existsSync(join(saDir, 'token'))) return null;
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    clusters: [{ name: 'in-cluster', cluster: { server, 'certificate-authority': join(saDir, 'ca.crt') } }],
    users: [{ name: 'in-cluster', user: { tokenFile: join(saDir, 'token') } }],
    contexts: [{ name: 'in-cluster', context: { cluster: 'in-cluster', user: 'in-cluster', namespace: readNs(saDir) } }],
    'current-context': 'in-cluster',
  };
}

function readNs(saDir: string): string | undefined {
  try {
    return readFileSync(join(saDir, 'namespace'), 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** saDir is the pod's service-account mount (a parameter so tests can point it elsewhere). */
export function resolveConfig(flags: ConnectionFlags, env = process.env, saDir = SA_DIR): ResolvedConfig {
  const paths = kubeconfigPaths(flags, env);
  let merged: RawKubeconfig;
  let inCluster = false;
  if (paths.length === 0) {
    const ic = inClusterConfig(env, saDir);
    if (!ic) {
      throw new InputError(
        'no kubeconfig found (KUBECONFIG is empty, ~/.kube/config does not exist, and not running in a pod)',
        'pass --kubeconfig FILE, set KUBECONFIG, or use --snapshot FILE to work offline',
      );
    }
    merged = ic;
    inCluster = true;
  } else {
    merged = mergeKubeconfigs(paths.map(readKubeconfig));
  }
  // a context named "" is a name like any other (--all-contexts passes it); only undefined means "the current one"
  const contextName = flags.context !== undefined ? flags.context : merged['current-context'];
  if (contextName === undefined && !(flags.cluster && flags.user)) {
    throw new InputError('kubeconfig has no current-context', 'pass --context NAME (see: kubectl config get-contexts)');
  }
  const ctxEntry = contextName !== undefined ? merged.contexts.find((c) => c.name === contextName) : undefined;
  if (contextName !== undefined && !ctxEntry && !(flags.cluster && flags.user)) {
    const names = merged.contexts.map((c) => q(c.name)).join(', ') || 'none';
    throw new InputError(
      `context "${q(contextName)}" does not exist in the kubeconfig (contexts: ${names})`,
      'see: kubectl config get-contexts',
    );
  }
  const ctx = (ctxEntry?.context ?? {}) as Record<string, string | undefined>;
  const clusterName = flags.cluster ?? ctx.cluster;
  const userName = flags.user ?? ctx.user;
  const cluster = merged.clusters.find((c) => c.name === clusterName);
  if (!cluster) throw new InputError(`cluster "${q(clusterName)}" (context "${q(contextName)}") does not exist in the kubeconfig`);
  const server = (cluster.cluster as Record<string, unknown> | undefined)?.server;
  if (typeof server !== 'string' || server === '') throw new InputError(`cluster "${q(cluster.name)}" has no server URL in the kubeconfig`);
  let url: URL | undefined;
  try {
    url = new URL(server);
  } catch {
    /* reported below */
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new InputError(
      `cluster "${q(cluster.name)}": server "${q(server)}" is not an http(s) URL`,
      'the kubeconfig server must look like https://host:6443',
    );
  }
  const user = merged.users.find((u) => u.name === userName) ?? { name: userName ?? 'anonymous', user: {} };
  if (userName && !merged.users.some((u) => u.name === userName)) {
    throw new InputError(`user "${q(userName)}" does not exist in the kubeconfig`);
  }
  const name = contextName !== undefined ? contextName : `${cluster.name}/${user.name}`;
  const raw: RawKubeconfig = {
    clusters: [cluster],
    users: [user],
    contexts: [{ name, context: { cluster: cluster.name, user: user.name, namespace: ctx.namespace } }],
    'current-context': name,
  };
  return { raw, contextName: name, server, namespace: flags.namespace ?? ctx.namespace, inCluster, sources: paths };
}
