// `kubectl arch mcp` driven by the MCP SDK's own client over stdio, as an assistant's host would start it: for the
// npm entry (bin/kubectl-arch, __tests__/mcp.test.ts) and the single executable (krew.release.test.ts).
import { realpathSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { EXAMPLE } from './fixtures.js';
import { ROOT, run } from './run.js';

/** The example snapshot by its real path: what the server reads, and names in the report's source. */
export const EXAMPLE_REAL = realpathSync(EXAMPLE);

export interface Mcp {
  client: Client;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** Starts `exe mcp ...args` (cwd: the repository) and connects; env is the server's whole environment beside PATH and HOME. */
export async function startMcp(exe: string, args: string[], env: Record<string, string> = {}): Promise<Mcp> {
  const transport = new StdioClientTransport({
    command: exe,
    args: ['mcp', ...args],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', KUBECONFIG: '/nonexistent', ...env },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const client = new Client({ name: 'kubectl-arch-tests', version: '0' });
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

/** Each tool on the example snapshot, and the CLI command whose -o json it must equal. */
export const ON_EXAMPLE: Array<{ tool: string; args: Record<string, unknown>; cli: string[] }> = [
  {
    tool: 'doctor',
    args: { snapshot: EXAMPLE_REAL },
    cli: ['doctor', '--snapshot', EXAMPLE_REAL, '-o', 'json', '--no-config', '--fail-on', 'none'],
  },
  {
    tool: 'orphans',
    args: { snapshot: EXAMPLE_REAL },
    cli: ['orphans', '--snapshot', EXAMPLE_REAL, '-o', 'json', '--no-config', '--fail-on', 'none'],
  },
  {
    tool: 'quorum',
    args: { snapshot: EXAMPLE_REAL },
    cli: ['quorum', '--snapshot', EXAMPLE_REAL, '-o', 'json', '--no-config', '--fail-on', 'none'],
  },
  { tool: 'map', args: { snapshot: EXAMPLE_REAL }, cli: ['map', '--snapshot', EXAMPLE_REAL, '-o', 'json'] },
  {
    tool: 'what-if',
    args: { snapshot: EXAMPLE_REAL, nodes: ['ilwon'] },
    cli: ['what-if', 'ilwon', '--snapshot', EXAMPLE_REAL, '-o', 'json'],
  },
  { tool: 'explain', args: { id: 'etcd-quorum' }, cli: ['explain', 'etcd-quorum', '-o', 'json'] },
  { tool: 'explain', args: { id: 'what-if' }, cli: ['explain', 'what-if', '-o', 'json'] },
  { tool: 'explain', args: {}, cli: ['explain', '-o', 'json'] },
];

export interface ToolResult {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

export const call = async (m: Mcp, name: string, args: Record<string, unknown>): Promise<ToolResult> =>
  (await m.client.callTool({ name, arguments: args })) as ToolResult;

/** The CLI's JSON for a command, from the same executable. */
export async function cliJson(exe: string, args: string[], env?: NodeJS.ProcessEnv): Promise<unknown> {
  const r = await run(exe, args, env);
  if (r.stderr !== '') throw new Error(`${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
