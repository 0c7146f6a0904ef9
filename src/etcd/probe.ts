// Optional direct probe of etcd through its JSON gateway. Only three read-only RPCs are ever sent:
// Cluster.MemberList, Maintenance.Status and Maintenance.Alarm with action GET. (The gateway maps
// every RPC to POST; none of these changes anything.) This is not the Kubernetes API client.
import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { InputError } from '../errors.js';
import type { Deadline } from '../lib/deadline.js';
import { whyNot } from '../lib/files.js';
import { verdictOf, type Member, type QuorumView } from './quorum.js';
import * as answers from './answers.js';
import { MalformedAnswer } from './answers.js';

export interface ProbeOptions {
  endpoints: string[];
  cacert?: string;
  cert?: string;
  key?: string;
  timeoutMs: number;
  /** The run's --deadline: no RPC outlives it, whatever timeoutMs says. */
  deadline?: Deadline;
}

const READ_ONLY_RPCS = {
  memberList: { path: '/v3/cluster/member/list', body: '{}', name: 'Cluster.MemberList' },
  status: { path: '/v3/maintenance/status', body: '{}', name: 'Maintenance.Status' },
  alarms: { path: '/v3/maintenance/alarm', body: '{"action":"GET"}', name: 'Maintenance.Alarm' },
} as const;

/** These answers are a few KB (a member list of seven is under 2 KB); a larger body is not etcd's, and is not read
 *  (a 1.2 GB one ended in an uncaught RangeError). */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** 64-bit IDs must stay strings: quote any bare integer too big for a JS number before parsing. */
export function parseJSON64<T>(text: string): T {
  return JSON.parse(text.replace(/([:[,]\s*)(-?\d{16,})(?=\s*[,}\]])/g, '$1"$2"')) as T;
}

export interface EndpointResult {
  endpoint: string;
  ok: boolean;
  error?: string;
  memberId?: string;
  leader?: string;
  raftTerm?: string;
  raftIndex?: string;
  dbSize?: number;
  dbSizeInUse?: number;
  version?: string;
  errors?: string[];
}

export interface ProbeResult {
  clusterId?: string;
  endpoints: EndpointResult[];
  members: Array<{
    id: string;
    name: string;
    peerURLs: string[];
    clientURLs: string[];
    isLearner: boolean;
    answered: boolean;
    hasLeader: boolean;
  }>;
  leader?: string;
  leaderAgreed: boolean;
  raftTermSpread?: string;
  raftIndexSpread?: string;
  alarms: Array<{ memberID: string; alarm: string }>;
  alarmsError?: string;
  view: Pick<
    QuorumView,
    'voters' | 'healthyVoters' | 'unknownVoters' | 'learners' | 'quorum' | 'tolerated' | 'remaining' | 'verdict' | 'verdictLine'
  > & { members: Member[] };
}

function tlsOptions(o: ProbeOptions): https.AgentOptions {
  const read = (p: string | undefined, what: string): Buffer | undefined => {
    if (!p) return undefined;
    try {
      return readFileSync(p);
    } catch (e) {
      throw new InputError(`cannot read ${what} ${p}: ${whyNot(e as NodeJS.ErrnoException)}`);
    }
  };
  return { ca: read(o.cacert, '--etcd-cacert'), cert: read(o.cert, '--etcd-cert'), key: read(o.key, '--etcd-key') };
}

/** One RPC: its answer, checked by `check` (src/etcd/answers.ts); an Error whose message says why there is none. */
function call<T>(
  endpoint: string,
  rpc: keyof typeof READ_ONLY_RPCS,
  tls: https.AgentOptions,
  perRpcMs: number,
  check: (v: unknown) => T,
  dl?: Deadline,
): Promise<T> {
  const { path, body, name } = READ_ONLY_RPCS[rpc];
  if (dl?.passed()) return Promise.reject(new Error(`not asked: the run's deadline (${dl.text()}) had passed`));
  const byDeadline = dl !== undefined && dl.remaining() < perRpcMs;
  const timeoutMs = byDeadline ? dl.remaining() : perRpcMs;
  const late = (): Error =>
    new Error(byDeadline ? `did not answer before the run's deadline (${dl.text()})` : `timed out after ${timeoutMs}ms`);
  const url = new URL(path, endpoint.endsWith('/') ? endpoint : endpoint + '/');
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(
      url,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        ...(url.protocol === 'https:' ? tls : {}),
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (d: Buffer) => {
          bytes += d.length;
          if (bytes > MAX_ANSWER_BYTES) req.destroy(new Error(`answer to ${name} larger than 1 MiB`));
          else chunks.push(d);
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 0) >= 300) return reject(new Error(`${res.statusCode} ${text.slice(0, 120).trim()}`));
          let v: unknown;
          try {
            v = parseJSON64(text);
          } catch (e) {
            return reject(new Error(`malformed answer to ${name}: not JSON (${(e as Error).message.slice(0, 80)})`));
          }
          try {
            resolve(check(v));
          } catch (e) {
            reject(e instanceof MalformedAnswer ? new Error(`malformed answer to ${name}: ${e.message}`) : e);
          }
        });
      },
    );
    const deadline = setTimeout(() => req.destroy(late()), timeoutMs);
    req.on('timeout', () => req.destroy(late()));
    req.on('error', (e) => {
      clearTimeout(deadline);
      reject(e);
    });
    req.on('close', () => clearTimeout(deadline));
    req.end(body);
  });
}

