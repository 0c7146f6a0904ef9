// The built CLI, run as a process: flags, exit codes, output formats, and the real kubectl plugin path.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE, EXAMPLE_TYPES, exampleObjects } from './helpers/fixtures.js';
import { arch, BIN, KUBECTL, kubectl, ROOT, run } from './helpers/run.js';
import { startTestApiServer, type TestApiServer } from './helpers/testApiServer.js';
import { tempDir } from './helpers/tmp.js';

let srv: TestApiServer;
beforeAll(async () => {
  srv = await startTestApiServer({ types: EXAMPLE_TYPES, objects: exampleObjects() });
});
afterAll(async () => {
  await srv.close();
});

describe('CLI basics', () => {
  test('version and --help', async () => {
    const v = await arch(['version']);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^kubectl-arch \d+\.\d+\.\d+/);
    const j = await arch(['version', '-o', 'json']);
    expect(JSON.parse(j.stdout).version).toMatch(/\d+\.\d+\.\d+/);
    const h = await arch(['--help']);
    expect(h.code).toBe(0);
    for (const c of ['doctor', 'snapshot', 'explain', 'version', '--verbose', 'Exit codes']) expect(h.stdout).toContain(c);
    expect(h.stdout).toContain('kubectl arch <command>');
    // each command's flags are in its own --help (__tests__/help.test.ts: exactly those)
    expect(h.stdout).not.toContain('--kubeconfig');
    const d = await arch(['doctor', '--help']);
    for (const c of ['--kubeconfig', '--context', '--fail-on', '--snapshot', '--contexts']) expect(d.stdout).toContain(c);
  });

  test('--version is version; -o text is the table, for every command that writes one', async () => {
    const v = await arch(['version']);
    expect(await arch(['--version'])).toEqual(v);
    expect(JSON.parse((await arch(['--version', '-o', 'json'])).stdout).version).toBe(
      JSON.parse((await arch(['version', '-o', 'json'])).stdout).version,
    );
    for (const args of [['doctor', '--snapshot', EXAMPLE], ['map', '--snapshot', EXAMPLE], ['explain'], ['version']]) {
      const table = await arch([...args, '-o', 'table']);
      expect(await arch([...args, '-o', 'text'])).toEqual(table);
      expect(await arch([...args, '--output=text'])).toEqual(table);
    }
    // and the help says so
    expect((await arch(['doctor', '--help'])).stdout.replace(/\s+/g, ' ')).toContain('table (text for people; -o text works too)');
  });

  test('usage errors read as words, not internals: a word that is no command, an argument not taken', async () => {
    const typo = await arch(['doctr']);
    expect([typo.code, typo.stderr]).toEqual([
      2,
      'error: "doctr" is not a kubectl arch command — did you mean doctor?\n  hint: the commands: doctor, map, what-if, snapshot, orphans, quorum, diff, explain, mcp, rbac, completion, version (kubectl arch --help)\n',
    ]);
    const foo = await arch(['foo']);
    expect([foo.code, foo.stderr]).toEqual([2, expect.stringMatching(/^error: "foo" is not a kubectl arch command\n/)]);
    const extra = await arch(['doctor', 'foo', '--snapshot', EXAMPLE]);
    expect([extra.code, extra.stdout, extra.stderr]).toEqual([
      2,
      '',
      'error: doctor does not take the argument "foo"\n  hint: kubectl arch doctor --help\n',
    ]);
    for (const r of [typo, foo, extra]) expect(r.stderr).not.toMatch(/Did you mean|Unknown argument/);
  });

  test('rbac prints the shipped read-only ClusterRoles, embedded in the binary', async () => {
    const r = await arch(['rbac']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(ROOT, 'deploy/clusterrole.yaml'), 'utf8'));
    expect(r.stdout).toContain('name: kubectl-arch-reader');
    expect(r.stdout).not.toMatch(/^\s*verbs:.*\b(create|update|patch|delete)\b/m);
  });

  test('bad usage exits 2 with a hint', async () => {
    const r = await arch(['doctor', '--output', 'xml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: -o xml is not an output format\n  hint: use -o table, json, yaml, sarif, junit, prometheus, policyreport, openreports or html\n',
    );
    // a flag the command does not take
    const u = await arch(['explain', '--kubeconfig', '/x']);
    expect([u.code, u.stderr]).toEqual([2, 'error: explain does not take --kubeconfig\n  hint: kubectl arch explain --help\n']);
    // a value --fail-on does not take: yargs' own words
    const f = await arch(['doctor', '--fail-on', 'sometimes']);
    expect([f.code, f.stderr]).toEqual([2, expect.stringMatching(/^error: Invalid values:[^]*Choices: "none", "warning", "error"/)]);
    const r2 = await arch(['frobnicate']);
    expect(r2.code).toBe(2);
    const r3 = await arch([]);
    expect(r3.code).toBe(2);
  });

  test('doctor on the embedded example: fingerprint header, one section per check', async () => {
    const r = await arch(['doctor', '--snapshot', EXAMPLE, '--fail-on', 'none']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('K3s');
    expect(r.stdout).toContain('6 nodes: 3 servers (control-plane, etcd), 3 agents');
    expect(r.stdout).toContain('cordoned: lemuel');
    expect(r.stdout).toContain('containerd://2.2.3-k3s1 ×6');
    expect(r.stdout).not.toMatch(/\x1b\[/); // no colour when not a TTY
  });

  test('-o json carries the versioned schema', async () => {
    const r = await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'json', '--fail-on', 'none']);
    const rep = JSON.parse(r.stdout);
    expect(rep.apiVersion).toBe('kubectl-arch/v1');
    expect(rep.kind).toBe('Report');
    expect(rep.fingerprint.distribution).toBe('K3s');
    expect(rep.source).toMatchObject({ type: 'snapshot', path: EXAMPLE });
    expect(Array.isArray(rep.checks)).toBe(true);
  });

  test('a malformed snapshot exits 2 naming file and line', async () => {
    const f = join(tempDir(), 'bad.yaml');
    writeFileSync(f, 'kind: List\nitems:\n  - {a: [\n');
    const r = await arch(['doctor', '--snapshot', f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.yaml:\d+: malformed YAML/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace without -v
  });

  test('explain lists checks; unknown id exits 2', async () => {
    const r = await arch(['explain']);
    expect(r.code).toBe(0);
    for (const id of ['immutable-retry-loop', 'gitops-orphans', 'etcd-quorum', 'ARCH-RL03']) {
      const e = await arch(['explain', id]);
      expect(e.code).toBe(0);
      for (const h of ['WHAT IT LOOKS FOR', 'WHY IT MATTERS', 'HOW TO FIX', 'FINDING CODES']) expect(e.stdout).toContain(h);
    }
    const bad = await arch(['explain', 'no-such-check']);
    expect(bad.code).toBe(2);
    // -o json without an id: the checks with their codes
    const list = JSON.parse((await arch(['explain', '-o', 'json'])).stdout);
    expect(list.checks.map((c: { id: string }) => c.id)).toContain('etcd-quorum');
    expect(list.checks.find((c: { id: string }) => c.id === 'etcd-quorum').codes['ARCH-EQ01']).toEqual(expect.any(String));
  });
});

describe('against a cluster', () => {
  test('doctor talks to the API server and reports the same as the snapshot path', async () => {
    const live = await arch(['doctor', '--kubeconfig', srv.kubeconfigPath, '-o', 'json', '--fail-on', 'none']);
    expect(live.code).toBe(0);
    const off = await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'json', '--fail-on', 'none']);
    const a = JSON.parse(live.stdout);
    const b = JSON.parse(off.stdout);
    expect(a.source.type).toBe('cluster');
    expect(a.fingerprint.nodes).toEqual(b.fingerprint.nodes);
    expect(a.fingerprint.distribution).toBe(b.fingerprint.distribution);
  });

  test('--deep reads kubelet configs through nodes/proxy; NodeLocal DNSCache on 169.254.20.10 passes', async () => {
    srv.requests.length = 0;
    const r = await arch(['doctor', '--deep', '--kubeconfig', srv.kubeconfigPath, '-o', 'json', '--fail-on', 'none']);
    const rep = JSON.parse(r.stdout);
    expect(srv.requests.filter((q) => q.path.endsWith('/proxy/configz'))).toHaveLength(6);
    expect(
      rep.checks.find((c: { id: string }) => c.id === 'immutable-retry-loop').findings.map((f: { code: string }) => f.code),
    ).not.toContain('ARCH-RL07');
    srv.faults.kubeletDNS = { david: ['10.43.99.99'] };
    const r2 = JSON.parse((await arch(['doctor', '--deep', '--kubeconfig', srv.kubeconfigPath, '-o', 'json', '--fail-on', 'none'])).stdout);
    delete srv.faults.kubeletDNS;
    const f = r2.checks
      .find((c: { id: string }) => c.id === 'immutable-retry-loop')
      .findings.find((x: { code: string }) => x.code === 'ARCH-RL07');
    expect(f.title).toMatch(/nameserver 10\.43\.99\.99, which no Service owns/);
    srv.faults.forbidden = new Set(['nodes/proxy']);
    const r3 = JSON.parse((await arch(['doctor', '--deep', '--kubeconfig', srv.kubeconfigPath, '-o', 'json', '--fail-on', 'none'])).stdout);
    delete srv.faults.forbidden;
    expect(r3.checks.find((c: { id: string }) => c.id === 'immutable-retry-loop').notes.join()).toMatch(
      /forbidden: needs get nodes\/proxy/,
    );
  });

  test('-v logs every request (method, path, status, ms) to stderr', async () => {
    const r = await arch(['doctor', '--kubeconfig', srv.kubeconfigPath, '-v', '-o', 'json', '--fail-on', 'none']);
    expect(r.stderr).toMatch(/^GET \/version 200 \d+ms$/m);
    expect(r.stderr).toMatch(/^GET \/api\/v1\/nodes\?limit=500 200 \d+ms$/m);
  });

  test('unreachable server exits 3 with one line and a hint', async () => {
    const dir = tempDir();
    const kc = join(dir, 'kc');
    writeFileSync(
      kc,
      'apiVersion: v1\nkind: Config\ncurrent-context: x\nclusters:\n- name: x\n  cluster: {server: "https://127.0.0.1:1"}\nusers:\n- name: x\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: x, user: x}\n',
    );
    const r = await arch(['doctor', '--kubeconfig', kc]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^error: cannot connect to https:\/\/127\.0\.0\.1:1: connection refused\n\s+hint:/);
  });

  test('rejected credentials exit 3; missing context exits 2', async () => {
    const r = await arch(['doctor', '--kubeconfig', srv.kubeconfigPath, '--context', 'wrong-user']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/401/);
    const r2 = await arch(['doctor', '--kubeconfig', srv.kubeconfigPath, '--context', 'nope']);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/context "nope" does not exist/);
  });

  test('snapshot saves what doctor needs; doctor on it gives the same report', async () => {
    const s = await arch(['snapshot', '--kubeconfig', srv.kubeconfigPath]);
    expect(s.code).toBe(0);
    const f = join(tempDir(), 'cluster.yaml');
    writeFileSync(f, s.stdout);
    const live = JSON.parse((await arch(['doctor', '--kubeconfig', srv.kubeconfigPath, '-o', 'json', '--fail-on', 'none'])).stdout);
    const off = JSON.parse((await arch(['doctor', '--snapshot', f, '-o', 'json', '--fail-on', 'none'])).stdout);
    // the two runs are seconds apart: "how long ago" moves (in seconds, and in minutes when they straddle a minute, as on
    // a loaded machine), nothing else may
    const norm = (checks: unknown): string =>
      JSON.stringify(checks)
        .replace(/"lastAgoSeconds":\d+/g, '')
        .replace(/\b\d+ min ago\b/g, 'N min ago');
    expect(norm(off.checks)).toEqual(norm(live.checks));
    expect(off.fingerprint).toEqual(live.fingerprint);
  });
});

