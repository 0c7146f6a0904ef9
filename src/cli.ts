// Entry point. Keep imports here light: commands and the Kubernetes client load on demand, so
// `version` and `--help` start fast.
import { resetRunGuard, runReached } from './lib/memory.js';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { EXIT, InputError, UserError } from './errors.js';
import { installProcessHandlers } from './lifecycle.js';
import { termSafe } from './lib/safe.js';
import { command } from './lib/shell.js';
import { versionLine } from './fast-paths.js';
import { EXAMPLES, outputRefusal, TAKES } from './complete.js';
import type { GlobalArgs } from './commands/common.js';
import type { Argv, Options } from 'yargs';

const fleet = (cmd: string): boolean => TAKES[cmd]!.flags.includes('contexts');
const cluster = (cmd: string): boolean => TAKES[cmd]!.flags.includes('kubeconfig');

/** What -o means for each command (its values are its choices, from TAKES). */
const OUTPUT_MEANS: Record<string, string> = {
  doctor:
    'Output format: table (text for people; -o text works too), JSON or YAML; SARIF, JUnit, Prometheus, PolicyReport or OpenReports for CI and monitoring; html, a self-contained page',
  map: 'Output format: table (text for people; -o text works too), JSON or YAML; html, a self-contained page; the graph in Mermaid or Graphviz dot',
  'what-if':
    'Output format: table (text for people; -o text works too), JSON or YAML; html, the predictions drawn on the map of the cluster as it would be',
  snapshot: 'Output format: standard Kubernetes YAML, or JSON',
  orphans:
    'Output format: table (text for people; -o text works too), JSON or YAML; SARIF, JUnit, Prometheus, PolicyReport or OpenReports for CI and monitoring',
  quorum:
    'Output format: table (text for people; -o text works too), JSON or YAML; SARIF, JUnit, Prometheus, PolicyReport or OpenReports for CI and monitoring (not with --etcd-endpoints)',
  diff: 'Output format: table (text; -o text works too), JSON or YAML; markdown for a pull-request comment',
  explain: 'Output format: table (text; -o text works too), or the documentation as JSON or YAML',
  version: 'Output format: table (text; -o text works too), JSON or YAML',
};

/** The yargs declaration of every flag, for the command that takes it; which command takes which is TAKES
 *  (src/complete.ts), the one table --help, the parser and completion all follow. */
