// The CLI bundle's code caches (src/host/): made after a command first ran, one per command, accepted after that;
// a broken or foreign cache is rejected and made again, never an error; NODE_DISABLE_COMPILE_CACHE turns them off.
// Through the built CLI (bin/kubectl-arch), each test with a cache directory of its own. No timing here: npm run
// bench measures what the caches save.
import { afterAll, describe, expect, test } from '@jest/globals';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  lstatSync,
  statSync,
  symlinkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheName, compile, wrap } from '../src/host/cjs.js';
import { userStore } from '../src/host/store.js';
import { EXAMPLE, EXAMPLE_TYPES, exampleObjects } from './helpers/fixtures.js';
import { startTestApiServer } from './helpers/testApiServer.js';
import { arch, BIN, ROOT, run } from './helpers/run.js';
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';

const dirs: string[] = [];
const fresh = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'ka-code-cache-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const doctor = ['doctor', '--snapshot', EXAMPLE, '--fail-on', 'none', '-o', 'json'];
const debug = (home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  XDG_CACHE_HOME: home,
  KUBECTL_ARCH_DEBUG_CACHE: '1',
  NODE_DISABLE_COMPILE_CACHE: '',
  ...extra,
});
const lines = (stderr: string): string[] => stderr.split('\n').filter((l) => l.startsWith('code cache: '));
/** The one directory the caches of this build, Node and flags went to. */
const cacheDir = (home: string): string => {
  const root = join(home, 'kubectl-arch', 'code-cache');
  const [tag, ...more] = readdirSync(root);
  expect(more).toEqual([]);
  expect(tag).toMatch(new RegExp(`^${process.version}-${process.platform}-${process.arch}-[0-9a-f]{16}-[0-9a-f]{8}$`));
  return join(root, tag!);
};

