// Each tool declares its outputSchema, and what it answers matches it — as checked by clients nobody here wrote: the
// TypeScript SDK's client (which refuses an answer that does not match; every call in mcp.test.ts goes through it)
// and the official Go SDK with Google's JSON Schema validator (__tests__/tools/mcpclient), here.
import { spawnSync } from 'node:child_process';
import { describe, expect, test } from '@jest/globals';
import { z } from 'zod';
import { TOOLS } from '../src/mcp/tools.js';
import { goTool } from './helpers/gotool.js';
import { EXAMPLE_REAL, ON_EXAMPLE } from './helpers/mcp.js';
import { BIN, ROOT } from './helpers/run.js';

interface Outcome {
  tool: string;
  isError?: boolean;
  valid: boolean;
  problem?: string;
}

/** Runs the Go SDK client against `kubectl-arch mcp ...args` with these calls; one outcome per call (and per tool without a usable schema). */
function goClient(args: string[], calls: Array<{ tool: string; args: Record<string, unknown> }>): Outcome[] {
  const r = spawnSync(goTool('mcpclient'), [BIN, 'mcp', ...args], {
    cwd: ROOT,
    input: JSON.stringify(calls),
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', KUBECONFIG: '/nonexistent' },
  });
  if (r.status !== 0) throw new Error(`mcpclient: ${r.stderr}`);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Outcome);
}

const calls = ON_EXAMPLE.map(({ tool, args }) => ({ tool, args }));

describe('outputSchema, checked by the MCP Go SDK and jsonschema-go', () => {
  test('every tool on the example: its structuredContent matches the schema it declares', () => {
    const out = goClient(['--allow-snapshot-dir', 'examples', '--no-config'], calls);
    expect(out).toEqual(calls.map((c) => ({ tool: c.tool, isError: false, valid: true })));
  });

  test('cut to 4000 bytes, the answers still match (the truncated note is part of the schema)', () => {
    const out = goClient(['--allow-snapshot-dir', 'examples', '--no-config', '--max-result-bytes', '4000'], calls);
    expect(out).toEqual(calls.map((c) => ({ tool: c.tool, isError: false, valid: true })));
  });

  test('an error answer is text with isError, no structuredContent a client would check against the schema', () => {
    const out = goClient(
      ['--allow-snapshot-dir', 'examples', '--no-config'],
      [
        { tool: 'doctor', args: { snapshot: '/etc/passwd' } },
        { tool: 'quorum', args: { context: 'nowhere' } },
        { tool: 'doctor', args: { snapshot: EXAMPLE_REAL } },
      ],
    );
    expect(out).toEqual([
      { tool: 'doctor', isError: true, valid: true },
      { tool: 'quorum', isError: true, valid: true },
      { tool: 'doctor', isError: false, valid: true },
    ]);
  });
});

describe('the schemas say something', () => {
  test.each(TOOLS.filter((t) => t.name !== 'explain').map((t) => [t.name, t] as const))(
    '%s: another kind of document, or no apiVersion, does not match',
    (_name, spec) => {
      const schema = spec.output(z);
      expect(schema.safeParse({ apiVersion: 'kubectl-arch/v1', kind: 'Snapshot' }).success).toBe(false);
      expect(schema.safeParse({ kind: 'Report' }).success).toBe(false);
      expect(schema.safeParse({ error: { message: 'x' } }).success).toBe(false);
    },
  );
});