const OPTIONS: Record<string, (cmd: string) => Options> = {
  kubeconfig: () => ({
    type: 'string',
    describe: 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)',
    group: 'Cluster:',
  }),
  context: (cmd) => ({
    type: 'string',
    describe: cmd === 'mcp' ? 'kubeconfig context of a call that names none' : 'kubeconfig context to use',
    group: 'Cluster:',
  }),
  cluster: () => ({ type: 'string', describe: 'kubeconfig cluster to use', group: 'Cluster:' }),
  user: () => ({ type: 'string', describe: 'kubeconfig user to use', group: 'Cluster:' }),
  namespace: (cmd) => ({
    alias: 'n',
    type: 'string',
    describe:
      cmd === 'what-if'
        ? 'With -f: the namespace of manifests that name none (default: default); not with nodes, which run pods of every namespace'
        : 'Limit namespaced objects to this namespace (default: all)',
    group: 'Cluster:',
  }),
  'all-namespaces': () => ({ alias: 'A', type: 'boolean', describe: 'All namespaces (the default; overrides -n)', group: 'Cluster:' }),
  'request-timeout': () => ({
    type: 'string',
    describe: 'Timeout per request, e.g. 30s, 1m (0 = none)',
    default: '30s',
    group: 'Cluster:',
  }),
  deadline: (cmd) => ({
    type: 'string',
    describe: fleet(cmd)
      ? 'Time limit for the whole run, all contexts together; what is not fetched by then is reported as not visible, a context not started by then as not run'
      : cmd === 'mcp'
        ? 'Time limit for each tool call'
        : 'Time limit for the whole run; what is not fetched by then is reported as not visible',
    default: '30s',
    group: 'Cluster:',
  }),
  'max-memory': () => ({
    type: 'string',
    describe:
      "Memory the run may use, e.g. 400Mi (default: the container's limit); near it, the run stops fetching and reports what it could not judge (exit 3)",
    group: 'Cluster:',
  }),
  snapshot: () => ({
    type: 'string',
    describe: `Work offline on a snapshot FILE or DIR (kubectl arch snapshot, or kubectl get -o yaml|json output); ${EXAMPLES.join(', ')} names the example embedded in kubectl-arch`,
    group: 'Cluster:',
  }),
  output: (cmd) => {
    const outputs = TAKES[cmd]!.outputs ?? [];
    return { alias: 'o', choices: outputs, default: outputs[0], describe: OUTPUT_MEANS[cmd] ?? 'Output format' };
  },
  'fail-on': (cmd) => ({
    choices: ['none', 'warning', 'error'] as const,
    default: 'error' as const,
    describe:
      cmd === 'diff'
        ? 'Exit 1 when a finding at least this severe appeared (or got worse)'
        : cmd === 'what-if'
          ? 'Exit 1 when a prediction is at least this severe'
          : 'Exit 1 when a finding is at least this severe',
  }),
  color: () => ({ type: 'boolean', describe: 'Colour on a TTY (--no-color or NO_COLOR turns it off)' }),
  verbose: (cmd) => ({
    alias: 'v',
    type: 'boolean',
    describe: cluster(cmd) ? 'Log every request (method, path, status, ms) and stacks to stderr' : 'Print the stack of an error to stderr',
  }),
  baseline: (cmd) => ({
    type: 'string',
    describe:
      cmd === 'what-if'
        ? 'A previous what-if -o json: mark each prediction new or unchanged; --fail-on counts the new ones only'
        : 'A previous -o json of this command: mark each finding new or unchanged, list what is fixed, and let --fail-on count the new ones only',
    group: 'Pipelines:',
  }),
  'sarif-all': () => ({
    type: 'boolean',
    describe:
      '-o sarif: also write what is not open — accepted risks (suppressions) and, with --baseline, what is fixed (baselineState absent). GitHub code scanning ignores both and would show them as open alerts; by default they are counted, not written',
    group: 'Pipelines:',
  }),
  'report-label': () => ({
    type: 'string',
    array: true,
    describe:
      '-o policyreport|openreports: a label every report carries, KEY=VALUE (repeatable): deploy/cronjob.yaml marks each run, then deletes the reports of earlier runs',
    group: 'Pipelines:',
  }),
  contexts: () => ({
    type: 'string',
    describe: 'Run on these kubeconfig contexts (comma-separated) at once: a summary table, then each report',
    group: 'Many clusters:',
  }),
  'all-contexts': () => ({ type: 'boolean', describe: 'Run on every context of the kubeconfig', group: 'Many clusters:' }),
  parallel: () => ({
    // a string, checked by the command: yargs' number type turns "abc" into NaN before anyone can name it
    type: 'string',
    default: '4',
    describe: 'Contexts run at once with --contexts/--all-contexts',
    group: 'Many clusters:',
  }),
  config: (cmd) => ({
    type: 'string',
    describe:
      cmd === 'mcp'
        ? 'Accepted-risk rules (ignore:) from FILE; default: the user config file and ./.kubectl-arch.yaml; --no-config reads none'
        : 'Accepted-risk rules (ignore:) from FILE only; default: the user config file, and ./.kubectl-arch.yaml when the user config lists this directory under trust:; --no-config reads none',
    group: 'Accepted risks:',
  }),
  deep: (cmd) => ({
    type: 'boolean',
    default: false,
    describe:
      cmd === 'snapshot' ? 'Include what --deep checks read' : 'Also read kubelet configs through nodes/proxy (needs get nodes/proxy)',
  }),
  'stuck-after': () => ({
    type: 'string',
    default: '10m',
    describe: 'How long an object or namespace may stay deleting before it counts as stuck',
  }),
  remove: () => ({ type: 'boolean', default: false, describe: 'Gone for good: the nodes deleted, their etcd members removed' }),
  // not array: yargs drops "-" from an array option; repeated, it still collects every value
  filename: () => ({
    type: 'string',
    alias: 'f',
    describe: 'Instead of nodes, manifests that would be applied: FILE, DIR (its .yaml/.yml/.json files) or - (stdin); repeatable',
  }),
  'k3s-config': () => ({ type: 'string', requiresArg: true, describe: 'Instead of nodes, a new K3s server config.yaml' }),
  'rke2-config': () => ({ type: 'string', requiresArg: true, describe: 'Instead of nodes, a new RKE2 server config.yaml' }),
  upgrade: () => ({
    type: 'string',
    requiresArg: true,
    describe: 'Instead of nodes, the cluster upgraded to VERSION (v1.33, v1.33.4 or v1.33.4+k3s1)',
  }),
  'apply-mode': () => ({
    type: 'string',
    choices: ['client-side', 'server-side', 'replace', 'helm', 'wrangler'],
    describe:
      "With -f: how the manifests are applied when the object's owner does not say (Argo CD, Flux, K3s and Helm objects are judged their owner's way): client-side (kubectl apply, the default), server-side, replace, helm, wrangler",
  }),
  'cleanup-plan': () => ({ type: 'boolean', default: false, describe: 'Print (never run) the kubectl delete commands, in a safe order' }),
  'etcd-endpoints': () => ({
    type: 'string',
    describe: 'Comma-separated etcd client URLs to probe directly (read-only RPCs: member list, status, alarms)',
  }),
  'etcd-cacert': () => ({ type: 'string', describe: 'CA bundle for the etcd endpoints' }),
  'etcd-cert': () => ({ type: 'string', describe: 'Client certificate for etcd' }),
  'etcd-key': () => ({ type: 'string', describe: 'Client key for etcd' }),
  'etcd-timeout': () => ({ type: 'string', default: '2s', describe: 'Timeout per etcd endpoint' }),
  'allow-snapshot-dir': () => ({
    type: 'string',
    array: true,
    describe: 'Let tool calls read snapshots under DIR (repeatable; real paths, symlinks resolved); none by default',
  }),
  'max-result-bytes': () => ({
    type: 'number',
    default: 50_000,
    describe: "Cut a tool's JSON answer to this size (counts kept; filters reach the rest)",
  }),
};

