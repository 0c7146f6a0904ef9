// `kubectl arch mcp` against a real kube-apiserver backed by a real etcd, on loopback: the SDK's own client calls
// doctor and quorum as the least-privilege reader (the shipped ClusterRole), the answers equal the CLI's -o json, and
// the API server's audit log shows that the server only read (GET, LIST) and never touched a Secret.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { buildApiserver, readAudit, startControlPlane, USERS, type ControlPlane } from './lib/cluster.mjs';
import { loadScenario } from './lib/load.mjs';
import { grantReaders } from './lib/readers.mjs';
import { build, CAPTURED, HEALTHY } from '../scenarios/index.js';
import { crdsFor } from '../__tests__/helpers/scenarios.js';
import { call, cliJson, startMcp, type Mcp } from '../__tests__/helpers/mcp.js';
import { BIN } from '../__tests__/helpers/run.js';

let cp: ControlPlane;
let mcp: Mcp;

beforeAll(async () => {
  const apiserver = buildApiserver(); // cached outside the repo (see realcluster.e2e.test.ts)
  cp = await startControlPlane({ apiserver });
  await grantReaders(cp);
  const { objects } = build([HEALTHY]);
  await loadScenario(cp, [...crdsFor(objects), ...objects], { referenceTime: CAPTURED });
  // the assistant's host starts the server with the reader's context; the assistant names nothing else
  mcp = await startMcp(BIN, ['--kubeconfig', cp.kubeconfig, '--context', 'reader', '--no-config']);
}, 1_800_000);
afterAll(async () => {
  await mcp?.close();
  await cp?.stop();
});

/** What a run found, without the times relative to when it read the cluster. */
const facts = (x: any): unknown => ({
  kind: x.kind,
  summary: x.summary,
  distribution: x.fingerprint?.distribution ?? x.distribution,
  verdict: x.verdictLine,
  checks: (x.checks ?? []).map((c: any) => ({
    id: c.id,
    status: c.status,
    findings: c.findings.map((f: any) => [f.code, f.severity, f.title]),
  })),
  findings: (x.findings ?? []).map((f: any) => [f.code, f.severity, f.title]),
});

describe('mcp against the real kube-apiserver, as the least-privilege reader', () => {
  test.each([
    ['doctor', ['doctor', '--kubeconfig', '', '--context', 'reader', '-o', 'json', '--no-config', '--fail-on', 'none']],
    ['quorum', ['quorum', '--kubeconfig', '', '--context', 'reader', '-o', 'json', '--no-config', '--fail-on', 'none']],
  ])(
    '%s equals the CLI',
    async (tool, cli) => {
      const before = readAudit(cp.auditLog).length;
      const r = await call(mcp, tool, {});
      expect(r.isError).toBeFalsy();
      const got = r.structuredContent as any;
      expect(got.source).toMatchObject({ type: 'cluster', context: 'reader' });
      // the reader sees everything the checks read: nothing is skipped for RBAC
      for (const c of got.checks ?? []) expect(c.reason ?? '').not.toMatch(/forbidden/);
      // what this call sent, as the API server recorded it: reads only
      const reads = readAudit(cp.auditLog)
        .slice(before)
        .filter((e) => e.user?.username === USERS.reader.name);
      expect(reads.length).toBeGreaterThan(0);
      expect(reads.filter((e) => !['get', 'list'].includes(e.verb))).toEqual([]);
      const want = await cliJson(
        BIN,
        cli.map((a) => (a === '' ? cp.kubeconfig : a)),
      );
      expect(facts(got)).toEqual(facts(want));
    },
    300_000,
  );

  test("read-only proof: the audit log holds only the reader's get and list, and no Secret", () => {
    const events = readAudit(cp.auditLog).filter((e) => e.user?.username === USERS.reader.name);
    expect(events.length).toBeGreaterThan(0);
    const verbs = new Set(events.map((e) => e.verb));
    expect(verbs.has('list')).toBe(true);
    expect([...verbs].filter((v) => v !== 'get' && v !== 'list')).toEqual([]);
    expect(events.filter((e) => e.objectRef?.resource === 'secrets')).toEqual([]);
  });
});
