// esbuild plugin for the ESM bundle: Node built-ins are loaded with require() (the banner's createRequire), not
// `import`. An ES module import of a built-in builds its namespace from every export, which runs the lazy getters
// behind them: `import … from 'node:fs'` loads all of Node's streams for fs.ReadStream, 'node:util' loads
// worker_threads for util.MIMEParams, 'node:crypto' builds WebCrypto — ~15-20 ms (node --cpu-prof) at every start
// for modules no command uses. require() returns the module object and leaves its getters alone.
import { isBuiltin } from 'node:module';

export const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(b) {
    b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) =>
      // a dynamic import() keeps Node's own (its namespace is what the caller destructures, and it is lazy anyway)
      args.namespace !== 'builtin' && args.kind !== 'dynamic-import' && isBuiltin(args.path)
        ? { path: args.path, namespace: 'builtin' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};
