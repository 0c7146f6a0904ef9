// The krew artifact: a Node single-executable build, packed with its checksum in the manifest.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE, EXAMPLE_TYPES, exampleObjects } from './helpers/fixtures.js';
import { tempDir } from './helpers/tmp.js';
import { arch, KUBECTL, ROOT, run } from './helpers/run.js';
import { startTestApiServer, type TestApiServer } from './helpers/testApiServer.js';

const archName = { x64: 'amd64', arm64: 'arm64' }[process.arch as 'x64'] ?? process.arch;
const TAR = join(ROOT, `dist/release/kubectl-arch_${process.platform}_${archName}.tar.gz`);
let dir = '';
let srv: TestApiServer;

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/package.mjs'], { cwd: ROOT, stdio: 'pipe' });
  dir = tempDir();
  execFileSync('tar', ['-xzf', TAR, '-C', dir]);
  srv = await startTestApiServer({ types: EXAMPLE_TYPES, objects: exampleObjects() });
}, 180_000);
afterAll(async () => { await srv?.close(); });

describe('single-executable build for krew', () => {
  test('the manifest carries the archive\'s sha256', () => {
    const sha = createHash('sha256').update(readFileSync(TAR)).digest('hex');
    expect(readFileSync(join(ROOT, 'dist/release/krew-manifest.yaml'), 'utf8')).toContain(`sha256: "${sha}"`);
  });

  test('runs without Node.js or node_modules: same report as the npm build', async () => {
    const exe = join(dir, 'kubectl-arch');
    const env = { PATH: '/usr/bin:/bin' }; // without the pinned Node; the binary carries its own
    const v = await run(exe, ['version'], env);
    expect(v.stdout).toMatch(/^kubectl-arch \d+\.\d+\.\d+/);
    const sea = await run(exe, ['doctor', '--snapshot', EXAMPLE, '-o', 'json', '--fail-on', 'none'], env);
    const npmBuild = await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'json', '--fail-on', 'none']);
    expect(JSON.parse(sea.stdout).checks).toEqual(JSON.parse(npmBuild.stdout).checks);
  });

  test('as a kubectl plugin against an API server', async () => {
    const r = await run('/bin/sh', ['-c', `PATH=${dir}:/usr/bin:/bin ${KUBECTL} arch doctor --kubeconfig ${srv.kubeconfigPath} -o json --fail-on none`]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).fingerprint.distribution).toBe('K3s');
  });
});
