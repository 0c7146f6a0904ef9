// Near the memory limit a run finishes with what it has (#48): the guard's arithmetic, and the CLI against a local
// API server under a limit it cannot stay within (--max-memory 1Mi: reached before the first list, every time) and
// one it cannot reach (4Gi): the first reports every list not visible with the reason, exit 3; the second is the
// run without the flag. The container's limit itself is proven under a real cgroup in e2e/memory.e2e.test.ts.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { MemoryGuard, NEAR, parseBytes, type MemoryReading } from '../src/lib/memory.js';
import { EXAMPLE_TYPES, exampleObjects } from './helpers/fixtures.js';
import { arch } from './helpers/run.js';
import { startTestApiServer, type TestApiServer } from './helpers/testApiServer.js';

const MiB = 1048576;

describe('the guard', () => {
  const at = (r: Partial<MemoryReading>) => {
    const reading: MemoryReading = { rss: 100 * MiB, heapUsed: 50 * MiB, heapLimit: 1000 * MiB, ...r };
    return () => reading;
  };

  test('below both limits it lets the run go on; at 85% of either it stops it, and stays stopped', () => {
    expect(NEAR).toBe(0.85);
    expect(new MemoryGuard(200 * MiB, '--max-memory', at({ rss: 169 * MiB })).near()).toBe(false);
    const rss = new MemoryGuard(200 * MiB, '--max-memory', at({ rss: 170 * MiB }));
    expect(rss.reached).toBeUndefined();
    expect(rss.near()).toBe(true);
    expect(rss.reached).toBe('memory near its limit (170 MiB of 200 MiB, --max-memory)');
    const heap = new MemoryGuard(undefined, "the container's limit", at({ heapUsed: 230 * MiB, heapLimit: 268 * MiB }));
    expect(heap.near()).toBe(true);
    expect(heap.text()).toBe('memory near its limit (a 230 MiB heap of 268 MiB the JavaScript engine may hold)');
    // sticky: what was let go after the limit came near is not taken in again
    let reading: MemoryReading = { rss: 190 * MiB, heapUsed: 1, heapLimit: 1000 * MiB };
    const g = new MemoryGuard(200 * MiB, '--max-memory', () => reading);
    expect(g.near()).toBe(true);
    reading = { rss: 10 * MiB, heapUsed: 1, heapLimit: 1000 * MiB };
    expect(g.near()).toBe(true);
    // no limit of the process: only the heap counts
    expect(new MemoryGuard(undefined, "the container's limit", at({ rss: 10_000 * MiB })).near()).toBe(false);
  });

  test('amounts as Kubernetes writes them', () => {
    expect(parseBytes('512Mi')).toBe(512 * MiB);
    expect(parseBytes('1Gi')).toBe(1024 * MiB);
    expect(parseBytes('400M')).toBe(400_000_000);
    expect(parseBytes('123456')).toBe(123456);
    expect(parseBytes('1.5Gi')).toBe(1.5 * 1024 * MiB);
    for (const bad of ['', 'abc', '-1Mi', '0', '12Xi', 'Mi']) expect([bad, parseBytes(bad)]).toEqual([bad, undefined]);
  });
});

describe('the CLI near its limit', () => {
  let srv: TestApiServer;
  beforeAll(async () => {
    srv = await startTestApiServer({ types: EXAMPLE_TYPES, objects: exampleObjects() });
  });
  afterAll(async () => {
    await srv.close();
  });

  test('doctor --max-memory 1Mi: a report with every list not visible and why, exit 3, a warning on stderr', async () => {
    const r = await arch(['doctor', '--kubeconfig', srv.kubeconfigPath, '--max-memory', '1Mi', '-o', 'json', '--fail-on', 'none']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /^warning: memory near its limit \(\d+ MiB of 1 MiB, --max-memory\): what was not fetched is reported as not visible\n$/,
    );
    const report = JSON.parse(r.stdout);
    expect(report.checks.length).toBeGreaterThan(10);
    // nothing listed was judged: no check passes but the one that reads only the server's readiness
    // (/readyz?verbose, small, always asked); every other is skipped or partial, and names the limit
    const status = (id: string): string => report.checks.find((c: { id: string }) => c.id === id).status;
    expect(status('apiserver-readiness')).toBe('passed');
    for (const c of report.checks.filter((x: { id: string }) => x.id !== 'apiserver-readiness')) {
      expect([c.id, ['skipped', 'partial'].includes(c.status)]).toEqual([c.id, true]);
      expect([c.id, JSON.stringify(c)]).toEqual([
        c.id,
        expect.stringMatching(/not fetched: memory near its limit \(\d+ MiB of 1 MiB, --max-memory\)/),
      ]);
    }
    expect(report.checks.filter((c: { status: string }) => c.status === 'skipped').length).toBeGreaterThan(5);
    // and no list was sent at all
    expect(srv.requests.filter((q) => /\?limit=/.test(q.path))).toEqual([]);
  });

  test('what-if --max-memory 1Mi: not judged, exit 3 (not a usage error: the nodes were not fetched)', async () => {
    const r = await arch(['what-if', 'ilwon', '--kubeconfig', srv.kubeconfigPath, '--max-memory', '1Mi']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/memory near its limit/);
  });

  test('--max-memory 4Gi changes nothing: the same report as without it', async () => {
    const args = ['doctor', '--kubeconfig', srv.kubeconfigPath, '-o', 'json', '--fail-on', 'none'];
    const without = await arch(args);
    const within = await arch([...args, '--max-memory', '4Gi']);
    expect([within.code, within.stderr]).toEqual([without.code, '']);
    const strip = (s: string) => JSON.parse(s).checks.map((c: { id: string; status: string }) => [c.id, c.status]);
    expect(strip(within.stdout)).toEqual(strip(without.stdout));
    expect(strip(without.stdout).some(([, s]: [string, string]) => s === 'skipped')).toBe(false);
  });

  test('a bad amount is a usage error before any request', async () => {
    const before = srv.requests.length;
    const r = await arch(['doctor', '--kubeconfig', srv.kubeconfigPath, '--max-memory', 'lots']);
    expect([r.code, r.stderr.split('\n')[0]]).toEqual([2, 'error: invalid --max-memory "lots" (use e.g. 400Mi, 1Gi, or bytes)']);
    expect(srv.requests.length).toBe(before);
  });
});
