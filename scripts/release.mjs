// npm run release — the krew release, built on one Linux x64 machine: for linux/amd64, linux/arm64,
// darwin/amd64, darwin/arm64 and windows/amd64 a Node single-executable (SEA) build of the CLI,
// packed with README.md, LICENSE and the kubectl_complete-arch helper as dist/release/kubectl-arch_<os>_<arch>.tar.gz, and
// dist/release/krew-manifest.yaml (the repo's draft with every sha256 filled in).
//
//   node scripts/release.mjs [--platforms linux/amd64,darwin/arm64] [--out DIR]
//
// Reproducible: the same commit gives byte-identical archives (fixed mtimes and owners, sorted
// entries, gzip without a timestamp, a V8 code cache made with a fixed random seed).
// Per platform (see PLATFORMS in scripts/lib/release-tools.mjs):
// - the Node binary is the npm registry's package for that platform, integrity-pinned;
// - ELF binaries are stripped with llvm-strip; Mach-O and PE are not stripped (Mach-O cannot be
//   run here to prove a stripped one still starts; node.exe carries no symbols);
// - the SEA blob carries a V8 code cache only where it is made by the target's own Node: natively
//   for linux/amd64, under qemu for linux/arm64. A cache made by another platform's V8 is rejected
//   at run time with a warning on every start, so darwin and windows get none;
// - Mach-O binaries are signed ad hoc (scripts/macho-sign): injection drops Node's signature and
//   macOS kills unsigned arm64 binaries.
// Every step that fails fails the build.
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCb } from 'node:zlib';
import { build } from 'esbuild';
import { parseDocument } from 'yaml';
import { lazyDeps } from './lib/lazy-deps.mjs';
import { bundleCli } from './lib/bundle-cli.mjs';
import {
  archiveName,
  llvmStrip,
  machoSigner,
  nodeBinary,
  NODE_VERSION,
  PLATFORMS,
  qemuArm64,
  ROOT,
  run,
  runAsync,
} from './lib/release-tools.mjs';
import { renderExplain, renderHelp } from './lib/help.mjs';
import { tar } from './lib/tar.mjs';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const OUT = resolve(ROOT, opt('--out') ?? 'dist/release');
const WORK = join(ROOT, 'dist/sea');
const wanted = opt('--platforms')?.split(',');
const platforms = wanted ? PLATFORMS.filter((p) => wanted.includes(`${p.os}/${p.arch}`)) : PLATFORMS;
if (wanted && platforms.length !== wanted.length)
  throw new Error(`unknown platform in ${wanted.join(',')}; known: ${PLATFORMS.map((p) => `${p.os}/${p.arch}`).join(', ')}`);
if (process.platform !== 'linux' || process.arch !== 'x64')
  throw new Error('the release is built on Linux x64 (it runs the linux/amd64 Node natively and the linux/arm64 one under qemu)');

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const devNode = JSON.parse(readFileSync(join(ROOT, 'scripts/dev-node/package.json'), 'utf8')).optionalDependencies.node;
if (devNode !== NODE_VERSION)
  throw new Error(
    `release Node ${NODE_VERSION} differs from the development pin ${devNode} (scripts/dev-node/package.json); keep them equal`,
  );
// archive entries get the commit's time (or SOURCE_DATE_EPOCH), never the build's
const mtime = Number(process.env.SOURCE_DATE_EPOCH ?? run('git', ['log', '-1', '--format=%ct'], { cwd: ROOT }).toString().trim());
if (!Number.isInteger(mtime)) throw new Error('no commit time: set SOURCE_DATE_EPOCH');

rmSync(WORK, { recursive: true, force: true });
mkdirSync(WORK, { recursive: true });
mkdirSync(OUT, { recursive: true });

