// A real kube-controller-manager (built from the same k8s.io/kubernetes release as kube-apiserver) next to the
// API server: what its controllers really do, and that the plugin, run through kubectl as the read-only reader,
// reports from what they wrote. Also the API server served with a certificate of ours, of a chosen expiry.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { DEFAULT_CONTROLLERS, readAudit, startControlPlane, type ControlPlane } from './lib/cluster.mjs';
import { controlPlaneBinaries, type Report, until as untilDone } from './lib/setup.js';
import { loadScenario } from './lib/load.mjs';
import { grantReaders } from './lib/readers.mjs';
import { build, CAPTURED } from '../scenarios/index.js';
import { allScenarios, crdsFor } from '../__tests__/helpers/scenarios.js';
import { kubectl } from '../__tests__/helpers/run.js';

const bins = controlPlaneBinaries();

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls until `probe` returns a value (not undefined); the bound is generous (a busy 2-core machine). */
const until = <T>(cp: ControlPlane, what: string, probe: () => Promise<T | undefined>): Promise<T> =>
  untilDone(cp, what, probe, 120_000, 200);

const doctor = async (cp: ControlPlane, ...extra: string[]): Promise<{ code: number; report: Report; stderr: string }> => {
  const r = await kubectl(['arch', 'doctor', '--kubeconfig', cp.kubeconfig, '--context', 'reader', '-o', 'json', ...extra]);
  return { code: r.code, report: JSON.parse(r.stdout) as Report, stderr: r.stderr };
};

const dnsFindings = (rep: Report) => rep.checks.find((c) => c.id === 'cluster-dns')!.findings.filter((f) => f.code === 'ARCH-DNS01');

/** The userAgent of the request that created an object (audit log, Metadata level). */
const creator = (cp: ControlPlane, resource: string, namespace: string, name?: string): string[] =>
  readAudit(cp.auditLog)
    .filter(
      (e) =>
        e.verb === 'create' &&
        e.objectRef?.resource === resource &&
        e.objectRef?.namespace === namespace &&
        (name === undefined || e.objectRef?.name === name) &&
        e.responseStatus?.code === 201,
    )
    .map((e) => String(e.userAgent).split('/')[0]!);

