// Code caches of the CLI bundle kept in the user's cache directory, one per command (src/host/cjs.ts), made
// after that command first ran: ~/.cache/kubectl-arch/code-cache/<node>-<platform>-<arch>-<build>-<flags>/.
// NODE_DISABLE_COMPILE_CACHE=1, Node's switch for its own compile cache, turns this one off too. Failing to
// read or write (no home, read-only disk, a race with another run) only costs the time the cache would save.
//
// A code cache is bytecode that V8 runs without compiling the source: V8 checks only the source's length and its
// own version and flags, so whoever can put a file here runs code as the user (a forged doctor.cache padded to the
// bundle's length did, planted through a shared XDG_CACHE_HOME), and one flipped byte crashed every later run or
// changed its output. So, on POSIX systems:
// - a directory is used only when it is the user's own, not a symlink, and mode 0700 (made so; an own directory
//   with a wider mode is narrowed: nobody else could have written an own file into it that passes the next rule);
// - a file only when it is a regular file of the user's, opened without following a symlink, with one link;
// - each file carries a SHA-256 of its build, name and data, checked before V8 sees the data (a file that fails
//   is deleted); this catches corruption and caches moved between names or builds, not an attacker who can write
//   as the user (who could replace the bundle itself);
// - files are written to a new temp file (O_EXCL, a random name, mode 0600), then renamed;
// - the prune removes only directories named like ours, holding only files named like ours, all the user's;
// - a run marks a cache in use (NAME.<pid>.running) before V8 loads it and unmarks it when it exits; a mark left
//   by a process that is gone means that run died with the cache loaded (SIGSEGV, SIGTRAP), and the cache is
//   dropped, so the next run makes a new one instead of crashing again;
// - a relative XDG_CACHE_HOME is ignored, as the XDG Base Directory spec asks.
// Node's own compile cache, of the ES module entry, is enabled by bin/kubectl-arch only in kubectl-arch/ of the
// user's own, which this makes mode 0700, and compile-cache/ in it (if there) is narrowed here too.
// On Windows, where there are no such modes, the per-user profile directory is what protects it; the checksum and
// the crash mark still apply.

import { ownFiles } from './own.js';

export interface Store {
  /** The cache saved under this name, checked; undefined when there is none or it was dropped (why() says why). */
  read(name: string, why?: (reason: string) => void): Buffer | undefined;
  /** Save, atomically (a rename), so that concurrent runs never read half a file; the data is only made once the
   *  directory is there (a read-only disk, as in deploy/cronjob.yaml, costs a failed mkdir and nothing more). */
  write(name: string, data: () => Buffer): string | undefined;
  /** This process is about to run the cache of this name: marked until it exits (see above). */
  inUse(name: string): void;
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

/** What the plugin names its directories and files (the prune touches nothing else). */
const TAG = /^v\d+\.\d+\.\d+-[a-z0-9]+-[a-z0-9]+-[A-Za-z0-9]+-[0-9a-f]{8}$/;
const OURS = /^[a-z-]+\.(?:cache|cache\.[0-9a-f]{16}\.tmp|\d+\.running)$/;

const MAGIC = Buffer.from('kubectl-arch code cache 1\n');
const DIGEST = 32; // SHA-256

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
  const xdg = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : '';
  const base = xdg || (home && path.isAbsolute(home) ? path.join(home, '.cache') : '');
  if (!base) return undefined;
  const parent = path.join(base, 'kubectl-arch');
  const root = path.join(parent, 'code-cache');
  // V8 flags come from the command line and from NODE_OPTIONS
  const flags = `${process.execArgv.join(' ')}\u0000${env.NODE_OPTIONS ?? ''}`;
  const tag = `${process.version}-${process.platform}-${process.arch}-${buildId}-${hash(flags)}`;
  const dir = path.join(root, tag);
  const uid = process.getuid?.();
  const { ownDir, makeDir, readOwn, drop } = ownFiles(uid);
  const { O_WRONLY, O_CREAT, O_EXCL } = fs.constants;
  const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0; // 0 where the platform has none (Windows)
  const ours = (): boolean => ownDir(parent) && ownDir(root) && ownDir(dir);

