// `kubectl arch mcp`: a Model Context Protocol server on stdio (the official SDK, loaded from dist/mcp-sdk.cjs only
// here). Tools are src/mcp/tools.ts; each check's documentation is a resource, kubectl-arch://checks/<id>.
// A call runs like the command does (the same deadlines: --deadline, --request-timeout from the start flags), sends
// progress notifications while it fetches when the client asked for them, and stops when cancelled: its requests
// are destroyed and no new one is sent. Every failure is the tool's error, with the CLI's message and hint; the
// server itself keeps serving.
import { memoryGuard } from '../lib/memory.js';
import { CHECKS } from '../checks/registry.js';
import { explainText } from '../checks/docs.js';
import type { RunHooks } from '../commands/common.js';
import { EXIT, UserError } from '../errors.js';
import { termSafe } from '../lib/safe.js';
import { VERSION } from '../version.js';
import { fit, type Truncated } from './fit.js';
import type { ServerSettings } from './inputs.js';
import { TOOLS, type ToolSpec, CHECK_URI } from './tools.js';
export { CHECK_URI };
import { PassThrough } from 'node:stream';

const INSTRUCTIONS = `kubectl-arch diagnoses Kubernetes failures that follow from its architecture (etcd quorum, the API server as the only door, reconcile loops, node interfaces). Read-only: it only sends GET requests and never reads Secrets. Start with doctor (or map for the overview); quorum and orphans go deeper; explain, or the resource ${CHECK_URI}<id>, says why a check matters before you advise. Fix steps and cleanup plans are for a human to review and run; this server runs nothing.`;

/** Where a failed call's {message, hint, exitCode} goes: not structuredContent, which clients check against the tool's
 *  outputSchema (the document of a successful call) even on errors. */
export const ERROR_META = 'kubectl-arch/error';

/** What a failed call answers: the CLI's "error: …" and "hint: …" lines. */
export function toolError(e: unknown): {
  isError: true;
  content: Array<{ type: 'text'; text: string }>;
  _meta: Record<string, unknown>;
} {
  const user = e instanceof UserError;
  const message = user ? e.message : `internal error: ${(e as Error)?.message ?? String(e)}`;
  const hint = user ? e.hint : undefined;
  const exitCode = user ? e.exitCode : EXIT.INTERNAL;
  return {
    isError: true,
    content: [{ type: 'text', text: `error: ${termSafe(message, true)}${hint ? `\n  hint: ${termSafe(hint, true)}` : ''}` }],
    _meta: { [ERROR_META]: { message, ...(hint ? { hint } : {}), exitCode } },
  };
}

/** The text of an answer (a cleanup plan can run to thousands of lines) cut at a line to the same size as its JSON. */
export function cutText(text: string, max: number, reach: string): string {
  if (Buffer.byteLength(text) <= max) return text;
  let end = text.lastIndexOf('\n', max);
  while (end > 0 && Buffer.byteLength(text.slice(0, end)) > max) end = text.lastIndexOf('\n', end - 1);
  const kept = text.slice(0, Math.max(0, end));
  const lines = (s: string): number => s.split('\n').length;
  return `${kept}\n… (the text is cut to ${max} bytes: ${lines(text) - lines(kept)} more lines; ${reach})`;
}

class Cancelled extends Error {
  constructor() {
    super('the call was cancelled');
  }
}

/** What the SDK hands a tool handler (the part used here). */
interface Extra {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification(n: { method: 'notifications/progress'; params: Record<string, unknown> }): Promise<void>;
}

/** Progress notifications for a call whose client sent a progress token: each fetch step, and every few seconds
 *  while nothing new happens (so the client knows the call is alive). */
function progressOf(extra: Extra): { hook?: (what: string) => void; stop(): void } {
  const token = extra._meta?.progressToken;
  if (token === undefined) return { stop: () => {} };
  let n = 0;
  let last = 'starting';
  const started = Date.now();
  const send = (message: string): void => {
    extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++n, message } }).catch(() => {});
  };
  const timer = setInterval(() => send(`still working (${Math.round((Date.now() - started) / 1000)}s): ${last}`), 5000);
  timer.unref();
  return {
    hook: (what) => {
      last = `fetching ${what}`;
      send(last);
    },
    stop: () => clearInterval(timer),
  };
}