describe('orphans and quorum commands', () => {
  test('orphans on the example: blog group first, still serving; json; cleanup plan', async () => {
    const r = await arch(['orphans', '--snapshot', EXAMPLE, '--fail-on', 'none']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Application argocd\/blog \(gone\): 5 objects in namespace blog, 2 cluster-scoped\s+STILL SERVING TRAFFIC/);
    const j = JSON.parse((await arch(['orphans', '--snapshot', EXAMPLE, '-o', 'json'])).stdout);
    expect(j.kind).toBe('OrphanReport');
    expect(j.groups[0].owner.name).toBe('blog');
    const plan = await arch(['orphans', '--snapshot', EXAMPLE, '--cleanup-plan', '--fail-on', 'none']);
    // commented out, reason first: the group still serves traffic
    expect(plan.stdout).toMatch(/^# kubectl delete deployment.apps blog-web -n blog/m);
    expect(plan.stdout).toMatch(/still serving traffic/);
    const failing = await arch(['orphans', '--snapshot', EXAMPLE]);
    expect(failing.code).toBe(1);
  });

  test('orphans -n scopes the scan', async () => {
    const r = await arch(['orphans', '--snapshot', EXAMPLE, '-n', 'homepage', '-o', 'json']);
    expect(JSON.parse(r.stdout).groups).toEqual([]);
  });

  test('quorum on the example', async () => {
    const r = await arch(['quorum', '--snapshot', EXAMPLE]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/lemuel\s+node lemuel \(cordoned\)\s+voter\s+healthy/);
    expect(r.stdout.trim().split('\n').pop()).toBe('3 voters, 3 healthy — quorum 2 — tolerates 1 failure — HEALTHY');
  });

  test('orphans against the test server reads every type metadata-only, never Secrets', async () => {
    srv.requests.length = 0;
    const r = await arch(['orphans', '--kubeconfig', srv.kubeconfigPath, '-o', 'json', '--fail-on', 'none']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).groups[0].owner.name).toBe('blog');
    expect(srv.requests.some((q) => q.path.includes('secrets'))).toBe(false);
    expect(srv.requests.every((q) => q.method === 'GET')).toBe(true);
  });

  test('doctor lists Events once, from core/v1 (events.k8s.io/v1 is the same storage), each list path once', async () => {
    srv.requests.length = 0;
    const r = await arch(['doctor', '--kubeconfig', srv.kubeconfigPath, '-o', 'json', '--fail-on', 'none']);
    expect(r.code).toBe(0);
    const paths = srv.requests.map((q) => q.path);
    expect(paths.filter((p) => p.startsWith('/apis/events.k8s.io/v1/events'))).toEqual([]);
    expect(paths.filter((p) => p.startsWith('/api/v1/events')).length).toBeGreaterThan(0);
    // a first page is asked for once per list (one need, one request), however many checks read it
    const firstPages = paths.filter((p) => /[?&]limit=/.test(p) && !/[?&]continue=/.test(p));
    expect(firstPages.length).toBe(new Set(firstPages).size);
  });
});

