// The door and the loops on the real kube-apiserver, where the server itself shows the failure before the check
// names it: a fail-closed webhook with no endpoints rejects a create, the aggregator marks an APIService without
// its Service unavailable, an object whose finalizer nobody removes stays in deletion.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { buildApiserver, startControlPlane, type ControlPlane } from './lib/cluster.mjs';
import { grantReaders } from './lib/readers.mjs';
import { kubectl } from '../__tests__/helpers/run.js';

interface Report {
  checks: Array<{
    id: string;
    status: string;
    reason?: string;
    findings: Array<{
      code: string;
      severity: string;
      title: string;
      message: string;
      objects: Array<{ kind: string; namespace?: string; name: string }>;
    }>;
  }>;
}

let cp: ControlPlane;

async function ok(method: string, path: string, body?: unknown): Promise<any> {
  const r = await cp.admin(method, path, body);
  expect([method, path, r.status < 300 ? 'ok' : `${r.status} ${r.text}`]).toEqual([method, path, 'ok']);
  return r.json;
}

const doctor = async (...extra: string[]): Promise<{ code: number; report: Report }> => {
  const r = await kubectl(['arch', 'doctor', '--kubeconfig', cp.kubeconfig, '--context', 'reader', '-o', 'json', ...extra]);
  expect(r.stderr).not.toMatch(/^error:/m);
  return { code: r.code, report: JSON.parse(r.stdout) as Report };
};
const check = (r: Report, id: string) => r.checks.find((c) => c.id === id)!;

beforeAll(async () => {
  cp = await startControlPlane({ apiserver: buildApiserver() });
  // the shipped ClusterRole, bound to the reader
  await grantReaders(cp);
  for (const [name, labels] of [
    ['guarded', { 'e2e-webhook': 'on' }],
    ['finalizers', {}],
  ] as const)
    await ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
}, 1_800_000);
afterAll(async () => {
  await cp?.stop();
});

describe('a fail-closed webhook whose Service has no endpoints', () => {
  let rejection = '';
  beforeAll(async () => {
    await ok('POST', '/api/v1/namespaces/guarded/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'guard' },
      spec: { ports: [{ name: 'https', port: 443, protocol: 'TCP' }] },
    });
    await ok('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'e2e-guard' },
      webhooks: [
        {
          name: 'guard.e2e.example.com',
          failurePolicy: 'Fail',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          clientConfig: { service: { namespace: 'guarded', name: 'guard', port: 443 } },
          namespaceSelector: { matchLabels: { 'e2e-webhook': 'on' } },
          rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
        },
      ],
    });
    // the webhook configuration takes effect asynchronously: try until the server calls it
    for (let i = 0; i < 50; i++) {
      const r = await cp.admin('POST', '/api/v1/namespaces/guarded/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `probe-${i}` },
        data: { a: 'b' },
      });
      if (r.status >= 400) {
        rejection = `${r.status} ${r.json?.message ?? r.text}`;
        break;
      }
      await new Promise((res) => setTimeout(res, 200));
    }
  }, 120_000);

  test('the real API server rejects a matching create: "failed calling webhook … no endpoints available"', () => {
    expect(rejection).toMatch(/^500 Internal error occurred: failed calling webhook "guard\.e2e\.example\.com": failed to call webhook: /);
    expect(rejection).toMatch(/no endpoints available for service "guard"/);
  });

  test('WH01 names the configuration, the Service, what it blocks, with the same error words', async () => {
    const { code, report } = await doctor();
    const f = check(report, 'admission-webhooks').findings.find((x) => x.code === 'ARCH-WH01')!;
    expect(f).toBeDefined();
    expect(f.severity).toBe('error'); // its namespaceSelector keeps kube-system out
    expect(f.title).toBe('ValidatingWebhookConfiguration e2e-guard fails closed with no backend: guard.e2e.example.com');
    expect(f.message).toMatch(/no endpoints available for service "guarded\/guard"/);
    expect(f.message).toMatch(/it blocks CREATE configmaps in the namespaces its selector matches \(not kube-system\)/);
    expect(f.objects).toEqual([
      { kind: 'ValidatingWebhookConfiguration', apiVersion: 'admissionregistration.k8s.io/v1', name: 'e2e-guard' },
      { kind: 'Service', apiVersion: 'v1', namespace: 'guarded', name: 'guard' },
    ]);
    expect(code).toBe(1);
  });
});

describe('an APIService whose Service does not exist', () => {
  let available: any;
  beforeAll(async () => {
    await ok('POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1beta1.gone.e2e.example.com' },
      spec: {
        group: 'gone.e2e.example.com',
        version: 'v1beta1',
        service: { namespace: 'finalizers', name: 'gone-api', port: 443 },
        insecureSkipTLSVerify: true,
        groupPriorityMinimum: 100,
        versionPriority: 100,
      },
    });
    for (let i = 0; i < 100 && !available; i++) {
      const a = await ok('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.gone.e2e.example.com');
      available = (a.status?.conditions ?? []).find((c: any) => c.type === 'Available');
      if (!available) await new Promise((res) => setTimeout(res, 100));
    }
  }, 60_000);

  test('the real aggregator marks it Available=False, ServiceNotFound', () => {
    expect(available).toMatchObject({ status: 'False', reason: 'ServiceNotFound' });
    expect(available.message).toMatch(/service\/gone-api in "finalizers" is not present/);
  });

  test("API01 reports it with the aggregator's reason and what breaks", async () => {
    const { report } = await doctor();
    const f = check(report, 'aggregated-apis').findings[0]!;
    expect(f.title).toBe('APIService v1beta1.gone.e2e.example.com is not available (ServiceNotFound)');
    expect(f.message).toMatch(/unable to retrieve the complete list of server APIs: gone\.e2e\.example\.com\/v1beta1/);
  });
});

