// Shared by commands: global flags, getting a snapshot (from files or from the cluster), output.
import { EXIT, InputError } from '../errors.js';
import { onInterrupt } from '../lifecycle.js';
import { SEVERITY_RANK, type Need, type ReportSource } from '../model.js';
import { wantColor, makeStyle, type Style } from '../render/style.js';
import { termSafe } from '../lib/safe.js';
import type { NodeGet } from '../checks/types.js';
import type { Deadline } from '../lib/deadline.js';
import { parseBytes, runGuard, type MemoryGuard } from '../lib/memory.js';
import type { NamedRef, Snapshot } from '../snapshot/snapshot.js';
import type { Output } from '../render/formats/model.js';

/** The flags of the commands, as yargs parses them. A command gets only those it takes (TAKES in src/complete.ts:
 *  e.g. no --snapshot for explain, no -o for rbac), the others are undefined; -o is one of its own formats. */
export interface GlobalArgs {
  kubeconfig?: string;
  context?: string;
  cluster?: string;
  user?: string;
  namespace?: string;
  'all-namespaces'?: boolean;
  output: Output;
  'request-timeout'?: string;
  deadline?: string;
  color?: boolean;
  'fail-on': 'none' | 'warning' | 'error';
  verbose?: boolean;
  snapshot?: string;
  /** doctor, orphans, quorum: several contexts in one run (comma-separated), or every context of the kubeconfig. */
  contexts?: string;
  'all-contexts'?: boolean;
  /** Contexts run at once (default 4), as typed: checked by the command. */
  parallel?: string | number;
  /** Accepted-risk config file; false with --no-config. */
  config?: string | boolean;
  /** A previous -o json of the same command: findings are new or unchanged against it, --fail-on counts new ones. */
  baseline?: string;
  /** -o sarif: also write what is not open (accepted risks, findings fixed since the baseline). */
  'sarif-all'?: boolean;
  /** -o policyreport|openreports: labels every report carries (KEY=VALUE). */
  'report-label'?: string[];
  /** Set by the multi-context runner (not a flag): this run is one context of several (no spinner, log lines prefixed). */
  fleetMember?: string;
  /** Set by the MCP server (not flags): what is being fetched, and a signal that stops the run's requests. */
  hooks?: RunHooks;
  /** Set by the multi-context runner (not a flag): the run's one --deadline, shared by its contexts. */
  runDeadline?: Deadline;
  /** The memory a run may use before it stops taking in more (e.g. 400Mi); default: the container's limit. */
  'max-memory'?: string;
  /** Set by the multi-context runner (not a flag): the run's one memory guard. */
  runMemory?: MemoryGuard;
}

export interface RunHooks {
  progress?: (what: string) => void;
  signal?: AbortSignal;
  /** An MCP call's own memory guard (the server lives on after a call that came near the limit). */
  memory?: MemoryGuard;
}

/** kubectl-style duration: "30", "30s", "1m", "500ms", "0" (no limit). flag names the option in errors. */
export function parseDuration(s: string | undefined, fallbackMs: number, flag = '--request-timeout'): number {
  if (s === undefined || s === '') return fallbackMs;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(String(s).trim());
  if (!m) throw new InputError(`invalid ${flag} "${s}" (use e.g. 30s, 1m, 500ms, or 0 for none)`);
  const n = Number(m[1]);
  const ms = n * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 's'] ?? 1000);
  return ms === 0 ? 24 * 3_600_000 : ms;
}

/** The documented exit code for the worst finding (its SEVERITY_RANK, or -1 for none) under --fail-on. */
export function exitFor(worstRank: number, failOn: GlobalArgs['fail-on']): number {
  return failOn !== 'none' && worstRank >= SEVERITY_RANK[failOn] ? EXIT.FINDINGS : EXIT.OK;
}

export function scopeNamespace(args: GlobalArgs): string | undefined {
  return args['all-namespaces'] ? undefined : args.namespace;
}

export function stdoutStyle(args: GlobalArgs): Style {
  return makeStyle(wantColor(args.color, process.stdout));
}

export interface Acquired {
  snap: Snapshot;
  source: ReportSource;
}

const DEFAULT_CLIENT_TIMEOUT_MS = 30_000;

/** Spinner on stderr, only on a real terminal of sane width (a 0-column terminal made ora redraw in a
 *  tight loop), never when verbose (the request log would garble it). It leaves stdin alone, and
 *  Ctrl-C stops it (lifecycle.ts). */