describe('the real kubectl', () => {
  test('kubectl get nodes works against the test server (it speaks the real API)', async () => {
    const r = await kubectl(['get', 'nodes', '--kubeconfig', srv.kubeconfigPath]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    for (const n of ['lemuel', 'ilwon', 'solomon', 'david', 'louise', 'isagal']) expect(r.stdout).toContain(n);
  });

  test('kubectl plugin list finds kubectl-arch on PATH', async () => {
    const r = await kubectl(['plugin', 'list']);
    expect(r.stdout).toMatch(/bin\/kubectl-arch/);
  });

  test('kubectl arch doctor gives the same report as bin/kubectl-arch', async () => {
    const args = ['doctor', '--kubeconfig', srv.kubeconfigPath, '--context', 'test', '--fail-on', 'none'];
    const viaKubectl = await kubectl(['arch', ...args]);
    const direct = await arch(args);
    expect(viaKubectl.code).toBe(direct.code);
    expect(viaKubectl.stdout).toBe(direct.stdout);
    expect(viaKubectl.stdout).toContain('6 nodes');
  });

  test('usage reads `kubectl arch` whatever the parent process (krew installs it as a plugin)', async () => {
    const r = await run('/bin/bash', ['-c', `${KUBECTL} arch --help`]);
    expect(r.stdout).toContain('kubectl arch <command>');
    const direct = await run('/bin/bash', ['-c', `${BIN} --help`]);
    expect(direct.stdout).toContain('kubectl arch <command>');
    expect(direct.stdout).not.toContain('kubectl-arch <command>');
  });
});
