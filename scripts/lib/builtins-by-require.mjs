// esbuild plugin for the ESM bundle: Node built-ins are loaded with require() (the banner's createRequire), not
// `import`. An ES module import of a built-in builds its namespace from every export, which runs the lazy getters
// behind them: `import … from 'node:fs'` loads all of Node's streams for fs.ReadStream, 'node:util' loads
// worker_threads for util.MIMEParams, 'node:crypto' builds WebCrypto — ~15-20 ms (node --cpu-prof) at every start
// for modules no command uses. require() returns the module object and leaves its getters alone.
//
// An `import` of a CommonJS module goes through esbuild's __toESM, which copies every property descriptor of the
// module object, and reading the descriptors of util's and fs's lazy properties loads them all the same (util:
// parseArgs, the diff machinery and worker_threads; fs: fs/dir — 12 built-ins, ~6 ms, measured with
// process.moduleLoadList and --cpu-prof). For the plain namespaces below an `import` gets an object whose
// prototype is the module: __toESM has nothing to copy, and every read goes to the real module. Only modules
// whose functions ignore `this` are listed (not process, events, stream: their methods keep state on `this`).
// A require() in a CommonJS dependency always gets the real module object (some copy or patch it).
import { isBuiltin } from 'node:module';

const NAMESPACES = new Set(['fs', 'path', 'util', 'url', 'os']);

export const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(b) {
    b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      // a dynamic import() keeps Node's own (its namespace is what the caller destructures, and it is lazy anyway)
      if (args.namespace === 'builtin' || args.kind === 'dynamic-import' || !isBuiltin(args.path)) return undefined;
      const name = args.path.replace(/^node:/, '');
      const viaProto = args.kind === 'import-statement' && NAMESPACES.has(name);
      return { path: viaProto ? `${name}?proto` : args.path, namespace: 'builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
      contents: args.path.endsWith('?proto')
        ? `module.exports = Object.create(require(${JSON.stringify(args.path.slice(0, -'?proto'.length))}));`
        : `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};