function handler(spec: ToolSpec, settings: ServerSettings) {
  return async (input: unknown, extra: Extra) => {
    const progress = progressOf(extra);
    const hooks: RunHooks = { signal: extra.signal, progress: progress.hook, memory: memoryGuard() };
    let onAbort: (() => void) | undefined;
    const cancelled = new Promise<never>((_, reject) => {
      onAbort = () => reject(new Cancelled());
      extra.signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      if (extra.signal.aborted) throw new Cancelled();
      const a = await Promise.race([spec.run(input ?? {}, settings, hooks), cancelled]);
      const structured = fit(a.structured, settings.maxResultBytes, a.reach);
      const t = structured.truncated as Truncated | undefined;
      const detail = Object.keys(t?.detail ?? {});
      const left = detail.length
        ? `${detail.length > 1 ? `${detail.slice(0, -1).join(', ')} and ${detail.at(-1)}` : detail[0]} left out of ${Math.max(...Object.values(t!.detail!))} findings or predictions; `
        : '';
      const cut = t ? `\n\n(the JSON is cut to ${settings.maxResultBytes} bytes: ${left}${a.reach})` : '';
      return {
        content: [
          { type: 'text' as const, text: cutText(a.text.replace(/\n+$/, ''), settings.maxResultBytes, a.reach) + cut },
          { type: 'text' as const, text: JSON.stringify(structured) },
        ],
        structuredContent: structured,
      };
    } catch (e) {
      // a cancelled call gets no answer (the SDK sends none); its work stops through hooks.signal
      return toolError(e);
    } finally {
      progress.stop();
      if (onAbort) extra.signal.removeEventListener('abort', onAbort);
      cancelled.catch(() => {});
    }
  };
}

export interface Io {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
}

/** The largest request line read (a tool's arguments are bounded far below it: what-if manifests at 64 KiB). */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/** stdin as whole lines for the SDK, each at most `max` bytes: a longer one is dropped as it comes (never held) and
 *  answered with a JSON-RPC error (its id cannot be read: null), where the SDK would throw out of its stream handler
 *  and the server would end without a word. */
export function boundedLines(input: NodeJS.ReadableStream, max: number, tooLong: (bytes: number) => void): PassThrough {
  const out = new PassThrough();
  let parts: Buffer[] = [];
  let held = 0;
  let dropping = 0;
  input.on('data', (chunk: Buffer | string) => {
    let b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let nl = b.indexOf(10); ; nl = b.indexOf(10)) {
      const piece = nl < 0 ? b : b.subarray(0, nl + 1);
      if (dropping) dropping += piece.length;
      else if (held + piece.length > max) {
        dropping = held + piece.length;
        parts = [];
        held = 0;
      } else {
        parts.push(piece);
        held += piece.length;
      }
      if (nl < 0) break;
      if (dropping) tooLong(dropping);
      else out.write(Buffer.concat(parts));
      parts = [];
      held = 0;
      dropping = 0;
      b = b.subarray(nl + 1);
    }
  });
  let ended = false;
  const end = (): void => {
    if (!ended) out.end();
    ended = true;
  };
  input.once('end', end);
  input.once('close', end);
  return out;
}

/** Serves until the client closes stdin; resolves then. */
export async function serve(settings: ServerSettings, io: Io): Promise<void> {
  const { McpServer, StdioServerTransport, z } = await import('./sdk.js');
  const server = new McpServer(
    { name: 'kubectl-arch', title: 'kubectl-arch', version: VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: INSTRUCTIONS,
      // the SDK validates JSON schemas only for elicitation, which this server never asks for: no Ajv to set up
      jsonSchemaValidator: {
        getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'kubectl-arch validates no client data' }),
      },
    },
  );
  for (const spec of TOOLS) {
    server.registerTool(
      spec.name,
      {
        title: spec.title,
        description: spec.description,
        inputSchema: z.object(spec.input(z)).strict(),
        outputSchema: spec.output(z) as never,
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: spec.openWorld },
      },
      handler(spec, settings) as never,
    );
  }
  for (const c of CHECKS) {
    const uri = `${CHECK_URI}${c.id}`;
    server.registerResource(c.id, uri, { title: c.title, description: c.docs.summary, mimeType: 'text/plain' }, async () => ({
      contents: [{ uri, mimeType: 'text/plain', text: explainText(c) }],
    }));
  }
  const stdin = boundedLines(io.stdin, MAX_REQUEST_BYTES, (bytes) =>
    io.stdout.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `request too large: ${bytes} bytes on one line; kubectl-arch reads at most ${MAX_REQUEST_BYTES} bytes a request` } })}\n`,
    ),
  );
  const transport = new StdioServerTransport(stdin as never, io.stdout as never);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  await server.connect(transport);
  // the SDK's transport does not watch for the end of its input: the client is gone, so in-flight calls stop
  const end = (): void => {
    void server.close();
  };
  stdin.once('end', end);
  stdin.once('close', end);
  await closed;
}
