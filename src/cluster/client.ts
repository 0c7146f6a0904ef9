// The only code that sends requests to the API server. GET only, by construction: there is no
// other verb in this file. Bounded concurrency, per-request timeout, bounded retries on 429/5xx
// honouring Retry-After, pagination with one restart on 410 Gone, metadata-only lists.
import { StringDecoder } from 'node:string_decoder';
import http from 'node:http';
import https from 'node:https';
import { ClusterError } from '../errors.js';
import type { Deadline } from '../lib/deadline.js';
import type { MemoryGuard } from '../lib/memory.js';
import { stopwatch } from '../lib/time.js';

export const METADATA_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

export interface TransportOptions {
  server: string;
  ca?: Buffer | string;
  cert?: Buffer | string;
  key?: Buffer | string;
  rejectUnauthorized?: boolean;
  servername?: string;
  headers?: Record<string, string>;
  /** Called again after a 401, e.g. to re-run an exec credential plugin. */
  refreshHeaders?: () => Promise<Record<string, string>>;
  /** The client certificate's validity, when the kubeconfig user has one (for the certificate check). */
  clientCert?: CertInfo;
}

/** A certificate as the certificate check reads it. */
export interface CertInfo {
  subject?: string;
  issuer?: string;
  notAfter: string;
  dnsNames?: string[];
}

export interface ClientOptions {
  /** Per request; lowered for the rest of a run when the API server reports etcd failing. */
  timeoutMs: number;
  concurrency: number;
  maxRetries: number;
  pageSize: number;
  log?: (line: string) => void;
  /** Upper bound for a Retry-After wait, so a hostile value cannot hang the CLI. */
  maxRetryAfterMs: number;
  /** Upper bound on pages per list, so a server that never stops paging cannot exhaust memory. */
  maxPages: number;
  /** The run's overall time limit: no request outlives it. */
  deadline?: Deadline;
  /** Near the memory limit no request is sent: what is not fetched by then is not visible (#48). */
  memory?: MemoryGuard;
  /** Stops the run (an MCP call cancelled): requests in flight are destroyed, no new one is sent. */
  signal?: AbortSignal;
  /** Upper bound on one response body; a list page larger than this is asked again in smaller pages. */
  maxBodyBytes: number;
  /** Response bodies held at once, shared by every client of the process (all the contexts of a run). */
  bodies: BodyBudget;
}

/**
 * Response bodies held in memory by the clients that share this budget (all the contexts of a run do): what a
 * client has read counts until it is closed, which is when its context's snapshot is complete, so the bytes
 * stand for what its snapshot holds too. Once the total is past the limit, a response of any client but the one
 * that began reading first is paused (its socket is left unread: the server waits) until a client closes; the
 * first one always reads on and finishes, so the run always progresses. Small clusters run side by side as
 * before; large ones take turns. A paused context is still bound by --request-timeout and the run's --deadline.
 */
export class BodyBudget {
  held = 0;
  /** The most held at once: at most the limit plus what the first reader holds, plus a chunk per paused response. */
  peak = 0;
  private readonly readers: Array<{ bytes: number; paused: Array<() => void> }> = [];
  constructor(readonly limit: number) {}

  /** One reader per client: count() each chunk of its responses (which may pause that response); close() at the end. */
  reader(): { count(n: number, pause: () => void, resume: () => void): void; close(): void } {
    const r = { bytes: 0, paused: [] as Array<() => void> };
    return {
      count: (n, pause, resume) => {
        if (!this.readers.includes(r)) this.readers.push(r); // a reader's turn is when it first read
        r.bytes += n;
        this.held += n;
        this.peak = Math.max(this.peak, this.held);
        if (this.held > this.limit && this.readers[0] !== r) {
          r.paused.push(resume);
          pause();
        }
      },
      close: () => {
        const i = this.readers.indexOf(r);
        if (i < 0) return;
        this.readers.splice(i, 1);
        this.held -= r.bytes;
        // every paused response reads on; those still past the limit pause again at their next chunk
        for (const w of this.readers) for (const resume of w.paused.splice(0)) resume();
      },
    };
  }
}

const MiB = 1024 * 1024;
/** One budget for the process: every context of a run reads through it. */
export const BODIES = new BodyBudget(128 * MiB);

