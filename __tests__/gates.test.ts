// Gates that cannot pass by mistake (#46): a baseline of the same input gives 0 new for every command the README
// says takes --baseline, and diff of it gives nothing appeared or fixed; a report of another command, context,
// what-if question or format version is refused (exit 2), never compared into "0 appeared, 4 fixed"; a diff whose
// run failed on a context says so and exits 3.
import { describe, expect, test } from '@jest/globals';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE } from './helpers/fixtures.js';
import { scenarioDir } from './helpers/scenarios.js';
import { arch, ROOT } from './helpers/run.js';
import { tempDir } from './helpers/tmp.js';

const dir = tempDir('kubectl-arch-gates-');
/** --no-config for the commands that read accepted-risk rules (what-if and diff take none). */
const nc = (args: string[]): string[] => (['doctor', 'orphans', 'quorum'].includes(args[0]!) ? [...args, '--no-config'] : args);
// a change whose predictions rest on nothing invisible (else a run with the same input is rightly "not judged", exit 3)
const CHANGE = join(ROOT, 'src/change/cases/deploy-selector-helm-immich-controller-label');

/** The README's list of the commands --baseline works on. */
function readmeBaselineCommands(): string[] {
  const m = /`--baseline` works on ([a-z, -]+?) and ([a-z-]+):/.exec(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  if (!m) throw new Error('the README no longer says which commands take --baseline');
  return [...m[1]!.split(/,\s*/), m[2]!];
}

/** Every finding (or prediction) a report holds, whatever its kind. */
const held = (doc: any): any[] =>
  doc.kind === 'Report' ? doc.checks.flatMap((c: any) => c.findings) : doc.kind === 'WhatIf' ? doc.predictions : doc.findings;

interface Case {
  command: string;
  args: () => Promise<string[]>;
}

const CASES: Case[] = [
  { command: 'doctor', args: async () => ['doctor', '--snapshot', EXAMPLE] },
  { command: 'orphans', args: async () => ['orphans', '--snapshot', EXAMPLE] },
  // the example's quorum is healthy: an even number of voters gives a finding to compare
  { command: 'quorum', args: async () => ['quorum', '--snapshot', await scenarioDir('k3s-two-servers', dir)] },
  { command: 'what-if', args: async () => ['what-if', 'ilwon', '--snapshot', EXAMPLE] },
  { command: 'what-if -f', args: async () => ['what-if', '-f', join(CHANGE, 'new.yaml'), '--snapshot', join(CHANGE, 'live.yaml')] },
];

describe('a baseline of the same input: 0 new, and diff says nothing appeared or was fixed', () => {
  test('the README names exactly the commands tested here', () => {
    expect(new Set(readmeBaselineCommands())).toEqual(new Set(CASES.map((c) => c.command.split(' ')[0])));
  });

  test.each(CASES)('$command', async ({ command, args }) => {
    const a = await args();
    const first = await arch(nc([...a, '-o', 'json', '--fail-on', 'none']));
    expect([first.code, first.stderr]).toEqual([0, '']);
    const base = join(dir, `${command.replace(/\W+/g, '-')}.json`);
    writeFileSync(base, first.stdout);
    const doc = JSON.parse(first.stdout);
    // a baseline with nothing in it would give 0 new whatever the reader did
    expect(held(doc).length).toBeGreaterThan(0);
    for (const f of held(doc)) expect(f.fingerprint).toMatch(/^[0-9a-f]{32}$/);
    const again = await arch(nc([...a, '--baseline', base, '-o', 'json']));
    expect(again.code).toBe(0);
    const d = JSON.parse(again.stdout);
    expect(d.baseline).toMatchObject({ new: 0, unchanged: held(doc).length, fixed: [] });
    expect(new Set(held(d).map((f: any) => f.baseline))).toEqual(new Set(['unchanged']));
    // the text says so too, and a fresh run of the same input diffs to nothing
    const text = await arch(nc([...a, '--baseline', base]));
    expect([text.code, text.stdout]).toEqual([0, expect.stringMatching(/: 0 new, [1-9]\d* unchanged, 0 fixed/)]);
    writeFileSync(`${base}.2`, (await arch(nc([...a, '-o', 'json', '--fail-on', 'none']))).stdout);
    const diff = await arch(['diff', base, `${base}.2`]);
    expect([diff.code, diff.stdout]).toEqual([0, expect.stringMatching(/^0 appeared, 0 fixed, 0 changed severity, [1-9]\d* unchanged\n$/)]);
  });

  test.each(['orphans', 'quorum'])('%s in SARIF and JUnit: every result unchanged, no test fails', async (command) => {
    const c = CASES.find((x) => x.command === command)!;
    const a = await c.args();
    const base = join(dir, `${command}-formats.json`);
    writeFileSync(base, (await arch(nc([...a, '-o', 'json', '--fail-on', 'none']))).stdout);
    const sarif = JSON.parse((await arch(nc([...a, '--baseline', base, '-o', 'sarif']))).stdout);
    const states = sarif.runs[0].results.map((r: any) => r.baselineState);
    expect(states.length).toBeGreaterThan(0);
    expect(new Set(states)).toEqual(new Set(['unchanged']));
    const junit = await arch(nc([...a, '--baseline', base, '-o', 'junit']));
    expect([junit.code, junit.stdout]).toEqual([0, expect.not.stringContaining('<failure')]);
  });

  test('orphans: against a baseline without them every finding is new and fails; one only the baseline had is fixed', async () => {
    const first = await arch(nc(['orphans', '--snapshot', EXAMPLE, '-o', 'json', '--fail-on', 'none']));
    const doc = JSON.parse(first.stdout);
    const empty = join(dir, 'orphans-empty.json');
    writeFileSync(empty, JSON.stringify({ ...doc, findings: [] }));
    const n = await arch(nc(['orphans', '--snapshot', EXAMPLE, '--baseline', empty, '-o', 'json']));
    expect(n.code).toBe(1);
    expect(JSON.parse(n.stdout).baseline).toMatchObject({ new: doc.findings.length, unchanged: 0, fixed: [] });
    const gone = { ...doc.findings[0], objects: [{ kind: 'Deployment', namespace: 'shop', name: 'gone' }], fingerprint: undefined };
    const more = join(dir, 'orphans-more.json');
    writeFileSync(more, JSON.stringify({ ...doc, findings: [...doc.findings, gone] }));
    const f = await arch(nc(['orphans', '--snapshot', EXAMPLE, '--baseline', more, '-o', 'json']));
    expect(f.code).toBe(0);
    expect(JSON.parse(f.stdout).baseline.fixed.map((x: any) => x.objects)).toEqual([gone.objects]);
  });
});

describe('refused: a report of another command, context, question or format (exit 2, before any request)', () => {
  const report = async (name: string, args: string[]): Promise<string> => {
    const p = join(dir, name);
    writeFileSync(p, (await arch(nc([...args, '-o', 'json', '--fail-on', 'none']))).stdout);
    return p;
  };
  // contexts that answer nowhere (a closed loopback port): a refusal comes before any request, or the run would fail
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: ['home-k3s', 'prod'].map((name) => ({ name, context: { cluster: 'c', user: 'u' } })),
      'current-context': 'home-k3s',
    }),
  );
  const refused = async (args: string[], message: RegExp): Promise<void> => {
    const r = await arch(nc(args), { KUBECONFIG: kubeconfig });
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', expect.stringMatching(message)]);
  };

  test('diff of two commands, and a baseline of another command', async () => {
    const doctor = await report('d.json', ['doctor', '--snapshot', EXAMPLE]);
    const orphans = await report('o.json', ['orphans', '--snapshot', EXAMPLE]);
    await refused(['diff', doctor, orphans], /the old report .*d\.json is a report of doctor, not of orphans/);
    await refused(['doctor', '--snapshot', EXAMPLE, '--baseline', orphans], /--baseline .*o\.json is a report of orphans, not of doctor/);
    await refused(['orphans', '--snapshot', EXAMPLE, '--baseline', doctor], /is a report of doctor, not of orphans/);
    await refused(['what-if', 'ilwon', '--snapshot', EXAMPLE, '--baseline', doctor], /is a report of doctor, not of what-if/);
    await refused(['doctor', '--contexts', 'home-k3s,prod', '--baseline', orphans], /is a report of orphans, not of doctor/);
  });

  test('another context: a baseline or diff of another cluster', async () => {
    const other = join(dir, 'other-context');
    cpSync(EXAMPLE, other, { recursive: true });
    const h = join(other, '00-header.json');
    writeFileSync(h, JSON.stringify({ ...JSON.parse(readFileSync(h, 'utf8')), context: 'staging' }));
    const home = await report('home.json', ['doctor', '--snapshot', EXAMPLE]);
    const staging = await report('staging.json', ['doctor', '--snapshot', other]);
    await refused(['doctor', '--snapshot', other, '--baseline', home], /has no report of context "staging" \(it holds "home-k3s"\)/);
    await refused(['diff', home, staging], /the old report is of context "home-k3s", the new one of "staging"/);
    // --contexts: every context of the run must be in the baseline, checked before any request
    await refused(['doctor', '--contexts', 'home-k3s,prod', '--baseline', home], /has no report of context "prod"/);
  });

  test('what-if: another question (other nodes, --remove, -f)', async () => {
    const ilwon = await report('w-ilwon.json', ['what-if', 'ilwon', '--snapshot', EXAMPLE]);
    await refused(['what-if', 'solomon', '--snapshot', EXAMPLE, '--baseline', ilwon], /answers another question \(what-if ilwon\)/);
    await refused(['what-if', 'ilwon', '--remove', '--snapshot', EXAMPLE, '--baseline', ilwon], /this one \(what-if ilwon --remove\)/);
    const change = await report('w-f.json', ['what-if', '-f', join(CHANGE, 'new.yaml'), '--snapshot', join(CHANGE, 'live.yaml')]);
    await refused(['diff', ilwon, change], /answers another question/);
  });

  test('another format version, a document that is no report, and an orphans report without findings', async () => {
    const doctor = JSON.parse(readFileSync(await report('d2.json', ['doctor', '--snapshot', EXAMPLE]), 'utf8'));
    const v2 = join(dir, 'v2.json');
    writeFileSync(v2, JSON.stringify({ ...doctor, apiVersion: 'kubectl-arch/v2' }));
    await refused(
      ['doctor', '--snapshot', EXAMPLE, '--baseline', v2],
      /is in format kubectl-arch\/v2; this kubectl-arch reads kubectl-arch\/v1/,
    );
    await refused(['diff', v2, v2], /is in format kubectl-arch\/v2/);
    const d = join(dir, 'diff.json');
    const d2 = join(dir, 'd2.json');
    writeFileSync(d, (await arch(['diff', d2, d2, '-o', 'json'])).stdout);
    await refused(['doctor', '--snapshot', EXAMPLE, '--baseline', d], /is a Diff, not a report of findings/);
    // as an orphans report of an earlier version was written: no findings list
    const orphans = JSON.parse(readFileSync(await report('o2.json', ['orphans', '--snapshot', EXAMPLE]), 'utf8'));
    delete orphans.findings;
    delete orphans.command;
    const old = join(dir, 'orphans-old.json');
    writeFileSync(old, JSON.stringify(orphans));
    await refused(['diff', old, old], /holds no list of findings \(written by an older kubectl-arch\?\)/);
    await refused(['orphans', '--snapshot', EXAMPLE, '--baseline', old], /holds no list of findings/);
    // and quorum --etcd-endpoints has no findings to compare
    await refused(
      ['quorum', '--etcd-endpoints', 'https://127.0.0.1:1', '--baseline', old],
      /--baseline is not available with --etcd-endpoints/,
    );
  });

  test('a file that cannot be read is named in words, not as an errno', async () => {
    await refused(
      ['diff', join(dir, 'absent.json'), join(dir, 'absent.json')],
      /^error: cannot read the old report .*absent\.json: no such file\n/,
    );
  });
});

