// Releases anyone can rebuild (#46): two clones of this commit at different paths (of different lengths) build
// byte-identical archives and manifests — no absolute build directory in them (the SEA blob kept its main script's
// path, and a code cache the path of its bundle). linux/amd64 (with the V8 code caches, made natively) and
// darwin/arm64 (no cache; signed ad hoc) are the two kinds of build. And `npm run package`'s manifest lists only
// the platform it built.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { ROOT } from './helpers/run.js';

const PLATFORMS = ['linux/amd64', 'darwin/arm64'];
const ARCHIVES = ['kubectl-arch_linux_amd64.tar.gz', 'kubectl-arch_darwin_arm64.tar.gz'];
let tmp = '';
const clones: string[] = [];

const sh = (cmd: string, args: string[], cwd: string): string =>
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 }).toString();

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'ka-clones-'));
  const commit = sh('git', ['rev-parse', 'HEAD'], ROOT).trim();
  for (const dir of [join(tmp, 'a'), join(tmp, 'a-much-longer-directory', 'of-someone-else', 'kubectl-arch')]) {
    mkdirSync(join(dir, '..'), { recursive: true });
    sh('git', ['clone', '--quiet', '--no-checkout', ROOT, dir], tmp);
    sh('git', ['-c', 'advice.detachedHead=false', 'checkout', '--quiet', commit], dir);
    // the same dependencies as `npm ci` would install, linked rather than downloaded again
    sh('cp', ['-al', join(ROOT, 'node_modules'), join(dir, 'node_modules')], tmp);
    sh(process.execPath, ['scripts/build.mjs'], dir);
    sh(process.execPath, ['scripts/release.mjs', '--platforms', PLATFORMS.join(','), '--out', 'dist/release'], dir);
    clones.push(dir);
  }
}, 1_200_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('two clones at different paths', () => {
  test('build byte-identical archives and manifests', () => {
    const [a, b] = clones.map((c) => join(c!, 'dist/release'));
    expect(readdirSync(a!).sort()).toEqual(['SHA256SUMS', 'krew-manifest.yaml', ...ARCHIVES, 'release.json'].sort());
    for (const f of [...ARCHIVES, 'krew-manifest.yaml', 'SHA256SUMS'])
      expect({ f, same: readFileSync(join(a!, f)).equals(readFileSync(join(b!, f))) }).toEqual({ f, same: true });
  });

  test('no build directory in what they ship', () => {
    for (const c of clones) {
      const dir = join(c, 'dist/sea');
      for (const exe of [join(dir, 'linux-amd64/kubectl-arch'), join(dir, 'darwin-arm64/kubectl-arch')])
        expect({ exe, holds: readFileSync(exe).includes(c) }).toEqual({ exe, holds: false });
    }
  });

  test('the manifest lists exactly the platforms built, each with its sha256 (no zeros)', () => {
    const text = readFileSync(join(clones[0]!, 'dist/release/krew-manifest.yaml'), 'utf8');
    expect(text).not.toContain('0'.repeat(64));
    const m = load(text) as { spec: { platforms: Array<{ selector: { matchLabels: { os: string; arch: string } }; sha256: string }> } };
    expect(m.spec.platforms.map((p) => `${p.selector.matchLabels.os}/${p.selector.matchLabels.arch}`)).toEqual(PLATFORMS);
    const sums = readFileSync(join(clones[0]!, 'dist/release/SHA256SUMS'), 'utf8');
    for (const p of m.spec.platforms) expect(sums).toContain(p.sha256);
    // and the comments and layout of the repository's draft are kept
    expect(text.split('\n').slice(0, 4)).toEqual(readFileSync(join(ROOT, 'krew-manifest.yaml'), 'utf8').split('\n').slice(0, 4));
  });
});
