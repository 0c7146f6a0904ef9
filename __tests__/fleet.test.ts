// Many contexts in one run (--contexts, --all-contexts) against local test API servers and a port where
// nothing listens: the summary table, the ReportList, the worst exit code, an unreachable context as a row,
// concurrency (bounded by --parallel) shown by the order requests arrive in, never by timing.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { loadAll } from 'js-yaml';
import { join } from 'node:path';
import { EXAMPLE_TYPES, exampleObjects } from './helpers/fixtures.js';
import { arch } from './helpers/run.js';
import { startTestApiServer, type TestApiServer } from './helpers/testApiServer.js';
import { tempDir } from './helpers/tmp.js';

let sick: TestApiServer; // the example: a retry loop and an orphan still serving (exit 1)
let calm: TestApiServer; // only its nodes: nothing to report (exit 0)
let kubeconfig = '';
const order: string[] = []; // which server each request reached, in arrival order

function record(name: string, s: TestApiServer): void {
  const push = s.requests.push.bind(s.requests);
  s.requests.push = (...r) => {
    order.push(name);
    return push(...r);
  };
}

beforeAll(async () => {
  const objects = exampleObjects();
  sick = await startTestApiServer({ types: EXAMPLE_TYPES, objects });
  calm = await startTestApiServer({ types: EXAMPLE_TYPES, objects: objects.filter((o) => o.kind === 'Node' || o.kind === 'Namespace') });
  record('sick', sick);
  record('calm', calm);
  kubeconfig = join(tempDir(), 'kubeconfig');
  const cluster = (name: string, server: string, ca?: string) =>
    `- name: ${name}\n  cluster:\n    server: ${server}\n${ca ? `    certificate-authority: ${ca}\n` : ''}`;
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: sick',
      'clusters:',
      cluster('sick', sick.url, sick.certs.caFile) + cluster('calm', calm.url, calm.certs.caFile) + cluster('down', 'https://127.0.0.1:1'),
      'users:',
      `- name: u\n  user:\n    token: ${sick.token}`,
      'contexts:',
      ...['sick', 'calm', 'down'].map((c) => `- name: ${c}\n  context: {cluster: ${c}, user: u}`),
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  await sick?.close();
  await calm?.close();
});