export const DEFAULT_CLIENT_OPTIONS: ClientOptions = {
  timeoutMs: 30_000,
  concurrency: 8,
  maxRetries: 3,
  pageSize: 500,
  maxRetryAfterMs: 10_000,
  maxPages: 10_000,
  maxBodyBytes: 64 * MiB,
  bodies: BODIES,
};

export interface ApiResponse {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** A non-2xx answer after retries. */
export class ApiStatusError extends Error {
  constructor(
    readonly status: number,
    readonly path: string,
    readonly serverMessage: string,
  ) {
    super(`${status} from GET ${path}${serverMessage ? `: ${serverMessage}` : ''}`);
  }
}

/** Timeout, reset, truncated or malformed body: the request did not produce a usable answer. */
export class ApiTransportError extends Error {
  constructor(
    message: string,
    readonly path: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** A wait that a stopped run cuts short (the next request then fails at once). */
const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((r) => {
    const t = setTimeout(r, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        r();
      },
      { once: true },
    );
  });
const mib = (n: number): string => `${Math.round((n / MiB) * 10) / 10} MiB`;

function serverMessage(body: string): string {
  try {
    const s = JSON.parse(body) as { message?: string };
    if (typeof s.message === 'string') return s.message;
  } catch {
    /* not a Status */
  }
  return body.slice(0, 200).trim();
}

export class ApiClient {
  readonly requests: Array<{ path: string; status: number; ms: number }> = [];
  private readonly base: URL;
  private readonly agent: http.Agent;
  private headers: Record<string, string>;
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private refreshed = false;
  readonly opts: ClientOptions;
  /** What this client has read, against the budget it shares with the other contexts of the run. */
  private readonly reader: ReturnType<BodyBudget['reader']>;

  constructor(
    private readonly transport: TransportOptions,
    opts: ClientOptions = DEFAULT_CLIENT_OPTIONS,
  ) {
    this.opts = { ...opts };
    this.reader = this.opts.bodies.reader();
    this.base = new URL(transport.server);
    this.headers = { ...(transport.headers ?? {}) };
    // two sockets beyond the request slots: /readyz probes must get through while every slot hangs
    const common = { keepAlive: true, maxSockets: opts.concurrency + 2 };
    this.agent =
      this.base.protocol === 'http:'
        ? new http.Agent(common)
        : new https.Agent({
            ...common,
            ca: transport.ca,
            cert: transport.cert,
            key: transport.key,
            rejectUnauthorized: transport.rejectUnauthorized ?? true,
            servername: transport.servername,
          });
  }

  private serving?: CertInfo;

  /** The API server's serving certificate, read from the TLS handshake the client makes anyway. */
  private notePeer(socket: unknown): void {
    if (this.serving || !socket || typeof (socket as { getPeerCertificate?: unknown }).getPeerCertificate !== 'function') return;
    const c = (
      socket as {
        getPeerCertificate(): { subject?: { CN?: string }; issuer?: { CN?: string }; valid_to?: string; subjectaltname?: string };
      }
    ).getPeerCertificate();
    if (!c?.valid_to) return;
    this.serving = {
      subject: c.subject?.CN,
      issuer: c.issuer?.CN,
      notAfter: new Date(c.valid_to).toISOString(),
      dnsNames: (c.subjectaltname ?? '').split(/,\s*/).filter(Boolean),
    };
  }

  /** After a refused handshake (an expired certificate): read the certificate the server presents, with one more
   *  handshake that sends no request at all, so the error can say which certificate expired and when. */
  async peekServing(): Promise<void> {
    if (this.serving || !this.transport.server.startsWith('https:')) return;
    const { connect } = await import('node:tls');
    const u = new URL(this.transport.server);
    await new Promise<void>((resolve) => {
      const sock = connect({
        host: u.hostname.replace(/^\[|\]$/g, ''),
        port: Number(u.port || 443),
        servername: this.transport.servername ?? (/^[\d.:[\]]+$/.test(u.hostname) ? undefined : u.hostname),
        rejectUnauthorized: false,
        timeout: 3000,
      });
      const done = (): void => {
        sock.destroy();
        resolve();
      };
      sock.once('secureConnect', () => {
        this.notePeer(sock);
        done();
      });
      sock.once('error', done);
      sock.once('timeout', done);
    });
  }

  /** What the handshake showed and which client certificate was presented. */
  tlsInfo(): { serving?: CertInfo; client?: CertInfo } | undefined {
    if (!this.serving && !this.transport.clientCert) return undefined;
    return {
      ...(this.serving ? { serving: this.serving } : {}),
      ...(this.transport.clientCert ? { client: this.transport.clientCert } : {}),
    };
  }