  const key = (name: string): string => `${tag}\u0000${name}\u0000`;
  // incremental: hashing the name and the data without copying the data into one buffer first
  const digest = (name: string, data: Buffer): Buffer =>
    process.getBuiltinModule('node:crypto').createHash('sha256').update(key(name)).update(data).digest();

  /** A mark of a run that used this cache and is gone without unmarking it: that run crashed. */
  const crashed = (name: string): boolean => {
    let found = false;
    for (const f of fs.readdirSync(dir)) {
      const m = /^(.+)\.(\d+)\.running$/.exec(f);
      if (!m || m[1] !== name) continue;
      const pid = Number(m[2]);
      if (pid === process.pid) continue;
      try {
        process.kill(pid, 0); // still running (or another user's process of that pid): not a crash
        continue;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ESRCH') continue;
      }
      drop(path.join(dir, f));
      found = true;
    }
    return found;
  };

  /** After a write: only the most recently written directories of other builds stay, and of them only what is ours. */
  const prune = (): void => {
    const others = fs
      .readdirSync(root)
      .filter((d) => d !== tag && TAG.test(d))
      .map((d) => ({ p: path.join(root, d), st: fs.lstatSync(path.join(root, d)) }))
      .filter((o) => o.st.isDirectory() && (uid === undefined || o.st.uid === uid))
      .sort((a, b) => b.st.mtimeMs - a.st.mtimeMs);
    for (const o of others.slice(KEEP_OTHERS)) {
      if (!ownDir(o.p)) continue;
      for (const f of fs.readdirSync(o.p)) {
        const st = fs.lstatSync(path.join(o.p, f));
        if (OURS.test(f) && st.isFile() && (uid === undefined || st.uid === uid)) drop(path.join(o.p, f));
      }
      try {
        fs.rmdirSync(o.p); // fails while anything not ours is left in it: then it stays
      } catch {
        /* not empty */
      }
    }
  };

  return {
    read(name, why) {
      try {
        if (!ours()) return undefined;
        const file = path.join(dir, `${name}.cache`);
        if (crashed(name)) {
          why?.(`${name} dropped: a run that used it ended without exiting (a crash?)`);
          drop(file);
          return undefined;
        }
        const buf = readOwn(file);
        if (!buf) {
          if (fs.existsSync(file)) {
            why?.(`${name} dropped: not a regular file of this user`);
            drop(file);
          }
          return undefined;
        }
        if (buf.length < MAGIC.length + DIGEST || !buf.subarray(0, MAGIC.length).equals(MAGIC)) {
          why?.(`${name} dropped: not a cache of this build`);
          drop(file);
          return undefined;
        }
        const data = buf.subarray(MAGIC.length + DIGEST);
        if (!digest(name, data).equals(buf.subarray(MAGIC.length, MAGIC.length + DIGEST))) {
          why?.(`${name} dropped: its checksum does not match`);
          drop(file);
          return undefined;
        }
        return data;
      } catch {
        return undefined;
      }
    },
    write(name, data) {
      const file = path.join(dir, `${name}.cache`);
      let tmp: string | undefined;
      try {
        if (!(makeDir(parent) && makeDir(root) && makeDir(dir))) return undefined;
        // Node's compile cache beside it (bin/kubectl-arch uses it only here): narrowed to 0700 too, if ours
        ownDir(path.join(parent, 'compile-cache'));
        const d = data();
        const crypto = process.getBuiltinModule('node:crypto');
        tmp = `${file}.${crypto.randomBytes(8).toString('hex')}.tmp`;
        const fd = fs.openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | NOFOLLOW, 0o600);
        try {
          fs.writeSync(fd, Buffer.concat([MAGIC, digest(name, d), d]));
        } finally {
          fs.closeSync(fd);
        }
        fs.renameSync(tmp, file);
      } catch {
        if (tmp) drop(tmp);
        return undefined;
      }
      try {
        prune();
      } catch {
        /* another run pruned or wrote at the same time: the next write prunes again */
      }
      return file;
    },
    inUse(name) {
      try {
        if (!ours()) return;
        const mark = path.join(dir, `${name}.${process.pid}.running`);
        fs.closeSync(fs.openSync(mark, O_WRONLY | O_CREAT | NOFOLLOW, 0o600));
        process.once('exit', () => drop(mark));
      } catch {
        /* unmarked: a crash then goes unnoticed, as before */
      }
    },
  };
}
