// A baseline for pipelines (#36): fingerprints that stay the same across runs, captures and machines; --baseline marks
// findings new or unchanged in every format and gates on the new ones; `kubectl arch diff` compares two reports.
import { describe, expect, test } from '@jest/globals';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE } from './helpers/fixtures.js';
import { arch } from './helpers/run.js';
import { tempDir } from './helpers/tmp.js';
import { multitoolErrors } from './helpers/sarif-multitool.js';
import { promcheck } from './helpers/promcheck.js';

const json = async (args: string[]): Promise<any> => {
  const r = await arch([...args, '-o', 'json', '--no-config']);
  return JSON.parse(r.stdout);
};
const findings = (doc: any): any[] => doc.checks.flatMap((c: any) => c.findings);

/** The example with one fault less: the Argo CD Application that keeps the orphan scan busy is back. */
function withoutRetryLoop(): string {
  const dir = join(tempDir(), 'snap');
  cpSync(EXAMPLE, dir, { recursive: true });
  // the K3s addon events that show the coredns retry loop are gone: that fault is "fixed"
  const f = join(dir, 'events.json');
  const ev = JSON.parse(readFileSync(f, 'utf8'));
  ev.items = ev.items.filter((e: any) => !/ApplyManifestFailed|coredns/.test(`${e.reason} ${e.involvedObject?.name}`));
  writeFileSync(f, JSON.stringify(ev));
  return dir;
}

describe('fingerprints', () => {
  test('every finding has one: the same for the same fault whatever the context name, capture or wording', async () => {
    const a = await json(['doctor', '--snapshot', EXAMPLE, '--fail-on', 'none']);
    const other = join(tempDir(), 'snap');
    cpSync(EXAMPLE, other, { recursive: true });
    const h = join(other, '00-header.json');
    writeFileSync(
      h,
      JSON.stringify({ ...JSON.parse(readFileSync(h, 'utf8')), context: 'another-machine', server: 'https://10.9.9.9:6443' }),
    );
    const b = await json(['doctor', '--snapshot', other, '--fail-on', 'none']);
    expect(findings(a).map((f) => f.fingerprint)).toEqual(findings(b).map((f) => f.fingerprint));
    for (const f of findings(a)) expect(f.fingerprint).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(findings(a).map((f) => f.fingerprint)).size).toBe(findings(a).length);
  });
});