async function spinner(args: GlobalArgs): Promise<{ text(t: string): void; stop(): void }> {
  const none = { text: () => {}, stop: () => {} };
  if (
    !process.stderr.isTTY ||
    args.verbose ||
    args.fleetMember !== undefined ||
    args.output !== 'table' ||
    !((process.stderr.columns ?? 0) >= 20)
  )
    return none;
  const { default: ora } = await import('ora');
  const sp = ora({ stream: process.stderr, text: 'connecting', discardStdin: false, hideCursor: false }).start();
  const unregister = onInterrupt(() => sp.stop());
  return {
    text: (t) => {
      sp.text = `fetching ${t}`;
    },
    stop: () => {
      unregister();
      sp.stop();
    },
  };
}

export const DEFAULT_DEADLINE_MS = 30_000;

/** The run's time limit, from now: one for a whole run, shared by all its contexts (a usage error before any request). */
export async function runDeadline(args: GlobalArgs): Promise<Deadline> {
  const { Deadline } = await import('../lib/deadline.js');
  return new Deadline(parseDuration(args.deadline, DEFAULT_DEADLINE_MS, '--deadline'));
}

/** The run's memory guard: --max-memory, else the container's limit (a usage error before any request). */
export function runMemory(args: GlobalArgs): MemoryGuard {
  const own = args.runMemory ?? args.hooks?.memory;
  if (own) return own;
  const max = args['max-memory'];
  if (max !== undefined && parseBytes(String(max)) === undefined)
    throw new InputError(`invalid --max-memory "${String(max)}" (use e.g. 400Mi, 1Gi, or bytes)`);
  return runGuard(max === undefined ? undefined : String(max));
}

export async function acquire(
  args: GlobalArgs,
  needs: Need[],
  extra: { allTypes?: boolean; nodeGets?: NodeGet[]; named?: { refs: NamedRef[]; defaultNamespace: string } } = {},
): Promise<Acquired> {
  const namespace = scopeNamespace(args);
  const memory = runMemory(args);
  if (args.snapshot) {
    const { loadSnapshot } = await import('../snapshot/load.js');
    const snap = loadSnapshot(args.snapshot, needs);
    const scoped = namespace ? snap.scoped(namespace) : snap;
    return {
      snap: scoped,
      source: { type: 'snapshot', path: args.snapshot, capturedAt: snap.header.capturedAt, context: snap.header.context, namespace },
    };
  }
  const timeoutMs = parseDuration(args['request-timeout'], DEFAULT_CLIENT_TIMEOUT_MS);
  const deadline = args.runDeadline ?? (await runDeadline(args));
  const { resolveConfig } = await import('../cluster/kubeconfig.js');
  const cfg = resolveConfig({
    kubeconfig: args.kubeconfig,
    // a context of several is named exactly (even ""); a --context "" typed alone means none, as in kubectl
    context: args.fleetMember ?? (args.context || undefined),
    cluster: args.cluster,
    user: args.user,
    namespace: args.namespace,
  });
  const { connect } = await import('../cluster/connect.js');
  const { DEFAULT_CLIENT_OPTIONS } = await import('../cluster/client.js');
  const { fetchSnapshot } = await import('../cluster/fetch.js');
  // several contexts at once: each request line says which context it belongs to
  const prefix = args.fleetMember !== undefined ? `[${termSafe(args.fleetMember)}] ` : '';
  const log = args.verbose ? (l: string) => process.stderr.write(`${prefix}${l}\n`) : undefined;
  const client = await connect(cfg, { ...DEFAULT_CLIENT_OPTIONS, timeoutMs, deadline, memory, log, signal: args.hooks?.signal });
  const sp = await spinner(args);
  const report = args.hooks?.progress;
  try {
    const snap = await fetchSnapshot(client, needs, {
      namespace,
      contextName: cfg.contextName,
      server: cfg.server,
      progress: report
        ? (t) => {
            sp.text(t);
            report(`${prefix}${t}`);
          }
        : sp.text,
      nodeGets: extra.nodeGets,
      allTypes: extra.allTypes,
      named: extra.named,
    });
    return {
      snap,
      source: { type: 'cluster', context: cfg.contextName, cluster: cfg.raw.clusters[0]?.name, server: cfg.server, namespace },
    };
  } finally {
    sp.stop();
    client.close();
  }
}