/** Only for parsing: how a flag reads its value (a boolean takes none), without what --help shows. */
const parsing = (o: Options): Options => ({ type: o.type, array: o.array, alias: o.alias });

/** The command yargs is building: it builds only the one it runs, whose usage errors point at its --help. */
let building: string | undefined;

/**
 * The options of `cmd`, exactly as TAKES lists them: -o with the command's own choices and default, and the flags it
 * only refuses, hidden (mcp and what-if refuse them with their reason). A -o value it does not take is a usage error
 * that names the formats it does, before yargs' own (which would not say where the value belongs).
 */
function takes(y: Argv, cmd: string): Argv {
  building = cmd;
  const t = TAKES[cmd]!;
  let a = y;
  for (const name of [...(t.outputs ? ['output'] : []), ...t.flags]) a = a.option(name, OPTIONS[name]!(cmd));
  // refused by the command itself; its -o refusal reads the default ("table": nothing asked for)
  for (const name of t.refused ?? [])
    a = a.option(name, { ...parsing(OPTIONS[name]!(cmd)), hidden: true, ...(name === 'output' ? { default: 'table' } : {}) });
  if (t.refused?.includes('output')) return a;
  return a.middleware((argv) => {
    const v = argv as { output?: unknown; o?: unknown };
    // "text" is what people type for the human format, whose name here is table: the same
    if (t.outputs?.includes('table')) {
      const text = (x: unknown): unknown => (x === 'text' ? 'table' : Array.isArray(x) ? x.map(text) : x);
      if (v.output !== undefined) v.output = text(v.output);
      if (v.o !== undefined) v.o = text(v.o);
    }
    const given = v.output ?? v.o;
    for (const o of given === undefined ? [] : [given].flat()) {
      if (!t.outputs?.some((x) => x === String(o))) {
        const r = outputRefusal(cmd, String(o));
        throw new InputError(r.message, r.hint);
      }
    }
  }, true);
}

/** yargs' "Unknown argument: context" for flags typed that the command does not take: "explain does not take
 *  --context" (undefined for anything else, a stray positional among them). */