describe('a diff whose run failed on a context: not compared, exit 3 (never "0 appeared")', () => {
  test('a ReportList with a context that failed in the new report', async () => {
    const doc = JSON.parse((await arch(nc(['doctor', '--snapshot', EXAMPLE, '-o', 'json', '--fail-on', 'none']))).stdout);
    const list = (failed: boolean) => ({
      apiVersion: 'kubectl-arch/v1',
      kind: 'ReportList',
      command: 'doctor',
      contexts: [
        failed
          ? { context: 'home-k3s', status: 'failed', error: { message: 'cannot connect to https://10.0.0.9:6443', exitCode: 3 } }
          : { context: 'home-k3s', status: 'ok' },
      ],
      items: failed ? [] : [doc],
    });
    writeFileSync(join(dir, 'ok.json'), JSON.stringify(list(false)));
    writeFileSync(join(dir, 'failed.json'), JSON.stringify(list(true)));
    const r = await arch(['diff', join(dir, 'ok.json'), join(dir, 'failed.json')]);
    expect([r.code, r.stdout]).toEqual([3, 'not compared: the new run failed there: cannot connect to https://10.0.0.9:6443\n']);
    // a baseline from a run that failed there is refused
    const b = await arch(nc(['doctor', '--snapshot', EXAMPLE, '--baseline', join(dir, 'failed.json')]));
    expect([b.code, b.stderr]).toEqual([2, expect.stringMatching(/its run failed on context "home-k3s"/)]);
  });
});
