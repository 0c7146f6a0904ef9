#!/usr/bin/env node
// Checks what a test suite needs beyond `npm ci` before it starts, and stops with one line naming what to
// install (Debian package names) instead of a stack trace per test. `npm test` needs nothing: it has no entry.
//   node scripts/prereqs.mjs release   # npm run test:release: the krew archives, qemu for linux/arm64, krew
//   node scripts/prereqs.mjs e2e       # npm run test:e2e: kube-apiserver and kube-controller-manager built with Go
//   node scripts/prereqs.mjs browser   # npm run test:browser: Debian's chromium (playwright-core drives it; no browser download)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const has = (cmd) => {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const anyOf = (...cmds) => cmds.some(has);
const sysroot = process.env.KUBECTL_ARCH_ARM64_SYSROOT ?? '/usr/aarch64-linux-gnu';

// [what is looked for, is it there, what provides it]
const NEEDS = {
  release: [
    ['go', () => has('go'), 'Go (golang-go, or go.dev/dl) — builds the Mach-O signer and krew'],
    ['llvm-strip', () => anyOf('llvm-strip', 'llvm-strip-19', 'llvm-strip-16', 'llvm-strip-14'), 'llvm'],
    ['qemu-aarch64', () => anyOf('qemu-aarch64-static', 'qemu-aarch64'), 'qemu-user-static'],
    [`${sysroot}/lib/ld-linux-aarch64.so.1`, () => existsSync(join(sysroot, 'lib/ld-linux-aarch64.so.1')), 'libc6-arm64-cross'],
    [`${sysroot}/lib/libstdc++.so.6`, () => existsSync(join(sysroot, 'lib/libstdc++.so.6')), 'libstdc++6-arm64-cross'],
    [`${sysroot}/lib/libatomic.so.1`, () => existsSync(join(sysroot, 'lib/libatomic.so.1')), 'libatomic1-arm64-cross'],
    ['file', () => has('file'), 'file'],
    ['git', () => has('git'), 'git'],
    ['kubectl', () => existsSync(process.env.KUBECTL ?? '/usr/bin/kubectl'), 'kubectl (set KUBECTL= to its path)'],
  ],
  browser: [
    [
      process.env.KUBECTL_ARCH_CHROMIUM ?? '/usr/bin/chromium',
      () => existsSync(process.env.KUBECTL_ARCH_CHROMIUM ?? '/usr/bin/chromium'),
      'chromium (set KUBECTL_ARCH_CHROMIUM= to another build)',
    ],
  ],
  e2e: [
    [
      'go',
      () => has('go'),
      'Go (golang-go, or go.dev/dl) — builds kube-apiserver, kube-controller-manager (and etcd when etcd-server is absent)',
    ],
    ['openssl', () => has('openssl'), 'openssl'],
    ['kubectl', () => existsSync(process.env.KUBECTL ?? '/usr/bin/kubectl'), 'kubectl (set KUBECTL= to its path)'],
  ],
};

const suite = process.argv[2];
const needs = NEEDS[suite];
if (!needs) {
  console.error(`usage: node scripts/prereqs.mjs ${Object.keys(NEEDS).join('|')}`);
  process.exit(2);
}
const missing = needs.filter(([, ok]) => !ok());
if (missing.length) {
  console.error(
    `npm run test:${suite} needs what this machine lacks: ${missing.map(([what]) => what).join(', ')} — install: ${[...new Set(missing.map(([, , pkg]) => pkg))].join(', ')}`,
  );
  process.exit(1);
}