describe('the npm entry (dist/cli.cjs)', () => {
  test('the first run saves a cache, the next one uses it, with the same output', async () => {
    const home = fresh();
    const a = await arch(doctor, debug(home));
    expect(a.code).toBe(0);
    const dir = cacheDir(home);
    expect(lines(a.stderr)).toEqual(['code cache: cli.cjs none', `code cache: cli.cjs saved ${join(dir, 'doctor-snapshot.cache')}`]);
    const b = await arch(doctor, debug(home));
    expect(lines(b.stderr)).toEqual(['code cache: cli.cjs own (doctor-snapshot) accepted']);
    expect(b.stdout).toBe(a.stdout);
    expect(JSON.parse(b.stdout).kind).toBe('Report');
  });

  test('each command has its own cache; flags before the command do not change which', async () => {
    const home = fresh();
    await arch(doctor, debug(home));
    const o = await arch(['-o', 'json', 'orphans', '--snapshot', EXAMPLE, '--fail-on', 'none'], debug(home));
    expect(lines(o.stderr)[0]).toBe('code cache: cli.cjs none');
    expect((await arch(['explain', 'immutable-retry-loop'], debug(home))).code).toBe(0);
    expect(readdirSync(cacheDir(home)).sort()).toEqual(['doctor-snapshot.cache', 'explain.cache', 'orphans-snapshot.cache']);
  });

  test('a file that is not a cache of ours is dropped before V8 sees it, and made again; the command runs as without one', async () => {
    const home = fresh();
    const clean = await arch(doctor, debug(home));
    const file = join(cacheDir(home), 'doctor-snapshot.cache');
    writeFileSync(file, Buffer.from('not a V8 code cache, or one from another V8'.repeat(100)));
    const r = await arch(doctor, debug(home));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(clean.stdout);
    expect(lines(r.stderr)).toEqual([
      'code cache: doctor-snapshot dropped: not a cache of this build',
      'code cache: cli.cjs none',
      `code cache: cli.cjs saved ${file}`,
    ]);
    expect(lines((await arch(doctor, debug(home))).stderr)).toEqual(['code cache: cli.cjs own (doctor-snapshot) accepted']);
  });

  test('a run that did not go through (usage error) saves nothing', async () => {
    const home = fresh();
    const r = await arch(['doctor', '--snapshot', join(home, 'missing.yaml')], debug(home));
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toEqual(['code cache: cli.cjs none']);
    expect(readdirSync(home)).toEqual([]);
  });

  test('a half-built dist/ (no CLI bundle) is named, not a stack trace', async () => {
    const root = fresh();
    mkdirSync(join(root, 'bin'));
    mkdirSync(join(root, 'dist'));
    copyFileSync(join(ROOT, 'bin/kubectl-arch'), join(root, 'bin/kubectl-arch'));
    chmodSync(join(root, 'bin/kubectl-arch'), 0o755);
    copyFileSync(join(ROOT, 'dist/kubectl-arch.mjs'), join(root, 'dist/kubectl-arch.mjs'));
    const r = await run(join(root, 'bin/kubectl-arch'), ['doctor'], { KUBECTL_ARCH_NODE: process.execPath });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: ${root}/bin/../dist/cli.cjs is missing; run: npm run build\n`);
  });

  test('NODE_DISABLE_COMPILE_CACHE=1: no cache read or written', async () => {
    const home = fresh();
    const r = await arch(doctor, debug(home, { NODE_DISABLE_COMPILE_CACHE: '1' }));
    expect(r.code).toBe(0);
    expect(lines(r.stderr)).toEqual(['code cache: cli.cjs none']);
    expect(readdirSync(home)).toEqual([]);
  });

  test('a cache directory that cannot be written costs nothing but the cache', async () => {
    const home = fresh();
    writeFileSync(join(home, 'kubectl-arch'), 'a file where the directory would go');
    const r = await arch(doctor, debug(home));
    expect(r.code).toBe(0);
    expect(lines(r.stderr)).toEqual(['code cache: cli.cjs none', 'code cache: cli.cjs not saved']);
  });
});

/** V8 code cache data for `payload` padded to the wrapped CLI bundle's length (all V8 checks of the source), made
 *  by a Node started as bin/kubectl-arch starts it (V8 also checks its flags): what another user could plant. */
function forgedCache(payload: string): Buffer {
  const forge = `
    const vm = require('node:vm');
    const src = require('node:fs').readFileSync(${JSON.stringify(join(ROOT, 'dist/cli.cjs'))}, 'latin1');
    const want = ${JSON.stringify(wrap('x').length - 1)} + src.length;
    const body = ${JSON.stringify(payload)};
    const s = new vm.Script(body + ' '.repeat(want - body.length));
    process.stdout.write(s.createCachedData());`;
  const r = spawnSync(process.execPath, ['--max-semi-space-size=4', '-e', forge], { maxBuffer: 64 << 20 });
  expect(r.status).toBe(0);
  return r.stdout;
}

describe('what the cache directory holds is trusted only when it is ours (forged caches, symlinks, crashes)', () => {
  const root = (home: string) => join(home, 'kubectl-arch', 'code-cache');

  test('a forged cache planted where ours would be is never run (it ran as the user who ran doctor)', async () => {
    const home = fresh();
    await arch(doctor, debug(home)); // our cache, and the directory, exist
    const pwned = join(home, 'pwned');
    const file = join(cacheDir(home), 'doctor-snapshot.cache');
    writeFileSync(
      file,
      forgedCache(
        `(function (exports, require, module) { require('node:fs').writeFileSync(${JSON.stringify(pwned)}, 'ran'); module.exports = { main: async () => 0 }; })`,
      ),
    );
    const r = await arch(doctor, debug(home));
    expect(existsSync(pwned)).toBe(false);
    expect([r.code, JSON.parse(r.stdout).kind]).toEqual([0, 'Report']);
    expect(lines(r.stderr)[0]).toBe('code cache: doctor-snapshot dropped: not a cache of this build');
  });

  test('one flipped byte: the cache is dropped (it crashed every later run with SIGSEGV or changed the output)', async () => {
    const home = fresh();
    const clean = await arch(doctor, debug(home));
    const file = join(cacheDir(home), 'doctor-snapshot.cache');
    const b = readFileSync(file);
    for (const at of [b.length >> 1, b.length - 1]) {
      const f = Buffer.from(b);
      f[at] = f[at]! ^ 0x10;
      writeFileSync(file, f);
      const r = await arch(doctor, debug(home));
      expect([r.code, r.stdout]).toEqual([0, clean.stdout]);
      expect(lines(r.stderr)[0]).toBe('code cache: doctor-snapshot dropped: its checksum does not match');
    }
  });

  test('the cache directory and its parents are made mode 0700; an own one with wider modes is narrowed', async () => {
    const home = fresh();
    await arch(doctor, debug(home));
    for (const d of [join(home, 'kubectl-arch'), root(home), cacheDir(home)]) expect(statSync(d).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(cacheDir(home))) expect(statSync(join(cacheDir(home), f)).mode & 0o777).toBe(0o600);
    chmodSync(cacheDir(home), 0o755);
    expect(lines((await arch(doctor, debug(home))).stderr)).toEqual(['code cache: cli.cjs own (doctor-snapshot) accepted']);
    expect(statSync(cacheDir(home)).mode & 0o777).toBe(0o700);
  });

  test('a cache directory that is a symlink is not used, and nothing it points to is pruned (13 files were deleted)', async () => {
    const home = fresh();
    const elsewhere = fresh();
    // someone's files, and directories named like ours with files in them
    for (let i = 0; i < 13; i++) writeFileSync(join(elsewhere, `file-${i}`), 'keep');
    for (const t of [
      'v20.0.0-linux-x64-a-00000000',
      'v20.0.0-linux-x64-b-00000000',
      'v20.0.0-linux-x64-c-00000000',
      'v20.0.0-linux-x64-d-00000000',
    ]) {
      mkdirSync(join(elsewhere, t));
      writeFileSync(join(elsewhere, t, 'doctor.cache'), 'keep');
    }
    mkdirSync(join(home, 'kubectl-arch'), { mode: 0o700 });
    symlinkSync(elsewhere, root(home));
    for (let i = 0; i < 2; i++) {
      const r = await arch(doctor, debug(home));
      expect(r.code).toBe(0);
      expect(lines(r.stderr)).toEqual(['code cache: cli.cjs none', 'code cache: cli.cjs not saved']);
    }
    expect(readdirSync(elsewhere).length).toBe(17);
    for (const t of readdirSync(elsewhere).filter((x) => x.startsWith('v20')))
      expect(readdirSync(join(elsewhere, t))).toEqual(['doctor.cache']);
  });

  test('a cache file that is a symlink (even to a cache of ours) or not a regular file is not read', async () => {
    const home = fresh();
    await arch(doctor, debug(home));
    const dir = cacheDir(home);
    await arch(['explain', 'immutable-retry-loop'], debug(home));
    rmSync(join(dir, 'doctor-snapshot.cache'));
    symlinkSync(join(dir, 'explain.cache'), join(dir, 'doctor-snapshot.cache'));
    const r = await arch(doctor, debug(home));
    expect(lines(r.stderr)[0]).toBe('code cache: doctor-snapshot dropped: not a regular file of this user');
    expect(lstatSync(join(dir, 'doctor-snapshot.cache')).isSymbolicLink()).toBe(false); // replaced by ours
  });

  test("prune removes only what the plugin made: other builds' caches; nothing else, in or out of them", async () => {
    const home = fresh();
    await arch(doctor, debug(home));
    const r = root(home);
    const others = ['a', 'b', 'c', 'd', 'e'].map((x, i) => {
      const d = join(r, `v20.0.0-linux-x64-${x}-00000000`);
      mkdirSync(d, { mode: 0o700 });
      writeFileSync(join(d, 'doctor.cache'), 'old');
      // the oldest holds a file the plugin never writes
      if (i === 4) writeFileSync(join(d, 'notes.txt'), 'not ours');
      const t = new Date(Date.now() - (i + 1) * 86_400_000);
      utimesSync(d, t, t);
      return d;
    });
    mkdirSync(join(r, 'photos'));
    writeFileSync(join(r, 'photos', 'a.jpg'), 'not ours');
    await arch(['explain'], debug(home)); // a write, then the prune
    expect(others.map((d) => existsSync(d))).toEqual([true, true, true, false, true]);
    expect(readdirSync(others[4]!)).toEqual(['notes.txt']);
    expect(readdirSync(join(r, 'photos'))).toEqual(['a.jpg']);
  });

  test('a relative XDG_CACHE_HOME is ignored, as the XDG spec says: the cache goes under $HOME/.cache', async () => {
    const cwd = fresh();
    const home = fresh();
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const c = spawn(BIN, doctor, { cwd, env: { ...process.env, ...debug('relative/cache'), HOME: home, KUBECONFIG: '/nonexistent' } });
      let stderr = '';
      c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      c.on('close', (code) => resolve({ code, stderr }));
    });
    expect(r.code).toBe(0);
    expect(readdirSync(cwd)).toEqual([]);
    expect(lines(r.stderr)[1]).toMatch(new RegExp(`^code cache: cli.cjs saved ${join(home, '.cache', 'kubectl-arch', 'code-cache')}/`));
  });

  test('a run that crashed while using a cache disables it for the next run, which makes a new one', async () => {
    const home = fresh();
    // the online doctor's cache, from a run against the test API server that goes through
    const api = await startTestApiServer({ types: EXAMPLE_TYPES, objects: exampleObjects() });
    // and a server that accepts and never answers: a run against it waits, its cache in use, until it is killed
    const sockets = new Set<Socket>();
    const hang: Server = createServer((c) => sockets.add(c.on('error', () => {})));
    await new Promise<void>((res) => hang.listen(0, '127.0.0.1', res));
    const kc = join(home, 'kc');
    writeFileSync(
      kc,
      `apiVersion: v1\nkind: Config\ncurrent-context: h\nclusters:\n- name: h\n  cluster: {server: "https://127.0.0.1:${(hang.address() as { port: number }).port}"}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n- name: h\n  context: {cluster: h, user: u}\n`,
    );
    try {
      const online = (k: string) => ['doctor', '--kubeconfig', k, '--fail-on', 'none', '-o', 'json', '--deadline', '10m'];
      expect((await arch(online(api.kubeconfigPath), debug(home))).code).toBe(0);
      const dir = cacheDir(home);
      const file = join(dir, 'doctor.cache');
      expect(existsSync(file)).toBe(true);
      const child = spawn(BIN, online(kc), { env: { ...process.env, ...debug(home), KUBECONFIG: '/nonexistent' }, stdio: 'ignore' });
      const closed = new Promise((r) => child.on('close', r));
      // the run has the cache in use once its marker is there (made before it compiles with the cache)
      while (!readdirSync(dir).some((f) => /^doctor\.\d+\.running$/.test(f))) await new Promise((r) => setTimeout(r, 20));
      child.kill('SIGSEGV');
      await closed;
      const next = await arch(online(api.kubeconfigPath), debug(home));
      expect(next.code).toBe(0);
      expect(lines(next.stderr).slice(0, 3)).toEqual([
        'code cache: doctor dropped: a run that used it ended without exiting (a crash?)',
        'code cache: cli.cjs none',
        expect.stringMatching(/^code cache: client-node\.cjs /),
      ]);
      expect(lines(next.stderr)).toContain(`code cache: cli.cjs saved ${file}`);
      expect(lines((await arch(online(api.kubeconfigPath), debug(home))).stderr)[0]).toBe('code cache: cli.cjs own (doctor) accepted');
    } finally {
      for (const c of sockets) c.destroy();
      hang.close();
      await api.close();
    }
  }, 60_000);

  /** The CLI with Node's compile cache on: NODE_DISABLE_COMPILE_CACHE unset (Node takes even "" as set). */
  const withNodeCache = (home: string, cwd?: string) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NO_COLOR: '1',
      KUBECONFIG: '/nonexistent',
      XDG_CACHE_HOME: home,
      PATH: `${ROOT}bin:${process.env.PATH}`,
    };
    delete env.NODE_DISABLE_COMPILE_CACHE;
    delete env.NODE_COMPILE_CACHE;
    return spawnSync(BIN, doctor, { cwd, env });
  };

  test("Node's compile cache (of the ES module entry) only in a directory of the user's own, never through a symlink", () => {
    const nodeCache = (home: string) => join(home, 'kubectl-arch', 'compile-cache');
    // used once the directory is there (the first run makes it, mode 0700)
    const home = fresh();
    for (let i = 0; i < 2; i++) expect(withNodeCache(home).status).toBe(0);
    expect(readdirSync(nodeCache(home)).length).toBeGreaterThan(0);
    // kubectl-arch/ a symlink to somewhere else: nothing is written there
    const other = fresh();
    const elsewhere = fresh();
    symlinkSync(elsewhere, join(other, 'kubectl-arch'));
    for (let i = 0; i < 2; i++) expect(withNodeCache(other).status).toBe(0);
    expect(readdirSync(elsewhere)).toEqual([]);
    // a relative XDG_CACHE_HOME: nothing under the working directory
    const cwd = fresh();
    expect(withNodeCache('rel', cwd).status).toBe(0);
    expect(readdirSync(cwd)).toEqual([]);
  });

  // another user's files can only be made by root; elsewhere these are skipped (the checks are the same code)
  const asRoot = process.getuid?.() === 0 ? test : test.skip;
  asRoot('as root: a cache directory or file owned by another user is not used', async () => {
    const home = fresh();
    await arch(doctor, debug(home));
    const file = join(cacheDir(home), 'doctor-snapshot.cache');
    chownSync(file, 65534, 65534);
    expect(lines((await arch(doctor, debug(home))).stderr)[0]).toBe('code cache: doctor-snapshot dropped: not a regular file of this user');
    chownSync(cacheDir(home), 65534, 65534);
    const r = await arch(doctor, debug(home));
    expect(lines(r.stderr)).toEqual(['code cache: cli.cjs none', 'code cache: cli.cjs not saved']);
    // Node's compile cache: not in a kubectl-arch/ of another user's either (root could write there, and would)
    const other = fresh();
    mkdirSync(join(other, 'kubectl-arch'));
    chownSync(join(other, 'kubectl-arch'), 65534, 65534);
    expect(withNodeCache(other).status).toBe(0);
    expect(readdirSync(join(other, 'kubectl-arch'))).toEqual([]);
  });
});

describe('src/host', () => {
  test.each(['cli.cjs', 'client-node.cjs', 'mcp-sdk.cjs'])(
    'dist/%s is ASCII, as the entry reads it as latin1 (the build refuses anything else)',
    (f) => {
      const text = readFileSync(join(ROOT, 'dist', f), 'latin1');
      expect(text.length).toBeGreaterThan(100_000);
      expect(text.search(/[^\x00-\x7f]/)).toBe(-1);
    },
  );

  test('cacheName: the first command word, and whether it reads a snapshot', () => {
    expect(cacheName(['doctor'])).toBe('doctor');
    expect(cacheName(['--context', 'prod', 'orphans', '--snapshot', 'x'])).toBe('orphans-snapshot');
    expect(cacheName(['quorum', '--snapshot=x'])).toBe('quorum-snapshot');
    expect(cacheName(['--help'])).toBe('other');
    expect(cacheName(['doctr'])).toBe('other');
  });

  test('compile: a cache made after running is accepted for a source of the same length', () => {
    const src = 'module.exports = { f: (x) => x * 2 };';
    const a = compile(src, 'a.cjs', undefined);
    expect(a.cache).toBe('none');
    const mod = a.run(createRequire(import.meta.url), 'a.cjs', '.') as { f: (x: number) => number };
    expect(mod.f(21)).toBe(42);
    const data = a.cacheData();
    expect(compile(src, 'a.cjs', data).cache).toBe('accepted');
    expect(compile(`${src} `, 'a.cjs', data).cache).toBe('rejected');
    // V8 compares the source's length only: an edit of the same length is accepted, which is why the
    // caches' directory is named after a hash of the bundles (the build id)
    expect(compile(src.replace('2', '3'), 'a.cjs', data).cache).toBe('accepted');
    expect(wrap('x')).toBe('(function (exports, require, module, __filename, __dirname) {x\n})');
  });

  test('userStore writes through a new file of a random name: a symlink planted at a predictable temp name is never followed', () => {
    const home = fresh();
    const s = userStore('b1', { XDG_CACHE_HOME: home })!;
    const file = s.write('doctor', () => Buffer.from('x'))!;
    // the names a temp file used to have: NAME.cache.<pid>.tmp
    const victim = join(home, 'victim');
    writeFileSync(victim, 'precious');
    symlinkSync(victim, `${file}.${process.pid}.tmp`);
    expect(s.write('doctor', () => Buffer.from('y'))).toBe(file);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(s.read('doctor')?.toString()).toBe('y');
  });

  test('userStore: per Node version, platform, build and flags; only the three latest other builds kept', () => {
    const home = fresh();
    expect(userStore('b1', { XDG_CACHE_HOME: home, NODE_DISABLE_COMPILE_CACHE: '1' })).toBeUndefined();
    const s = userStore('b1', { XDG_CACHE_HOME: home })!;
    expect(s.read('doctor')).toBeUndefined();
    const file = s.write('doctor', () => Buffer.from('x'))!;
    expect(file).toContain(join(home, 'kubectl-arch', 'code-cache', `${process.version}-${process.platform}-${process.arch}-b1-`));
    expect(s.read('doctor')?.toString()).toBe('x');
    expect(userStore('b2', { XDG_CACHE_HOME: home })!.read('doctor')).toBeUndefined();
    // V8 flags from NODE_OPTIONS are part of what a cache was made under
    expect(userStore('b1', { XDG_CACHE_HOME: home, NODE_OPTIONS: '--no-opt' })!.read('doctor')).toBeUndefined();
    // other builds' directories: the three most recently written stay, older ones go at the next write
    const root = join(home, 'kubectl-arch', 'code-cache');
    const others = ['a', 'b', 'c', 'd', 'e'].map((x, i) => {
      const d = join(root, `v20.0.0-linux-x64-${x}-00000000`);
      mkdirSync(d);
      const t = new Date(Date.now() - (i + 1) * 24 * 3600 * 1000); // a: a day ago … e: five days ago
      utimesSync(d, t, t);
      return d;
    });
    s.write('doctor', () => Buffer.from('x'));
    expect(others.map((d) => existsSync(d))).toEqual([true, true, true, false, false]);
    expect(s.read('doctor')?.toString()).toBe('x');
    // a cache directory that cannot be made: the cache is not even made
    const blocked = join(home, 'blocked');
    writeFileSync(blocked, 'a file where the directory would go');
    let made = 0;
    expect(userStore('b1', { XDG_CACHE_HOME: blocked })!.write('doctor', () => (made++, Buffer.from('x')))).toBeUndefined();
    expect(made).toBe(0);
    // HOME when XDG_CACHE_HOME is unset
    const h = userStore('b1', { HOME: home })!;
    expect(h.write('map', () => Buffer.from('y'))).toContain(join(home, '.cache', 'kubectl-arch', 'code-cache'));
  });
});
