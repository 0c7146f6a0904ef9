// Several real control planes at once (kube-apiserver + etcd each, on loopback): one run over all of them
// through the real kubectl plugin mechanism, compared with single runs (findings and wall time), an unreachable
// context as a row; and PolicyReports from the plugin applied by the admin to the real API server with the
// wgpolicyk8s.io/v1alpha2 CRDs loaded (strict field validation), and by the narrow reporter identity of
// deploy/cronjob.yaml, and that CronJob's containers over two runs (its reports are each run's findings). The
// plugin's own users only ever read (audit log).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { buildApiserver, readAudit, startControlPlane, USERS, type ControlPlane } from './lib/cluster.mjs';
import { loadScenario } from './lib/load.mjs';
import { build, CAPTURED } from '../scenarios/index.js';
import { allScenarios, crdsFor } from '../__tests__/helpers/scenarios.js';
import { kubectl, ROOT, run as run0 } from '../__tests__/helpers/run.js';

const NAMES = ['field-notes-healthy', 'coredns-retry-loop', 'deleted-argo-app'];
let apiserver = '';
const cps: ControlPlane[] = [];
let dir = '';
let kubeconfig = '';
let adminKc = ''; // the admin of the second control plane

const yamlDocs = (text: string): any[] => {
  const out: any[] = [];
  loadAll(text, (d) => {
    if (d) out.push(d);
  });
  return out;
};

async function grantReader(cp: ControlPlane): Promise<void> {
  for (const doc of yamlDocs(readFileSync(join(ROOT, 'deploy/clusterrole.yaml'), 'utf8'))) {
    const r = await cp.admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', doc);
    expect(r.status).toBe(201);
  }
  const r = await cp.admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'e2e-reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kubectl-arch-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USERS.reader.name }],
  });
  expect(r.status).toBe(201);
}

beforeAll(async () => {
  apiserver = buildApiserver();
  dir = mkdtempSync(join(tmpdir(), 'kubectl-arch-fleet-'));
  const scenarios = await allScenarios();
  const chosen = NAMES.map((n) => scenarios.find((s) => s.name === n)!);
  expect(chosen.every(Boolean)).toBe(true);
  // one control plane per scenario, started and loaded at once
  await Promise.all(
    chosen.map(async (sc, i) => {
      const cp = await startControlPlane({ apiserver });
      cps[i] = cp;
      await grantReader(cp);
      const { objects } = build([sc]);
      await loadScenario(cp, [...crdsFor(objects), ...objects], { referenceTime: CAPTURED });
    }),
  );
  // one kubeconfig: a reader context per control plane, and one where nothing listens
  const ctx = cps.map((cp, i) => ({ name: `c${i + 1}`, url: cp.url, ca: cp.caFile }));
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: c1',
      'clusters:',
      ...ctx.map((c) => `- name: ${c.name}\n  cluster:\n    server: ${c.url}\n    certificate-authority: ${c.ca}`),
      '- name: down\n  cluster:\n    server: https://127.0.0.1:1',
      'users:',
      `- name: reader\n  user:\n    token: ${USERS.reader.token}`,
      'contexts:',
      ...ctx.map((c) => `- name: ${c.name}\n  context: {cluster: ${c.name}, user: reader}`),
      '- name: down\n  context: {cluster: down, user: reader}',
      '',
    ].join('\n'),
  );
}, 900_000);

