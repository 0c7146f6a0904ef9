// `kubectl arch what-if -f` and `--k3s-config` through the CLI: live against the test API server (one GET per object,
// never a Secret), on a snapshot, from stdin; the field notes' config change on the example; SARIF that the approved
// schema and the SARIF Multitool accept, pointing at the manifest line; JUnit valid for the xUnit XSD; exit codes.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import AjvDraft04 from 'ajv-draft-04';
import formats from 'ajv-formats';
import { validateXML } from 'xmllint-wasm';
import type { KObject } from '../src/model.js';
import { EXAMPLE, EXAMPLE_TYPES } from './helpers/fixtures.js';
import { arch, ROOT, run, BIN } from './helpers/run.js';
import { multitoolErrors } from './helpers/sarif-multitool.js';
import { startTestApiServer, type TestApiServer } from './helpers/testApiServer.js';
import { tempDir } from './helpers/tmp.js';

const fixture = (f: string): string => readFileSync(join(ROOT, '__tests__/fixtures', f), 'utf8');
const dir = tempDir('kubectl-arch-change-');
const meta = (name: string, namespace?: string, extra: Record<string, unknown> = {}) => ({
  name,
  ...(namespace ? { namespace } : {}),
  uid: `uid-${name}`,
  ...extra,
});
const LIVE: KObject[] = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: meta('shop') },
  { apiVersion: 'v1', kind: 'Namespace', metadata: meta('kube-system') },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta('web', 'shop'),
    spec: {
      type: 'ClusterIP',
      clusterIP: '10.43.0.20',
      clusterIPs: ['10.43.0.20'],
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta('web', 'shop'),
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' }] },
      },
    },
  },
  { apiVersion: 'v1', kind: 'Secret', metadata: meta('creds', 'shop'), type: 'Opaque', data: { password: 'c2VjcmV0' } },
] as unknown as KObject[];

const manifests = [
  '# the chart, rendered',
  'apiVersion: v1',
  'kind: Service',
  'metadata:',
  '  name: web',
  '  namespace: shop',
  'spec:',
  '  clusterIP: 10.43.0.99',
  '  ports: [{port: 80}]',
  '---',
  'apiVersion: apps/v1',
  'kind: Deployment',
  'metadata: {name: web, namespace: shop}',
  'spec:',
  '  replicas: 3',
  '  selector: {matchLabels: {app: web}}',
  '  template:',
  '    metadata: {labels: {app: web}}',
  '    spec: {containers: [{name: web, image: "nginx:1.28"}]}',
  '---',
  'apiVersion: v1',
  'kind: ConfigMap',
  'metadata: {name: new-config, namespace: shop}',
  'data: {a: b}',
  '',
].join('\n');
const safe = manifests.replace('clusterIP: 10.43.0.99', 'clusterIP: 10.43.0.20');

let srv: TestApiServer;
let kubeconfig = '';
beforeAll(async () => {
  srv = await startTestApiServer({
    types: EXAMPLE_TYPES,
    objects: LIVE,
  });
  kubeconfig = srv.kubeconfigPath;
  writeFileSync(join(dir, 'chart.yaml'), manifests);
  writeFileSync(join(dir, 'safe.yaml'), safe);
  writeFileSync(
    join(dir, 'secret.yaml'),
    'apiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: shop}\nstringData: {password: other}\n',
  );
});
afterAll(async () => {
  await srv?.close();
});