describe('kube-controller-manager next to the API server (endpoints, EndpointSlices, namespaces, garbage collection)', () => {
  let cp: ControlPlane;
  const scenarioName = 'coredns-label-mismatch';

  beforeAll(async () => {
    cp = await startControlPlane({ apiserver: bins.apiserver, controllerManager: bins.controllerManager });
    await grantReaders(cp);
    const scenario = (await allScenarios()).find((s) => s.name === scenarioName);
    if (!scenario) throw new Error(`no scenario ${scenarioName}`);
    const { objects } = build([scenario]);
    // the loader leaves the kube-dns Endpoints and EndpointSlices to the controllers and waits until theirs agree
    // with the scenario's (none ready), then proves the garbage collector removed nothing it loaded
    await loadScenario(cp, [...crdsFor(objects), ...objects], { referenceTime: CAPTURED });
  }, 300_000);
  afterAll(async () => {
    await cp?.stop();
  });

  test('it runs only the controllers that cannot fight the scenarios, stopped by PID with the rest', () => {
    expect(cp.controllers).toEqual([...DEFAULT_CONTROLLERS]);
    expect(cp.pids).toContain(cp.controllerManagerPid);
    for (const c of ['deployment-controller', 'replicaset-controller', 'node-lifecycle-controller', 'daemonset-controller'])
      expect(cp.controllers).not.toContain(c);
  });

  test('(a) a Service whose selector matches no pod really has no endpoints, and doctor says ARCH-DNS01 critical', async () => {
    // the CoreDNS pods are there, running and ready — with labels the Service does not select
    const pods = await cp.admin('GET', '/api/v1/namespaces/kube-system/pods?labelSelector=app%3Dkube-dns');
    expect(pods.json.items.map((p: any) => p.status.conditions.find((c: any) => c.type === 'Ready').status)).toEqual(['True', 'True']);
    const svc = await cp.admin('GET', '/api/v1/namespaces/kube-system/services/kube-dns');
    expect(svc.json.spec.selector).toEqual({ 'k8s-app': 'kube-dns' });

    // what the controllers wrote (the loader wrote none of these)
    const ep = await cp.admin('GET', '/api/v1/namespaces/kube-system/endpoints/kube-dns');
    expect(ep.status).toBe(200);
    expect(ep.json.subsets ?? []).toEqual([]);
    const slices = (
      await cp.admin(
        'GET',
        '/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dkube-dns',
      )
    ).json.items;
    expect(slices.length).toBeGreaterThan(0);
    for (const s of slices) {
      expect(s.metadata.labels['endpointslice.kubernetes.io/managed-by']).toBe('endpointslice-controller.k8s.io');
      expect(s.endpoints ?? []).toEqual([]);
    }
    expect(creator(cp, 'endpoints', 'kube-system', 'kube-dns')).toEqual(['kube-controller-manager']);
    expect(creator(cp, 'endpointslices', 'kube-system').filter((u) => u !== 'kube-controller-manager')).toEqual([]);
    // the healthy Services next to it got their ready endpoints from the same controllers
    const ms = await cp.admin('GET', '/api/v1/namespaces/kube-system/endpoints/metrics-server');
    expect(ms.json.subsets[0].addresses).toHaveLength(1);

    const { code, report, stderr } = await doctor(cp);
    expect(stderr).not.toMatch(/^error:/m);
    const dns = dnsFindings(report);
    expect(dns).toHaveLength(1);
    expect(dns[0]).toMatchObject({
      severity: 'critical',
      objects: expect.arrayContaining([expect.objectContaining({ kind: 'Service', name: 'kube-dns' })]),
    });
    expect(dns[0]!.title).toMatch(/^cluster DNS \(Service kube-system\/kube-dns, 10\.43\.0\.10\) has no ready endpoint/);
    // read from the controller's slice, not from a fixture's
    expect(dns[0]!.message).toContain(`EndpointSlice ${slices[0].metadata.name}: 0 ready, 0 not ready`);
    expect(code).toBe(1);
  });

  test('(a) restoring the selector: the controllers publish the CoreDNS pods and ARCH-DNS01 goes away', async () => {
    const svc = (await cp.admin('GET', '/api/v1/namespaces/kube-system/services/kube-dns')).json;
    svc.spec.selector = { app: 'kube-dns' };
    expect((await cp.admin('PUT', '/api/v1/namespaces/kube-system/services/kube-dns', svc)).status).toBe(200);
    const ready = await until(cp, 'two ready endpoints in the kube-dns EndpointSlices', async () => {
      const items = (
        await cp.admin(
          'GET',
          '/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dkube-dns',
        )
      ).json.items;
      const eps = items.flatMap((s: any) => s.endpoints ?? []).filter((e: any) => e.conditions?.ready);
      return eps.length === 2 ? eps.map((e: any) => e.targetRef.name).sort() : undefined;
    });
    expect(ready.every((n: string) => n.startsWith('coredns-'))).toBe(true);
    await until(cp, 'two ready addresses in the kube-dns Endpoints', async () => {
      const ep = (await cp.admin('GET', '/api/v1/namespaces/kube-system/endpoints/kube-dns')).json;
      return (ep.subsets ?? []).flatMap((s: any) => s.addresses ?? []).length === 2 ? true : undefined;
    });
    const { report } = await doctor(cp);
    expect(dnsFindings(report)).toEqual([]);
    expect(report.checks.find((c) => c.id === 'cluster-dns')!.status).toBe('passed');
  });

  test('(b) deleting a namespace: the namespace controller removes its objects, then the namespace', async () => {
    const ns = 'e2e-doomed';
    const base = `/api/v1/namespaces/${ns}`;
    expect((await cp.admin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status).toBe(
      201,
    );
    expect(
      (
        await cp.admin('POST', `${base}/configmaps`, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'settings' },
          data: { a: '1' },
        })
      ).status,
    ).toBe(201);
    expect(
      (await cp.admin('POST', `${base}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token' }, stringData: { t: 'x' } }))
        .status,
    ).toBe(201);
    expect(
      (
        await cp.admin('POST', `${base}/services`, {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'web' },
          spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
        })
      ).status,
    ).toBe(201);
    // not bound to a node: a pod on a node is only gone once its kubelet confirms, and no kubelet runs here
    expect(
      (
        await cp.admin('POST', `${base}/pods`, {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'web', labels: { app: 'web' } },
          spec: { containers: [{ name: 'c', image: 'nginx' }] },
        })
      ).status,
    ).toBe(201);
    // a custom resource too (the scenario installed Argo CD's Application type): the controller finds it by discovery
    expect(
      (
        await cp.admin('POST', `/apis/argoproj.io/v1alpha1/namespaces/${ns}/applications`, {
          apiVersion: 'argoproj.io/v1alpha1',
          kind: 'Application',
          metadata: { name: 'doomed-app' },
          spec: {},
        })
      ).status,
    ).toBe(201);
    // the endpoints controller wrote the Service's Endpoints in it: objects the test did not create go too
    await until(cp, 'Endpoints e2e-doomed/web', async () =>
      (await cp.admin('GET', `${base}/endpoints/web`)).status === 200 ? true : undefined,
    );

    const del = await cp.admin('DELETE', base);
    expect(del.status).toBe(200);
    expect(del.json.status.phase).toBe('Terminating');
    await until(cp, `namespace ${ns} gone`, async () => ((await cp.admin('GET', base)).status === 404 ? true : undefined));
    for (const r of ['configmaps', 'secrets', 'services', 'pods', 'endpoints'])
      expect([r, (await cp.admin('GET', `${base}/${r}`)).json.items]).toEqual([r, []]);
    expect((await cp.admin('GET', `/apis/argoproj.io/v1alpha1/namespaces/${ns}/applications`)).json.items).toEqual([]);
  });

  test('(c) garbage collection: dependents of a deleted owner are deleted (background, foreground), or kept and released (orphan)', async () => {
    const ns = 'e2e-gc';
    const base = `/api/v1/namespaces/${ns}`;
    expect((await cp.admin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status).toBe(
      201,
    );
    const cm = async (name: string, owner?: any): Promise<any> => {
      const r = await cp.admin('POST', `${base}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name,
          ...(owner
            ? {
                ownerReferences: [
                  { apiVersion: owner.apiVersion ?? 'v1', kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid },
                ],
              }
            : {}),
        },
      });
      expect(r.status).toBe(201);
      return { ...r.json, apiVersion: 'v1', kind: 'ConfigMap' };
    };
    const gone = (path: string) =>
      until(cp, `${path} deleted`, async () => ((await cp.admin('GET', path)).status === 404 ? true : undefined));

    // background (the default for a DELETE): the owner goes at once, the garbage collector deletes the dependent
    const owner = await cm('owner');
    await cm('dependent', owner);
    expect((await cp.admin('DELETE', `${base}/configmaps/owner`)).status).toBe(200);
    await gone(`${base}/configmaps/dependent`);

    // foreground, with the scenarios' shape (a ReplicaSet owning a pod): the pod is deleted before its owner
    const rs = await cp.admin('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web-5d8f7' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    expect(rs.status).toBe(201);
    // unscheduled (see (b)); no replicaset controller runs, so this pod is the only one
    const pod = await cp.admin('POST', `${base}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'web-5d8f7-x1',
        labels: { app: 'web' },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: 'web-5d8f7',
            uid: rs.json.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    expect(pod.status).toBe(201);
    const fg = await cp.admin('DELETE', `/apis/apps/v1/namespaces/${ns}/replicasets/web-5d8f7`, {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      propagationPolicy: 'Foreground',
    });
    expect(fg.status).toBe(200);
    expect(fg.json.metadata.finalizers).toContain('foregroundDeletion');
    await gone(`${base}/pods/web-5d8f7-x1`);
    await gone(`/apis/apps/v1/namespaces/${ns}/replicasets/web-5d8f7`);

    // orphan: the owner goes, the dependent stays and the garbage collector removes its ownerReference
    const keeper = await cm('keeper');
    await cm('kept', keeper);
    expect(
      (await cp.admin('DELETE', `${base}/configmaps/keeper`, { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Orphan' }))
        .status,
    ).toBe(200);
    await gone(`${base}/configmaps/keeper`);
    const kept = (await cp.admin('GET', `${base}/configmaps/kept`)).json;
    expect(kept.metadata.ownerReferences ?? []).toEqual([]);

    // the deletions were the controller manager's (userAgent in the audit log), not the test's
    const deleters = readAudit(cp.auditLog)
      .filter((e) => e.verb === 'delete' && e.objectRef?.namespace === ns && ['dependent', 'web-5d8f7-x1'].includes(e.objectRef?.name))
      .map((e) => String(e.userAgent).split('/')[0]);
    expect(new Set(deleters)).toEqual(new Set(['kube-controller-manager']));
  });

  test('the loader refuses a scenario the controllers contradict: endpoints no controller would write, an owner that is not there', async () => {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'e2e-bad' } };
    const svc = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'ghost', namespace: 'e2e-bad' },
      spec: { selector: { app: 'ghost' }, ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
    };
    // a ready address for a Service that selects no pod: the endpoints controller writes none, so this never settles
    const ep = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'ghost', namespace: 'e2e-bad' },
      subsets: [{ addresses: [{ ip: '10.42.0.9' }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }],
    };
    await expect(loadScenario(cp, [ns, svc, ep], { settleMs: 3_000 })).rejects.toThrow(
      /endpoint controllers still disagree with the scenario[^]*Endpoints e2e-bad\/ghost: controller \{"ready":\[\],"notReady":\[\]\}, scenario \{"ready":\["10\.42\.0\.9"\]/,
    );
    // an ownerReference to an owner the scenario does not hold: the garbage collector deletes the object
    const orphan = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'left-behind',
        namespace: 'e2e-bad',
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'gone', uid: '0b5e9999-5a1f-4e12-9d0a-000000000001' }],
      },
    };
    await expect(loadScenario(cp, [orphan])).rejects.toThrow(
      /garbage collector deleted 1 loaded object[^]*ConfigMap e2e-bad\/left-behind \(owners: Deployment gone\)/,
    );
  });
});

describe('kube-apiserver served with a certificate of ours (servingCertDays)', () => {
  let cp: ControlPlane;
  let t0 = 0;
  beforeAll(async () => {
    t0 = Date.now();
    cp = await startControlPlane({ apiserver: bins.apiserver, controllerManager: bins.controllerManager, servingCertDays: 5 });
    await grantReaders(cp);
  }, 120_000);
  afterAll(async () => {
    await cp?.stop();
  });

  const DAY = 24 * 3600 * 1000;

  test('its notAfter is 5 days from now (openssl x509 -enddate) and the TLS handshake serves it', async () => {
    const out = execFileSync('openssl', ['x509', '-enddate', '-noout', '-in', cp.servingCert!], { encoding: 'utf8' });
    const notAfter = Date.parse(out.trim().replace(/^notAfter=/, ''));
    expect(notAfter).toBeGreaterThanOrEqual(Math.floor(t0 / 1000) * 1000 + 5 * DAY);
    expect(notAfter).toBeLessThanOrEqual(Date.now() + 5 * DAY);
    const served = await new Promise<{ validTo: string; fingerprint: string; authorized: boolean }>((resolve, reject) => {
      const u = new URL(cp.url);
      const s = tls.connect({ host: u.hostname, port: Number(u.port), ca: readFileSync(cp.caFile) }, () => {
        const c = s.getPeerCertificate();
        resolve({ validTo: c.valid_to, fingerprint: c.fingerprint256, authorized: s.authorized });
        s.end();
      });
      s.on('error', reject);
    });
    expect(served.authorized).toBe(true);
    expect(Date.parse(served.validTo)).toBe(notAfter);
    expect(served.fingerprint).toBe(new X509Certificate(readFileSync(cp.servingCert!)).fingerprint256);
  });

  test('the kubeconfig trusts its CA: kubectl get --raw /version', async () => {
    const r = await kubectl(['get', '--raw', '/version', '--kubeconfig', cp.kubeconfig, '--context', 'admin']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).gitVersion).toBe('v1.36.3');
  });

  test('kube-controller-manager trusts it too: its garbage collector works', async () => {
    await cp.gcBarrier();
  });

  test('CERT01: doctor, as the reader through kubectl, names it from the handshake: error (7 days or less), its date', async () => {
    const { code, report } = await doctor(cp);
    const notAfter = new Date(
      execFileSync('openssl', ['x509', '-enddate', '-noout', '-in', cp.servingCert!], { encoding: 'utf8' })
        .trim()
        .replace(/^notAfter=/, ''),
    );
    const c = report.checks.find((x) => x.id === 'apiserver-certificates')!;
    const f = c.findings.find((x) => x.code === 'ARCH-CERT01')!;
    expect(f).toBeDefined();
    expect(f.severity).toBe('error');
    expect(f.title).toBe(
      `the API server's serving certificate expires in ${f.title.match(/in (\d+ ?\w+)/)?.[1]} (${notAfter.toISOString().slice(0, 10)})`,
    );
    expect(f.title).toMatch(/expires in (4|5) ?d/);
    expect(f.message).toMatch(new RegExp(`valid until ${notAfter.toISOString().slice(0, 19)}`));
    expect(c.findings.filter((x) => x.code === 'ARCH-CERT02')).toEqual([]); // the reader authenticates with a token
    expect(code).toBe(1);
  });
});

