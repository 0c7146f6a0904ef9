// Every command's exit codes are the documented ones (#46), each tested per command: the README's table (0 clean,
// 1 findings at --fail-on, 2 bad usage or input, 3 not judged: unreachable, or what a verdict rests on not visible,
// 4 a bug, 130/143 interrupted), map's "a view: 0 whatever it shows", and the code never depending on -o.
import { describe, expect, jest, test } from '@jest/globals';
import { spawn } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE } from './helpers/fixtures.js';
import { arch, BIN, ROOT } from './helpers/run.js';
import { scenarioDir } from './helpers/scenarios.js';
import { tempDir } from './helpers/tmp.js';

const dir = tempDir('kubectl-arch-exit-');
const CASES_DIR = join(ROOT, 'src/change/cases');

/** A kubeconfig whose one context points at a loopback port nothing listens on: unreachable, at once. */
function unreachable(): string {
  const p = join(dir, 'unreachable.kubeconfig');
  writeFileSync(
    p,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'gone', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'gone',
    }),
  );
  return p;
}

/** The README's exit codes table: the codes it documents. */
function readmeCodes(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const table = /### Exit codes\n\n\| code \| meaning \|\n\|---\|---\|\n((?:\|.*\|\n)+)/.exec(readme);
  if (!table) throw new Error('the README has no exit codes table');
  return table[1]!.split('\n').flatMap((l) => (/^\| ([\d /]+) \|/.exec(l)?.[1]?.split(' / ') ?? []).map((c) => c.trim()));
}

type Case = [what: string, args: () => Promise<string[]>, code: number];

const example =
  (...a: string[]) =>
  async () => [...a, '--snapshot', EXAMPLE];
const gone =
  (...a: string[]) =>
  async () => [...a, '--kubeconfig', unreachable()];
const healthy =
  (...a: string[]) =>
  async () => [...a, '--snapshot', await scenarioDir('field-notes-healthy', dir)];
const change =
  (name: string, ...a: string[]) =>
  async () => ['what-if', '-f', join(CASES_DIR, name, 'new.yaml'), '--snapshot', join(CASES_DIR, name, 'live.yaml'), ...a];

/** Two reports for diff: the example, and the example with one finding fewer. */
async function reports(): Promise<{ same: string; less: string; failed: string }> {
  const doc = JSON.parse((await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'json', '--fail-on', 'none', '--no-config'])).stdout);
  const same = join(dir, 'same.json');
  writeFileSync(same, JSON.stringify(doc));
  const less = join(dir, 'less.json');
  const fewer = structuredClone(doc);
  const withFindings = fewer.checks.find((c: { findings: unknown[] }) => c.findings.length);
  withFindings.findings = withFindings.findings.slice(1);
  writeFileSync(less, JSON.stringify(fewer));
  const failed = join(dir, 'failed.json');
  writeFileSync(
    failed,
    JSON.stringify({
      apiVersion: 'kubectl-arch/v1',
      kind: 'ReportList',
      command: 'doctor',
      contexts: [{ context: 'home-k3s', status: 'failed', error: { message: 'connection refused', exitCode: 3 } }],
      items: [],
    }),
  );
  return { same, less, failed };
}

const CASES: Record<string, Case[]> = {
  doctor: [
    ['clean', healthy('doctor'), 0],
    ['findings below --fail-on', example('doctor', '--fail-on', 'none'), 0],
    ['findings at --fail-on', example('doctor'), 1],
    ['an unknown flag', example('doctor', '--frobnicate'), 2],
    ['a context that does not exist', gone('doctor', '--context', 'nope'), 2],
    ['unreachable', gone('doctor'), 3],
  ],
  map: [
    // a view: findings do not change its code
    ['findings on the map', example('map'), 0],
    ['an output it does not write', example('map', '-o', 'sarif'), 2],
    ['unreachable', gone('map'), 3],
  ],
  'what-if NODE': [
    ['safe', example('what-if', 'solomon'), 0],
    ['not safe', example('what-if', 'ilwon'), 1],
    ['a node that does not exist', example('what-if', 'nobody'), 2],
    [
      'not judged: pods not visible',
      async () => {
        const p = join(dir, 'nodes-only');
        const { mkdirSync, copyFileSync } = await import('node:fs');
        mkdirSync(p, { recursive: true });
        copyFileSync(join(EXAMPLE, 'nodes.json'), join(p, 'nodes.json'));
        return ['what-if', 'ilwon', '--snapshot', p];
      },
      3,
    ],
    ['unreachable', gone('what-if', 'ilwon'), 3],
  ],
  'what-if -f': [
    ['nothing refused', change('tn-replicas-scaled-documented'), 0],
    ['refused', change('deploy-selector-helm-immich-controller-label'), 1],
    ['a file that does not exist', async () => ['what-if', '-f', join(dir, 'absent.yaml'), '--snapshot', EXAMPLE], 2],
    ['not judged', change('secret-immutable-argocd-redpanda-bootstrap-user'), 3],
  ],
  snapshot: [
    ['written', example('snapshot'), 0],
    ['an output it does not write', example('snapshot', '-o', 'table'), 2],
    ['unreachable', gone('snapshot'), 3],
  ],
  orphans: [
    ['none', healthy('orphans'), 0],
    ['orphans at --fail-on', example('orphans'), 1],
    ['--cleanup-plan with --contexts', gone('orphans', '--cleanup-plan', '--contexts', 'gone'), 2],
    ['unreachable', gone('orphans'), 3],
  ],
  quorum: [
    ['healthy', example('quorum'), 0],
    ['degraded', async () => ['quorum', '--snapshot', await scenarioDir('kubeadm-degraded-etcd', dir)], 1],
    ['--etcd-endpoints with -o sarif', async () => ['quorum', '--etcd-endpoints', 'https://127.0.0.1:1', '-o', 'sarif'], 2],
    ['unreachable', gone('quorum'), 3],
    // etcd itself: nothing answers, so the verdict is UNKNOWN — not judged, never "passed"
    ['--etcd-endpoints with nothing answering', async () => ['quorum', '--etcd-endpoints', 'https://127.0.0.1:1,https://127.0.0.1:2'], 3],
  ],
  diff: [
    ['nothing appeared', async () => ['diff', (await reports()).same, (await reports()).same], 0],
    ['fixed only', async () => ['diff', (await reports()).same, (await reports()).less], 0],
    ['appeared', async () => ['diff', (await reports()).less, (await reports()).same], 1],
    ['a report that does not exist', async () => ['diff', join(dir, 'absent.json'), join(dir, 'absent.json')], 2],
    ['a context that failed', async () => ['diff', (await reports()).same, (await reports()).failed], 3],
  ],
  explain: [
    ['a check', async () => ['explain', 'etcd-quorum'], 0],
    ['the list', async () => ['explain'], 0],
    ['an unknown id', async () => ['explain', 'nope'], 2],
  ],
  // a server on stdio: stdin closed is the end of the session
  mcp: [
    ['stdin closed', async () => ['mcp'], 0],
    ['a flag it refuses', async () => ['mcp', '--snapshot', EXAMPLE], 2],
  ],
  rbac: [
    ['printed', async () => ['rbac'], 0],
    ['an argument', async () => ['rbac', 'extra'], 2],
  ],
  version: [
    ['printed', async () => ['version'], 0],
    ['an output it does not write', async () => ['version', '-o', 'sarif'], 2],
  ],
  completion: [
    ['bash', async () => ['completion', 'bash'], 0],
    ['a shell it does not know', async () => ['completion', 'tcsh'], 2],
  ],
};