  close(): void {
    this.agent.destroy();
    this.reader.close();
  }

  private async slot(): Promise<void> {
    if (this.active < this.opts.concurrency) {
      this.active++;
      return;
    }
    await new Promise<void>((r) => this.waiting.push(r));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }

  private once(path: string, accept: string, maxMs = this.opts.timeoutMs, own?: AbortSignal): Promise<ApiResponse> {
    const signal = own && this.opts.signal ? AbortSignal.any([own, this.opts.signal]) : (own ?? this.opts.signal);
    const url = new URL(this.base.pathname.replace(/\/$/, '') + path, this.base);
    const mod = url.protocol === 'http:' ? http : https;
    const dl = this.opts.deadline;
    if (dl?.passed())
      return Promise.reject(new ApiTransportError(`not fetched: the run's deadline (${dl.text()}) passed`, path, 'DEADLINE'));
    if (signal?.aborted) return Promise.reject(new ApiTransportError(`GET ${path} aborted`, path, 'ABORTED'));
    const limit = Math.min(maxMs, this.opts.timeoutMs);
    const byDeadline = dl !== undefined && dl.remaining() < limit;
    const timeoutMs = byDeadline ? dl!.remaining() : limit;
    const timeoutError = (): ApiTransportError =>
      byDeadline
        ? new ApiTransportError(`GET ${path} did not finish before the run's deadline (${dl!.text()})`, path, 'DEADLINE')
        : new ApiTransportError(`GET ${path} timed out after ${limit / 1000}s`, path, 'TIMEOUT');
    return new Promise((resolve, reject) => {
      const req = mod.request(
        url,
        {
          method: 'GET',
          agent: this.agent,
          headers: { ...this.headers, Accept: accept, 'User-Agent': 'kubectl-arch' },
          timeout: timeoutMs,
        },
        (res) => {
          // now, while the socket is still this response's (a kept-alive socket is detached after 'end')
          this.notePeer(res.socket);
          // decoded as it arrives: each chunk's buffer is let go at once, and no buffer of the whole body is made
          // outside the JS heap (a megabyte per page, which the C allocator kept after it was freed)
          const text = new StringDecoder('utf8');
          const parts: string[] = [];
          let bytes = 0;
          res.on('data', (c: Buffer) => {
            bytes += c.length;
            if (bytes > this.opts.maxBodyBytes) {
              req.destroy(
                new ApiTransportError(`response to GET ${path} is larger than ${mib(this.opts.maxBodyBytes)}`, path, 'TOO_LARGE'),
              );
              return;
            }
            parts.push(text.write(c));
            this.reader.count(
              c.length,
              () => res.pause(),
              () => res.resume(),
            );
          });
          res.on('end', () => {
            if (!res.complete) {
              reject(new ApiTransportError(`connection closed before the response to GET ${path} was complete`, path, 'TRUNCATED'));
              return;
            }
            parts.push(text.end());
            resolve({ status: res.statusCode ?? 0, body: parts.join(''), headers: res.headers });
          });
          res.on('error', (e) => reject(new ApiTransportError(e.message, path, (e as NodeJS.ErrnoException).code)));
          res.on('aborted', () => reject(new ApiTransportError(`response to GET ${path} aborted`, path, 'TRUNCATED')));
        },
      );
      // a hard deadline for the whole exchange, not only for idle sockets
      const deadline = setTimeout(() => req.destroy(timeoutError()), timeoutMs);
      const onAbort = (): void => {
        req.destroy(new ApiTransportError(`GET ${path} aborted`, path, 'ABORTED'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('close', () => signal?.removeEventListener('abort', onAbort));
      req.on('timeout', () => req.destroy(timeoutError()));
      req.on('error', (e) => {
        clearTimeout(deadline);
        reject(e instanceof ApiTransportError ? e : new ApiTransportError(e.message, path, (e as NodeJS.ErrnoException).code));
      });
      req.on('close', () => clearTimeout(deadline));
      req.end();
    });
  }

  /** GET with retries on 429/5xx and connection resets. Returns 2xx; throws otherwise. */
  async get(path: string, accept = 'application/json', signal?: AbortSignal): Promise<ApiResponse> {
    let attempt = 0;
    for (;;) {
      await this.slot();
      const elapsed = stopwatch();
      let res: ApiResponse | undefined;
      let err: unknown;
      try {
        res = await this.once(path, accept, undefined, signal);
      } catch (e) {
        err = e;
      } finally {
        this.release();
      }
      const ms = Math.round(elapsed());
      const status = res?.status ?? 0;
      this.requests.push({ path, status, ms });
      this.opts.log?.(`GET ${path} ${res ? status : `failed (${(err as Error).message})`} ${ms}ms`);
      if (res && res.status >= 200 && res.status < 300) return res;
      if (res && res.status === 401 && !this.refreshed && this.transport.refreshHeaders) {
        this.refreshed = true;
        this.headers = { ...this.headers, ...(await this.transport.refreshHeaders()) };
        continue;
      }
      const retriable = res
        ? res.status === 429 || (res.status >= 500 && res.status !== 501)
        : (err as ApiTransportError).code === 'ECONNRESET';
      if (!retriable || attempt >= this.opts.maxRetries || this.opts.deadline?.passed()) {
        if (res) throw new ApiStatusError(res.status, path, serverMessage(res.body));
        throw err;
      }
      attempt++;
      const ra = res?.headers['retry-after'];
      const raMs = ra !== undefined && /^\d+$/.test(String(ra)) ? Number(ra) * 1000 : 200 * 2 ** attempt;
      await sleep(Math.min(raMs, this.opts.maxRetryAfterMs, this.opts.deadline?.remaining() ?? Infinity), this.opts.signal);
    }
  }

  /** One GET without retries, whatever the status (for /readyz, whose 500 body is the answer). It takes
   *  no request slot: a health probe must not queue behind lists that hang. */
  async getRaw(path: string, accept = 'text/plain', timeoutMs?: number): Promise<ApiResponse> {
    const elapsed = stopwatch();
    const res = await this.once(path, accept, timeoutMs);
    const ms = Math.round(elapsed());
    this.requests.push({ path, status: res.status, ms });
    this.opts.log?.(`GET ${path} ${res.status} ${ms}ms`);
    return res;
  }

  async getJSON<T>(path: string, accept = 'application/json', signal?: AbortSignal): Promise<T> {
    const res = await this.get(path, accept, signal);
    try {
      return JSON.parse(res.body) as T;
    } catch (e) {
      throw new ApiTransportError(`malformed JSON from GET ${path}: ${(e as Error).message}`, path, 'BADJSON');
    }
  }

  /**
   * List a resource type with pagination. Calls onPage with each page's items so a caller can
   * keep only what it needs. A 410 on a continue token restarts the list once from the start.
   */
  async list(
    basePath: string,
    opts: { metadataOnly?: boolean; labelSelector?: string; fieldSelector?: string; fromCache?: boolean; signal?: AbortSignal },
    onPage: (items: Array<Record<string, unknown>>, restart: boolean) => void,
  ): Promise<void> {
    const accept = opts.metadataOnly ? METADATA_ACCEPT : 'application/json';
    let restarted = false;
    let cont: string | undefined;
    let first = true;
    const tokens = new Set<string>();
    let pages = 0;
    let limit = this.opts.pageSize;
    for (;;) {
      const q = new URLSearchParams({ limit: String(limit) });
      // resourceVersion=0: served from the API server's watch cache, which answers when etcd does not
      // (a continue token carries its own resourceVersion: the two may not be combined)
      if (opts.fromCache && !cont) q.set('resourceVersion', '0');
      if (opts.labelSelector) q.set('labelSelector', opts.labelSelector);
      if (opts.fieldSelector) q.set('fieldSelector', opts.fieldSelector);
      if (cont) q.set('continue', cont);
      let page: { items?: Array<Record<string, unknown>>; metadata?: { continue?: string } };
      // before every page: a list cut short is not visible, never partial (the server's version and readiness,
      // small, are always asked, so the report can still be made)
      if (this.opts.memory?.near()) throw new ApiTransportError(`not fetched: ${this.opts.memory.text()}`, basePath, 'MEMORY');
      try {
        page = await this.getJSON(`${basePath}?${q.toString()}`, accept, opts.signal);
      } catch (e) {
        // a page too large to hold: the same page again, a tenth the size (the continue token stays valid)
        if (e instanceof ApiTransportError && e.code === 'TOO_LARGE' && limit > 1) {
          limit = Math.max(1, Math.floor(limit / 10));
          continue;
        }
        if (e instanceof ApiStatusError && e.status === 410 && cont && !restarted) {
          // the continue token expired (compaction): start over once, discarding what we have
          restarted = true;
          cont = undefined;
          first = true;
          tokens.clear();
          pages = 0;
          continue;
        }
        throw e;
      }
      if (!Array.isArray(page.items ?? []))
        throw new ApiTransportError(`malformed list from GET ${basePath}: items is not a list`, basePath, 'BADJSON');
      onPage(page.items ?? [], first && restarted);
      first = false;
      cont = page.metadata?.continue || undefined;
      if (!cont) return;
      // a server that repeats a continue token (or never stops) would page forever
      if (tokens.has(cont))
        throw new ApiTransportError(
          `list of ${basePath} is incomplete: the server returned the same continue token twice`,
          basePath,
          'PAGINATION',
        );
      tokens.add(cont);
      if (++pages >= this.opts.maxPages)
        throw new ApiTransportError(`list of ${basePath} is incomplete: stopped after ${this.opts.maxPages} pages`, basePath, 'PAGINATION');
    }
  }
}

const certWhen = (c: CertInfo, now: number): string => {
  const days = Math.floor(Math.abs(Date.parse(c.notAfter) - now) / 86_400_000);
  return `${c.notAfter.slice(0, 10)}, ${days} day${days === 1 ? '' : 's'} ago`;
};

/** Turn a transport failure of the first request into the one line the user sees; tls is what the handshake showed. */
export function connectionError(
  e: unknown,
  server: string,
  tls?: { serving?: CertInfo; client?: CertInfo },
  now = Date.now(),
): ClusterError {
  if (e instanceof ApiStatusError) {
    if (e.status === 401 && tls?.client && Date.parse(tls.client.notAfter) < now) {
      return new ClusterError(
        `the API server at ${server} rejected the credentials (401 Unauthorized): your client certificate${tls.client.subject ? ` (CN ${tls.client.subject})` : ''} expired on ${certWhen(tls.client, now)}`,
        "get a renewed kubeconfig for this user (kubeadm: kubeadm kubeconfig user; K3s/RKE2: the server's /etc/rancher/k3s/k3s.yaml or /etc/rancher/rke2/rke2.yaml, renewed when the service restarts)",
      );
    }
    if (e.status === 401) {
      return new ClusterError(
        `the API server at ${server} rejected the credentials (401 Unauthorized)`,
        'the token or client certificate may be expired or wrong; refresh your credentials (e.g. re-run your cloud login) and retry',
      );
    }
    return new ClusterError(`the API server at ${server} answered ${e.status}: ${e.serverMessage}`);
  }
  const err = e as ApiTransportError & { code?: string };
  const code = err.code ?? '';
  if (code === 'ECONNREFUSED')
    return new ClusterError(
      `cannot connect to ${server}: connection refused`,
      'is the cluster running and the server URL in the kubeconfig right?',
    );
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new ClusterError(`cannot resolve the host of ${server}`, 'check the server URL in the kubeconfig and your DNS/VPN');
  if (code === 'TIMEOUT')
    return new ClusterError(
      `${server} did not answer in time (${err.message})`,
      'raise --request-timeout or check network access to the cluster',
    );
  if (code === 'CERT_HAS_EXPIRED') {
    const c = tls?.serving;
    return new ClusterError(
      `TLS verification failed for ${server}: the API server's serving certificate${c ? `${c.subject ? ` (CN ${c.subject}${c.issuer ? `, issued by ${c.issuer}` : ''})` : ''} expired on ${certWhen(c, now)}` : ' has expired'}`,
      'every client is locked out until it is renewed: K3s/RKE2 renew certificates within 90 days of expiry when the service restarts (restart k3s / rke2-server on each server); kubeadm: kubeadm certs renew all, then restart the control-plane static pods; a managed cloud: contact the provider. (Also check the clock of this machine.)',
    );
  }
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|HOSTNAME|ALTNAME/.test(code) || /certificate/i.test(err.message)) {
    return new ClusterError(
      `TLS verification failed for ${server}: ${err.message}`,
      'the kubeconfig CA does not match the server certificate; check certificate-authority(-data) or tls-server-name',
    );
  }
  return new ClusterError(`cannot reach ${server}: ${err.message}`);
}
