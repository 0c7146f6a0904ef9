// Compiling the CLI bundle (CommonJS) with vm.Script and a V8 code cache, for both entries: the npm one
// (src/entry-npm.ts, the file dist/cli.cjs) and the single executable (src/entry-sea.ts, the asset cli.cjs).
//
// Why not Node's own compile cache (NODE_COMPILE_CACHE, used for the ES module entry): it saves a module's
// code right after compiling it, before anything ran, so it holds the top level only and every start compiled
// again each function it called (yargs, the snapshot loader, the checks). A cache taken after a command ran
// holds those too: measured on `doctor --snapshot examples/field-notes-k3s`, 152 ms with a cache made before
// running, 118 ms with one made after (median of 30; `node -e 0` 45 ms).

import { COMMANDS } from '../complete.js';

/** The CommonJS wrapper, part of the source a code cache is made for. V8 accepts a cache for any source of the
 *  same length (it checks no more), so the caches' directory is named after the build (src/host/store.ts). */
export const wrap = (src: string): string => `(function (exports, require, module, __filename, __dirname) {${src}\n})`;

export type CacheState = 'accepted' | 'rejected' | 'none';

export interface Compiled {
  /** What happened to the code cache offered. */
  readonly cache: CacheState;
  /** Run the module's top level once; its exports. */
  run(require: (id: string) => unknown, filename: string, dirname: string): unknown;
  /** A code cache of everything compiled so far (call it after the work, to include what the work compiled). */
  cacheData(): Buffer;
}

export function compile(source: string, filename: string, cachedData: Buffer | undefined): Compiled {
  const vm = process.getBuiltinModule('node:vm');
  const script = new vm.Script(wrap(source), { filename, cachedData });
  return {
    cache: cachedData ? (script.cachedDataRejected ? 'rejected' : 'accepted') : 'none',
    run(require, file, dirname) {
      const module = { exports: {} as unknown };
      (script.runInThisContext() as (...a: unknown[]) => void)(module.exports, require, module, file, dirname);
      return module.exports;
    },
    cacheData: () => script.createCachedData(),
  };
}

/** The CLI bundle leaves the Kubernetes client to its host under this name (scripts/lib/bundle-cli.mjs). */
export const CLIENT_NODE = 'kubectl-arch:client-node';

/** ... and the MCP SDK (src/mcp/sdk.ts), which only `kubectl arch mcp` loads. */
export const MCP_SDK = 'kubectl-arch:mcp-sdk';

/** Commands of src/cli.ts (src/complete.ts's list): each gets its own code cache, holding what that command runs. */
const NAMES = new Set(COMMANDS.map(([name]) => name));

/**
 * The code cache's name for this command line: the first known command word (flags may come first), and
 * whether it reads a snapshot file (offline and online runs call different code).
 */
export function cacheName(argv: readonly string[]): string {
  const cmd = argv.find((a) => NAMES.has(a)) ?? 'other';
  return argv.some((a) => a === '--snapshot' || a.startsWith('--snapshot=')) ? `${cmd}-snapshot` : cmd;
}
