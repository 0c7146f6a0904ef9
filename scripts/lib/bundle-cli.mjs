// The CLI bundles both the npm package (scripts/build.mjs) and the single executables (scripts/release.mjs)
// run through src/host/: cli.cjs, the whole CLI (0.8 MB), client-node.cjs, the Kubernetes client (1.7 MB),
// which only commands that connect load, and mcp-sdk.cjs, the MCP SDK with zod (1.2 MB), which only
// `kubectl arch mcp` loads. CommonJS, because vm.Script compiles it with a code cache made after
// a command ran (src/host/cjs.ts); every import() is turned into require() (a vm.Script has no module
// loader: an import() left in failed with "A dynamic import callback was not specified").
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';
import { builtinsByRequire } from './builtins-by-require.mjs';
import { lazyDeps } from './lazy-deps.mjs';
import { packedExamples } from './examples.mjs';

const ROOT = new URL('../..', import.meta.url).pathname;
const CLIENT = '@kubernetes/client-node/dist/config.js';
const CLIENT_NODE = 'kubectl-arch:client-node'; // = src/host/cjs.ts
const MCP_SDK = 'kubectl-arch:mcp-sdk'; // = src/host/cjs.ts
const MCP_SDK_SOURCE = 'src/mcp/sdk.ts';

/** The client module our code imports is left to the host, which loads client-node.cjs for it. */
const clientByHost = {
  name: 'client-by-host',
  setup(b) {
    b.onResolve({ filter: /^@kubernetes\/client-node/ }, (args) => {
      if (args.path !== CLIENT)
        throw new Error(`${args.importer}: import ${CLIENT}, the one module client-node.cjs holds, not ${args.path}`);
      return { path: CLIENT_NODE, external: true };
    });
  },
};

/** src/mcp/sdk.ts, the one module that imports the MCP SDK and zod, is left to the host, which loads mcp-sdk.cjs
 *  for it; an import of either from anywhere else would put them in cli.cjs, which every command loads. */
const mcpByHost = {
  name: 'mcp-by-host',
  setup(b) {
    b.onResolve({ filter: /(^|[\\/])sdk\.js$/ }, (args) =>
      /[\\/]src[\\/]mcp$/.test(args.resolveDir) && args.path === './sdk.js' ? { path: MCP_SDK, external: true } : undefined,
    );
    b.onResolve({ filter: /^(@modelcontextprotocol\/|zod($|\/))/ }, (args) => {
      if (/[\\/]src[\\/]/.test(args.importer))
        throw new Error(`${args.importer}: import ${args.path} only in ${MCP_SDK_SOURCE} (bundled as mcp-sdk.cjs)`);
      return undefined;
    });
  },
};

/**
 * Dependencies of the Kubernetes client that its top level imports but our calls rarely or never reach (undici:
 * client-node's fetch-based APIs; socks, socks-proxy-agent, hpagent: a kubeconfig proxy-url), each replaced in
 * client-node.cjs by a stand-in that loads the real module on first use. Measured (--cpu-prof): initialising
 * undici was ~20 ms of every command that connects. The stand-in's keys are the real module's, read here, so
 * esbuild's import helpers see the same names without loading it.
 */
const LAZY_CLIENT_DEPS = /^(undici|socks|socks-proxy-agent|hpagent)$/;
const lazyClientDeps = {
  name: 'lazy-client-deps',
  setup(b) {
    b.onResolve({ filter: LAZY_CLIENT_DEPS }, (args) =>
      args.namespace === 'lazy-client-dep' ? undefined : { path: args.path, namespace: 'lazy-client-dep', pluginData: args.resolveDir },
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-client-dep' }, (args) => {
      const keys = Object.keys(createRequire(join(args.pluginData, 'x.js'))(args.path));
      return {
        resolveDir: args.pluginData,
        loader: 'js',
        contents: `let real;
const load = () => (real ??= require(${JSON.stringify(args.path)}));
const keys = ${JSON.stringify(keys)};
module.exports = new Proxy({}, {
  get: (_, k) => load()[k],
  has: (_, k) => k in load(),
  ownKeys: () => keys,
  getOwnPropertyDescriptor: (_, k) => (keys.includes(k) ? { configurable: true, enumerable: true, writable: true, value: undefined } : undefined),
});`,
      };
    });
  },
};

/** = src/host/run.ts's Bundle */
export const BUNDLES = ['cli.cjs', 'client-node.cjs', 'mcp-sdk.cjs'];

const common = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  supported: { 'dynamic-import': false },
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  loader: { '.yaml': 'text' },
  // ES module dependencies (yargs) read import.meta.url
  define: { 'import.meta.url': '__kubectl_arch_url' },
  banner: { js: "var __kubectl_arch_url = require('node:url').pathToFileURL(__filename).href;" },
};

/** Writes outdir/cli.cjs, outdir/client-node.cjs and outdir/mcp-sdk.cjs; returns a hash of them (the code caches' build id). */
export async function bundleCli(outdir, version) {
  await build({
    ...common,
    entryPoints: ['src/cli-bundle.ts'],
    outfile: join(outdir, 'cli.cjs'),
    plugins: [lazyDeps, builtinsByRequire, clientByHost, mcpByHost],
    define: {
      ...common.define,
      __VERSION__: JSON.stringify(version),
      __HELP__: 'null',
      __EXPLAIN__: 'null',
      // the examples/ snapshots, for --snapshot example:<name> (src/snapshot/example-files.ts)
      __EXAMPLES__: JSON.stringify(packedExamples()),
    },
  });
  // the client is not ours to debug: without whitespace and comments it is smaller, and ASCII
  await build({
    ...common,
    entryPoints: [CLIENT],
    outfile: join(outdir, 'client-node.cjs'),
    plugins: [builtinsByRequire, lazyClientDeps],
    minifyWhitespace: true,
  });
  // the MCP SDK with zod: not ours to debug either
  await build({
    ...common,
    entryPoints: [MCP_SDK_SOURCE],
    outfile: join(outdir, 'mcp-sdk.cjs'),
    plugins: [builtinsByRequire],
    minifyWhitespace: true,
  });
  // both are read as latin1 (src/host/npm.ts: 1.3 ms for 0.8 MB against 4.5 ms as UTF-8), so they must be
  // ASCII: esbuild escapes strings, not regular expression literals (write \u2014 there, not the character)
  for (const f of BUNDLES) {
    const text = readFileSync(join(outdir, f), 'latin1');
    const bad = text.search(/[^\x00-\x7f]/);
    if (bad >= 0) {
      const line = text.slice(0, bad).split('\n').length;
      throw new Error(
        `${join(outdir, f)}:${line}: a non-ASCII character (${JSON.stringify(text.slice(bad - 30, bad + 10))}); escape it in the source`,
      );
    }
  }
  const h = createHash('sha256');
  for (const f of BUNDLES) h.update(readFileSync(join(outdir, f)));
  return h.digest('hex').slice(0, 16);
}