describe('--baseline', () => {
  test('against itself: nothing new, the gate passes though errors stand, every finding unchanged', async () => {
    const dir = tempDir();
    const base = join(dir, 'base.json');
    writeFileSync(base, JSON.stringify(await json(['doctor', '--snapshot', EXAMPLE, '--fail-on', 'none'])));
    const r = await arch(['doctor', '--snapshot', EXAMPLE, '--baseline', base, '--no-config']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Against the baseline .*base\.json: 0 new, \d+ unchanged, 0 fixed/);
    const doc = await json(['doctor', '--snapshot', EXAMPLE, '--baseline', base]);
    expect(new Set(findings(doc).map((f) => f.baseline))).toEqual(new Set(['unchanged']));
    expect(doc.baseline).toMatchObject({ new: 0, fixed: [] });
  });

  test('a fault the baseline did not have is new and fails; one it had that is gone is fixed — in every format', async () => {
    const dir = tempDir();
    const base = join(dir, 'base.json');
    writeFileSync(base, JSON.stringify(await json(['doctor', '--snapshot', withoutRetryLoop(), '--fail-on', 'none'])));
    const r = await arch(['doctor', '--snapshot', EXAMPLE, '--baseline', base, '--no-config', '-o', 'json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    const added = findings(doc).filter((f) => f.baseline === 'new');
    expect(added.map((f) => f.code)).toEqual(['ARCH-RL03']);
    // SARIF: baselineState on each result, valid for the approved schema and GitHub's rules
    const sarif = await arch(['doctor', '--snapshot', EXAMPLE, '--baseline', base, '--no-config', '-o', 'sarif']);
    const results = JSON.parse(sarif.stdout).runs[0].results;
    expect(results.find((x: any) => x.ruleId === 'ARCH-RL03').baselineState).toBe('new');
    expect(results.filter((x: any) => x.baselineState === 'unchanged').length).toBe(findings(doc).length - 1);
    expect(multitoolErrors(sarif.stdout)).toEqual([]);
    // JUnit: only the new finding fails
    const junit = await arch(['doctor', '--snapshot', EXAMPLE, '--baseline', base, '--no-config', '-o', 'junit']);
    expect([...junit.stdout.matchAll(/<failure [^>]*type="([^"]+)"/g)].map((m) => m[1])).toEqual(['ARCH-RL03']);
    // Prometheus: the counts against the baseline
    const prom = promcheck((await arch(['doctor', '--snapshot', EXAMPLE, '--baseline', base, '--no-config', '-o', 'prometheus'])).stdout);
    expect(prom.lint).toEqual([]);
    const m = prom.families.find((f) => f.name === 'kubectl_arch_baseline_findings')!.metrics;
    expect(m.find((x) => x.labels.state === 'new')!.value).toBe(1);
    // PolicyReport: each result says so
    const pr = await arch(['doctor', '--snapshot', EXAMPLE, '--baseline', base, '--no-config', '-o', 'policyreport']);
    expect(pr.stdout).toMatch(/baseline: new/);
  });

  test('the other way round: what the baseline had that is gone is listed as fixed, and fixes never fail', async () => {
    const dir = tempDir();
    const base = join(dir, 'base.json');
    writeFileSync(base, JSON.stringify(await json(['doctor', '--snapshot', EXAMPLE, '--fail-on', 'none'])));
    const r = await arch(['doctor', '--snapshot', withoutRetryLoop(), '--baseline', base, '--no-config', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).baseline.fixed.map((f: any) => f.code)).toEqual(['ARCH-RL03']);
    const sarif = JSON.parse(
      (await arch(['doctor', '--snapshot', withoutRetryLoop(), '--baseline', base, '--no-config', '-o', 'sarif', '--sarif-all'])).stdout,
    );
    expect(sarif.runs[0].results.filter((x: any) => x.baselineState === 'absent').map((x: any) => x.ruleId)).toEqual(['ARCH-RL03']);
  });

  test('a baseline that is not a report is a usage error, before any request', async () => {
    const f = join(tempDir(), 'x.json');
    writeFileSync(f, '{"hello": 1}');
    const r = await arch(['doctor', '--kubeconfig', '/nonexistent', '--baseline', f]);
    expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(/--baseline .*x\.json: not a kubectl-arch report/)]);
  });

  test('what-if: predictions marked too, and only new ones fail', async () => {
    const dir = tempDir();
    const base = join(dir, 'w.json');
    const first = await arch(['what-if', 'ilwon', '--snapshot', EXAMPLE, '-o', 'json']);
    expect(first.code).toBe(1);
    writeFileSync(base, first.stdout);
    const again = await arch(['what-if', 'ilwon', '--snapshot', EXAMPLE, '--baseline', base, '-o', 'json']);
    expect(again.code).toBe(0);
    const doc = JSON.parse(again.stdout);
    expect(new Set(doc.predictions.map((p: any) => p.baseline))).toEqual(new Set(['unchanged']));
    // the verdict still says what is predicted: not "safe"
    expect(doc.verdict.state).toBe('not safe');
  });
});

describe('kubectl arch diff', () => {
  test('appeared, fixed, changed severity — text, JSON and Markdown; exit 1 when something appeared at --fail-on', async () => {
    const dir = tempDir();
    const a = join(dir, 'a.json');
    const b = join(dir, 'b.json');
    writeFileSync(a, JSON.stringify(await json(['doctor', '--snapshot', withoutRetryLoop(), '--fail-on', 'none'])));
    writeFileSync(b, JSON.stringify(await json(['doctor', '--snapshot', EXAMPLE, '--fail-on', 'none'])));
    const t = await arch(['diff', a, b]);
    expect([t.code, t.stdout.split('\n')[0]]).toEqual([
      1,
      expect.stringMatching(/^1 appeared, 0 fixed, 0 changed severity, \d+ unchanged$/),
    ]);
    expect(t.stdout).toMatch(/^ {2}\+ ERROR ARCH-RL03 /m);
    const j = JSON.parse((await arch(['diff', b, a, '-o', 'json'])).stdout);
    expect(j.contexts[0].fixed.map((f: any) => f.code)).toEqual(['ARCH-RL03']);
    const md = await arch(['diff', a, b, '-o', 'markdown']);
    expect(md.stdout).toMatch(/^### kubectl-arch: what changed/);
    expect(md.stdout).toMatch(/\| appeared \| error \| ARCH\\-RL03 \|/);
    // no gate on fixes
    expect((await arch(['diff', b, a])).code).toBe(0);
    expect((await arch(['diff', a, b, '--fail-on', 'none'])).code).toBe(0);
  });

  test('cluster text is plain text in Markdown: no links, no HTML, no table breaks', async () => {
    const dir = tempDir();
    const doc = (title: string) => ({
      apiVersion: 'kubectl-arch/v1',
      kind: 'Report',
      command: 'doctor',
      checks: [
        {
          id: 'x',
          findings: [{ code: 'ARCH-RL01', severity: 'error', title, objects: [{ kind: 'Service', namespace: 'a', name: 'b|c' }] }],
        },
      ],
    });
    writeFileSync(join(dir, 'old.json'), JSON.stringify({ apiVersion: 'kubectl-arch/v1', kind: 'Report', command: 'doctor', checks: [] }));
    writeFileSync(join(dir, 'new.json'), JSON.stringify(doc('[click](https://evil) <img src=x> | `x`')));
    const md = (await arch(['diff', join(dir, 'old.json'), join(dir, 'new.json'), '-o', 'markdown'])).stdout;
    expect(md).not.toMatch(/\[click\]\(/);
    expect(md).not.toMatch(/(?<!\\)<img/); // \< is a literal < in Markdown
    expect(md).toContain('b\\|c');
  });
});
