// Runs the CLI bundle for either entry (src/entry-npm.ts: files in dist/; src/entry-sea.ts: assets of the executable):
// compiles cli.cjs, client-node.cjs when a command asks for the Kubernetes client, and mcp-sdk.cjs when `mcp`
// asks for the MCP SDK, each with the best code
// cache at hand, and after the command saves a cache holding what it compiled, if it had none of its own.
import { CLIENT_NODE, MCP_SDK, cacheName, compile } from './cjs.js';
import type { Store } from './store.js';

export type Bundle = 'cli.cjs' | 'client-node.cjs' | 'mcp-sdk.cjs';

export interface Host {
  /** The bundle's source text. */
  source(bundle: Bundle): string;
  /** File name for stack traces. */
  filename(bundle: Bundle): string;
  /** What the bundle sees as __filename and __dirname (yargs looks for package.json from there). */
  modulePath(bundle: Bundle): string;
  dirname: string;
  /** A code cache shipped with the bundle (the single executable's, made before anything ran), if any. */
  shipped?(bundle: Bundle): Buffer | undefined;
  /** require() for what the bundle leaves out: Node's built-ins. */
  require(id: string): unknown;
  /** Where this host's own caches live; none: no cache written. */
  store: Store | undefined;
}

/** V8 flags set at run time, before anything is compiled. `--heap-growing-percent=40`: how much the old generation may
 *  grow past what survived the last full collection before the next one. V8's own factor, up to 4x for a small heap,
 *  let a what-if of three nodes on 50,000 objects peak at 286 MB RSS with 60 MB live; at 1.3x to 1.5x it peaks at
 *  188 to 196 MB, no slower (docs/performance.md). V8 counts it in the hash a code cache must match: it is set here
 *  before any bundle is compiled (our own caches are made after it), and scripts/lib/sea-cache.cjs sets the same
 *  before it makes the shipped caches. As a command-line flag it would be missing where those are made. */
export const V8_RUN_FLAGS = ['--heap-growing-percent=40'];

export async function runCli(host: Host, argv: readonly string[]): Promise<number> {
  const v8 = host.require('node:v8') as typeof import('node:v8');
  for (const f of V8_RUN_FLAGS) v8.setFlagsFromString(f);
  const debug = process.env.KUBECTL_ARCH_DEBUG_CACHE ? (s: string) => process.stderr.write(`code cache: ${s}\n`) : undefined;
  const saves: Array<() => void> = [];
  const load = (bundle: Bundle, name: string): unknown => {
    // a cache of ours, made after this command ran, is best; else the shipped one (top level only)
    const own = host.store?.read(name, debug);
    // marked in use before V8 loads it: should this run crash with it, the next one drops it (src/host/store.ts)
    if (own) host.store?.inUse(name);
    const shipped = own ? undefined : host.shipped?.(bundle);
    const c = compile(host.source(bundle), host.filename(bundle), own ?? shipped);
    debug?.(`${bundle} ${own ? `own (${name})` : shipped ? 'shipped' : 'none'}${c.cache === 'none' ? '' : ` ${c.cache}`}`);
    if (host.store && !(own && c.cache === 'accepted')) {
      saves.push(() => {
        const file = host.store?.write(name, () => c.cacheData());
        debug?.(file ? `${bundle} saved ${file}` : `${bundle} not saved`);
      });
    }
    return c.run(req, host.modulePath(bundle), host.dirname);
  };
  let client: unknown;
  let sdk: unknown;
  const req = (id: string): unknown =>
    id === CLIENT_NODE
      ? (client ??= load('client-node.cjs', 'client-node'))
      : id === MCP_SDK
        ? (sdk ??= load('mcp-sdk.cjs', 'mcp-sdk'))
        : host.require(id);
  const cli = load('cli.cjs', cacheName(argv)) as { main: () => Promise<number> };
  const code = await cli.main();
  // only a run that went through (a report, exit 0 or 1) ran the code worth keeping: a cache made by a
  // usage error or an unreachable cluster would hold little, and being accepted it would never be replaced
  if (code === 0 || code === 1) for (const save of saves) save();
  return code;
}