describe('what-if -f, live', () => {
  test('refused: the Service address; the new replicas and image are not; the line of the change; only GETs, no Secret', async () => {
    const r = await arch(['what-if', '-f', join(dir, 'chart.yaml'), '-o', 'json'], { KUBECONFIG: kubeconfig });
    expect([r.code, r.stderr]).toEqual([1, '']);
    const doc = JSON.parse(r.stdout);
    expect(doc.hypothesis.change).toMatchObject({ objects: 3, create: 1, update: 1, refused: 1, 'not judged': 0 });
    expect(doc.predictions.map((p: { code: string }) => p.code)).toEqual(['ARCH-WI20']);
    expect(doc.predictions[0].location).toEqual({ file: join(dir, 'chart.yaml'), line: 8 });
    expect(doc.predictions[0].apiError).toBe(
      'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: ["10.43.0.99"]: may not change once set',
    );
    expect(doc.verdict).toMatchObject({ state: 'not safe', exitCode: 1 });
    expect(srv.requests.every((q) => q.method === 'GET')).toBe(true);
    expect(srv.requests.some((q) => /\/secrets/.test(q.path))).toBe(false);
    expect(srv.requests.filter((q) => /\/namespaces\/shop\/(services|deployments|configmaps)\/[a-z-]+$/.test(q.path)).length).toBe(3);
  });

  test('nothing refused and everything visible: safe to apply, exit 0', async () => {
    const r = await arch(['what-if', '-f', join(dir, 'safe.yaml')], { KUBECONFIG: kubeconfig });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/^safe to apply: nothing predicted at or above error/m);
  });

  test('a Secret is never read: not judged, exit 3, and still no request for it', async () => {
    const before = srv.requests.length;
    const r = await arch(['what-if', '-f', join(dir, 'secret.yaml'), '-o', 'json'], { KUBECONFIG: kubeconfig });
    expect([r.code, r.stderr]).toEqual([3, '']);
    expect(JSON.parse(r.stdout).objects[0]).toMatchObject({ state: 'not judged', why: 'Secrets are never read' });
    expect(srv.requests.slice(before).some((q) => /secrets/.test(q.path))).toBe(false);
  });

  test('many objects of one type: one list of the type instead of a GET each, with the same answers', async () => {
    // 25 ConfigMaps, of which the cluster holds none: each is created; one list, no GET per object
    const many = Array.from(
      { length: 25 },
      (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: many-${i}, namespace: shop}\ndata: {a: b}\n`,
    ).join('---\n');
    writeFileSync(join(dir, 'many.yaml'), many);
    const before = srv.requests.length;
    const r = await arch(['what-if', '-f', join(dir, 'many.yaml'), '-o', 'json'], { KUBECONFIG: kubeconfig });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout).hypothesis.change).toMatchObject({ objects: 25, create: 25 });
    const mine = srv.requests.slice(before);
    expect(mine.filter((q) => /\/configmaps\/many-/.test(q.path))).toEqual([]);
    expect(mine.filter((q) => /^\/api\/v1\/configmaps\?/.test(q.path)).length).toBeGreaterThanOrEqual(1);
  });

  test('from stdin, as a pipeline runs it (helm template … | kubectl arch what-if -f -)', async () => {
    const r = await run('sh', ['-c', `cat ${join(dir, 'chart.yaml')} | ${BIN} what-if -f - -o json`], { KUBECONFIG: kubeconfig });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).predictions[0].location).toEqual({ file: '-', line: 8 });
  });
});

describe('what-if -f in a pipeline: the formats code scanning and CI read', () => {
  test('SARIF: valid for the approved schema and the SARIF Multitool, the result on the manifest line', async () => {
    const r = await arch(['what-if', '-f', 'chart.yaml', '-o', 'sarif'], { KUBECONFIG: kubeconfig }, dir);
    expect(r.code).toBe(1);
    const Draft04 = ((AjvDraft04 as unknown as { default?: unknown }).default ?? AjvDraft04) as unknown as typeof Ajv;
    const ajv = new Draft04({ strict: false, allErrors: true, unicodeRegExp: false });
    (((formats as unknown as { default?: unknown }).default ?? formats) as unknown as (a: Ajv) => void)(ajv);
    const validate = ajv.compile(JSON.parse(fixture('sarif-schema-2.1.0.json')));
    const sarif = JSON.parse(r.stdout);
    expect([validate(sarif), validate.errors ?? []]).toEqual([true, []]);
    expect(multitoolErrors(r.stdout)).toEqual([]);
    const res = sarif.runs[0].results[0];
    expect(res.ruleId).toBe('ARCH-WI20');
    expect(res.locations[0].physicalLocation).toEqual({ artifactLocation: { uri: 'chart.yaml' }, region: { startLine: 8 } });
    expect(sarif.runs[0].tool.driver.rules[0].helpUri).toMatch(/docs\/explain\/what-if\.md#arch-wi20$/);
  });

  test('JUnit: valid against the xUnit XSD, the refusal a failure', async () => {
    const r = await arch(['what-if', '-f', join(dir, 'chart.yaml'), '-o', 'junit'], { KUBECONFIG: kubeconfig });
    expect(r.code).toBe(1);
    const v = await validateXML({
      xml: [{ fileName: 'report.xml', contents: r.stdout }],
      schema: [{ fileName: 'junit-10.xsd', contents: fixture('junit-10.xsd') }],
    });
    expect([v.valid, v.errors.map((e) => e.rawMessage)]).toEqual([true, []]);
    expect(r.stdout).toContain('<failure');
    expect(r.stdout).toContain('ARCH-WI20');
  });
});

describe('usage', () => {
  test('bad input is exit 2 before any request, naming the file and line', async () => {
    writeFileSync(join(dir, 'bad.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n');
    const before = srv.requests.length;
    for (const [args, msg] of [
      [['-f', join(dir, 'bad.yaml')], `${join(dir, 'bad.yaml')}:1: not a Kubernetes object`],
      [['-f', join(dir, 'nope.yaml')], 'no such file or directory'],
      [['n1', '-f', join(dir, 'chart.yaml')], 'what-if takes nodes, or -f/--k3s-config: not both'],
      [['-f', join(dir, 'chart.yaml'), '-o', 'html'], '-o html draws nodes on the map'],
    ] as const) {
      const r = await arch(['what-if', ...args], { KUBECONFIG: kubeconfig });
      expect([r.code, r.stderr]).toEqual([2, expect.stringContaining(msg)]);
    }
    expect(srv.requests.length).toBe(before);
  });
});

describe('what-if --k3s-config on the example: the field notes, foreseen', () => {
  test("cluster-dns 169.254.20.10 predicts the coredns addon's loop that doctor shows today", async () => {
    writeFileSync(join(dir, 'config.yaml'), 'cluster-dns: 169.254.20.10\nwrite-kubeconfig-mode: "0644"\n');
    const r = await arch(['what-if', '--k3s-config', join(dir, 'config.yaml'), '--snapshot', EXAMPLE, '-o', 'json']);
    expect([r.code, r.stderr]).toEqual([1, '']);
    const p = JSON.parse(r.stdout).predictions;
    expect(p.map((x: { code: string }) => x.code)).toEqual(['ARCH-WI27']);
    expect(p[0].objects).toEqual([
      { kind: 'Service', apiVersion: 'v1', namespace: 'kube-system', name: 'kube-dns' },
      { kind: 'Addon', apiVersion: 'k3s.cattle.io/v1', namespace: 'kube-system', name: 'coredns' },
    ]);
    expect(p[0].location).toEqual({ file: join(dir, 'config.yaml'), line: 1 });
    // what doctor reports after the fact, for the same objects
    const d = JSON.parse((await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'json', '--fail-on', 'none', '--no-config'])).stdout);
    const rl = d.checks.find((c: { id: string }) => c.id === 'immutable-retry-loop').findings[0];
    expect(rl.code).toBe('ARCH-RL03');
    expect(rl.objects.map((o: { name: string }) => o.name).sort()).toEqual(['coredns', 'kube-dns']);
  });

  test('the cluster-dns it was created with: nothing predicted', async () => {
    writeFileSync(join(dir, 'same.yaml'), 'cluster-dns: 10.43.0.10\n');
    const r = await arch(['what-if', '--k3s-config', join(dir, 'same.yaml'), '--snapshot', EXAMPLE, '-o', 'json']);
    expect(JSON.parse(r.stdout).predictions).toEqual([]);
  });
});
