// What a new check costs: its folder and its registry entry, nothing else. In a copy of this tree, the
// demonstration folder (__tests__/fixtures/new-check/pending-load-balancer/: check.ts, scenario.ts, cases/) is copied
// to src/checks/ and added to src/checks/registry.ts; after a build and `npm run gen` the check is in doctor (every
// output format), explain, map, the corpus run and the README's checks table, it type-checks (a code it does not
// declare does not compile), and git lists no other file changed by hand.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from './helpers/run.js';

let T = '';
const sh = (cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): string =>
  execFileSync(cmd, args, { cwd: T, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
const arch = (...args: string[]): { code: number; out: string } => {
  const r = spawnSync(join(T, 'bin/kubectl-arch'), args, { cwd: T, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status ?? -1, out: r.stdout };
};
const EXAMPLE = 'examples/field-notes-k3s';

beforeAll(() => {
  T = mkdtempSync(join(tmpdir(), 'kubectl-arch-new-check-'));
  // the tree as it is (tracked and new files), without node_modules, build output or caches
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && !f.startsWith('dist/'));
  for (const f of files) {
    try {
      mkdirSync(dirname(join(T, f)), { recursive: true });
      cpSync(join(ROOT, f), join(T, f));
    } catch {
      /* listed but deleted in the working tree */
    }
  }
  symlinkSync(join(ROOT, 'node_modules'), join(T, 'node_modules'));
  sh('git', ['init', '-q']);
  sh('git', ['add', '-A']);
  sh('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base', '--no-verify']);

  // the two steps of adding a check: its folder, and its entry in the registry
  cpSync(join(ROOT, '__tests__/fixtures/new-check/pending-load-balancer'), join(T, 'src/checks/pending-load-balancer'), {
    recursive: true,
  });
  const reg = join(T, 'src/checks/registry.ts');
  const text = readFileSync(reg, 'utf8')
    .replace(/^(import type \{ Check \})/m, "import { pendingLoadBalancer } from './pending-load-balancer/check.js';\n$1")
    .replace(/^(export const CHECKS: Check\[\] = \[\n(?:.*\n)*?)\];/m, '$1  pendingLoadBalancer,\n];');
  writeFileSync(reg, text);
  sh(process.execPath, ['scripts/build.mjs']);
  sh(process.execPath, ['scripts/gen.mjs']);
}, 600_000);

afterAll(() => {
  if (T) rmSync(T, { recursive: true, force: true });
});

describe('a new check is its folder and one registry entry', () => {
  test('no file but the folder and the registry is changed by hand (the rest is what npm run gen writes)', () => {
    const changed = sh('git', ['status', '--porcelain', '--untracked-files=all'])
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(3));
    const byHand = changed.filter((f) => !f.startsWith('src/checks/pending-load-balancer/') && f !== 'src/checks/registry.ts');
    const generated = [
      'README.md',
      'docs/pictures.md',
      'docs/map.md',
      'docs/snapshot.md',
      ...changed.filter((f) => f.startsWith(`${EXAMPLE}/`) || f.startsWith('docs/pictures/') || f.startsWith('docs/explain/')),
    ];
    expect(byHand.filter((f) => !generated.includes(f))).toEqual([]);
    console.log(`a new check touched: ${changed.join(', ')}`);
  });

  test('it type-checks, and a code it does not declare does not compile', () => {
    expect(() => sh(join(T, 'node_modules/.bin/tsc'), ['--noEmit'])).not.toThrow();
  }, 300_000);

  test('doctor shows it on the example, in every output format', () => {
    const table = arch('doctor', '--snapshot', EXAMPLE, '--fail-on', 'none');
    expect(table.out).toMatch(/LoadBalancer Services without an address \[pending-load-balancer\]/);
    expect(table.out).toMatch(/WARNING ARCH-LB01 {2}Service sandbox\/gateway has no external address/);
    for (const o of ['json', 'yaml', 'sarif', 'junit', 'prometheus', 'policyreport']) {
      const r = arch('doctor', '--snapshot', EXAMPLE, '--fail-on', 'none', '-o', o);
      expect([o, r.code, r.out.includes('pending-load-balancer')]).toEqual([o, 0, true]);
    }
    expect(JSON.parse(arch('doctor', '--snapshot', EXAMPLE, '-o', 'json').out).checks.map((c: { id: string }) => c.id)).toContain(
      'pending-load-balancer',
    );
  });

  test('explain documents it, from its own docs', () => {
    const r = arch('explain', 'pending-load-balancer');
    expect(r.out).toMatch(/LoadBalancer Services without an address \[pending-load-balancer\][\s\S]*ARCH-LB01/);
    expect(arch('explain', 'ARCH-LB01').out).toMatch(/pending-load-balancer/);
  });

  test('map puts it where it says it belongs (interfaces, load balancers)', () => {
    const r = arch('map', '--snapshot', EXAMPLE);
    expect(r.out).toMatch(/load balancers +1 Service of type LoadBalancer[^\n]*\n +checks: pending-load-balancer WARNING/);
  });

  test("the README's checks table has its row", () => {
    expect(readFileSync(join(T, 'README.md'), 'utf8')).toContain(
      '| `pending-load-balancer` | LoadBalancer Services that never got an external address (no load-balancer implementation) | ARCH-LB01 |',
    );
  });

  test('the corpus run holds it to its cases, and the rules to them', () => {
    const r = spawnSync(
      process.execPath,
      ['--experimental-vm-modules', 'node_modules/jest/bin/jest.js', '--verbose', '__tests__/corpus.test.ts', '__tests__/rules.test.ts'],
      { cwd: T, encoding: 'utf8' },
    );
    expect([r.status, r.stderr.match(/Tests: .*/)?.[0]]).toEqual([0, expect.stringMatching(/passed/)]);
    expect(r.stderr).toMatch(/lb-kubeadm-centos-service-pending/);
    expect(r.stderr).toMatch(/lb-kube-vip-loadbalancerip-assigned-negative/);
  }, 300_000);
});
