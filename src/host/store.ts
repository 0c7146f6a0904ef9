// Code caches of the CLI bundle kept in the user's cache directory, one per command (src/host/cjs.ts), made
// after that command first ran: ~/.cache/kubectl-arch/code-cache/<node>-<platform>-<arch>-<build>-<flags>/.
// A cache is V8's own format, accepted only by the V8 and flags that made it and for the same source (the
// build id, a hash of the bundles, is in the directory name), so any other one is rejected and made again.
// NODE_DISABLE_COMPILE_CACHE=1, Node's switch for its own compile cache, turns this one off too. Failing to
// read or write (no home, read-only disk, a race with another run) only costs the time the cache would save.

export interface Store {
  /** The cache saved under this name, if any. */
  read(name: string): Buffer | undefined;
  /** Save, atomically (a rename), so that concurrent runs never read half a file; the data is only made once the
   *  directory is there (a read-only disk, as in deploy/cronjob.yaml, costs a failed mkdir and nothing more). */
  write(name: string, data: () => Buffer): string | undefined;
}

/** FNV-1a: a short, stable name for the V8 flags this process runs with (a cache made under other flags is rejected). */
function hash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/** Directories of other builds or Node versions kept besides this one: a developer rebuilds many times a day,
 *  and each build's caches are several MB; an install used now and then writes again when it finds none. */
const KEEP_OTHERS = 3;

// a hash of cli.cjs and client-node.cjs, defined by the build of each entry (scripts/build.mjs,
// scripts/release.mjs); 'dev' where not built
declare const __BUILD_ID__: string | undefined;
const BUILD_ID = typeof __BUILD_ID__ === 'string' ? __BUILD_ID__ : 'dev';

export function userStore(buildId: string = BUILD_ID, env: NodeJS.ProcessEnv = process.env): Store | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const fs = process.getBuiltinModule('node:fs');
  const path = process.getBuiltinModule('node:path');
  const home =
    env.HOME ||
    env.USERPROFILE ||
    (() => {
      try {
        return process.getBuiltinModule('node:os').homedir();
      } catch {
        return '';
      }
    })();
  const base = env.XDG_CACHE_HOME || (home ? path.join(home, '.cache') : '');
  if (!base) return undefined;
  const root = path.join(base, 'kubectl-arch', 'code-cache');
  // V8 flags come from the command line and from NODE_OPTIONS
  const flags = `${process.execArgv.join(' ')}\u0000${env.NODE_OPTIONS ?? ''}`;
  const tag = `${process.version}-${process.platform}-${process.arch}-${buildId}-${hash(flags)}`;
  const dir = path.join(root, tag);
  /** After a write: only the most recently written directories of other builds stay. */
  const prune = (): void => {
    const others = fs
      .readdirSync(root)
      .filter((d) => d !== tag)
      .map((d) => ({ p: path.join(root, d), t: fs.statSync(path.join(root, d)).mtimeMs }))
      .sort((a, b) => b.t - a.t);
    for (const o of others.slice(KEEP_OTHERS)) fs.rmSync(o.p, { recursive: true, force: true });
  };
  return {
    read(name) {
      try {
        return fs.readFileSync(path.join(dir, `${name}.cache`));
      } catch {
        return undefined;
      }
    },
    write(name, data) {
      const file = path.join(dir, `${name}.cache`);
      const tmp = `${file}.${process.pid}.tmp`;
      try {
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(tmp, data());
        fs.renameSync(tmp, file);
      } catch {
        try {
          fs.rmSync(tmp, { force: true });
        } catch {
          /* nothing to clean */
        }
        return undefined;
      }
      try {
        prune();
      } catch {
        /* another run pruned or wrote at the same time: the next write prunes again */
      }
      return file;
    },
  };
}
