// Entry point. Keep imports here light: commands and the Kubernetes client load on demand, so
// `version` and `--help` start fast.
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { EXIT, InputError, UserError } from './errors.js';
import { installProcessHandlers } from './lifecycle.js';
import { termSafe } from './lib/safe.js';
import { versionLine } from './fast-paths.js';
import type { GlobalArgs } from './commands/common.js';
import { drawnElsewhere } from './commands/pictures.js';
import { MACHINE_FORMATS, OUTPUTS } from './render/formats/model.js';
import type { Argv } from 'yargs';

/** Options of the commands that judge a cluster: several contexts at once, and accepted risks. */
/** --baseline: a previous -o json of the same command (doctor, orphans, quorum, what-if). */
function baselineOption<T>(y: Argv<T>) {
  return y.option('baseline', {
    type: 'string',
    describe:
      'A previous -o json of this command: mark each finding new or unchanged, list what is fixed, and let --fail-on count the new ones only',
    group: 'Pipelines:',
  });
}

function fleetOptions<T>(y: Argv<T>) {
  return baselineOption(y)
    .option('contexts', {
      type: 'string',
      describe: 'Run on these kubeconfig contexts (comma-separated) at once: a summary table, then each report',
      group: 'Many clusters:',
    })
    .option('all-contexts', { type: 'boolean', describe: 'Run on every context of the kubeconfig', group: 'Many clusters:' })
    .option('parallel', {
      // a string, checked by the command: yargs' number type turns "abc" into NaN before anyone can name it
      type: 'string',
      default: '4',
      describe: 'Contexts run at once with --contexts/--all-contexts',
      group: 'Many clusters:',
    })
    .option('config', {
      type: 'string',
      describe:
        'Accepted-risk rules (ignore:) from FILE only; default: the user config file, and ./.kubectl-arch.yaml when the user config lists this directory under trust:; --no-config reads none',
      group: 'Accepted risks:',
    });
}

/** -o sarif|junit|prometheus|policyreport|openreports are for doctor, orphans and quorum, -o html for doctor, map and what-if,
 *  -o mermaid|dot for map; elsewhere a usage error. */
function plainOutput(a: unknown, command: string): void {
  const o = (a as GlobalArgs).output;
  if ((MACHINE_FORMATS as readonly string[]).includes(o))
    throw new InputError(`-o ${o} is for doctor, orphans and quorum, not ${command}`, 'use -o table, json or yaml');
  const by = drawnElsewhere(o, command);
  if (by) throw new InputError(`-o ${o} is for ${by}, not ${command}`, 'use -o table, json or yaml');
}

