// `kubectl arch mcp`: serve the checks to an AI assistant over the Model Context Protocol on stdio (src/mcp/).
// The operator's flags fix what the assistant can reach: the kubeconfig (--kubeconfig or KUBECONFIG, as at start),
// the default context, the deadlines, the accepted-risk config, and the directories snapshots may be read from.
import { Writable } from 'node:stream';
import { InputError } from '../errors.js';
import { allowedDirs } from '../mcp/inputs.js';
import { parseDuration, type GlobalArgs } from './common.js';

export interface McpArgs extends GlobalArgs {
  'allow-snapshot-dir'?: string[];
  'max-result-bytes'?: number;
}

export const DEFAULT_MAX_RESULT_BYTES = 50_000;

export async function mcp(args: McpArgs): Promise<number> {
  // what the assistant chooses per call, or what means nothing here, is refused before the server starts
  if (args.snapshot !== undefined)
    throw new InputError('--snapshot is chosen per call with mcp', 'start with --allow-snapshot-dir DIR; a tool call names the snapshot');
  if (args.cluster !== undefined || args.user !== undefined)
    throw new InputError('--cluster and --user cannot be used with mcp', 'the assistant picks a context of the kubeconfig');
  if (args.namespace !== undefined || args['all-namespaces']) throw new InputError('-n/-A are chosen per call with mcp (namespace)');
  if (args.output !== 'table') throw new InputError(`-o ${args.output} cannot be used with mcp: stdout carries the protocol`);
  if (args.contexts !== undefined || args['all-contexts']) throw new InputError('--contexts/--all-contexts are chosen per call with mcp');
  parseDuration(args['request-timeout'], 0);
  parseDuration(args.deadline, 0, '--deadline');
  const max = Number(args['max-result-bytes'] ?? DEFAULT_MAX_RESULT_BYTES);
  if (!Number.isInteger(max) || max < 2000)
    throw new InputError(`--max-result-bytes must be a whole number >= 2000, found ${String(args['max-result-bytes'])}`);
  const snapshotDirs = allowedDirs(args['allow-snapshot-dir'] ?? []);
  const { kubeconfig, context, verbose, config } = args;
  // a default context that does not exist is the operator's typo: said now, not at every call
  if (context !== undefined) (await import('../cluster/kubeconfig.js')).resolveConfig({ kubeconfig, context });
  const base: GlobalArgs = {
    kubeconfig,
    context,
    verbose,
    config,
    output: 'json',
    'fail-on': 'error',
    'request-timeout': args['request-timeout'],
    deadline: args.deadline,
  };
  // stdout carries only the protocol: anything else written there (a stray log line) goes to stderr
  const out = process.stdout;
  const write = out.write.bind(out) as (chunk: unknown, cb?: (e?: Error | null) => void) => boolean;
  const protocol = new Writable({
    write(chunk, _enc, cb) {
      if (write(chunk)) cb();
      else out.once('drain', () => cb());
    },
  });
  out.write = ((chunk: unknown, ...rest: unknown[]) =>
    (process.stderr.write as (...a: unknown[]) => boolean)(chunk, ...rest)) as typeof out.write;
  // a bug in one call must not end the server (each call's own errors are its tool errors)
  const report = (e: unknown): void => {
    process.stderr.write(`kubectl arch mcp: internal error: ${(e as Error)?.stack ?? String(e)}\n`);
  };
  process.on('uncaughtException', report);
  process.on('unhandledRejection', report);
  const { serve } = await import('../mcp/server.js');
  await serve({ base, snapshotDirs, maxResultBytes: max }, { stdin: process.stdin, stdout: protocol });
  return 0;
}
