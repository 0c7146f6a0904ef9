// The CLI bundle's code caches (src/host/): made after a command first ran, one per command, accepted after that;
// a broken or foreign cache is rejected and made again, never an error; NODE_DISABLE_COMPILE_CACHE turns them off.
// Through the built CLI (bin/kubectl-arch), each test with a cache directory of its own. No timing here: npm run
// bench measures what the caches save.
import { afterAll, describe, expect, test } from '@jest/globals';
import {
  chmodSync,
  copyFileSync,
  existsSync,
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
import { EXAMPLE } from './helpers/fixtures.js';
import { arch, ROOT, run } from './helpers/run.js';

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

  test('a broken cache is rejected and made again; the command runs as without one', async () => {
    const home = fresh();
    const clean = await arch(doctor, debug(home));
    const file = join(cacheDir(home), 'doctor-snapshot.cache');
    writeFileSync(file, Buffer.from('not a V8 code cache, or one from another V8'.repeat(100)));
    const r = await arch(doctor, debug(home));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(clean.stdout);
    expect(lines(r.stderr)).toEqual(['code cache: cli.cjs own (doctor-snapshot) rejected', `code cache: cli.cjs saved ${file}`]);
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
