// npm run package — the krew artifact: a Node single-executable (SEA) build of the CLI for this
// platform, packed as dist/release/kubectl-arch_<os>_<arch>.tar.gz, with its sha256 written into
// dist/release/krew-manifest.yaml (from the repo's draft). Uses the pinned Node (the devDependency).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const OUT = 'dist/release';
const WORK = 'dist/sea';
const os = { linux: 'linux', darwin: 'darwin' }[process.platform] ?? process.platform;
const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch] ?? process.arch;
rmSync(WORK, { recursive: true, force: true });
mkdirSync(WORK, { recursive: true });
mkdirSync(OUT, { recursive: true });

// 1. one CommonJS file (SEA runs a CommonJS main; nothing is loaded from disk at run time)
await build({
  entryPoints: ['src/sea.ts'], outfile: join(WORK, 'kubectl-arch.cjs'), bundle: true, platform: 'node', format: 'cjs', target: 'node24',
  minifySyntax: true, legalComments: 'none', logLevel: 'warning', loader: { '.yaml': 'text' },
  define: { __VERSION__: JSON.stringify(pkg.version), 'import.meta.url': '__kubectl_arch_url' },
  banner: { js: "var __kubectl_arch_url = require('node:url').pathToFileURL(__filename).href;" },
});
// 2. the SEA blob, with V8's code cache so start-up skips parsing
writeFileSync(join(WORK, 'sea-config.json'), JSON.stringify({ main: join(WORK, 'kubectl-arch.cjs'), output: join(WORK, 'sea-prep.blob'), disableExperimentalSEAWarning: true, useCodeCache: true }));
execFileSync(process.execPath, ['--experimental-sea-config', join(WORK, 'sea-config.json')], { stdio: 'pipe' });
// 3. a copy of this node binary (stripped of debug info where `strip` exists), with the blob injected
const exe = join(WORK, 'kubectl-arch');
copyFileSync(process.execPath, exe);
chmodSync(exe, 0o755);
try { execFileSync('strip', [exe], { stdio: 'ignore' }); } catch { /* keep symbols */ }
execFileSync(process.execPath, ['node_modules/postject/dist/cli.js', exe, 'NODE_SEA_BLOB', join(WORK, 'sea-prep.blob'),
  '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2', ...(process.platform === 'darwin' ? ['--macho-segment-name', 'NODE_SEA'] : [])], { stdio: 'pipe' }); // LIEF warns about ELF notes; failures still throw
if (process.platform === 'darwin') execFileSync('codesign', ['--sign', '-', exe]);
// 4. the archive krew downloads, and the manifest with its checksum
const tarName = `kubectl-arch_${os}_${arch}.tar.gz`;
copyFileSync('README.md', join(WORK, 'README.md'));
execFileSync('tar', ['-czf', join(OUT, tarName), '-C', WORK, 'kubectl-arch', 'README.md']);
const sha = createHash('sha256').update(readFileSync(join(OUT, tarName))).digest('hex');
const manifest = readFileSync('krew-manifest.yaml', 'utf8').replace(
  new RegExp(`(uri: \\S*/${tarName.replace(/\./g, '\\.')}\\n\\s*sha256: )"[0-9a-f]{64}"`), `$1"${sha}"`);
writeFileSync(join(OUT, 'krew-manifest.yaml'), manifest);
console.log(`${join(OUT, tarName)}  sha256 ${sha}`);
