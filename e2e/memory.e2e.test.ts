// The container's memory limit, for real (#48): the CLI runs in a memory cgroup of its own (the kernel's limit, what a
// Pod's limits.memory sets for the CronJob), through bin/kubectl-arch as the CronJob runs it, against a local API
// server whose warning events hold far more than the limit. It must not be killed: it stops fetching near the limit,
// prints its report with what it could not judge and why, and exits 3. The same cgroup with a small cluster changes
// nothing. Needs root and a memory cgroup (v1 or v2), as the rest of the real-cluster suite needs root.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, run } from '../__tests__/helpers/run.js';
import { EXAMPLE_TYPES, exampleObjects } from '../__tests__/helpers/fixtures.js';
import { startTestApiServer, type TestApiServer } from '../__tests__/helpers/testApiServer.js';

const MiB = 1048576;
const LIMIT = 192 * MiB;

/** A memory cgroup with this limit: v1 (memory.limit_in_bytes) or v2 (memory.max). */
function makeCgroup(limit: number): { dir: string; peak: () => number; ooms: () => number; remove: () => void } {
  const name = `kubectl-arch-memory-${process.pid}`;
  const v1 = '/sys/fs/cgroup/memory';
  if (existsSync(join(v1, 'memory.limit_in_bytes'))) {
    const dir = join(v1, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'memory.limit_in_bytes'), String(limit));
    return {
      dir,
      peak: () => Number(readFileSync(join(dir, 'memory.max_usage_in_bytes'), 'utf8')),
      ooms: () => Number(/oom_kill (\d+)/.exec(readFileSync(join(dir, 'memory.oom_control'), 'utf8'))?.[1] ?? 0),
      remove: () => rmdirSync(dir),
    };
  }
  for (const v2 of ['/sys/fs/cgroup', '/sys/fs/cgroup/unified']) {
    if (!existsSync(join(v2, 'cgroup.controllers')) || !/\bmemory\b/.test(readFileSync(join(v2, 'cgroup.controllers'), 'utf8'))) continue;
    writeFileSync(join(v2, 'cgroup.subtree_control'), '+memory');
    const dir = join(v2, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'memory.max'), String(limit));
    writeFileSync(join(dir, 'memory.swap.max'), '0');
    return {
      dir,
      peak: () => Number(readFileSync(join(dir, 'memory.peak'), 'utf8')),
      ooms: () => Number(/oom_kill (\d+)/.exec(readFileSync(join(dir, 'memory.events'), 'utf8'))?.[1] ?? 0),
      remove: () => rmdirSync(dir),
    };
  }
  throw new Error('no memory cgroup to write (needs root, and cgroup v1 memory or v2 with the memory controller)');
}

/** The CLI as its own process inside the cgroup (it joins before exec: every byte it maps is counted). */
const inCgroup = (dir: string, args: string[]) => run('sh', ['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', dir, BIN, ...args]);

describe("the CLI under a container's memory limit", () => {
  let big: TestApiServer;
  let small: TestApiServer;
  let cg: ReturnType<typeof makeCgroup>;
  beforeAll(async () => {
    cg = makeCgroup(LIMIT);
    small = await startTestApiServer({ types: EXAMPLE_TYPES, objects: exampleObjects() });
    big = await startTestApiServer({ types: EXAMPLE_TYPES, objects: exampleObjects() });
    // 400,000 warning events of 2 KiB each: 800 MiB a snapshot would keep, four times the limit
    big.faults.giant = { resource: 'events', bytes: 2048, count: 400_000, asMessage: true };
  });
  afterAll(async () => {
    await big?.close();
    await small?.close();
    try {
      cg?.remove();
    } catch {
      // a process still inside keeps the directory: the kernel removes nothing that is in use
    }
  });

  test('far more than the limit to fetch: a report, exit 3, the limit named, no OOM kill', async () => {
    const r = await inCgroup(cg.dir, ['doctor', '--kubeconfig', big.kubeconfigPath, '-o', 'json', '--fail-on', 'none']);
    console.log(`doctor in ${LIMIT / MiB} MiB: exit ${r.code}, peak ${Math.round(cg.peak() / MiB)} MiB, ${cg.ooms()} OOM kills`);
    expect(cg.ooms()).toBe(0);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^warning: memory near its limit \((\d+) MiB of 192 MiB, the container's limit\)/);
    const report = JSON.parse(r.stdout);
    const text = JSON.stringify(report);
    expect(text).toMatch(/events not fetched: memory near its limit/);
    // what was fetched before the limit was judged: not everything is skipped
    expect(report.checks.filter((c: { status: string }) => c.status !== 'skipped').length).toBeGreaterThan(3);
    expect(cg.peak()).toBeLessThanOrEqual(LIMIT);
  }, 600_000);

  test('a small cluster in the same limit: the whole report, no warning', async () => {
    const r = await inCgroup(cg.dir, ['doctor', '--kubeconfig', small.kubeconfigPath, '-o', 'json', '--fail-on', 'none']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const report = JSON.parse(r.stdout);
    expect(JSON.stringify(report)).not.toMatch(/memory near its limit/);
    expect(cg.ooms()).toBe(0);
  }, 600_000);
});