function fail(e: unknown, verbose: boolean): number {
  if (e instanceof UserError) {
    // messages can carry server or file text: never let it drive the terminal
    process.stderr.write(`error: ${termSafe(e.message, true)}\n`);
    if (e.hint) process.stderr.write(`  hint: ${termSafe(e.hint, true)}\n`);
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

export async function main(argv = hideBin(process.argv)): Promise<number> {
  installProcessHandlers();
  // krew installs the binary as kubectl-arch, but users type `kubectl arch`: usage always says so
  const prog = 'kubectl arch';
  const verbose = argv.includes('-v') || argv.includes('--verbose');
  let code: number = EXIT.OK;
  const run =
    (load: () => Promise<(a: never) => Promise<number>>, command?: string) =>
    async (a: unknown): Promise<void> => {
      try {
        if (command) plainOutput(a, command);
        const fn = await load();
        code = await fn(a as never);
      } catch (e) {
        code = fail(e, verbose);
      }
    };
  const parser = yargs(argv)
    .scriptName(prog)
    .usage(`${prog} — architecture-aware diagnostics for Kubernetes (read-only)\n\nUsage: ${prog} <command> [flags]`)
    .command(
      'doctor',
      'Run every check and print one report',
      (y) =>
        fleetOptions(
          y
            .option('deep', {
              type: 'boolean',
              default: false,
              describe: 'Also read kubelet configs through nodes/proxy (needs get nodes/proxy)',
            })
            .option('stuck-after', {
              type: 'string',
              default: '10m',
              describe: 'How long an object or namespace may stay deleting before it counts as stuck',
            }),
        ),
      run(async () => (await import('./commands/doctor.js')).doctor),
    )
    .command(
      'map',
      'The cluster by contract (state, door, loops, interfaces), with the checks that concern each part',
      (y) => y,
      run(async () => (await import('./commands/map.js')).map),
    )
    .command(
      'what-if <nodes..>',
      'Predict what breaks if these nodes go down (reboot, drain, outage), or with --remove are removed for good',
      (y) =>
        y
          .positional('nodes', { type: 'string', array: true, describe: 'node names (kubectl get nodes)' })
          .option('remove', {
            type: 'boolean',
            default: false,
            describe: 'Gone for good: the nodes deleted, their etcd members removed',
          })
          .option('baseline', {
            type: 'string',
            describe: 'A previous what-if -o json: mark each prediction new or unchanged; --fail-on counts the new ones only',
            group: 'Pipelines:',
          })
          .epilogue(
            'Exit 1 when a prediction is at or above --fail-on (so `kubectl arch what-if n3 && kubectl drain n3` is a gate), 2 for a node that does not exist. -o html draws the predictions on the map of the cluster as it would be. Read-only: it changes nothing.',
          ),
      run(async () => (await import('./commands/whatif.js')).whatif, 'what-if'),
    )
    .command(
      'snapshot',
      'Save what the checks need to stdout (YAML; -o json for JSON), for --snapshot later',
      (y) => y.option('deep', { type: 'boolean', default: false, describe: 'Include what --deep checks read' }),
      run(async () => (await import('./commands/snapshot.js')).snapshot, 'snapshot'),
    )
    .command(
      'orphans',
      'Objects left running by deleted Argo CD / Flux owners, grouped by former owner',
      (y) =>
        fleetOptions(
          y.option('cleanup-plan', {
            type: 'boolean',
            default: false,
            describe: 'Print (never run) the kubectl delete commands, in a safe order',
          }),
        ),
      run(async () => (await import('./commands/orphans.js')).orphans),
    )
    .command(
      'quorum',
      'etcd members and the quorum verdict (through the API, or ask etcd itself with --etcd-endpoints)',
      (y) =>
        fleetOptions(y)
          .option('etcd-endpoints', {
            type: 'string',
            describe: 'Comma-separated etcd client URLs to probe directly (read-only RPCs: member list, status, alarms)',
          })
          .option('etcd-cacert', { type: 'string', describe: 'CA bundle for the etcd endpoints' })
          .option('etcd-cert', { type: 'string', describe: 'Client certificate for etcd' })
          .option('etcd-key', { type: 'string', describe: 'Client key for etcd' })
          .option('etcd-timeout', { type: 'string', default: '2s', describe: 'Timeout per etcd endpoint' }),
      run(async () => (await import('./commands/quorum.js')).quorum),
    )
    .command(
      'diff <old> <new>',
      'What appeared, was fixed or changed severity between two -o json reports of the same command (a pipeline gate)',
      (y) =>
        y
          .positional('old', { type: 'string', describe: 'the earlier report (-o json or yaml)' })
          .positional('new', { type: 'string', describe: 'the later report' })
          .option('output', {
            alias: 'o',
            choices: ['table', 'json', 'yaml', 'markdown'] as const,
            default: 'table' as const,
            describe: 'Output format; markdown for a pull-request comment',
          })
          .epilogue('Exit 1 when something appeared (or got worse) at or above --fail-on. Reads the two files; talks to no cluster.'),
      run(async () => (await import('./commands/diff.js')).diff),
    )
    .command(
      'explain [id]',
      'Explain a check or finding code (what, why, how to fix); no id lists the checks',
      (y) => y.positional('id', { type: 'string', describe: 'check id or finding code' }),
      run(async () => (await import('./commands/explain.js')).explain, 'explain'),
    )
    .command(
      'mcp',
      'Serve the checks to AI assistants: a read-only Model Context Protocol server on stdio',
      (y) =>
        y
          .option('allow-snapshot-dir', {
            type: 'string',
            array: true,
            describe: 'Let tool calls read snapshots under DIR (repeatable; real paths, symlinks resolved); none by default',
          })
          .option('max-result-bytes', {
            type: 'number',
            default: 50_000,
            describe: "Cut a tool's JSON answer to this size (counts kept; filters reach the rest)",
          })
          .option('config', {
            type: 'string',
            describe:
              'Accepted-risk rules (ignore:) from FILE; default: the user config file and ./.kubectl-arch.yaml; --no-config reads none',
            group: 'Accepted risks:',
          })
          .epilogue(
            "Tools doctor, orphans, quorum, map, what-if and explain answer with the command's -o json; each check's docs is a resource, kubectl-arch://checks/<id>. A call picks a context of this kubeconfig or a snapshot under --allow-snapshot-dir, never a path, flag or command, and runs with --deadline and --request-timeout. --snapshot, -n/-A, --contexts, --cluster, --user and -o are refused here; --fail-on and --color mean nothing. Only GET requests are sent. Registering it with MCP clients: docs/mcp.md.",
          ),
      run(async () => (await import('./commands/mcp.js')).mcp),
    )
    .command(
      'rbac',
      'Print the read-only ClusterRoles to apply (kubectl arch rbac | kubectl apply -f -)',
      () => {},
      run(async () => (await import('./commands/rbac.js')).rbac, 'rbac'),
    )
    .command(
      'completion <shell>',
      'Print a shell completion script (bash, zsh, fish); kubectl 1.26+ completes `kubectl arch` through kubectl_complete-arch',
      (y) => y.positional('shell', { choices: ['bash', 'zsh', 'fish'] as const, describe: 'shell' }),
      run(async () => (await import('./commands/completion.js')).completion, 'completion'),
    )
    // `version` alone is answered before yargs loads (src/fast-paths.ts); this is the same, with other flags
    .command(
      'version',
      'Print the kubectl-arch version',
      () => {},
      run(
        async () => async (a: GlobalArgs) => {
          process.stdout.write(versionLine(a.output));
          return EXIT.OK;
        },
        'version',
      ),
    )
    .option('kubeconfig', {
      type: 'string',
      describe: 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)',
      group: 'Cluster:',
    })
    .option('context', { type: 'string', describe: 'kubeconfig context to use', group: 'Cluster:' })
    .option('cluster', { type: 'string', describe: 'kubeconfig cluster to use', group: 'Cluster:' })
    .option('user', { type: 'string', describe: 'kubeconfig user to use', group: 'Cluster:' })
    .option('namespace', {
      alias: 'n',
      type: 'string',
      describe: 'Limit namespaced objects to this namespace (default: all)',
      group: 'Cluster:',
    })
    .option('all-namespaces', { alias: 'A', type: 'boolean', describe: 'All namespaces (the default; overrides -n)', group: 'Cluster:' })
    .option('request-timeout', {
      type: 'string',
      describe: 'Timeout per request, e.g. 30s, 1m (0 = none)',
      default: '30s',
      group: 'Cluster:',
    })
    .option('deadline', {
      type: 'string',
      describe:
        'Time limit for the whole run, all contexts together; what is not fetched by then is reported as not visible, a context not started by then as not run',
      default: '30s',
      group: 'Cluster:',
    })
    .option('snapshot', {
      type: 'string',
      describe: 'Work offline on a snapshot FILE or DIR (kubectl arch snapshot, or kubectl get -o yaml|json output)',
      group: 'Cluster:',
    })
    .option('output', {
      alias: 'o',
      choices: OUTPUTS,
      default: 'table' as const,
      describe:
        'Output format; sarif, junit, prometheus, policyreport and openreports for doctor, orphans and quorum; html (a self-contained page) for doctor, map and what-if; mermaid and dot for map',
    })
    .option('fail-on', {
      choices: ['none', 'warning', 'error'] as const,
      default: 'error' as const,
      describe: 'Exit 1 when a finding is at least this severe',
    })
    .option('color', { type: 'boolean', describe: 'Colour on a TTY (--no-color or NO_COLOR turns it off)' })
    .option('verbose', { alias: 'v', type: 'boolean', describe: 'Log every request (method, path, status, ms) and stacks to stderr' })
    .epilogue(
      `Exit codes: 0 clean, 1 findings at or above --fail-on, 2 bad usage or input, 3 cluster unreachable or unauthenticated, 4 internal error; with several contexts, the highest of theirs.\nRead-only: only GET requests are sent. Docs: kubectl arch explain <check>.`,
    )
    .demandCommand(1, 'name a command (see --help)')
    .recommendCommands()
    .strict()
    .help()
    .alias('help', 'h')
    .version(false)
    // KUBECTL_ARCH_HELP_WIDTH: only for scripts/build.mjs, which renders --help for src/fast-paths.ts
    .wrap(Math.min(110, Number(process.env.KUBECTL_ARCH_HELP_WIDTH) || process.stdout.columns || 100))
    // a usage error must stop here, before any command runs (and so before any request)
    .fail((msg, err) => {
      throw err ?? new InputError(msg, `${prog} --help`);
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