// 1. the main script (start-up fast paths, completion) and the CLI bundles the npm package runs too
//    (scripts/lib/bundle-cli.mjs): cli.cjs, the rest of the CLI, and client-node.cjs, the Kubernetes client,
//    stored as SEA assets and compiled only when a command needs them. Measured: one 3.2 MB main script cost
//    the binaries without a code cache (darwin, windows) ~60 ms at every start, even for `version`.
const main = join(WORK, 'kubectl-arch.cjs');
const cli = join(WORK, 'cli.cjs');
const clientNode = join(WORK, 'client-node.cjs');
const mcpSdk = join(WORK, 'mcp-sdk.cjs');
const buildId = await bundleCli(WORK, pkg.version);
await build({
  absWorkingDir: ROOT,
  entryPoints: ['src/entry-sea.ts'],
  outfile: main,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [lazyDeps],
  define: {
    __VERSION__: JSON.stringify(pkg.version),
    __BUILD_ID__: JSON.stringify(buildId),
    __HELP__: JSON.stringify(renderHelp(join(ROOT, 'dist/kubectl-arch.mjs'))),
    __EXPLAIN__: JSON.stringify(renderExplain(join(ROOT, 'dist/kubectl-arch.mjs'))),
  },
});

const hostNode = nodeBinary(PLATFORMS.find((p) => p.os === 'linux' && p.arch === 'amd64'));
const files = { 'README.md': readFileSync(join(ROOT, 'README.md')), LICENSE: readFileSync(join(ROOT, 'LICENSE')) };
// kubectl 1.26+ completes `kubectl arch` by running kubectl_complete-arch from PATH (krew links only
// `bin`, so the manifest's caveats say how to link it); on Windows a .cmd, found through PATHEXT
const completer = (p) =>
  p.os === 'windows'
    ? { name: 'kubectl_complete-arch.cmd', data: Buffer.from('@"%~dp0kubectl-arch.exe" __complete %*\r\n'), mode: 0o755, mtime }
    : { name: 'kubectl_complete-arch', data: readFileSync(join(ROOT, 'bin/kubectl_complete-arch')), mode: 0o755, mtime };
const gzip = promisify(gzipCb);
// fetch and build the tools first (sequentially: they share caches), then build two platforms at a time
for (const p of platforms) nodeBinary(p);
const signer = platforms.some((p) => p.format === 'macho') ? machoSigner() : '';
const strip = platforms.some((p) => p.strip) ? llvmStrip() : '';
const qemu = platforms.some((p) => p.codeCache === 'qemu') ? qemuArm64() : [];