const big = (s: string | undefined): bigint | undefined => (s === undefined ? undefined : BigInt(s));

export async function probeEtcd(o: ProbeOptions): Promise<ProbeResult> {
  if (o.endpoints.length === 0) throw new InputError('--etcd-endpoints needs at least one URL');
  for (const e of o.endpoints) {
    if (!/^https?:\/\//.test(e)) throw new InputError(`--etcd-endpoints: "${e}" is not an http(s) URL (e.g. https://10.0.0.1:2379)`);
  }
  const tls = tlsOptions(o);
  const endpoints: EndpointResult[] = await Promise.all(
    o.endpoints.map(async (endpoint): Promise<EndpointResult> => {
      try {
        const s = await call(endpoint, 'status', tls, o.timeoutMs, answers.status, o.deadline);
        return {
          endpoint,
          ok: true,
          memberId: s.memberId,
          leader: s.leader && s.leader !== '0' ? s.leader : undefined,
          raftTerm: s.raftTerm,
          raftIndex: s.raftIndex,
          dbSize: s.dbSize !== undefined ? Number(s.dbSize) : undefined,
          dbSizeInUse: s.dbSizeInUse !== undefined ? Number(s.dbSizeInUse) : undefined,
          version: s.version,
          errors: s.errors,
          clusterId: s.clusterId,
        } as EndpointResult;
      } catch (e) {
        return { endpoint, ok: false, error: (e as Error).message };
      }
    }),
  );
  const answering = endpoints.filter((e) => e.ok);
  let rawMembers: answers.MemberEntry[] = [];
  let clusterId: string | undefined;
  let alarms: ProbeResult['alarms'] = [];
  // alarms are unknown until an endpoint answers the alarm RPC
  let alarmsError: string | undefined = answering.length ? undefined : 'no endpoint answered';
  for (const e of answering) {
    try {
      const ml = await call(e.endpoint, 'memberList', tls, o.timeoutMs, answers.memberList, o.deadline);
      rawMembers = ml.members;
      clusterId = ml.clusterId;
      break;
    } catch {
      /* try the next endpoint */
    }
  }
  for (const e of answering) {
    try {
      alarms = await call(e.endpoint, 'alarms', tls, o.timeoutMs, answers.alarms, o.deadline);
      alarmsError = undefined;
      break;
    } catch (err) {
      alarmsError = (err as Error).message;
    }
  }
  const leaders = new Set(answering.map((e) => e.leader ?? 'none'));
  const terms = answering.map((e) => big(e.raftTerm)).filter((x): x is bigint => x !== undefined);
  const idx = answering.map((e) => big(e.raftIndex)).filter((x): x is bigint => x !== undefined);
  const spread = (xs: bigint[]): string | undefined =>
    xs.length ? (xs.reduce((a, b) => (a > b ? a : b)) - xs.reduce((a, b) => (a < b ? a : b))).toString() : undefined;
  const members = rawMembers.map((m) => {
    const id = m.ID ?? '0';
    const ep = answering.find((e) => e.memberId === id);
    return {
      id,
      name: m.name ?? '(not started)',
      peerURLs: m.peerURLs ?? [],
      clientURLs: m.clientURLs ?? [],
      isLearner: Boolean(m.isLearner),
      answered: Boolean(ep),
      hasLeader: Boolean(ep?.leader),
    };
  });
  // members that answered and see a leader are healthy; answered without a leader = no quorum on that side
  const qMembers: Member[] = members.map((m) => ({
    name: m.name,
    where: m.clientURLs[0] ?? m.peerURLs[0] ?? '?',
    role: m.isLearner ? 'learner' : 'voter',
    health: m.answered
      ? m.hasLeader
        ? 'healthy'
        : 'unhealthy'
      : o.endpoints.some((e) => m.clientURLs.includes(e.replace(/\/$/, '')))
        ? 'unhealthy'
        : 'unknown',
    evidence: m.answered
      ? `answered; leader ${answering.find((e) => e.memberId === m.id)?.leader ?? 'none'}`
      : o.endpoints.some((e) => m.clientURLs.includes(e.replace(/\/$/, '')))
        ? 'did not answer'
        : 'not probed (endpoint not given)',
  }));
  if (rawMembers.length === 0) {
    // nothing answered: every given endpoint is a member we cannot see
    for (const e of endpoints)
      qMembers.push({ name: e.endpoint, where: e.endpoint, role: 'unknown', health: 'unhealthy', evidence: e.error ?? 'no answer' });
  }
  const v = verdictOf(qMembers, 'unknown');
  if (rawMembers.length === 0) {
    v.verdict = 'UNKNOWN';
    v.verdictLine = `0 of ${endpoints.length} endpoints answer — member list unknown — UNKNOWN`;
  }
  const leader = leaders.size === 1 ? [...leaders][0] : undefined;
  return {
    clusterId,
    endpoints,
    members,
    leader: leader && leader !== 'none' ? leader : undefined,
    leaderAgreed: leaders.size === 1 && !leaders.has('none'),
    raftTermSpread: spread(terms),
    raftIndexSpread: spread(idx),
    alarms,
    alarmsError,
    view: { ...v, members: qMembers },
  };
}