describe('--contexts', () => {
  test('one summary table, then each report; an unreachable context is a row with its error; exit code the worst (3)', async () => {
    const r = await arch(['doctor', '--kubeconfig', kubeconfig, '--contexts', 'sick,calm,down']);
    expect(r.code).toBe(3);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^kubectl arch doctor — 3 contexts: 2 reached, 1 failed, \d+\.\d+s$/);
    expect(lines[2]).toMatch(/^CONTEXT\s+DISTRIBUTION\s+VERSION\s+CRITICAL\s+ERROR\s+WARNING\s+INFO\s+SUPPRESSED\s+TIME\s+WORST$/);
    // the counts are the reports' own (the live heartbeats are old: the quorum evidence is stale on both)
    const rows = JSON.parse((await arch(['doctor', '--kubeconfig', kubeconfig, '--contexts', 'sick,calm', '-o', 'json'])).stdout).contexts;
    const counts = (c: any) => `${c.findings.critical}\\s+${c.findings.error}\\s+${c.findings.warning}\\s+${c.findings.info}\\s+0`;
    expect(rows[0].worst).toBe('error');
    expect(rows[1].worst).toBe('warning');
    expect(lines[3]).toMatch(new RegExp(`^sick\\s+K3s\\s+v1\\.35\\.4\\+k3s1\\s+${counts(rows[0])}\\s+\\d+\\.\\ds\\s+error$`));
    expect(lines[4]).toMatch(new RegExp(`^calm\\s+K3s\\s+v1\\.35\\.4\\+k3s1\\s+${counts(rows[1])}\\s+\\d+\\.\\ds\\s+warning$`));
    expect(lines[5]).toMatch(
      /^down\s+-\s+-\s+-\s+-\s+-\s+-\s+-\s+\d+\.\ds\s+unreachable: cannot connect to https:\/\/127\.0\.0\.1:1: connection refused$/,
    );
    // then each report, in the order given
    const heads = lines.filter((l) => l.startsWith('═══ context'));
    expect(heads).toEqual(['═══ context sick ═══', '═══ context calm ═══', '═══ context down ═══']);
    expect(r.stdout).toMatch(/═══ context sick ═══\nkubectl arch doctor — context sick \(https:\/\/127\.0\.0\.1:\d+\)/);
    expect(r.stdout).toMatch(/═══ context down ═══\nerror: cannot connect to https:\/\/127\.0\.0\.1:1: connection refused\n {2}hint:/);
  });

  test('-o json is a ReportList: a row per context, the reports of those reached, in order', async () => {
    const r = await arch(['doctor', '--kubeconfig', kubeconfig, '--contexts', 'calm,down,sick', '-o', 'json']);
    expect(r.code).toBe(3);
    const list = JSON.parse(r.stdout);
    expect(list).toMatchObject({
      apiVersion: 'kubectl-arch/v1',
      kind: 'ReportList',
      command: 'doctor',
      summary: { contexts: 3, reached: 2, failed: 1, suppressed: 0, exitCode: 3 },
    });
    // the summary adds up the contexts' reports
    const sum = { critical: 0, error: 0, warning: 0, info: 0 } as Record<string, number>;
    for (const item of list.items) for (const k of Object.keys(sum)) sum[k] += item.summary.findings[k];
    expect(list.summary.findings).toEqual(sum);
    expect(list.contexts.map((c: any) => [c.context, c.status, c.worst, c.exitCode])).toEqual([
      ['calm', 'ok', 'warning', 0],
      ['down', 'failed', 'unreachable', 3],
      ['sick', 'ok', 'error', 1],
    ]);
    expect(list.contexts[1].error).toMatchObject({ message: 'cannot connect to https://127.0.0.1:1: connection refused', exitCode: 3 });
    expect(list.items.map((i: any) => [i.kind, i.source.context])).toEqual([
      ['Report', 'calm'],
      ['Report', 'sick'],
    ]);
  });

  test('without the unreachable context the exit code is the worst finding (1); --fail-on applies per context', async () => {
    expect((await arch(['doctor', '--kubeconfig', kubeconfig, '--contexts', 'calm,sick', '-o', 'json'])).code).toBe(1);
    expect((await arch(['doctor', '--kubeconfig', kubeconfig, '--contexts', 'calm,sick', '--fail-on', 'none', '-o', 'json'])).code).toBe(0);
    expect((await arch(['doctor', '--kubeconfig', kubeconfig, '--contexts', 'calm', '-o', 'json'])).code).toBe(0);
  });

  test('contexts run concurrently: requests to the two servers interleave; --parallel 1 runs them one after the other', async () => {
    order.length = 0;
    await arch(['doctor', '--kubeconfig', kubeconfig, '--contexts', 'sick,calm', '-o', 'json', '--parallel', '1']);
    const lastSick = order.lastIndexOf('sick');
    expect(order.indexOf('calm')).toBeGreaterThan(lastSick);
    order.length = 0;
    await arch(['doctor', '--kubeconfig', kubeconfig, '--contexts', 'sick,calm', '-o', 'json']);
    expect(order.indexOf('calm')).toBeLessThan(order.lastIndexOf('sick'));
    expect(order.indexOf('sick')).toBeLessThan(order.lastIndexOf('calm'));
  });

  test('--all-contexts takes every context of the kubeconfig; orphans and quorum too', async () => {
    const d = JSON.parse((await arch(['doctor', '--kubeconfig', kubeconfig, '--all-contexts', '-o', 'json'])).stdout);
    expect(d.contexts.map((c: any) => c.context)).toEqual(['sick', 'calm', 'down']);
    const o = await arch(['orphans', '--kubeconfig', kubeconfig, '--contexts', 'sick,calm', '-o', 'yaml']);
    expect(o.code).toBe(1);
    expect(o.stdout).toMatch(/^apiVersion: kubectl-arch\/v1\nkind: ReportList\ncommand: orphans\n/);
    const q = await arch(['quorum', '--kubeconfig', kubeconfig, '--contexts', 'sick,calm']);
    expect(q.code).toBe(0); // stale evidence is a warning, below --fail-on error
    expect(q.stdout).toMatch(/^sick\s+K3s\s+v1\.35\.4\+k3s1\s+0\s+0\s+1\s+1\s+0\s+\d+\.\ds\s+warning$/m);
    expect(q.stdout).toMatch(/═══ context calm ═══\netcd quorum — K3s/);
    expect(q.stdout).toContain('3 voters, health unknown — quorum 2 — tolerates at most 1 failure (by design) — UNKNOWN');
  });

  test('-v prefixes each request line with its context', async () => {
    const r = await arch(['doctor', '--kubeconfig', kubeconfig, '--contexts', 'sick,calm', '-o', 'json', '-v']);
    expect(r.stderr).toMatch(/^\[sick\] GET \/version 200 \d+ms$/m);
    expect(r.stderr).toMatch(/^\[calm\] GET \/version 200 \d+ms$/m);
  });

  test('machine formats cover every context: SARIF one run each, Prometheus kubectl_arch_up 0 for the unreachable one', async () => {
    const s = JSON.parse((await arch(['doctor', '--kubeconfig', kubeconfig, '--contexts', 'sick,down', '-o', 'sarif'])).stdout);
    expect(s.runs.map((r: any) => [r.properties.context, r.invocations[0].executionSuccessful])).toEqual([
      ['sick', true],
      ['down', false],
    ]);
    const p = await arch(['doctor', '--kubeconfig', kubeconfig, '--contexts', 'sick,down', '-o', 'prometheus']);
    expect(p.code).toBe(3);
    expect(p.stdout).toMatch(/^kubectl_arch_up\{command="doctor",context="sick"\} 1$/m);
    expect(p.stdout).toMatch(/^kubectl_arch_up\{command="doctor",context="down"\} 0$/m);
  });

  test("PolicyReports are named per context (kubectl apply kept only the last context's), the same from run to run", async () => {
    const names = async (): Promise<string[]> => {
      const r = await arch(['doctor', '--kubeconfig', kubeconfig, '--contexts', 'sick,calm', '-o', 'policyreport']);
      const out: string[] = [];
      loadAll(r.stdout, (d: any) => {
        if (d) out.push(`${d.kind}/${d.metadata.namespace ?? ''}/${d.metadata.name} ${d.metadata.annotations['kubectl-arch/context']}`);
      });
      return out;
    };
    const first = await names();
    const keys = first.map((n) => n.split(' ')[0]);
    expect(new Set(keys).size).toBe(keys.length);
    expect(first.filter((n) => n.startsWith('ClusterPolicyReport/')).map((n) => n.split(' ')[1])).toEqual(['sick', 'calm']);
    expect(first.find((n) => n.endsWith(' sick'))).toMatch(/^ClusterPolicyReport\/\/kubectl-arch-doctor-sick-[0-9a-f]{8} sick$/);
    expect(await names()).toEqual(first);
  });

  test('usage errors exit 2 before any request', async () => {
    order.length = 0;
    const cases: Array<[string[], RegExp]> = [
      [['--contexts', 'sick,nope'], /context "nope" does not exist/],
      [['--contexts', 'sick', '--all-contexts'], /cannot be used together/],
      [['--contexts', 'sick', '--context', 'calm'], /--context names one context/],
      [['--contexts', ','], /needs at least one context/],
      [['--contexts', 'sick', '--snapshot', '/tmp'], /--snapshot works on one snapshot/],
      [['--contexts', 'sick', '--parallel', '0'], /--parallel must be a whole number >= 1/],
      // not "found NaN": the value as given
      [['--contexts', 'sick', '--parallel', 'abc'], /^error: --parallel must be a whole number >= 1, found "abc"\n/],
      [['--contexts', 'sick', '--parallel', '1.5'], /--parallel must be a whole number >= 1, found "1\.5"/],
      [['--contexts', 'sick', '--parallel', ''], /--parallel must be a whole number >= 1, found ""/],
    ];
    for (const [args, msg] of cases) {
      const r = await arch(['doctor', '--kubeconfig', kubeconfig, ...args]);
      expect([args.join(' '), r.code]).toEqual([args.join(' '), 2]);
      expect(r.stderr).toMatch(msg);
    }
    const broken = join(tempDir(), 'broken');
    writeFileSync(broken, 'contexts: [\n');
    const b = await arch(['doctor', '--kubeconfig', broken, '--all-contexts']);
    expect([b.code, b.stderr]).toEqual([2, expect.stringMatching(/^error: kubeconfig .*broken:2: malformed YAML/)]);
    const plan = await arch(['orphans', '--kubeconfig', kubeconfig, '--contexts', 'sick', '--cleanup-plan']);
    expect(plan.code).toBe(2);
    expect(plan.stderr).toMatch(/--cleanup-plan works on one context/);
    expect(order).toEqual([]);
  });

  test('a context named "" is a context like any other (it aborted --all-contexts: "no current-context")', async () => {
    const kc = join(tempDir(), 'empty-name');
    writeFileSync(
      kc,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "${calm.url}", certificate-authority: "${calm.certs.caFile}"}\nusers:\n- name: u\n  user: {token: ${calm.token}}\ncontexts:\n- name: ""\n  context: {cluster: c, user: u}\n- name: calm\n  context: {cluster: c, user: u}\n`,
    );
    const r = await arch(['doctor', '--kubeconfig', kc, '--all-contexts', '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout);
    expect(list.contexts.map((c: any) => [c.context, c.status])).toEqual([
      ['', 'ok'],
      ['calm', 'ok'],
    ]);
    expect(list.items.map((i: any) => i.source.context)).toEqual(['', 'calm']);
    // named with --contexts too
    expect((await arch(['doctor', '--kubeconfig', kc, '--contexts', 'calm,', '-o', 'json'])).code).toBe(0);
  });

  test('a context name with a line break is escaped in the "does not exist" list (it was printed raw)', async () => {
    const kc = join(tempDir(), 'newline');
    writeFileSync(
      kc,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "https://127.0.0.1:1"}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n- name: "prod\\nerror: forged line"\n  context: {cluster: c, user: u}\n`,
    );
    for (const args of [
      ['--contexts', 'nope'],
      ['--context', 'nope'],
      ['--contexts', 'no\npe'],
    ]) {
      const r = await arch(['doctor', '--kubeconfig', kc, ...args]);
      expect(r.code).toBe(2);
      const lines = r.stderr.split('\n');
      expect(lines).toHaveLength(3); // error, hint, and the end of the last line
      expect(lines[0]).toMatch(/^error: context "no(\\n)?pe" does not exist in the kubeconfig \(contexts: prod\\nerror: forged line\)$/);
    }
  });

  test('--deadline bounds the whole run: contexts whose turn comes after it are not run (10 hanging contexts took 10x it)', async () => {
    // a server that accepts connections and never answers (not even the TLS handshake)
    const sockets = new Set<net.Socket>();
    const hang = net.createServer((c) => {
      sockets.add(c);
      c.on('error', () => {});
    });
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const port = (hang.address() as AddressInfo).port;
    const kc = join(tempDir(), 'hanging');
    const names = Array.from({ length: 10 }, (_, i) => `h${i}`);
    writeFileSync(
      kc,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: h\n  cluster: {server: "https://127.0.0.1:${port}"}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n${names.map((n) => `- name: ${n}\n  context: {cluster: h, user: u}\n`).join('')}`,
    );
    try {
      const r = await arch(['doctor', '--kubeconfig', kc, '--all-contexts', '--parallel', '1', '--deadline', '2s', '-o', 'json']);
      expect(r.code).toBe(3);
      const rows = JSON.parse(r.stdout).contexts;
      expect(rows.map((c: any) => c.context)).toEqual(names);
      // the first context used the run's deadline up; by construction the others came after it
      expect(rows[0].error.message).toMatch(/did not finish before the run's deadline \(2s\)/);
      const notRun = rows.filter((c: any) => c.error.message === "not run: the run's deadline (2s) passed before its turn");
      expect(notRun.length).toBeGreaterThanOrEqual(8);
      for (const c of rows) expect([c.status, c.exitCode]).toEqual(['failed', 3]);
    } finally {
      for (const c of sockets) c.destroy();
      hang.close();
    }
    // the test's own limit is generous: the run takes the 2 s of its deadline
  }, 120_000);

  test('context names from the kubeconfig are escaped in the table', async () => {
    const kc = join(tempDir(), 'evil');
    writeFileSync(
      kc,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "https://127.0.0.1:1"}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n- name: "evil\\e]0;owned\\a"\n  context: {cluster: c, user: u}\n`,
    );
    const r = await arch(['doctor', '--kubeconfig', kc, '--all-contexts']);
    expect(r.code).toBe(3);
    expect(r.stdout).not.toMatch(/\x1b/);
    expect(r.stdout).toContain('evil\\x1b]0;owned\\x07');
  });
});

describe('doctor --contexts -o html', () => {
  test('one page: the contexts table, then a section per context; the unreachable one with its error; exit code the worst', async () => {
    const r = await arch(['doctor', '--kubeconfig', kubeconfig, '--contexts', 'sick,calm,down', '-o', 'html']);
    expect([r.code, r.stderr]).toEqual([3, '']);
    expect(r.stdout).toMatch(/^<!doctype html>\n/);
    expect(r.stdout).toContain('— 3 contexts: 2 reached, 1 failed</span></h1>');
    expect(r.stdout.match(/<section class="context"/g)).toHaveLength(3);
    const sections = r.stdout.split('<section class="context"').slice(1);
    // each context's own report: sick's worst is an error, calm's a warning (stale quorum evidence)
    expect(sections[0]).toContain('<div class="finding s-error">');
    expect(sections[1]).not.toContain('<div class="finding s-error">');
    expect(sections[1]).toContain('<div class="finding s-warning">');
    expect(sections[2]).toMatch(/<h2>context down<\/h2><div class="error-box"><p>.*cannot connect to https:\/\/127\.0\.0\.1:1/);
  });
});