async function buildPlatform(p) {
  const t0 = Date.now();
  const dir = join(WORK, `${p.os}-${p.arch}`);
  mkdirSync(dir, { recursive: true });
  // 2. the platform's Node binary, stripped where the format allows it
  const base = join(dir, `node-${p.os}-${p.arch}`);
  copyFileSync(nodeBinary(p), base);
  chmodSync(base, 0o755);
  if (p.strip) await runAsync(strip, [base]);
  // 3. the SEA: Node's own --build-sea writes the blob into a copy of the binary (ELF, Mach-O or PE);
  //    a code cache is made by the target's own Node, with a fixed random seed so it is deterministic
  const exe = join(dir, p.exe);
  const config = join(dir, 'sea-config.json');
  const runner = p.codeCache === 'qemu' ? [...qemu, nodeBinary(p)] : [hostNode];
  const assets = { 'cli.cjs': cli, 'client-node.cjs': clientNode, 'mcp-sdk.cjs': mcpSdk };
  if (p.codeCache) {
    // the bundles' code caches, made by the target's Node as src/host/cjs.ts compiles them (before anything
    // ran, so that they are reproducible; the binary makes its own after a command ran, src/host/store.ts)
    for (const b of ['cli', 'client-node', 'mcp-sdk']) {
      assets[`${b}.cache`] = join(dir, `${b}.cache`);
      await runAsync(runner[0], [
        ...runner.slice(1),
        '--random_seed=42',
        join(ROOT, 'scripts/lib/sea-cache.cjs'),
        assets[`${b}.cjs`],
        assets[`${b}.cache`],
      ]);
    }
  }
  writeFileSync(
    config,
    JSON.stringify({
      // relative to WORK, where --build-sea runs: the blob keeps this path as the main script's name (and its code
      // cache too), so an absolute one made the archive depend on where the checkout is
      main: relative(WORK, main),
      executable: base,
      output: exe,
      disableExperimentalSEAWarning: true,
      useCodeCache: Boolean(p.codeCache),
      assets,
    }),
  );
  await runAsync(runner[0], [...runner.slice(1), '--random_seed=42', '--build-sea', config], { cwd: WORK });
  if (!existsSync(exe)) throw new Error(`${p.os}/${p.arch}: --build-sea wrote no ${exe}`);
  // 4. macOS: an ad-hoc signature (injection removed Node's)
  if (p.format === 'macho') await runAsync(signer, ['-id', 'kubectl-arch', exe]);
  // 5. the archive krew downloads (gzip level 6: level 9 took 3x as long for 0.3% less)
  const exeData = readFileSync(exe);
  const archive = await gzip(
    tar([
      { name: 'LICENSE', data: files.LICENSE, mode: 0o644, mtime },
      { name: 'README.md', data: files['README.md'], mode: 0o644, mtime },
      { name: p.exe, data: exeData, mode: 0o755, mtime },
      completer(p),
    ]),
    { level: 6 },
  );
  writeFileSync(join(OUT, archiveName(p)), archive);
  const sha256 = createHash('sha256').update(archive).digest('hex');
  const seconds = (Date.now() - t0) / 1000;
  console.log(`${join(OUT, archiveName(p))}  ${(archive.length / 1e6).toFixed(1)} MB  sha256 ${sha256}  (${seconds.toFixed(0)} s)`);
  return {
    platform: `${p.os}/${p.arch}`,
    archive: archiveName(p),
    sha256,
    bytes: archive.length,
    exeBytes: exeData.length,
    codeCache: Boolean(p.codeCache),
    stripped: p.strip,
    signed: p.format === 'macho',
  };
}

const results = [];
const queue = [...platforms];
await Promise.all(
  [0, 1].map(async () => {
    for (let p = queue.shift(); p; p = queue.shift()) results.push(await buildPlatform(p));
  }),
);
results.sort(
  (a, b) => platforms.findIndex((p) => `${p.os}/${p.arch}` === a.platform) - platforms.findIndex((p) => `${p.os}/${p.arch}` === b.platform),
);

// 6. the manifest: the repo's draft with each archive's sha256, listing only the platforms built (`npm run package`
//    builds one: a platform with no archive would be a zero sha256 krew can only refuse)
const doc = parseDocument(readFileSync(join(ROOT, 'krew-manifest.yaml'), 'utf8'));
const entries = doc.getIn(['spec', 'platforms']);
const built = new Map(results.map((r) => [r.archive, r]));
for (const r of results)
  if (!entries.items.some((e) => String(e.get('uri')).endsWith(`/${r.archive}`)))
    throw new Error(`krew-manifest.yaml has no entry for ${r.archive}`);
entries.items = entries.items.filter((e) => built.has(String(e.get('uri')).split('/').pop()));
for (const e of entries.items) e.get('sha256', true).value = built.get(String(e.get('uri')).split('/').pop()).sha256;
const manifest = doc.toString({ lineWidth: 0, indentSeq: false });
writeFileSync(join(OUT, 'krew-manifest.yaml'), manifest);
writeFileSync(join(OUT, 'SHA256SUMS'), results.map((r) => `${r.sha256}  ${r.archive}\n`).join(''));
writeFileSync(join(OUT, 'release.json'), JSON.stringify({ node: NODE_VERSION, mtime, platforms: results }, null, 2) + '\n');