function notTaken(msg: string, argv: string[]): string | undefined {
  const m = /^Unknown arguments?: (.+)$/.exec(msg);
  if (!m || !building) return undefined;
  // each as typed: -A (maybe among other short flags), --name, --name=value or --no-name
  const asTyped = (n: string): string | undefined =>
    n.length === 1
      ? argv.some((w) => /^-[a-zA-Z]+/.test(w) && !w.startsWith('--') && w.slice(1).split('=')[0]!.includes(n))
        ? `-${n}`
        : undefined
      : [`--${n}`, `--no-${n}`].find((f) => argv.some((w) => w === f || w.startsWith(`${f}=`)));
  const flags = m[1]!.split(', ').map(asTyped);
  if (flags.every(Boolean)) return `${building} does not take ${flags.join(', ')}`;
  // words that are not flags: an argument the command does not take ("doctor foo")
  const words = m[1]!.split(', ');
  if (words.every((w) => argv.includes(w)))
    return `${building} does not take ${words.length === 1 ? 'the argument' : 'the arguments'} ${words.map((w) => JSON.stringify(w)).join(', ')}`;
  return undefined;
}

/** The distance between two words (insertions, deletions, substitutions), for "did you mean". */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** "foo" typed where a command goes: named as such, with the command it was probably meant to be (if one is close). */
function notACommand(argv: string[]): InputError | undefined {
  const word = argv.find((w) => !w.startsWith('-'));
  if (word === undefined || word in TAKES) return undefined;
  const names = Object.keys(TAKES);
  const close = names
    .map((n) => ({ n, d: n.startsWith(word) && word.length >= 2 ? 0 : distance(word, n) }))
    .filter((x) => x.d <= Math.max(1, Math.floor(x.n.length / 3)))
    .sort((a, b) => a.d - b.d)[0];
  return new InputError(
    // two parts joined: prose, not a command with a name pasted into it (commands-quoted.test)
    [`${JSON.stringify(word)} is not a kubectl arch command`, ...(close ? [`did you mean ${close.n}?`] : [])].join(' — '),
    `the commands: ${names.join(', ')} (${command(['kubectl', 'arch', '--help']).line})`,
  );
}

function fail(e: unknown, verbose: boolean): number {
  if (e instanceof UserError) {
    // messages can carry server or file text: never let it drive the terminal
    // a line break in a message (a server's words) continues it indented: it never starts a line of its own
    process.stderr.write(`error: ${termSafe(e.message, true).replace(/\n/g, '\n  ')}\n`);
    if (e.hint) process.stderr.write(`  hint: ${termSafe(e.hint, true).replace(/\n/g, '\n    ')}\n`);
    if (verbose && e.stack) process.stderr.write(`${e.stack}\n`);
    return e.exitCode;
  }
  const err = e as Error;
  process.stderr.write(
    `error: internal error: ${termSafe(err?.message ?? String(e), true)}${verbose ? '' : ' (run with -v for details)'}\n`,
  );
  if (verbose && err?.stack) process.stderr.write(`${err.stack}\n`);
  return EXIT.INTERNAL;
}