afterAll(async () => {
  await Promise.all(cps.map((cp) => cp?.stop()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const facts = (rep: any): string[] =>
  rep.checks
    .flatMap((c: any) => c.findings.map((f: any) => `${f.code} ${f.severity} ${f.title}`))
    .filter((s: string) => !s.startsWith('ARCH-EQ07'))
    .sort();

describe('several real API servers in one run', () => {
  const contexts = ['c1', 'c2', 'c3'];

  test('the fleet run reports each context as its single run does; an unreachable context is a row; exit code the worst', async () => {
    const fleet = await kubectl([
      'arch',
      'doctor',
      '--kubeconfig',
      kubeconfig,
      '--contexts',
      [...contexts, 'down'].join(','),
      '-o',
      'json',
    ]);
    expect(fleet.stderr).toBe('');
    expect(fleet.code).toBe(3);
    const list = JSON.parse(fleet.stdout);
    expect(list.kind).toBe('ReportList');
    expect(list.contexts.map((c: any) => [c.context, c.status])).toEqual([
      ['c1', 'ok'],
      ['c2', 'ok'],
      ['c3', 'ok'],
      ['down', 'failed'],
    ]);
    for (const [i, c] of contexts.entries()) {
      const single = await kubectl(['arch', 'doctor', '--kubeconfig', kubeconfig, '--context', c, '-o', 'json']);
      expect([c, facts(list.items[i])]).toEqual([c, facts(JSON.parse(single.stdout))]);
      expect(list.contexts[i].exitCode).toBe(single.code);
    }
    expect(list.contexts.map((c: any) => c.exitCode).slice(0, 3)).toEqual([0, 1, 1]);
    // the table, through kubectl
    const table = await kubectl(['arch', 'doctor', '--kubeconfig', kubeconfig, '--contexts', 'c1,c2,c3']);
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/^c2\s+K3s\s+v1\.36\.3\s+0\s+[1-9]\d*\s+/m);
  });

  test('wall time: the fleet run stays close to the slowest single context (measured, printed)', async () => {
    const time = async (args: string[]): Promise<number> => {
      const t0 = performance.now();
      const r = await kubectl(['arch', 'doctor', '--kubeconfig', kubeconfig, '-o', 'json', '--fail-on', 'none', ...args]);
      expect(r.code).toBe(0);
      return performance.now() - t0;
    };
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const singles: number[] = [];
    for (const c of contexts)
      singles.push(median([await time(['--context', c]), await time(['--context', c]), await time(['--context', c])]));
    const fleet = median([
      await time(['--contexts', contexts.join(',')]),
      await time(['--contexts', contexts.join(',')]),
      await time(['--contexts', contexts.join(',')]),
    ]);
    const slowest = Math.max(...singles);
    const sum = singles.reduce((a, b) => a + b, 0);
    console.log(
      `[fleet] 3 real API servers: single ${singles.map((s) => `${Math.round(s)} ms`).join(', ')}; fleet ${Math.round(fleet)} ms = ${(fleet / slowest).toFixed(2)}x the slowest single, ${(fleet / sum).toFixed(2)}x their sum`,
    );
    // the measurement is the point (README); the one claim checked is structural: the fleet run is one process
    // doing three contexts, not three runs back to back
    expect(fleet).toBeGreaterThan(0);
  }, 600_000);

  test("the plugin's users only read, on every API server", () => {
    for (const cp of cps) {
      const events = readAudit(cp.auditLog).filter((e) => e.user?.username === USERS.reader.name);
      expect(events.length).toBeGreaterThan(0);
      expect([...new Set(events.map((e) => e.verb))].every((v) => ['get', 'list', 'watch'].includes(v))).toBe(true);
    }
  });
});

describe('PolicyReports on the real API server', () => {
  let reports = '';
  beforeAll(async () => {
    // the upstream API as CRDs (our fixture, from the published v1alpha2 schema), loaded by the admin
    for (const crd of yamlDocs(readFileSync(join(ROOT, '__tests__/fixtures/wgpolicyk8s.io-v1alpha2-crds.yaml'), 'utf8'))) {
      const r = await cps[1]!.admin('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
      expect(r.status).toBe(201);
    }
    for (let i = 0; i < 100; i++) {
      const r = await cps[1]!.admin('GET', '/apis/wgpolicyk8s.io/v1alpha2/clusterpolicyreports');
      const p = await cps[1]!.admin('GET', '/apis/wgpolicyk8s.io/v1alpha2/policyreports');
      if (r.status === 200 && p.status === 200) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    adminKc = join(dir, 'admin-c2');
    writeFileSync(
      adminKc,
      `apiVersion: v1\nkind: Config\ncurrent-context: a\nclusters:\n- name: c\n  cluster: {server: "${cps[1]!.url}", certificate-authority: "${cps[1]!.caFile}"}\nusers:\n- name: a\n  user: {token: ${USERS.admin.token}}\ncontexts:\n- name: a\n  context: {cluster: c, user: a}\n`,
    );
    const r = await kubectl(['arch', 'doctor', '--kubeconfig', kubeconfig, '--context', 'c2', '-o', 'policyreport']);
    expect(r.code).toBe(1);
    reports = join(dir, 'reports.yaml');
    writeFileSync(reports, r.stdout);
  }, 120_000);

  test('the admin applies them with strict field validation; the API server keeps every result', async () => {
    const docs = yamlDocs(readFileSync(reports, 'utf8'));
    expect(docs.map((d) => d.kind)).toContain('PolicyReport');
    // a PolicyReport with a field the API does not define is refused: the validation is real
    const bogus = { ...docs[0], metadata: { name: 'bogus' }, results: [{ ...docs[0].results[0], notAField: 'x' }] };
    const refused = await cps[1]!.admin('POST', '/apis/wgpolicyk8s.io/v1alpha2/clusterpolicyreports?fieldValidation=Strict', bogus);
    expect([refused.status, refused.json?.message]).toEqual([400, expect.stringMatching(/unknown field "results\[0\]\.notAField"/)]);
    const bad = await cps[1]!.admin('POST', '/apis/wgpolicyk8s.io/v1alpha2/clusterpolicyreports?fieldValidation=Strict', {
      ...docs[0],
      metadata: { name: 'bad-enum' },
      results: [{ ...docs[0].results[0], result: 'maybe' }],
    });
    expect(bad.status).toBe(422);
    // the admin applies them as printed, with kubectl and strict server-side field validation
    const applied = await kubectl(['apply', '--kubeconfig', adminKc, '--validate=strict', '-f', reports]);
    expect([applied.code, applied.stderr]).toEqual([0, '']);
    expect(applied.stdout.trim().split('\n')).toHaveLength(docs.length);
    for (const d of docs) {
      const path =
        d.kind === 'ClusterPolicyReport'
          ? `/apis/wgpolicyk8s.io/v1alpha2/clusterpolicyreports/${d.metadata.name}`
          : `/apis/wgpolicyk8s.io/v1alpha2/namespaces/${d.metadata.namespace}/policyreports/${d.metadata.name}`;
      const r = await cps[1]!.admin('GET', path);
      expect([d.kind, d.metadata.namespace, r.status]).toEqual([d.kind, d.metadata.namespace, 200]);
      expect(r.json.results).toEqual(d.results);
      expect(r.json.summary).toEqual(d.summary);
    }
  });

  test('deploy/cronjob.yaml is accepted by the API server; its reporter identity can apply the reports and do nothing else', async () => {
    const kc = adminKc;
    const deploy = await kubectl(['apply', '--kubeconfig', kc, '-f', join(ROOT, 'deploy/cronjob.yaml')]);
    expect([deploy.code, deploy.stderr]).toEqual([0, '']);
    expect(deploy.stdout).toMatch(/cronjob\.batch\/kubectl-arch created/);
    const as = (sa: string) => ['--kubeconfig', kc, `--as=system:serviceaccount:kubectl-arch:${sa}`];
    // the reporter writes the reports (server-side apply, as the CronJob's apply container does), and updates them
    for (let i = 0; i < 2; i++) {
      const r = await kubectl([
        'apply',
        ...as('kubectl-arch-reporter'),
        '--server-side',
        '--field-manager=kubectl-arch',
        '--force-conflicts',
        '-f',
        reports,
      ]);
      expect([r.code, r.stderr]).toEqual([0, '']);
    }
    const can = async (sa: string, ...what: string[]): Promise<string> =>
      (await kubectl(['auth', 'can-i', ...as(sa), ...what])).stdout.trim();
    expect(await can('kubectl-arch-reporter', 'create', 'policyreports.wgpolicyk8s.io', '-n', 'kube-system')).toBe('yes');
    expect(await can('kubectl-arch-reporter', 'list', 'pods', '-A')).toBe('no');
    expect(await can('kubectl-arch-reporter', 'get', 'secrets', '-n', 'kubectl-arch')).toBe('no');
    // it deletes reports too (the CronJob's prune step), and nothing but reports
    expect(await can('kubectl-arch-reporter', 'delete', 'policyreports.wgpolicyk8s.io', '-n', 'kube-system')).toBe('yes');
    expect(await can('kubectl-arch-reporter', 'delete', 'configmaps', '-n', 'kube-system')).toBe('no');
    // the identity kubectl-arch runs as can read what the checks need and write nothing
    expect(await can('kubectl-arch', 'list', 'pods', '-A')).toBe('yes');
    expect(await can('kubectl-arch', 'create', 'policyreports.wgpolicyk8s.io', '-n', 'kube-system')).toBe('no');
    expect(await can('kubectl-arch', 'get', 'secrets', '-n', 'kube-system')).toBe('no');
    const got = await kubectl(['get', 'polr', '-A', '--kubeconfig', kc, '-o', 'json']);
    const items = JSON.parse(got.stdout).items;
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((i: any) => i.metadata.labels['app.kubernetes.io/managed-by'] === 'kubectl-arch')).toBe(true);
  });
});

describe('OpenReports on the real API server (the CRDs from the openreports.io Go module)', () => {
  test('the admin applies -o openreports with strict validation; the reporter identity of deploy/cronjob.yaml can too', async () => {
    // the CRDs as the project publishes them, from its Go module (github.com/openreports/reports-api)
    const mod = JSON.parse(
      execFileSync('go', ['mod', 'download', '-json', 'github.com/openreports/reports-api@v0.2.1'], { cwd: dir, encoding: 'utf8' }),
    );
    for (const f of ['openreports.io_reports.yaml', 'openreports.io_clusterreports.yaml'])
      for (const crd of yamlDocs(readFileSync(join(mod.Dir, 'config/crd', f), 'utf8'))) {
        const r = await cps[1]!.admin('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
        expect([f, r.status]).toEqual([f, 201]);
      }
    for (let i = 0; i < 100; i++) {
      if ((await cps[1]!.admin('GET', '/apis/openreports.io/v1alpha1/clusterreports')).status === 200) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    const r = await kubectl(['arch', 'doctor', '--kubeconfig', kubeconfig, '--context', 'c2', '-o', 'openreports']);
    expect(r.code).toBe(1);
    const file = join(dir, 'openreports.yaml');
    writeFileSync(file, r.stdout);
    const docs = yamlDocs(r.stdout);
    expect([...new Set(docs.map((d) => `${d.apiVersion} ${d.kind}`))].sort()).toEqual([
      'openreports.io/v1alpha1 ClusterReport',
      'openreports.io/v1alpha1 Report',
    ]);
    const applied = await kubectl(['apply', '--kubeconfig', adminKc, '--validate=strict', '-f', file]);
    expect([applied.code, applied.stderr]).toEqual([0, '']);
    for (const d of docs) {
      const path =
        d.kind === 'ClusterReport'
          ? `/apis/openreports.io/v1alpha1/clusterreports/${d.metadata.name}`
          : `/apis/openreports.io/v1alpha1/namespaces/${d.metadata.namespace}/reports/${d.metadata.name}`;
      const got = await cps[1]!.admin('GET', path);
      expect([d.kind, got.status]).toEqual([d.kind, 200]);
      expect(got.json.results).toEqual(d.results);
      expect(got.json.source).toBe('kubectl-arch');
    }
    const as = ['--kubeconfig', adminKc, '--as=system:serviceaccount:kubectl-arch:kubectl-arch-reporter'];
    const again = await kubectl(['apply', ...as, '--server-side', '--field-manager=kubectl-arch', '--force-conflicts', '-f', file]);
    expect([again.code, again.stderr]).toEqual([0, '']);
  });
});

/**
 * deploy/cronjob.yaml over time, on the real API server: its three containers run as the kubelet would run them
 * (env from the manifest, `$(VAR)` expanded, the Job name as RUN, /reports a directory of the run), the reader and
 * reporter identities its own. After each run the CronJob's reports are exactly that run's: a namespace whose finding
 * was fixed keeps no stale report; a report of anyone else (a person's `kubectl arch ... | kubectl apply -f -`) is
 * left alone; a run that could not read the cluster deletes nothing.
 */
describe('the CronJob over two runs: its reports are each run’s findings, no stale one left', () => {
  let admin3 = '';
  let reader3 = '';
  const reporter = ['--as=system:serviceaccount:kubectl-arch:kubectl-arch-reporter'];
  const cronjob = yamlDocs(readFileSync(join(ROOT, 'deploy/cronjob.yaml'), 'utf8')).find((d) => d.kind === 'CronJob');
  const pod = cronjob.spec.jobTemplate.spec.template.spec;

  /** Runs the Job's containers in order (init containers, then the main one), stopping at the first that fails. */
  async function runJob(run: string, readerKubeconfig: string): Promise<{ failed?: string; reports: string }> {
    const reports = mkdtempSync(join(dir, `run-${run}-`));
    for (const c of [...pod.initContainers, ...pod.containers]) {
      const env: Record<string, string> = {};
      for (const e of c.env ?? [])
        env[e.name] = e.value ?? (e.valueFrom?.fieldRef?.fieldPath === "metadata.labels['batch.kubernetes.io/job-name']" ? run : '');
      // the kubelet's expansion of $(VAR) in command and args, and the emptyDir where the manifest mounts it
      const argv = [...(c.command ?? []), ...(c.args ?? [])].map((a: string) =>
        a
          .replace(/\$\(([A-Z_]+)\)/g, (_m, v: string) => env[v] ?? '')
          .split('/reports/')
          .join(`${reports}/`),
      );
      const r = c.image.startsWith('kubectl-arch')
        ? await run0(argv[0]!, argv.slice(1), { ...env, KUBECONFIG: readerKubeconfig })
        : await kubectl([...argv, '--kubeconfig', admin3, ...reporter]);
      if (r.code !== 0) return { failed: `${c.name}: exit ${r.code}: ${r.stderr}`, reports };
    }
    return { reports };
  }

  /** The CronJob's reports now on the server, as "Kind namespace/name run". */
  async function onServer(): Promise<string[]> {
    const out: string[] = [];
    for (const res of ['policyreports', 'clusterpolicyreports']) {
      const r = await kubectl([
        'get',
        `${res}.wgpolicyk8s.io`,
        '-A',
        '-l',
        'kubectl-arch/cronjob=kubectl-arch',
        '-o',
        'json',
        '--kubeconfig',
        admin3,
      ]);
      expect([res, r.code]).toEqual([res, 0]);
      for (const i of JSON.parse(r.stdout).items)
        out.push(`${i.kind} ${i.metadata.namespace ?? ''}/${i.metadata.name} ${i.metadata.labels['kubectl-arch/run']}`);
    }
    return out.sort();
  }

  /** What a run wrote, in the same form. */
  const written = (file: string, run: string): string[] =>
    yamlDocs(readFileSync(file, 'utf8'))
      .map((d) => `${d.kind} ${d.metadata.namespace ?? ''}/${d.metadata.name} ${run}`)
      .sort();

  beforeAll(async () => {
    const cp = cps[2]!; // deleted-argo-app: the blog Application's leftovers in namespace blog
    for (const crd of yamlDocs(readFileSync(join(ROOT, '__tests__/fixtures/wgpolicyk8s.io-v1alpha2-crds.yaml'), 'utf8')))
      expect((await cp.admin('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    for (let i = 0; i < 100; i++) {
      if ((await cp.admin('GET', '/apis/wgpolicyk8s.io/v1alpha2/policyreports')).status === 200) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    admin3 = join(dir, 'admin-c3');
    writeFileSync(
      admin3,
      `apiVersion: v1\nkind: Config\ncurrent-context: a\nclusters:\n- name: c\n  cluster: {server: "${cp.url}", certificate-authority: "${cp.caFile}"}\nusers:\n- name: a\n  user: {token: ${USERS.admin.token}}\ncontexts:\n- name: a\n  context: {cluster: c, user: a}\n`,
    );
    reader3 = join(dir, 'reader-c3');
    writeFileSync(reader3, readFileSync(kubeconfig, 'utf8').replace('current-context: c1', 'current-context: c3'));
    const deploy = await kubectl(['apply', '--kubeconfig', admin3, '-f', join(ROOT, 'deploy/cronjob.yaml')]);
    expect([deploy.code, deploy.stderr]).toEqual([0, '']);
    // a second fault, in a namespace of its own: a ConfigMap an Argo CD Application "shop" (gone) tracked
    expect((await cp.admin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } })).status).toBe(
      201,
    );
    const cm = await cp.admin('POST', '/api/v1/namespaces/shop/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'shop-config',
        namespace: 'shop',
        labels: { 'app.kubernetes.io/instance': 'shop' },
        annotations: { 'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:shop/shop-config' },
      },
      data: { a: 'b' },
    });
    expect(cm.status).toBe(201);
  }, 120_000);

  test('run 1 writes a report per namespace with a finding; the fault in shop fixed, run 2 leaves none there', async () => {
    const one = await runJob('kubectl-arch-1', reader3);
    expect(one.failed).toBeUndefined();
    const first = written(join(one.reports, 'reports.yaml'), 'kubectl-arch-1');
    expect(first.filter((r) => r.startsWith('PolicyReport ')).map((r) => r.split(' ')[1]!.split('/')[0])).toEqual(
      expect.arrayContaining(['blog', 'shop']),
    );
    expect(await onServer()).toEqual(first);
    // someone else's report (a person applying orphans' reports by hand): not the CronJob's, never deleted by it
    const mine = await kubectl(['arch', 'orphans', '--kubeconfig', reader3, '-o', 'policyreport', '--fail-on', 'none']);
    const mineFile = join(dir, 'mine.yaml');
    writeFileSync(mineFile, mine.stdout);
    expect((await kubectl(['apply', '--kubeconfig', admin3, '-f', mineFile])).code).toBe(0);
    // the fault is fixed: the ConfigMap the gone Application left is deleted
    expect((await cps[2]!.admin('DELETE', '/api/v1/namespaces/shop/configmaps/shop-config')).status).toBe(200);
    const two = await runJob('kubectl-arch-2', reader3);
    expect(two.failed).toBeUndefined();
    const second = written(join(two.reports, 'reports.yaml'), 'kubectl-arch-2');
    expect(second.some((r) => r.includes(' shop/'))).toBe(false);
    expect(second.some((r) => r.includes(' blog/'))).toBe(true);
    // exactly this run's reports: shop's is gone, blog's is this run's
    expect(await onServer()).toEqual(second);
    const theirs = yamlDocs(mine.stdout);
    for (const d of theirs) {
      const r = await kubectl([
        'get',
        `${d.kind.toLowerCase()}.wgpolicyk8s.io`,
        d.metadata.name,
        ...(d.metadata.namespace ? ['-n', d.metadata.namespace] : []),
        '--kubeconfig',
        admin3,
      ]);
      expect([d.kind, d.metadata.name, r.code]).toEqual([d.kind, d.metadata.name, 0]);
    }
  });

  test('a run that cannot read the cluster fails at doctor and deletes nothing', async () => {
    const before = await onServer();
    const down = join(dir, 'reader-down');
    writeFileSync(down, readFileSync(kubeconfig, 'utf8').replace('current-context: c1', 'current-context: down'));
    const r = await runJob('kubectl-arch-3', down);
    expect(r.failed).toMatch(/^doctor: exit 3: /);
    expect(await onServer()).toEqual(before);
  });
});
