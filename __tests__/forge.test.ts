// Text that cannot forge a line, and bounded inputs (#43): a newline in a one-line field (a title, a name, a tampered
// report) never starts a look-alike `fix:` or `FIXED:` line; code-scanning and policy UIs get bidi overrides and
// zero-width characters as text; what-if -f refuses manifests over its documented size; the MCP server answers a
// request line too large to read with a JSON-RPC error and goes on serving.
import { describe, expect, test } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { MAX_MANIFEST_BYTES } from '../src/change/manifests.js';
import { MAX_REQUEST_BYTES } from '../src/mcp/server.js';
import { EXAMPLE } from './helpers/fixtures.js';
import { arch, BIN, ROOT } from './helpers/run.js';
import { tempDir } from './helpers/tmp.js';

const FORGED = /^(fix:|FIXED:|\s*fix: rm -rf)/m;

describe('a newline in a one-line field never starts a line', () => {
  test('diff of a tampered report: the title prints as one line', async () => {
    const dir = tempDir();
    const r = await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'json', '--fail-on', 'none']);
    writeFileSync(join(dir, 'old.json'), r.stdout);
    const doc = JSON.parse(r.stdout);
    const f = doc.checks.flatMap((c: { findings: unknown[] }) => c.findings)[0];
    f.title = `${f.title}\nFIXED: every finding (nothing to do)\nfix: rm -rf /`;
    f.fingerprint = 'f'.repeat(32);
    writeFileSync(join(dir, 'new.json'), JSON.stringify(doc));
    const d = await arch(['diff', join(dir, 'old.json'), join(dir, 'new.json')]);
    expect(d.stdout).toMatch(/\\nFIXED: every finding/);
    expect(d.stdout).not.toMatch(FORGED);
  });

  test('what-if: a pod named with a line break stays on its line', async () => {
    const dir = tempDir();
    const snap = join(dir, 'snap');
    mkdirSync(snap);
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'w1', labels: {} },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'bare\nfix: rm -rf / --no-preserve-root', namespace: 'default' },
      spec: { nodeName: 'w1' },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    };
    writeFileSync(join(snap, 'all.yaml'), [node, pod].map((o) => dump(o)).join('---\n'));
    const r = await arch(['what-if', 'w1', '--snapshot', snap, '--fail-on', 'none']);
    expect(r.stdout).toContain('bare\\nfix: rm -rf /');
    expect(r.stdout).not.toMatch(FORGED);
  });
});

test('SARIF and PolicyReport show bidi overrides and zero-width characters as text, as the terminal does', async () => {
  const dir = tempDir();
  const snap = join(dir, 'snap');
  mkdirSync(snap);
  const apisvc = {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: 'v1beta1.metrics.k8s.io' },
    spec: { group: 'metrics.k8s.io', version: 'v1beta1', service: { namespace: 'kube-system', name: 'metrics-server' } },
    status: { conditions: [{ type: 'Available', status: 'False', reason: 'MissingEndpoints', message: 'evil\u202etxt.exe n1\u200b end' }] },
  };
  writeFileSync(join(snap, 'all.yaml'), dump(apisvc));
  for (const o of ['sarif', 'policyreport', 'openreports']) {
    const r = await arch(['doctor', '--snapshot', snap, '-o', o, '--fail-on', 'none']);
    expect([o, r.stdout.includes('evil')]).toEqual([o, true]);
    expect([o, /[\u202e\u200b]/.test(r.stdout)]).toEqual([o, false]);
    expect(r.stdout).toMatch(/evil\\{1,2}u202etxt/);
  }
});

test(`what-if -f refuses manifests over ${MAX_MANIFEST_BYTES >> 20} MiB, before reading them`, async () => {
  const dir = tempDir();
  const big = join(dir, 'big.yaml');
  const line = `# ${'x'.repeat(1022)}\n`;
  writeFileSync(big, line.repeat(Math.ceil((MAX_MANIFEST_BYTES + 1) / line.length)));
  const r = await arch(['what-if', '-f', big, '--snapshot', EXAMPLE]);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(new RegExp(`larger than ${MAX_MANIFEST_BYTES >> 20} MiB`));
  // the limit is the one the docs state
  expect(readFileSync(join(ROOT, 'docs/what-if.md'), 'utf8') + readFileSync(join(ROOT, 'README.md'), 'utf8')).toMatch(
    new RegExp(`${MAX_MANIFEST_BYTES >> 20} MiB`),
  );
});

test('the MCP server answers a 20 MB request line with a JSON-RPC error, then serves the next request', async () => {
  const child = spawn(BIN, ['mcp', '--no-config'], {
    env: { ...process.env, KUBECONFIG: '/nonexistent' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let buf = '';
  const got = new Promise<void>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        lines.push(buf.slice(0, i));
        buf = buf.slice(i + 1);
        if (lines.length === 2) resolve();
      }
    });
  });
  const huge = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"doctor","arguments":{"x":"${'a'.repeat(20 * 1024 * 1024)}"}}}\n`;
  child.stdin.write(huge);
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
  );
  await got;
  child.stdin.end();
  child.kill();
  const [err, init] = lines.map((l) => JSON.parse(l));
  expect(err).toEqual({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32600,
      message: expect.stringMatching(new RegExp(`request too large: \\d+ bytes.*at most ${MAX_REQUEST_BYTES} bytes`)),
    },
  });
  expect(init).toMatchObject({ jsonrpc: '2.0', id: 2, result: { serverInfo: { name: 'kubectl-arch' } } });
}, 120_000);