export async function main(argv0 = hideBin(process.argv)): Promise<number> {
  installProcessHandlers();
  resetRunGuard();
  // --version is what many type for `version` (kubectl's is `kubectl version`): the same answer
  const argv = argv0[0] === '--version' ? ['version', ...argv0.slice(1)] : argv0;
  // krew installs the binary as kubectl-arch, but users type `kubectl arch`: usage always says so
  const prog = 'kubectl arch';
  const verbose = argv.includes('-v') || argv.includes('--verbose');
  let code: number = EXIT.OK;
  const run =
    (load: () => Promise<(a: never) => Promise<number>>) =>
    async (a: unknown): Promise<void> => {
      try {
        const fn = await load();
        code = await fn(a as never);
      } catch (e) {
        code = fail(e, verbose);
      }
      // near the memory limit the run stopped fetching: its report names what was not judged, the code says so
      // (3, like a cluster that did not answer; whatever failed after that failed for want of what was not fetched)
      const reached = runReached();
      if (reached) {
        process.stderr.write(`warning: ${reached}: what was not fetched is reported as not visible\n`);
        code = Math.max(code, EXIT.UNREACHABLE);
      }
    };
  let parser = yargs(argv)
    // flags keep the names they are typed with (no camelCase copies: an unknown --fail-on is named once)
    .parserConfiguration({ 'camel-case-expansion': false })
    .scriptName(prog)
    .usage(`${prog} — architecture-aware diagnostics for Kubernetes (read-only)\n\nUsage: ${prog} <command> [flags]`)
    .command(
      'doctor',
      'Run every check and print one report',
      (y) => takes(y, 'doctor'),
      run(async () => (await import('./commands/doctor.js')).doctor),
    )
    .command(
      'map',
      'The cluster by contract (state, door, loops, interfaces), with the checks that concern each part',
      (y) => takes(y, 'map').epilogue('A view, like kubectl get: exit 0 whatever it shows (doctor is the command that gates on findings).'),
      run(async () => (await import('./commands/map.js')).map),
    )
    .command(
      'what-if [nodes..]',
      'Predict what breaks if these nodes go down (reboot, drain, outage), or with --remove are removed for good; with -f, what applying manifests would do',
      (y) =>
        takes(y.positional('nodes', { type: 'string', array: true, describe: 'node names (kubectl get nodes)' }), 'what-if').epilogue(
          'Exit 1 when a prediction is at or above --fail-on (so `kubectl arch what-if n3 && kubectl drain n3` is a gate), 2 for a node that does not exist. -o html draws the predictions on the map of the cluster as it would be. A node runs pods of every namespace: no -n.\n\n-f FILE|DIR|- predicts what applying those manifests would do, object by object: the object the API server would receive by how it is applied (as its owner applies it — Argo CD, Flux, K3s, Helm — else --apply-mode, default client-side as kubectl apply) and the update validation of the version of the cluster for every built-in kind (a kind or field with no rule: not judged), what the server would refuse and the owner that would retry it, what an owner would prune, kinds not served, namespaces that do not exist, fail-closed webhooks with no backend — `helm template … | kubectl arch what-if -f -` in a pipeline. --k3s-config FILE (or --rke2-config) predicts a new server config.yaml: cluster-dns, the CIDRs, the datastore, disable, etcd snapshots. -n there is the namespace of manifests that name none.\n\n--upgrade VERSION predicts upgrading the cluster to that version: API versions it no longer serves that are still written to, and the owners that would keep applying them; the servers the rollout takes down, in its order, each step judged as what-if NODE; skipped minors and version skew; what would stop a kubelet (dockershim, cgroup v1, in-tree volume plugins and cloud providers, removed flags). Read-only: it changes nothing.',
        ),
      run(async () => (await import('./commands/whatif.js')).whatif),
    )
    .command(
      'snapshot',
      'Save what the checks need to stdout (YAML; -o json for JSON), for --snapshot later',
      (y) => takes(y, 'snapshot'),
      run(async () => (await import('./commands/snapshot.js')).snapshot),
    )
    .command(
      'orphans',
      'Objects left running by deleted Argo CD / Flux owners, grouped by former owner',
      (y) => takes(y, 'orphans'),
      run(async () => (await import('./commands/orphans.js')).orphans),
    )
    .command(
      'quorum',
      'etcd members and the quorum verdict (through the API, or ask etcd itself with --etcd-endpoints)',
      (y) => takes(y, 'quorum'),
      run(async () => (await import('./commands/quorum.js')).quorum),
    )
    .command(
      'diff <old> <new>',
      'What appeared, was fixed or changed severity between two -o json reports of the same command (a pipeline gate)',
      (y) =>
        takes(
          y
            .positional('old', { type: 'string', describe: 'the earlier report (-o json or yaml)' })
            .positional('new', { type: 'string', describe: 'the later report' }),
          'diff',
        ).epilogue('Exit 1 when something appeared (or got worse) at or above --fail-on. Reads the two files; talks to no cluster.'),
      run(async () => (await import('./commands/diff.js')).diff),
    )
    .command(
      'explain [id]',
      'Explain a check or finding code (what, why, how to fix); no id lists the checks',
      (y) => takes(y.positional('id', { type: 'string', describe: 'check id or finding code' }), 'explain'),
      run(async () => (await import('./commands/explain.js')).explain),
    )
    .command(
      'mcp',
      'Serve the checks to AI assistants: a read-only Model Context Protocol server on stdio',
      (y) =>
        takes(y, 'mcp').epilogue(
          "Tools doctor, orphans, quorum, map, what-if and explain answer with the command's -o json; each check's docs is a resource, kubectl-arch://checks/<id>. A call picks a context of this kubeconfig or a snapshot under --allow-snapshot-dir, never a path, flag or command, and runs with --deadline and --request-timeout. --snapshot, -n/-A, --contexts, --cluster, --user and -o are refused here. Only GET requests are sent. Registering it with MCP clients: docs/mcp.md.",
        ),
      run(async () => (await import('./commands/mcp.js')).mcp),
    )
    .command(
      'rbac',
      'Print the read-only ClusterRoles to apply (kubectl arch rbac | kubectl apply -f -)',
      (y) => takes(y, 'rbac'),
      run(async () => (await import('./commands/rbac.js')).rbac),
    )
    .command(
      'completion <shell>',
      'Print a shell completion script (bash, zsh, fish); kubectl 1.26+ completes `kubectl arch` through kubectl_complete-arch',
      (y) => takes(y.positional('shell', { choices: ['bash', 'zsh', 'fish'] as const, describe: 'shell' }), 'completion'),
      run(async () => (await import('./commands/completion.js')).completion),
    )
    // `version` alone is answered before yargs loads (src/fast-paths.ts); this is the same, with other flags
    .command(
      'version',
      'Print the kubectl-arch version',
      (y) => takes(y, 'version'),
      run(async () => async (a: GlobalArgs) => {
        process.stdout.write(versionLine(a.output));
        return EXIT.OK;
      }),
    );
  // before the command, any command's flag may come (kubectl arch -A doctor): each is known here only to be read
  // right, and hidden; the command then takes it or refuses it as unknown (not global: a command sees only its own)
  const declared = new Set<string>(['verbose']);
  for (const [cmd, t] of Object.entries(TAKES))
    for (const name of [...(t.outputs ? ['output'] : []), ...t.flags, ...(t.refused ?? [])]) {
      if (declared.has(name)) continue;
      declared.add(name);
      parser = parser.option(name, { ...parsing(OPTIONS[name]!(cmd)), hidden: true, global: false });
    }
  parser = parser
    .option('verbose', {
      alias: 'v',
      type: 'boolean',
      global: false,
      describe: 'Print the stack of an error, and with a command that reads a cluster every request, to stderr',
    })
    .epilogue(
      `Flags: each command takes its own (${prog} <command> --help).\nExit codes: 0 clean, 1 findings at or above --fail-on, 2 bad usage or input, 3 not judged (cluster or etcd unreachable, unauthenticated, or what a verdict rests on not visible), 4 internal error; with several contexts, the highest of theirs.\nRead-only: only GET requests are sent. Docs: kubectl arch explain <check>. Version: kubectl arch version (or --version).`,
    )
    .demandCommand(1, 'name a command')
    .strict()
    .help()
    .alias('help', 'h')
    .version(false)
    // KUBECTL_ARCH_HELP_WIDTH: only for scripts/build.mjs, which renders --help for src/fast-paths.ts
    .wrap(Math.min(110, Number(process.env.KUBECTL_ARCH_HELP_WIDTH) || process.stdout.columns || 100))
    // a usage error must stop here, before any command runs (and so before any request)
    .fail((msg, err) => {
      if (err) throw err;
      // before a command was chosen: a word that is not one (yargs' own would be "Unknown argument: foo")
      if (!building) throw notACommand(argv) ?? new InputError(msg, command(['kubectl', 'arch', '--help']).line);
      throw new InputError(notTaken(msg, argv) ?? msg, command(['kubectl', 'arch', building, '--help']).line);
    });
  // yargs renders the whole --help text before running any command, only to have it ready should the command fail
  // (measured: ~30 ms of a 170 ms `doctor --snapshot`). Our .fail() never prints help, so that rendering is skipped;
  // --help itself renders it as before. getInternalMethods is yargs 17's own (tested by the help tests).
  const usage = (parser as unknown as { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } } })
    .getInternalMethods?.()
    ?.getUsageInstance?.();
  if (usage?.cacheHelpMessage) usage.cacheHelpMessage = () => {};
  try {
    await parser.parseAsync();
  } catch (e) {
    return fail(e, verbose);
  }
  return code;
}
