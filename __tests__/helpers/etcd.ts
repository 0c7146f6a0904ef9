// Starts a real etcd cluster (Debian's etcd-server) on loopback ports in temp directories, and
// stops exactly the processes it started, by PID.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { etcdBinary } from '../../e2e/lib/etcd-bin.mjs';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

export interface EtcdMemberProc {
  name: string;
  clientURL: string;
  peerURL: string;
  proc: ChildProcess | null;
  pid: number | undefined;
}

export interface EtcdCluster {
  members: EtcdMemberProc[];
  endpoints: string[];
  stop(i: number): Promise<void>;
  close(): Promise<void>;
}

async function waitReady(url: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      const r = await fetch(`${url}/v3/maintenance/status`, { method: 'POST', body: '{}' });
      if (r.ok) {
        const j = (await r.json()) as { leader?: string };
        if (j.leader && j.leader !== '0') return;
      }
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`etcd at ${url} did not get a leader within ${ms} ms`);
}

/** Every member has published its name and client URL to the others: until then a member lists as "not started"
 *  and a probe right after start can see it as unknown (seen under load). */
async function waitFormed(url: string, n: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      const r = await fetch(`${url}/v3/cluster/member/list`, { method: 'POST', body: '{}' });
      if (r.ok) {
        const j = (await r.json()) as { members?: Array<{ name?: string; clientURLs?: string[] }> };
        const started = (j.members ?? []).filter((m) => m.name && m.clientURLs?.length);
        if (started.length === n) return;
      }
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`etcd at ${url} did not list ${n} started members within ${ms} ms`);
}

function killPid(p: ChildProcess | null): Promise<void> {
  if (!p || p.exitCode !== null || p.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      try {
        process.kill(p.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, 3000);
    p.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    try {
      process.kill(p.pid!, 'SIGTERM');
    } catch {
      clearTimeout(t);
      resolve();
    }
  });
}

/** A cluster of n members. A port freePort() found free can be taken by another process (a parallel test) before
 *  etcd binds it: the member then exits at once and the cluster never elects a leader. Such a start is tried again
 *  on new ports (three times); a member still running that elects no leader is an error at once. */
export async function startEtcd(n: number): Promise<EtcdCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startEtcdOnce(n);
    } catch (e) {
      if (!(e instanceof MemberExited) || attempt >= 3) throw e;
    }
  }
}

class MemberExited extends Error {}

async function startEtcdOnce(n: number): Promise<EtcdCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-arch-etcd-'));
  const token = `kubectl-arch-test-${process.pid}-${Date.now()}`;
  const members: EtcdMemberProc[] = [];
  for (let i = 0; i < n; i++) {
    members.push({
      name: `m${i + 1}`,
      clientURL: `http://127.0.0.1:${await freePort()}`,
      peerURL: `http://127.0.0.1:${await freePort()}`,
      proc: null,
      pid: undefined,
    });
  }
  const initial = members.map((m) => `${m.name}=${m.peerURL}`).join(',');
  const exited: string[] = [];
  for (const m of members) {
    const p = spawn(
      etcdBinary(),
      [
        '--name',
        m.name,
        '--data-dir',
        join(dir, m.name),
        '--listen-client-urls',
        m.clientURL,
        '--advertise-client-urls',
        m.clientURL,
        '--listen-peer-urls',
        m.peerURL,
        '--initial-advertise-peer-urls',
        m.peerURL,
        '--initial-cluster',
        initial,
        '--initial-cluster-state',
        'new',
        '--initial-cluster-token',
        token,
        '--heartbeat-interval',
        '50',
        '--election-timeout',
        '500',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    p.stderr?.on('data', (d) => {
      err = (err + d).slice(-2000);
    });
    p.once('exit', (code) => {
      exited.push(`${m.name} exited (${code}): ${err.trim().split('\n').slice(-3).join(' | ')}`);
    });
    m.proc = p;
    m.pid = p.pid;
  }
  const cluster: EtcdCluster = {
    members,
    endpoints: members.map((m) => m.clientURL),
    async stop(i) {
      await killPid(members[i]!.proc);
    },
    async close() {
      await Promise.all(members.map((m) => killPid(m.proc)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all(members.map((m) => waitReady(m.clientURL, 45_000)));
    await Promise.all(members.map((m) => waitFormed(m.clientURL, n, 45_000)));
  } catch (e) {
    // which members had exited by themselves, before close() stops the others
    const gone = [...exited];
    await cluster.close();
    if (gone.length) throw new MemberExited(`${(e as Error).message}: ${gone.join('; ')}`);
    throw e;
  }
  return cluster;
}