describe('a namespace the namespace controller cannot finish (an object inside keeps a finalizer nobody removes)', () => {
  let cp: ControlPlane;
  let conditions: Array<{ type: string; status: string; reason?: string; message?: string }> = [];
  const ns = 'e2e-stuck';
  beforeAll(async () => {
    cp = await startControlPlane({ apiserver: bins.apiserver, controllerManager: bins.controllerManager });
    await grantReaders(cp);
    expect((await cp.admin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status).toBe(
      201,
    );
    const cm = await cp.admin('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'held', finalizers: ['e2e.example.com/never-removed'] },
      data: { a: '1' },
    });
    expect(cm.status).toBe(201);
    expect((await cp.admin('DELETE', `/api/v1/namespaces/${ns}`)).status).toBe(200);
    // the namespace controller deletes what it can, then says what remains in the namespace's conditions
    conditions = await until(cp, `namespace ${ns}: NamespaceFinalizersRemaining`, async () => {
      const c = (await cp.admin('GET', `/api/v1/namespaces/${ns}`)).json?.status?.conditions ?? [];
      return c.some((x: any) => x.type === 'NamespaceFinalizersRemaining' && x.status === 'True') ? c : undefined;
    });
    // the object's deletionTimestamp (whole seconds) is the namespace controller's, set just now: let it pass
    // --stuck-after 1s below
    await sleep(2500);
  }, 300_000);
  afterAll(async () => {
    await cp?.stop();
  });

  test('the real namespace controller keeps it Terminating and names the finalizer in its conditions', async () => {
    const n = (await cp.admin('GET', `/api/v1/namespaces/${ns}`)).json;
    expect(n.status.phase).toBe('Terminating');
    expect(conditions.find((x) => x.type === 'NamespaceFinalizersRemaining')).toMatchObject({
      status: 'True',
      reason: 'SomeFinalizersRemain',
      message: expect.stringContaining('e2e.example.com/never-removed in 1 resource instances'),
    });
  });

  test('DEL02 names the namespace with the reason from its conditions (with --stuck-after 1s), DEL01 the object', async () => {
    const { code, report } = await doctor(cp, '--stuck-after', '1s');
    const c = report.checks.find((x) => x.id === 'stuck-deletions')!;
    const del02 = c.findings.find((f) => f.code === 'ARCH-DEL02')!;
    expect(del02.severity).toBe('error');
    expect(del02.title).toMatch(new RegExp(`^namespace ${ns} has been Terminating for \\d+ ?\\w+: SomeFinalizersRemain$`));
    expect(del02.message).toMatch(
      /NamespaceFinalizersRemaining: SomeFinalizersRemain — Some content in the namespace has finalizers remaining: e2e\.example\.com\/never-removed in 1 resource instances/,
    );
    expect(del02.message).toMatch(
      /Objects inside still deleting: ConfigMap e2e-stuck\/held \(finalizers e2e\.example\.com\/never-removed\)/,
    );
    expect(del02.objects.map((o) => `${o.kind} ${o.name}`)).toEqual(['Namespace e2e-stuck', 'ConfigMap held']);
    expect(c.findings.filter((f) => f.code === 'ARCH-DEL01').map((f) => f.objects[0]!.name)).toEqual(['held']);
    expect(code).toBe(1);
    // before --stuck-after (default 10m) nothing is stuck yet
    const { report: calm } = await doctor(cp);
    expect(calm.checks.find((x) => x.id === 'stuck-deletions')!.findings).toEqual([]);
  });
});