describe('an object whose finalizer no controller removes', () => {
  beforeAll(async () => {
    await ok('POST', '/api/v1/namespaces/finalizers/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'stuck', finalizers: ['e2e.example.com/never-removed'] },
      data: { a: 'b' },
    });
    await ok('DELETE', '/api/v1/namespaces/finalizers/configmaps/stuck');
    await new Promise((res) => setTimeout(res, 1500));
  }, 60_000);

  test('the real API server keeps it, deleting, for as long as the finalizer stays', async () => {
    const cm = await ok('GET', '/api/v1/namespaces/finalizers/configmaps/stuck');
    expect(cm.metadata.deletionTimestamp).toEqual(expect.any(String));
    expect(cm.metadata.finalizers).toEqual(['e2e.example.com/never-removed']);
  });

  test('DEL01 names it once it is older than --stuck-after (not before)', async () => {
    const before = await doctor();
    expect(check(before.report, 'stuck-deletions').findings.filter((f) => f.code === 'ARCH-DEL01')).toEqual([]);
    expect(check(before.report, 'stuck-deletions').reason).toMatch(/^1 object is deleting, none stuck without a controller$/);
    const after = await doctor('--stuck-after', '1s');
    const f = check(after.report, 'stuck-deletions').findings.find((x) => x.code === 'ARCH-DEL01')!;
    expect(f.severity).toBe('warning');
    expect(f.title).toMatch(
      /^ConfigMap finalizers\/stuck has been deleting for \d+ ?s: nothing runs to remove e2e\.example\.com\/never-removed$/,
    );
    expect(f.objects).toEqual([{ kind: 'ConfigMap', apiVersion: 'v1', namespace: 'finalizers', name: 'stuck' }]);
  });
});

describe('kubectl arch map on the real API server (after the failures above)', () => {
  interface MapLine {
    name: string;
    detail: string;
    checks?: Array<{ id: string; status: string; findings: number }>;
  }
  interface ArchMap {
    kind: string;
    source: { type: string; context?: string };
    sections: Array<{ contract: string; lines: MapLine[] }>;
  }

  test('the door shows the webhook and the APIService in the request path, each with its failing check; exit 0 (a view)', async () => {
    const r = await kubectl(['arch', 'map', '--kubeconfig', cp.kubeconfig, '--context', 'reader', '-o', 'json']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const m = JSON.parse(r.stdout) as ArchMap;
    expect(m.kind).toBe('ArchMap');
    expect(m.source).toMatchObject({ type: 'cluster', context: 'reader' });
    expect(m.sections.map((s) => s.contract)).toEqual(['state', 'door', 'loops', 'interfaces']);
    const door = m.sections.find((s) => s.contract === 'door')!.lines;
    const line = (re: RegExp) => door.find((l) => re.test(l.name));
    const guard = line(/e2e-guard/)!;
    expect(guard.detail).toMatch(/1 webhook, 1 fail closed → guarded\/guard/);
    // WH01 (no endpoints) and WH02 (the test's webhook carries no caBundle)
    expect(guard.checks).toEqual([expect.objectContaining({ id: 'admission-webhooks', status: 'findings', worst: 'error', findings: 2 })]);
    const gone = line(/v1beta1\.gone\.e2e\.example\.com/)!;
    expect(gone.detail).toMatch(/→ finalizers\/gone-api, Available=False \(ServiceNotFound\)/);
    expect(gone.checks).toEqual([expect.objectContaining({ id: 'aggregated-apis', status: 'findings', findings: 1 })]);
    // the serving certificate the handshake showed (the harness's own, from its CA)
    expect(line(/serving certificate/)!.detail).toMatch(/valid until \d{4}-\d\d-\d\d/);
  });

  test('-o html: the webhook is a part with its error, and its blast radius names the requests it rejects', async () => {
    const r = await kubectl(['arch', 'map', '--kubeconfig', cp.kubeconfig, '--context', 'reader', '-o', 'html']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const html = r.stdout;
    // the part's name is its visible text; its status, the description next to it
    const button =
      /<button [^>]*data-part="(p\d+-\d+)"[^>]*>(?:(?!<\/button>).)*<span class="name">validating e2e-guard<\/span>(?:(?!<\/button>).)*<\/button><span id="s-\1" class="pdesc" hidden>2 findings, worst error<\/span>/.exec(
        html,
      );
    expect(button).not.toBeNull();
    const article = new RegExp(`<article class="detail" id="d-${button![1]}"[\\s\\S]*?</article>`).exec(html)![0];
    const text = article
      .replace(/<[^>]+>/g, ' ')
      .replace(/&quot;/g, '"')
      .replace(/\s+/g, ' ');
    expect(text).toContain('Broken now: every request its 1 fail-closed webhook matches is rejected while the backend is down');
    // its chain: the webhook → its Service → no pod behind it
    expect(text).toContain('webhook guard.e2e.example.com (fails closed) Service guarded/guard → no pod behind it');
    // the requests it rejects: the rule, in the one namespace its selector matches
    expect(text).toMatch(
      /rejects, while its backend cannot answer: CREATE configmaps of core in 1 of \d+ namespaces \(and cluster-scoped objects\)/,
    );
    expect(text).toContain('ARCH-WH01');
  });

  test('the table names the four contracts', async () => {
    const r = await kubectl(['arch', 'map', '--kubeconfig', cp.kubeconfig, '--context', 'reader']);
    expect(r.code).toBe(0);
    for (const h of ['STATE — lives only in etcd', 'DOOR — the API server is the only way in', 'LOOPS — everything else reconciles'])
      expect(r.stdout).toContain(`\n${h}\n`);
    expect(r.stdout).toMatch(/^INTERFACES/m);
  });
});
