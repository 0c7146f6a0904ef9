// `kubectl arch mcp` through the built npm entry (bin/kubectl-arch), driven by the MCP SDK's own client over stdio:
// initialize, the tools and resources listed, each tool's answer equal to the CLI's -o json, filters and results cut
// to size, untrusted inputs refused as tool errors (contexts not in the kubeconfig, snapshots outside the allowed
// directories by .. or symlinks, wrong types, unknown keys), the CLI's errors and hints, and a slow call against a
// hanging API server stopped by cancellation. No timing here (npm run bench measures the start).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHECKS } from '../src/checks/registry.js';
import { fit } from '../src/mcp/fit.js';
import { cutText } from '../src/mcp/server.js';
import { EXAMPLE_TYPES, exampleObjects } from './helpers/fixtures.js';
import { call, cliJson, EXAMPLE_REAL, ON_EXAMPLE, startMcp, type Mcp, type ToolResult } from './helpers/mcp.js';
import { TOOLS } from '../src/mcp/tools.js';
import { arch, BIN, ROOT } from './helpers/run.js';
import { startTestApiServer, type TestApiServer } from './helpers/testApiServer.js';
import { tempDir } from './helpers/tmp.js';

let srv: TestApiServer;
let kubeconfig = '';
let mcp: Mcp;
let dir = '';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const text = (r: ToolResult): string => r.content.map((c) => c.text ?? '').join('\n');
/** Polls until cond holds (jest's own timeout bounds it; no time is asserted). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await sleep(20);
}

beforeAll(async () => {
  srv = await startTestApiServer({ types: EXAMPLE_TYPES, objects: exampleObjects() });
  dir = tempDir('ka-mcp-');
  kubeconfig = join(dir, 'kubeconfig');
  // the test server's own kubeconfig, with one more context where nothing listens
  writeFileSync(
    kubeconfig,
    readFileSync(srv.kubeconfigPath, 'utf8')
      .replace('clusters:\n', 'clusters:\n- name: down\n  cluster:\n    server: https://127.0.0.1:1\n')
      .replace('contexts:\n', 'contexts:\n- name: down\n  context:\n    cluster: down\n    user: test\n'),
  );
  mcp = await startMcp(BIN, ['--allow-snapshot-dir', 'examples', '--no-config'], { KUBECONFIG: kubeconfig });
}, 120_000);
afterAll(async () => {
  await mcp?.close();
  await srv?.close();
});

describe('initialize, tools and resources', () => {
  test('the server says who it is, that it is read-only, and offers tools and resources', () => {
    expect(mcp.client.getServerVersion()).toMatchObject({ name: 'kubectl-arch', version: expect.any(String) });
    expect(mcp.client.getServerCapabilities()).toMatchObject({ tools: expect.any(Object), resources: expect.any(Object) });
    expect(mcp.client.getInstructions()).toMatch(/Read-only: it only sends GET requests and never reads Secrets/);
  });

  test('one tool per command, each read-only and non-destructive, with a strict input schema that takes no path, flag or command', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['doctor', 'orphans', 'quorum', 'map', 'what-if', 'explain']);
    for (const t of tools) {
      expect(t.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
      expect(t.inputSchema.additionalProperties).toBe(false);
      const keys = Object.keys(t.inputSchema.properties ?? {});
      for (const k of keys) expect(k).not.toMatch(/kubeconfig|exec|flag|command|args|user|cluster|token|file/i);
    }
    const doctor = tools.find((t) => t.name === 'doctor')!;
    expect(Object.keys(doctor.inputSchema.properties ?? {}).sort()).toEqual(
      ['allContexts', 'checks', 'codes', 'context', 'contexts', 'deep', 'namespace', 'snapshot'].sort(),
    );
    // the assistant sees the valid check ids and finding codes
    expect(JSON.stringify(doctor.inputSchema)).toContain('"etcd-quorum"');
    expect(JSON.stringify(doctor.inputSchema)).toContain('"ARCH-OR01"');
  });

  test("one resource per check, whose text is `kubectl arch explain <id>`'s", async () => {
    const { resources } = await mcp.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(CHECKS.map((c) => `kubectl-arch://checks/${c.id}`));
    for (const c of CHECKS.slice(0, 3)) {
      const r = await mcp.client.readResource({ uri: `kubectl-arch://checks/${c.id}` });
      expect(r.contents).toEqual([
        { uri: `kubectl-arch://checks/${c.id}`, mimeType: 'text/plain', text: (await arch(['explain', c.id])).stdout },
      ]);
    }
  });
});

describe('each tool on the example snapshot equals the CLI', () => {
  test.each(ON_EXAMPLE.map((c) => [`${c.tool} ${JSON.stringify(c.args)}`, c] as const))('%s', async (_, c) => {
    const r = await call(mcp, c.tool, c.args);
    expect(r.isError).toBeFalsy();
    const want = await cliJson(BIN, c.cli);
    expect(r.structuredContent).toEqual(want);
    // the same JSON as text, for clients that read only text, after a summary to quote
    expect(r.content).toHaveLength(2);
    expect(JSON.parse(r.content[1]!.text!)).toEqual(want);
    expect(r.content[0]!.text!.length).toBeGreaterThan(20);
  });

  test('the summary quotes the counts and each finding; orphans carries the cleanup plan, which nothing runs', async () => {
    const d = await call(mcp, 'doctor', { snapshot: EXAMPLE_REAL });
    expect(d.content[0]!.text).toMatch(
      /^kubectl arch doctor — snapshot .*field-notes-k3s, captured 2026-08-13T09:00:00\.000Z\n11 checks: 3 with findings \(2 error, 1 warning, 1 info\), 8 passed, 0 skipped\n/,
    );
    expect(d.content[0]!.text).toContain('ERROR ARCH-RL03 K3s keeps re-applying the kube-dns Service');
    const o = await call(mcp, 'orphans', { snapshot: EXAMPLE_REAL });
    const plan = (await arch(['orphans', '--snapshot', EXAMPLE_REAL, '--cleanup-plan', '--no-config', '--fail-on', 'none'])).stdout;
    expect(o.content[0]!.text).toContain(`nothing was run:\n${plan.replace(/\n$/, '')}`);
    const m = await call(mcp, 'map', { snapshot: EXAMPLE_REAL });
    expect(m.content[0]!.text).toBe((await arch(['map', '--snapshot', EXAMPLE_REAL, '--no-color'])).stdout.replace(/\n+$/, ''));
  });

  test('a relative snapshot path is taken from where the server started', async () => {
    const r = await call(mcp, 'quorum', { snapshot: 'examples/field-notes-k3s' });
    expect(r.structuredContent).toEqual(await cliJson(BIN, ON_EXAMPLE[2]!.cli));
  });

  test('filters: checks and codes narrow the answer, the summary stays the whole run; owners narrow orphans', async () => {
    const full = (await call(mcp, 'doctor', { snapshot: EXAMPLE_REAL })).structuredContent as any;
    const one = (await call(mcp, 'doctor', { snapshot: EXAMPLE_REAL, checks: ['etcd-quorum'] })).structuredContent as any;
    expect(one.checks.map((c: any) => c.id)).toEqual(['etcd-quorum']);
    expect(one.summary).toEqual(full.summary);
    expect(one.filter).toEqual({ checks: ['etcd-quorum'], summary: 'of the whole run' });
    const code = (await call(mcp, 'doctor', { snapshot: EXAMPLE_REAL, codes: ['ARCH-OR04'] })).structuredContent as any;
    expect(code.checks.flatMap((c: any) => c.findings.map((f: any) => f.code))).toEqual(['ARCH-OR04']);
    const none = (await call(mcp, 'orphans', { snapshot: EXAMPLE_REAL, owners: ['no-such-app'] })).structuredContent as any;
    expect(none.groups).toEqual([]);
    const blog = (await call(mcp, 'orphans', { snapshot: EXAMPLE_REAL, owners: ['argocd/blog'] })).structuredContent as any;
    expect(blog.groups.map((g: any) => g.owner.name)).toEqual(['blog']);
  });
});

describe('large results are cut to the stated size, counts kept, the rest reachable by filters', () => {
  let small: Mcp;
  beforeAll(async () => {
    small = await startMcp(BIN, ['--allow-snapshot-dir', 'examples', '--no-config', '--max-result-bytes', '4000']);
  });
  afterAll(async () => {
    await small?.close();
  });

  test('doctor: under 4000 bytes, the summary whole, what was cut named with its codes; a code filter brings it back', async () => {
    const full = (await call(mcp, 'doctor', { snapshot: EXAMPLE_REAL })).structuredContent as any;
    const r = await call(small, 'doctor', { snapshot: EXAMPLE_REAL });
    expect(r.isError).toBeFalsy();
    const got = r.structuredContent as any;
    expect(Buffer.byteLength(JSON.stringify(got))).toBeLessThanOrEqual(4000);
    expect(got.summary).toEqual(full.summary);
    expect(got.truncated).toMatchObject({ limitBytes: 4000, fullBytes: Buffer.byteLength(JSON.stringify(full)) });
    expect(got.truncated.cut.length).toBeGreaterThan(0);
    expect(got.truncated.hint).toMatch(/checks or codes/);
    expect(r.content[0]!.text).toMatch(/the JSON is cut to 4000 bytes/);
    // every finding code left out is named, and asking for it alone brings it back whole
    const cutCodes = got.truncated.cut.flatMap((c: any) => Object.keys(c.codes ?? {}));
    const shown = new Set(got.checks.flatMap((c: any) => (c.findings ?? []).map((f: any) => f.code)));
    const all = full.checks.flatMap((c: any) => c.findings.map((f: any) => f.code));
    for (const c of all) expect(shown.has(c) || cutCodes.includes(c)).toBe(true);
    const one = (await call(small, 'doctor', { snapshot: EXAMPLE_REAL, codes: ['ARCH-OR04'] })).structuredContent as any;
    const f = one.checks.flatMap((c: any) => c.findings).find((x: any) => x.code === 'ARCH-OR04');
    expect(f).toEqual(full.checks.flatMap((c: any) => c.findings).find((x: any) => x.code === 'ARCH-OR04'));
  });
});

describe('a small --max-result-bytes: detail goes before predictions, and the note says what to ask for instead (#46)', () => {
  let medium: Mcp;
  let small: Mcp;
  beforeAll(async () => {
    medium = await startMcp(BIN, ['--allow-snapshot-dir', 'examples', '--no-config', '--max-result-bytes', '10000']);
    small = await startMcp(BIN, ['--allow-snapshot-dir', 'examples', '--no-config', '--max-result-bytes', '4000']);
  });
  afterAll(async () => {
    await medium?.close();
    await small?.close();
  });

  test('what-if on one node: every prediction kept without its detail; no "fewer nodes" for one node', async () => {
    const full = (await call(mcp, 'what-if', { snapshot: EXAMPLE_REAL, nodes: ['ilwon'] })).structuredContent as any;
    expect(Buffer.byteLength(JSON.stringify(full))).toBeGreaterThan(10000);
    const r = await call(medium, 'what-if', { snapshot: EXAMPLE_REAL, nodes: ['ilwon'] });
    const got = r.structuredContent as any;
    expect(Buffer.byteLength(JSON.stringify(got))).toBeLessThanOrEqual(10000);
    // each prediction is there, with its code, severity, title and objects
    expect(got.predictions.map((p: any) => [p.code, p.severity, p.title, p.objects])).toEqual(
      full.predictions.map((p: any) => [p.code, p.severity, p.title, p.objects]),
    );
    expect(got.truncated.cut).toEqual([]);
    expect(Object.keys(got.truncated.detail)).toEqual(expect.arrayContaining(['fix', 'why']));
    expect(r.content[0]!.text).toMatch(
      /the JSON is cut to 10000 bytes: fix, why and message left out of \d+ findings or predictions; each prediction kept/,
    );
    expect(got.truncated.hint).toMatch(/^each prediction kept its code, severity, title and objects: call explain with a code/);
    expect(`${got.truncated.hint}${r.content[0]!.text}`).not.toMatch(/fewer nodes/);
    // smaller still: the least severe go first, the most severe stay, each code that went is named
    const s = (await call(small, 'what-if', { snapshot: EXAMPLE_REAL, nodes: ['ilwon'] })).structuredContent as any;
    const worst = full.predictions.filter((p: any) => p.severity === 'critical' || p.severity === 'error');
    expect(s.predictions.length).toBeGreaterThan(0);
    expect(s.predictions.map((p: any) => p.code)).toEqual(expect.arrayContaining(worst.slice(0, 1).map((p: any) => p.code)));
    const cutCodes = s.truncated.cut.flatMap((c: any) => Object.keys(c.codes ?? {}));
    for (const p of full.predictions) expect(s.predictions.some((x: any) => x.code === p.code) || cutCodes.includes(p.code)).toBe(true);
    // several nodes: one at a time is what to ask for
    const two = (await call(small, 'what-if', { snapshot: EXAMPLE_REAL, nodes: ['ilwon', 'solomon'] })).structuredContent as any;
    expect(two.truncated.hint).toMatch(/^call what-if with one node at a time; /);
  });

  test('explain: the note names what to ask for, and no hint begins with "; "', async () => {
    for (const args of [{}, { id: 'etcd-quorum' }, { id: 'what-if' }]) {
      const r = await call(small, 'explain', args);
      const got = r.structuredContent as any;
      if (!got.truncated) continue;
      expect(got.truncated.hint).toMatch(/^[a-z]/);
      expect(got.truncated.hint).not.toMatch(/^; |; ;|: \)/);
      expect(r.content[0]!.text).not.toMatch(/bytes: \)|bytes: ;/);
    }
    const one = (await call(small, 'explain', { id: 'etcd-quorum' })).structuredContent as any;
    expect(one.truncated.hint).toMatch(/^read the resource kubectl-arch:\/\/checks\/etcd-quorum, or ask the user to raise/);
  });
});

describe('fit (the cut itself)', () => {
  const finding = (i: number, severity: string) => ({
    code: `ARCH-T${i % 3}`,
    severity,
    title: `finding ${i}`,
    evidence: { pad: 'x'.repeat(200) },
  });
  const report = {
    apiVersion: 'kubectl-arch/v1',
    kind: 'Report',
    summary: { checks: 2 },
    checks: [
      { id: 'a', findings: Array.from({ length: 1000 }, (_, i) => finding(i, i % 100 === 0 ? 'critical' : 'info')) },
      { id: 'b', findings: Array.from({ length: 10 }, (_, i) => finding(i, 'warning')) },
    ],
  };

  test('least severe findings go first, every cut is counted by code, the checks and counts stay', () => {
    const out = fit(report, 20_000, 'filter') as any;
    expect(Buffer.byteLength(JSON.stringify(out))).toBeLessThanOrEqual(20_000);
    expect(out.summary).toEqual(report.summary);
    expect(out.checks.map((c: any) => c.id)).toEqual(['a', 'b']);
    const kept = out.checks.flatMap((c: any) => c.findings);
    // all 10 critical findings and the warnings survive; infos are cut
    expect(kept.filter((f: any) => f.severity === 'critical')).toHaveLength(10);
    expect(kept.filter((f: any) => f.severity === 'warning')).toHaveLength(10);
    const cutCount = out.truncated.cut.reduce((n: number, c: any) => n + c.total - c.shown, 0);
    expect(kept.length + cutCount).toBe(1010);
    const byCode = out.truncated.cut.flatMap((c: any) => Object.values(c.codes ?? {})) as number[];
    expect(byCode.reduce((a, b) => a + b, 0)).toBe(cutCount);
  });

  test('under the limit it is the value itself', () => {
    expect(fit(report, 10_000_000, 'x')).toBe(report);
  });

  test('a long text (a cleanup plan of thousands of lines) is cut at a line, saying how much is left', () => {
    const plan = Array.from({ length: 5000 }, (_, i) => `kubectl delete configmap cm-${i} -n blog --wait=false`).join('\n');
    const out = cutText(plan, 20_000, 'call orphans with owners');
    expect(Buffer.byteLength(out)).toBeLessThan(20_200);
    expect(out.split('\n').slice(-2)[0]).toMatch(/^kubectl delete configmap cm-\d+ -n blog --wait=false$/);
    const left = Number(/(\d+) more lines/.exec(out)?.[1]);
    expect(out.split('\n').length - 1 + left).toBe(5000);
    expect(out).toMatch(/call orphans with owners\)$/);
    expect(cutText('short', 20_000, 'x')).toBe('short');
  });
});

describe('what-if for a change: manifests and a K3s config.yaml as text', () => {
  test('manifests: what the API server would refuse, as the CLI predicts it from -f', async () => {
    const manifests =
      'apiVersion: v1\nkind: Service\nmetadata: {name: kube-dns, namespace: kube-system}\nspec: {clusterIP: 169.254.20.10}\n';
    const r = await call(mcp, 'what-if', { snapshot: 'example:field-notes-k3s', manifests });
    expect(r.isError).toBeFalsy();
    const doc = r.structuredContent as any;
    expect(doc.kind).toBe('WhatIf');
    expect(doc.objects.map((o: { state: string }) => o.state)).toEqual(['refused']);
    // the example snapshot keeps the kube-dns Service: refused; the CLI on the same input says the same
    const file = join(tempDir(), 'm.yaml');
    writeFileSync(file, manifests);
    const cli = await arch(['what-if', '-f', file, '--snapshot', 'example:field-notes-k3s', '-o', 'json', '--fail-on', 'none']);
    expect(JSON.parse(cli.stdout).objects.map((o: { state: string }) => o.state)).toEqual(
      doc.objects.map((o: { state: string }) => o.state),
    );
  });

  test("k3sConfig: the field notes' cluster-dns change, foreseen", async () => {
    const r = await call(mcp, 'what-if', { snapshot: 'example:field-notes-k3s', k3sConfig: 'cluster-dns: 169.254.20.10\n' });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as any).predictions.map((p: { code: string }) => p.code)).toEqual(['ARCH-WI27']);
  });

  test('nodes and manifests together, or neither, are tool errors', async () => {
    expect((await call(mcp, 'what-if', { snapshot: 'example:field-notes-k3s', nodes: ['ilwon'], manifests: 'a: b' })).isError).toBe(true);
    expect((await call(mcp, 'what-if', { snapshot: 'example:field-notes-k3s' })).isError).toBe(true);
    expect((await call(mcp, 'what-if', { snapshot: 'example:field-notes-k3s', nodes: ['ilwon'], upgrade: 'v1.36' })).isError).toBe(true);
  });

  test('upgrade: the same prediction as what-if --upgrade', async () => {
    const r = await call(mcp, 'what-if', { snapshot: 'example:field-notes-k3s', upgrade: 'v1.36.0+k3s1' });
    expect(r.isError).toBeFalsy();
    const doc = r.structuredContent as any;
    expect(doc.hypothesis.upgrade).toMatchObject({ from: 'v1.35.4+k3s1', to: 'v1.36.0+k3s1' });
    const cli = JSON.parse(
      (await arch(['what-if', '--upgrade', 'v1.36.0+k3s1', '--snapshot', 'example:field-notes-k3s', '-o', 'json'])).stdout,
    );
    expect(doc.predictions.map((p: { fingerprint: string }) => p.fingerprint)).toEqual(
      cli.predictions.map((p: { fingerprint: string }) => p.fingerprint),
    );
    expect((await call(mcp, 'what-if', { snapshot: 'example:field-notes-k3s', upgrade: 'banana' })).isError).toBe(true);
  });
});

describe('untrusted inputs are tool errors, and the server keeps serving', () => {
  const refused = async (m: Mcp, tool: string, args: Record<string, unknown>, re: RegExp): Promise<ToolResult> => {
    const r = await call(m, tool, args);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(re);
    return r;
  };

  test('a context not in the kubeconfig the server was started with: the CLI error and hint', async () => {
    const r = await refused(mcp, 'doctor', { context: 'prod' }, /context "prod" does not exist in the kubeconfig/);
    const cli = await arch(['doctor', '--context', 'prod'], { KUBECONFIG: kubeconfig });
    expect(r.content[0]!.text + '\n').toBe(cli.stderr);
    expect(r.structuredContent).toBeUndefined();
    expect(r._meta?.['kubectl-arch/error']).toEqual({ message: expect.any(String), hint: 'see: kubectl config get-contexts', exitCode: 2 });
    await refused(mcp, 'quorum', { contexts: ['test', 'prod'] }, /context "prod" does not exist/);
    await refused(mcp, 'doctor', { context: 'test', contexts: ['test'] }, /context names one context/);
    await refused(mcp, 'doctor', { contexts: ['a,b'] }, /without commas/);
  });

  test('an unreachable cluster: the CLI message and hint', async () => {
    const r = await refused(mcp, 'quorum', { context: 'down' }, /cannot connect to https:\/\/127\.0\.0\.1:1: connection refused/);
    const cli = await arch(['quorum', '--context', 'down'], { KUBECONFIG: kubeconfig });
    expect(r.content[0]!.text + '\n').toBe(cli.stderr);
    expect((r._meta as any)['kubectl-arch/error'].exitCode).toBe(3);
  });

  test('snapshots outside the allowed directories: absolute, through .., through a symlink, or a link inside a snapshot directory', async () => {
    const outside = /not under a directory this server may read/;
    await refused(mcp, 'doctor', { snapshot: '/etc/passwd' }, outside);
    await refused(mcp, 'doctor', { snapshot: 'examples/../__tests__/corpus' }, outside);
    await refused(mcp, 'doctor', { snapshot: `${EXAMPLE_REAL}/../../package.json` }, outside);
    await refused(mcp, 'doctor', { snapshot: '/no/such/file' }, outside); // whether it exists is not told
    await refused(mcp, 'doctor', { snapshot: 'examples/none-such' }, /examples\/none-such: no such file or directory/);
    // a server allowed only a directory of links
    const allowed = join(dir, 'allowed');
    mkdirSync(join(allowed, 'snap'), { recursive: true });
    symlinkSync(EXAMPLE_REAL, join(allowed, 'link-out'));
    for (const f of readdirSync(EXAMPLE_REAL)) copyFileSync(join(EXAMPLE_REAL, f), join(allowed, 'snap', f));
    symlinkSync(join(ROOT, 'package.json'), join(allowed, 'snap', 'zz-extra.json'));
    mkdirSync(join(allowed, 'good'));
    for (const f of readdirSync(EXAMPLE_REAL)) copyFileSync(join(EXAMPLE_REAL, f), join(allowed, 'good', f));
    symlinkSync(join(allowed, 'good'), join(allowed, 'link-in'));
    const m = await startMcp(BIN, ['--allow-snapshot-dir', allowed, '--no-config']);
    try {
      await refused(m, 'doctor', { snapshot: join(allowed, 'link-out') }, outside);
      await refused(m, 'doctor', { snapshot: EXAMPLE_REAL }, outside);
      await refused(
        m,
        'doctor',
        { snapshot: join(allowed, 'snap') },
        /zz-extra\.json is a link to a file outside the directories this server may read/,
      );
      const ok = await call(m, 'quorum', { snapshot: join(allowed, 'link-in') });
      expect(ok.isError).toBeFalsy();
      expect((ok.structuredContent as any).source.path).toBe(realpathSync(join(allowed, 'good')));
    } finally {
      await m.close();
    }
  });

  test('without --allow-snapshot-dir no snapshot is read', async () => {
    const m = await startMcp(BIN, ['--no-config']);
    try {
      await refused(
        m,
        'map',
        { snapshot: EXAMPLE_REAL },
        /the server was started without --allow-snapshot-dir\n {2}hint: start it with --allow-snapshot-dir DIR/,
      );
    } finally {
      await m.close();
    }
  });

  test('wrong types, unknown keys (a kubeconfig, a flag), unknown check ids and tools', async () => {
    await refused(mcp, 'doctor', { snapshot: 5 }, /Input validation error.*snapshot/);
    await refused(mcp, 'doctor', { kubeconfig: '/tmp/x' }, /Unrecognized key.*kubeconfig/);
    await refused(mcp, 'orphans', { flags: ['--kubeconfig=/tmp/x'] }, /Unrecognized key.*flags/);
    await refused(mcp, 'doctor', { checks: ['no-such-check'] }, /Input validation error.*checks/);
    await refused(mcp, 'doctor', { namespace: 'Not A Namespace' }, /namespace/);
    await refused(mcp, 'doctor', { snapshot: EXAMPLE_REAL, context: 'test' }, /snapshot works offline on one snapshot/);
    await refused(mcp, 'explain', { id: 'no-such-check' }, /^error: no check or finding code "no-such-check"\n {2}hint: known checks: /);
    await refused(mcp, 'kubectl', { args: ['delete', 'ns', 'x'] }, /Tool kubectl not found/);
    // still serving
    expect((await mcp.client.listTools()).tools).toHaveLength(TOOLS.length);
    expect(mcp.stderr()).not.toMatch(/internal error/);
  });
});

describe('against a cluster', () => {
  test("doctor on the kubeconfig's context equals the CLI's, and only GETs reached the server", async () => {
    srv.requests.length = 0;
    const r = await call(mcp, 'doctor', {});
    expect(r.isError).toBeFalsy();
    const cli = (await cliJson(BIN, ['doctor', '-o', 'json', '--no-config', '--fail-on', 'none'], { KUBECONFIG: kubeconfig })) as any;
    const got = r.structuredContent as any;
    // the same report; times relative to the capture differ by when each run read the cluster
    const facts = (x: any): unknown => ({
      kind: x.kind,
      source: { ...x.source, capturedAt: undefined },
      summary: x.summary,
      fingerprint: { ...x.fingerprint, capturedAt: undefined },
      checks: x.checks.map((c: any) => ({
        id: c.id,
        status: c.status,
        findings: c.findings.map((f: any) => [f.code, f.severity, f.title, f.objects]),
      })),
    });
    expect(facts(got)).toEqual(facts(cli));
    expect(got.source).toMatchObject({ type: 'cluster', context: 'test' });
    expect(new Set(srv.requests.map((q) => q.method))).toEqual(new Set(['GET']));
    expect(srv.requests.some((q) => q.path.includes('secrets'))).toBe(false);
  }, 120_000);

  test('contexts: a ReportList, the unreachable context a row with its error', async () => {
    const r = await call(mcp, 'doctor', { contexts: ['test', 'down'] });
    expect(r.isError).toBeFalsy();
    const list = r.structuredContent as any;
    expect(list.kind).toBe('ReportList');
    expect(list.contexts.map((c: any) => [c.context, c.status])).toEqual([
      ['test', 'ok'],
      ['down', 'failed'],
    ]);
    expect(r.content[0]!.text).toMatch(/^down: error: cannot connect to https:\/\/127\.0\.0\.1:1: connection refused/m);
  }, 120_000);

  test('a slow call sends progress, and cancelling it stops its requests; the server serves the next call', async () => {
    srv.faults.quorumHang = true;
    srv.requests.length = 0;
    // deadlines an hour away: only the cancellation can stop this call
    const m = await startMcp(BIN, ['--no-config', '--deadline', '1h', '--request-timeout', '1h'], { KUBECONFIG: kubeconfig });
    try {
      const ac = new AbortController();
      const progress: string[] = [];
      const pending = m.client.callTool({ name: 'doctor', arguments: {} }, undefined, {
        signal: ac.signal,
        timeout: 3_600_000,
        onprogress: (p) => {
          progress.push(String(p.message));
        },
      });
      const outcome = pending.then(
        () => 'answered',
        (e: Error) => e.message,
      );
      // lists are hanging at the server
      await until(() => srv.requests.filter((q) => q.status === -1).length > 0);
      ac.abort();
      // the SDK's client sends notifications/cancelled and rejects the call
      expect(await outcome).toMatch(/AbortError: This operation was aborted/);
      expect(progress).toEqual(expect.arrayContaining(['fetching server version', 'fetching readiness']));
      // every hanging request is closed by the server's side, and no request comes after
      await until(() => srv.requests.filter((q) => q.status === -1).every((q) => q.closed));
      const seen = srv.requests.length;
      const e = await call(m, 'explain', { id: 'etcd-quorum' });
      expect(e.isError).toBeFalsy();
      await sleep(200);
      expect(srv.requests.length).toBe(seen);
      expect(new Set(srv.requests.map((q) => q.method))).toEqual(new Set(['GET']));
    } finally {
      srv.faults.quorumHang = false;
      await m.close();
    }
  }, 120_000);
});

describe('start-up', () => {
  test('bad start flags are usage errors before the server starts', async () => {
    const a = await arch(['mcp', '--allow-snapshot-dir', '/no/such/dir']);
    expect({ code: a.code, stderr: a.stderr }).toEqual({
      code: 2,
      stderr: 'error: --allow-snapshot-dir /no/such/dir: no such directory\n',
    });
    const b = await arch(['mcp', '--snapshot', EXAMPLE_REAL]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/^error: --snapshot is chosen per call with mcp\n {2}hint: start with --allow-snapshot-dir DIR/);
    const c = await arch(['mcp', '--context', 'nope'], { KUBECONFIG: kubeconfig });
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/^error: context "nope" does not exist in the kubeconfig/);
    expect((await arch(['mcp', '-o', 'json'])).stderr).toMatch(/stdout carries the protocol/);
  });

  test('only mcp loads the MCP SDK (dist/mcp-sdk.cjs); its JSON-RPC alone is on stdout', async () => {
    const home = tempDir('ka-mcp-cache-');
    const env = { KUBECTL_ARCH_DEBUG_CACHE: '1', XDG_CACHE_HOME: home };
    const d = await arch(['doctor', '--snapshot', EXAMPLE_REAL, '--fail-on', 'none'], env);
    expect(d.stderr).not.toMatch(/mcp-sdk/);
    const m = await startMcp(BIN, [], env);
    await m.close();
    expect(m.stderr()).toMatch(/^code cache: mcp-sdk\.cjs none$/m);
    expect(readFileSync(join(ROOT, 'dist/cli.cjs'), 'latin1')).not.toMatch(/class McpServer\b/);
  });
});
