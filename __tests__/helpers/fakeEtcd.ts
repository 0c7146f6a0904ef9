// Fake etcd JSON gateways on loopback, one server per endpoint, each answering the three RPCs the probe sends
// with what a test says: good answers of a member of a small cluster, huge bodies, wrong types. Real etcd is in
// quorum-probe.test.ts; this is for answers a real etcd would not give.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Rpc = 'status' | 'memberList' | 'alarms';
/** A JSON value to answer, or a body of this many bytes of junk streamed in 64 KiB chunks. */
export type Answer = unknown | { junkBytes: number };

const RPC_PATHS: Record<string, Rpc> = {
  '/v3/maintenance/status': 'status',
  '/v3/cluster/member/list': 'memberList',
  '/v3/maintenance/alarm': 'alarms',
};

export interface FakeEtcd {
  url: string;
  answers: Partial<Record<Rpc, Answer>>;
  requests: string[];
  close(): Promise<void>;
}

export async function startFakeEtcd(answers: Partial<Record<Rpc, Answer>> = {}): Promise<FakeEtcd> {
  const requests: string[] = [];
  const state = { answers };
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    req.resume();
    const rpc = RPC_PATHS[req.url ?? ''];
    const a = rpc ? state.answers[rpc] : undefined;
    if (a === undefined) {
      res.writeHead(404).end('{"error":"not found"}');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    const junk = (a as { junkBytes?: number } | null)?.junkBytes;
    if (typeof junk !== 'number') {
      res.end(typeof a === 'string' ? a : JSON.stringify(a));
      return;
    }
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let left = junk;
    const more = (): void => {
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        if (!res.write(chunk.subarray(0, n))) return void res.once('drain', more);
      }
      res.end();
    };
    res.on('error', () => {});
    more();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    get answers() {
      return state.answers;
    },
    set answers(a) {
      state.answers = a;
    },
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Answers of member i of a cluster whose members are at these client URLs, member 1 the leader. */
export function memberAnswers(urls: string[], i: number): Record<Rpc, unknown> {
  const id = (k: number) => String(1000 + k);
  return {
    status: {
      header: { cluster_id: '42', member_id: id(i) },
      version: '3.5.17',
      dbSize: '20480',
      dbSizeInUse: '16384',
      leader: id(0),
      raftIndex: '100',
      raftTerm: '2',
      raftAppliedIndex: '100',
    },
    memberList: {
      header: { cluster_id: '42', member_id: id(i) },
      members: urls.map((u, k) => ({ ID: id(k), name: `m${k + 1}`, peerURLs: [`http://127.0.0.1:${7000 + k}`], clientURLs: [u] })),
    },
    alarms: { header: { cluster_id: '42' } },
  };
}