describe('exit codes, per command', () => {
  test('every command of --help has its cases here', async () => {
    const { COMMANDS } = await import('../src/complete.js');
    expect(new Set(Object.keys(CASES).map((k) => k.split(' ')[0]))).toEqual(new Set(COMMANDS.map(([c]) => c)));
  });

  test('the README documents exactly the codes tested here (4, 130 and 143 below)', () => {
    const tested = new Set(Object.values(CASES).flatMap((cs) => cs.map(([, , code]) => String(code))));
    expect(readmeCodes()).toEqual(['0', '1', '2', '3', '4', '130', '143']);
    expect([...tested].sort()).toEqual(['0', '1', '2', '3']);
  });

  for (const [command, cases] of Object.entries(CASES))
    test.each(cases.map(([what, args, code]) => ({ what, args, code })))(`${command}: $what → exit $code`, async ({ args, code }) => {
      const a = await args();
      const r = await arch(['doctor', 'orphans', 'quorum'].includes(a[0]!) ? [...a, '--no-config'] : a);
      // 2 says why on stderr, in one line and a hint; 3 there too, or in the report: what was not judged
      expect(r.code).toBe(code);
      if (code === 2) expect(r.stderr).toMatch(/^error: \S/);
      if (code === 3) expect(`${r.stderr}${r.stdout}`).toMatch(/^error: \S|not judged|not compared|UNKNOWN/m);
    });

  test('the code never depends on -o: the example exits 1 in every format doctor writes', async () => {
    const { TAKES } = await import('../src/complete.js');
    for (const o of TAKES.doctor!.outputs!)
      expect([o, (await arch(['doctor', '--snapshot', EXAMPLE, '-o', o, '--no-config'])).code]).toEqual([o, 1]);
  });
});

describe('4: a bug is an internal error, 143: SIGTERM', () => {
  test('a command that throws something not a usage or cluster error exits 4 and says "internal error"', async () => {
    jest.unstable_mockModule('../src/commands/rbac.js', () => ({
      rbac: async () => {
        throw new TypeError("Cannot read properties of undefined (reading 'metadata')");
      },
    }));
    const { main } = await import('../src/cli.js');
    const written: string[] = [];
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
      written.push(String(s));
      return true;
    });
    try {
      expect(await main(['rbac'])).toBe(4);
    } finally {
      spy.mockRestore();
    }
    expect(written.join('')).toBe(
      "error: internal error: Cannot read properties of undefined (reading 'metadata') (run with -v for details)\n",
    );
  });

  test('SIGTERM while a request hangs exits 143', async () => {
    // a loopback server that accepts and never answers: the TLS handshake waits
    const sockets: Socket[] = [];
    let connected!: () => void;
    const arrived = new Promise<void>((r) => (connected = r));
    const server = createServer((s) => {
      sockets.push(s);
      connected();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const cfg = join(dir, 'hang.kubeconfig');
    writeFileSync(cfg, readFileSync(unreachable(), 'utf8').replace('127.0.0.1:1', `127.0.0.1:${port}`));
    try {
      const child = spawn(BIN, ['doctor', '--kubeconfig', cfg, '--deadline', '10m', '--no-config'], { stdio: 'ignore' });
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      await arrived;
      child.kill('SIGTERM');
      expect(await exited).toBe(143);
    } finally {
      for (const s of sockets) s.destroy();
      server.close();
    }
  });
});
