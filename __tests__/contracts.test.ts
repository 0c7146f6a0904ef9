// The door, the loops whose controller is gone, and the storage interface: one describe per check, each
// through the one way tests run a check (runCheck), plus the example cluster staying quiet.
import { describe, expect, test } from '@jest/globals';
import { admissionWebhooks } from '../src/checks/admission-webhooks/check.js';
import { aggregatedApis } from '../src/checks/aggregated-apis/check.js';
import { apiserverCertificates } from '../src/checks/apiserver-certificates/check.js';
import { csiDrivers } from '../src/checks/csi-drivers/check.js';
import { runChecks } from '../src/checks/run.js';
import { stuckDeletions } from '../src/checks/stuck-deletions/check.js';
import type { KObject } from '../src/model.js';
import { Command } from '../src/lib/shell.js';
import { WEBHOOK_CA } from '../scenarios/field-notes.js';
import { loadSnapshot } from '../src/snapshot/load.js';
import type { Snapshot } from '../src/snapshot/snapshot.js';
import { ago, checkSnapshot, NOW, runCheck } from './helpers/check.js';
import { EXAMPLE, obj } from './helpers/fixtures.js';

const DAY_MIN = 24 * 60;

describe('the example cluster is healthy at the door and the interfaces', () => {
  test('each new check passes on it, saying what it looked at', () => {
    const snap = loadSnapshot(EXAMPLE);
    const results = runChecks([admissionWebhooks, aggregatedApis, apiserverCertificates, stuckDeletions, csiDrivers], snap);
    expect(results.map((r) => [r.id, r.status])).toEqual([
      ['admission-webhooks', 'passed'],
      ['aggregated-apis', 'passed'],
      ['apiserver-certificates', 'passed'],
      ['stuck-deletions', 'passed'],
      ['csi-drivers', 'passed'],
    ]);
    expect(results.map((r) => r.reason)).toEqual([
      '2 webhooks in 2 configurations: every fail-closed one has a ready backend',
      'the one aggregated APIService (v1beta1.metrics.k8s.io) is available',
      'serving certificate valid until 2027-05-20',
      'nothing is stuck deleting',
      'no volume, StorageClass or claim depends on a CSI driver (6 CSINodes read)',
    ]);
  });
});

// ------------------------------------------------------------------------------------------ webhooks
const svc = (ns: string, name: string): KObject => obj('v1', 'Service', name, ns, { spec: { type: 'ClusterIP', clusterIP: '10.96.0.50' } });
const endpoints = (ns: string, name: string, ready: number): KObject =>
  obj('v1', 'Endpoints', name, ns, {
    subsets: ready ? [{ addresses: Array.from({ length: ready }, (_, i) => ({ ip: `10.42.0.${i + 2}` })), ports: [{ port: 443 }] }] : [],
  });
const kubeSystem = obj('v1', 'Namespace', 'kube-system', undefined, {
  metadata: { name: 'kube-system', labels: { 'kubernetes.io/metadata.name': 'kube-system' } },
});
const vwc = (name: string, hook: Record<string, unknown>): KObject =>
  obj('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', name, undefined, { webhooks: [hook] } as Partial<KObject>);
const kyvernoHook = (extra: Record<string, unknown> = {}) => ({
  name: 'validate.kyverno.svc-fail',
  failurePolicy: 'Fail',
  clientConfig: { service: { namespace: 'kyverno', name: 'kyverno-svc', port: 443 }, caBundle: WEBHOOK_CA },
  rules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: ['*/*'], scope: '*' }],
  ...extra,
});

describe('admission-webhooks', () => {
  test('fail closed, no ready endpoint, matches kube-system and everything: critical, says what it blocks and the deadlock', () => {
    const r = runCheck(admissionWebhooks, [
      kubeSystem,
      vwc('kyverno-resource-validating-webhook-cfg', kyvernoHook()),
      svc('kyverno', 'kyverno-svc'),
      endpoints('kyverno', 'kyverno-svc', 0),
    ]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f).toMatchObject({ code: 'ARCH-WH01', severity: 'critical', checkId: 'admission-webhooks' });
    expect(f.title).toBe(
      'ValidatingWebhookConfiguration kyverno-resource-validating-webhook-cfg fails closed with no backend: validate.kyverno.svc-fail',
    );
    expect(f.message).toMatch(/no endpoints available for service "kyverno\/kyverno-svc"/);
    expect(f.message).toMatch(/it blocks CREATE\/UPDATE \*\/\* in every namespace/);
    expect(f.message).toMatch(/a deadlock/);
    // the fix names its cost before the destructive step, scoped to this one configuration
    expect(f.fix!.map(String).find((x) => x.includes('kubectl delete'))).toMatch(
      /\(cost: requests are no longer checked by it[^)]*\): kubectl delete validatingwebhookconfiguration kyverno-resource-validating-webhook-cfg$/,
    );
    expect(f.fix!.some((x) => /failurePolicy: Ignore/.test(String(x)))).toBe(true);
  });

  test('scoped away from kube-system and to its own API groups: error, not critical', () => {
    const hook = kyvernoHook({
      namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] },
      rules: [{ apiGroups: ['cert-manager.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['certificates'] }],
    });
    const r = runCheck(admissionWebhooks, [
      kubeSystem,
      vwc('cm', hook),
      svc('kyverno', 'kyverno-svc'),
      endpoints('kyverno', 'kyverno-svc', 0),
    ]);
    expect(r.findings.map((f) => [f.code, f.severity])).toEqual([['ARCH-WH01', 'error']]);
    expect(r.findings[0]!.message).toMatch(/not kube-system/);
  });

  test('failurePolicy Ignore with no backend is not WH01; a ready backend is fine', () => {
    const ignore = runCheck(admissionWebhooks, [
      kubeSystem,
      vwc('x', kyvernoHook({ failurePolicy: 'Ignore' })),
      svc('kyverno', 'kyverno-svc'),
      endpoints('kyverno', 'kyverno-svc', 0),
    ]);
    expect(ignore.findings).toEqual([]);
    const ready = runCheck(admissionWebhooks, [
      kubeSystem,
      vwc('x', kyvernoHook()),
      svc('kyverno', 'kyverno-svc'),
      endpoints('kyverno', 'kyverno-svc', 2),
    ]);
    expect(ready.status).toBe('passed');
  });

  test('the Service itself is missing: WH01 with "not found"', () => {
    const r = runCheck(admissionWebhooks, [kubeSystem, vwc('x', kyvernoHook())]);
    expect(r.findings[0]!.message).toMatch(/kyverno-svc/);
    expect(r.findings[0]!.code).toBe('ARCH-WH01');
  });

  test('caBundle empty, garbage or expired: WH02; a URL webhook: WH03 (not checkable), info', () => {
    const empty = runCheck(admissionWebhooks, [
      kubeSystem,
      vwc('x', kyvernoHook({ failurePolicy: 'Ignore', clientConfig: { service: { namespace: 'kyverno', name: 'kyverno-svc' } } })),
      svc('kyverno', 'kyverno-svc'),
      endpoints('kyverno', 'kyverno-svc', 1),
    ]);
    expect(empty.findings.map((f) => f.code)).toEqual(['ARCH-WH02']);
    expect(empty.findings[0]!.message).toMatch(/the caBundle is empty/);
    const junk = runCheck(admissionWebhooks, [
      kubeSystem,
      vwc(
        'x',
        kyvernoHook({
          clientConfig: { service: { namespace: 'kyverno', name: 'kyverno-svc' }, caBundle: Buffer.from('hello').toString('base64') },
        }),
      ),
      svc('kyverno', 'kyverno-svc'),
      endpoints('kyverno', 'kyverno-svc', 1),
    ]);
    expect(junk.findings[0]!.message).toMatch(/holds no PEM certificate/);
    // the example CA expires on 2027-03-05: judged a year later it is expired
    const later = runChecks([admissionWebhooks], loadSnapshot(EXAMPLE), { now: new Date('2027-04-01T00:00:00Z') })[0]!;
    expect(later.findings.map((f) => f.code)).toEqual(['ARCH-WH02', 'ARCH-WH02']);
    expect(later.findings[0]!.message).toMatch(/every CA certificate in the caBundle has expired \(the latest on 2027-03-05\)/);
    const url = runCheck(admissionWebhooks, [
      kubeSystem,
      vwc('x', { name: 'ext.example.com', failurePolicy: 'Fail', clientConfig: { url: 'https://hooks.example.com/validate' }, rules: [] }),
    ]);
    expect(url.findings.map((f) => [f.code, f.severity])).toEqual([['ARCH-WH03', 'info']]);
  });

  test('without Services visible, a webhook whose backend cannot be judged is not called healthy silently', () => {
    const r = runCheck(admissionWebhooks, [kubeSystem, vwc('x', kyvernoHook())], {
      without: [{ group: '', kind: 'Service' }],
      prepare: (s) =>
        s.markUnavailable({
          group: '',
          kind: 'Service',
          resource: 'services',
          status: 403,
          reason: 'forbidden: cannot list services (RBAC)',
        }),
    });
    expect(r.notes.join('\n')).toMatch(
      /Service: forbidden: cannot list services \(RBAC\) — whether a webhook's Service exists cannot be told/,
    );
  });
});

// ------------------------------------------------------------------------------------------ aggregated APIs
const apiservice = (status: string, reason: string, message: string): KObject =>
  obj('apiregistration.k8s.io/v1', 'APIService', 'v1beta1.metrics.k8s.io', undefined, {
    spec: { group: 'metrics.k8s.io', version: 'v1beta1', service: { namespace: 'kube-system', name: 'metrics-server', port: 443 } },
    status: { conditions: [{ type: 'Available', status, reason, message }] },
  });

/** A namespace Terminating because discovery of metrics.k8s.io fails (the namespace controller's own condition). */
const stuckOnDiscovery = (name: string, minutesAgo: number, ...more: Array<Record<string, string>>) =>
  obj('v1', 'Namespace', name, undefined, {
    metadata: { name, deletionTimestamp: ago(minutesAgo) },
    spec: { finalizers: ['kubernetes'] },
    status: {
      phase: 'Terminating',
      conditions: [
        {
          type: 'NamespaceDeletionDiscoveryFailure',
          status: 'True',
          reason: 'DiscoveryFailed',
          message:
            'Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is currently unable to handle the request',
        },
        ...more,
      ],
    },
  });

describe('aggregated-apis', () => {
  test('metrics.k8s.io not available: the reason, the consequence for kubectl and namespaces, the stuck namespace named', () => {
    const ns = stuckOnDiscovery('old-app', 300);
    const r = runCheck(aggregatedApis, [
      apiservice(
        'False',
        'MissingEndpoints',
        'endpoints for service/metrics-server in "kube-system" have no addresses with port name "https"',
      ),
      ns,
    ]);
    const f = r.findings[0]!;
    expect(f).toMatchObject({
      code: 'ARCH-API01',
      severity: 'error',
      title: 'APIService v1beta1.metrics.k8s.io is not available (MissingEndpoints)',
    });
    expect(f.message).toMatch(/unable to retrieve the complete list of server APIs: metrics\.k8s\.io\/v1beta1/);
    expect(f.message).toMatch(/Already stuck Terminating because of it: old-app/);
    expect(f.objects.map((o) => `${o.kind} ${o.name}`)).toEqual(['APIService v1beta1.metrics.k8s.io', 'Namespace old-app']);
    expect(f.fix!.map(String).find((x) => x.includes('kubectl delete apiservice'))).toMatch(
      /only if metrics\.k8s\.io\/v1beta1 was uninstalled.*\(cost:/,
    );
  });

  test('available and local APIServices: passed', () => {
    const local = obj('apiregistration.k8s.io/v1', 'APIService', 'v1.apps', undefined, { spec: { group: 'apps', version: 'v1' } });
    const r = runCheck(aggregatedApis, [apiservice('True', 'Passed', 'all checks passed'), local]);
    expect([r.status, r.reason]).toEqual(['passed', 'the one aggregated APIService (v1beta1.metrics.k8s.io) is available']);
  });

  test('forbidden to list APIServices: judged through namespaces, partial, never passed; skipped with neither', () => {
    const r = runCheck(aggregatedApis, [], {
      without: [{ group: 'apiregistration.k8s.io', kind: 'APIService' }],
      prepare: (s) =>
        s.markUnavailable({
          group: 'apiregistration.k8s.io',
          kind: 'APIService',
          resource: 'apiservices',
          status: 403,
          reason: 'forbidden: cannot list apiservices.apiregistration.k8s.io (RBAC)',
        }),
    });
    // namespaces are visible: their discovery failures would show an unavailable API, so it is judged — partially
    expect(r.status).toBe('partial');
    expect(r.reason).toMatch(/not judged without APIService.apiregistration.k8s.io/);
    expect(r.notes.join()).toMatch(/forbidden: cannot list apiservices.apiregistration.k8s.io \(RBAC\) — APIServices are not read/);
    const none = runCheck(aggregatedApis, [], {
      without: [
        { group: 'apiregistration.k8s.io', kind: 'APIService' },
        { group: '', kind: 'Namespace' },
      ],
    });
    expect(none.status).toBe('skipped');
  });
});

// ------------------------------------------------------------------------------------------ certificates
describe('apiserver-certificates', () => {
  const withTls = (serving: string, client?: string) => ({
    prepare: (s: Snapshot) => {
      s.header.tls = {
        serving: { subject: 'kube-apiserver', issuer: 'kubernetes', notAfter: serving },
        ...(client ? { client: { subject: 'kubernetes-admin', notAfter: client } } : {}),
      };
    },
  });
  const inDays = (d: number): string => new Date(NOW + d * 86_400_000).toISOString();

  test('30 days: warning; 7: error; expired: critical; more: passed', () => {
    expect(runCheck(apiserverCertificates, [], withTls(inDays(20))).findings.map((f) => [f.code, f.severity])).toEqual([
      ['ARCH-CERT01', 'warning'],
    ]);
    expect(runCheck(apiserverCertificates, [], withTls(inDays(5))).findings.map((f) => f.severity)).toEqual(['error']);
    const gone = runCheck(apiserverCertificates, [], withTls(inDays(-2)));
    expect(gone.findings.map((f) => f.severity)).toEqual(['critical']);
    expect(gone.findings[0]!.title).toMatch(/^the API server's serving certificate expired 2 days ago \(\d{4}-\d{2}-\d{2}\)$/);
    const fine = runCheck(apiserverCertificates, [], withTls(inDays(200)));
    expect(fine.status).toBe('passed');
  });

  test("the kubeconfig's client certificate is judged too (ARCH-CERT02)", () => {
    const r = runCheck(apiserverCertificates, [], withTls(inDays(200), inDays(3)));
    expect(r.findings.map((f) => [f.code, f.severity])).toEqual([['ARCH-CERT02', 'error']]);
    expect(r.findings[0]!.fix![0]).toMatch(/renewed kubeconfig/);
  });

  test('K3s CertificateExpirationWarning events: one finding per node, earliest expiry, restart advice with its cost', () => {
    const ev = (node: string, at: string, min: number): KObject =>
      obj('v1', 'Event', `${node}.17c3`, 'default', {
        type: 'Warning',
        reason: 'CertificateExpirationWarning',
        involvedObject: { kind: 'Node', name: node, apiVersion: 'v1' },
        message: `Node certificates require attention - restart k3s on this node to trigger automatic rotation: k3s-controller/client-k3s-controller.crt: certificate CN=system:k3s-controller will expire within 90 days at ${at}, admin/client-admin.crt: certificate CN=system:admin,O=system:masters will expire within 90 days at ${at}`,
        count: 12,
        lastTimestamp: ago(min),
        source: { component: 'k3s-cert-monitor', host: node },
      } as Partial<KObject>);
    const r = runCheck(apiserverCertificates, [ev('ilwon', inDays(20), 30), ev('solomon', inDays(80), 30)], withTls(inDays(200)));
    expect(r.findings.map((f) => [f.code, f.severity, f.objects[0]!.name])).toEqual([
      ['ARCH-CERT03', 'warning', 'ilwon'],
      ['ARCH-CERT03', 'info', 'solomon'],
    ]);
    const f = r.findings[0]!;
    expect(f.title).toMatch(/^node ilwon: 2 K3s certificates expire in 20 days \(/);
    expect(f.message).toMatch(
      /k3s-controller\/client-k3s-controller\.crt \(CN=system:k3s-controller\), admin\/client-admin\.crt \(CN=system:admin,O=system:masters\)/,
    );
    expect(f.fix![0]).toMatch(/^restart k3s \(or k3s-agent\) on ilwon, one server at a time \(cost:/);
  });

  test('no handshake and no node warnings: skipped with the reason', () => {
    const r = runCheck(apiserverCertificates, []);
    expect([r.status, r.reason]).toEqual([
      'skipped',
      'no TLS handshake in this capture (a snapshot file without one, or a plain http server)',
    ]);
  });
});

// ------------------------------------------------------------------------------------------ stuck deletions
const pod = (name: string, ns: string, labels: Record<string, string> = {}): KObject =>
  obj('v1', 'Pod', name, ns, { metadata: { name, namespace: ns, labels }, status: { phase: 'Running' } });

describe('stuck-deletions', () => {
  const app = (min: number): KObject =>
    obj('argoproj.io/v1alpha1', 'Application', 'blog', 'argocd', {
      metadata: { name: 'blog', namespace: 'argocd', deletionTimestamp: ago(min), finalizers: ['resources-finalizer.argocd.argoproj.io'] },
    });

  test('an Argo CD finalizer with no Argo CD running: DEL01, error after a day, removal fix scoped to that object with its cost', () => {
    const r = runCheck(stuckDeletions, [app(2 * DAY_MIN), pod('coredns-1', 'kube-system')]);
    const f = r.findings[0]!;
    expect(f).toMatchObject({ code: 'ARCH-DEL01', severity: 'error' });
    expect(f.title).toBe(
      'Application argocd/blog has been deleting for 2 days: nothing runs to remove resources-finalizer.argocd.argoproj.io',
    );
    // a Command (lib/shell.ts): the names are arguments, quoted
    expect(f.fix![1]).toBeInstanceOf(Command);
    expect(String(f.fix![1])).toBe(
      `only if that cleanup is not needed (cost: what the finalizer would have removed — cloud resources, DNS records, an app's resources — is left behind): kubectl -n argocd patch application blog --type json -p '[{"op":"remove","path":"/metadata/finalizers/0"}]'`,
    );
  });

  test('Argo CD running: no finding; younger than --stuck-after: no finding; --stuck-after 0 counts it', () => {
    expect(runCheck(stuckDeletions, [app(2 * DAY_MIN), pod('argocd-application-controller-0', 'argocd')]).findings).toEqual([]);
    expect(runCheck(stuckDeletions, [app(5)]).findings).toEqual([]);
    const snapRun = runChecks([stuckDeletions], checkSnapshot(stuckDeletions, [app(5)]), { settings: { stuckAfterMs: 0 } })[0]!;
    expect(snapRun.findings.map((f) => [f.code, f.severity])).toEqual([['ARCH-DEL01', 'warning']]);
  });

  test("Kubernetes' own finalizers are not judged (pvc-protection with a pod still using it)", () => {
    const pvc = obj('v1', 'PersistentVolumeClaim', 'data', 'db', {
      metadata: { name: 'data', namespace: 'db', deletionTimestamp: ago(3 * DAY_MIN), finalizers: ['kubernetes.io/pvc-protection'] },
    });
    expect(runCheck(stuckDeletions, [pvc]).findings).toEqual([]);
  });

  test('a namespace Terminating on a discovery failure: DEL02 with the condition and the APIService advice', () => {
    const ns = stuckOnDiscovery('monitoring', 90, { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted' });
    const f = runCheck(stuckDeletions, [ns]).findings[0]!;
    expect(f).toMatchObject({
      code: 'ARCH-DEL02',
      severity: 'error',
      title: 'namespace monitoring has been Terminating for 1.5 h: DiscoveryFailed',
    });
    expect(f.fix![0]).toMatch(/unavailable APIService/);
    expect(f.fix!.join('\n')).not.toMatch(/finalize|remove the namespace's/);
  });

  test('pods not visible: objects are not judged, and the report says so', () => {
    const r = runCheck(stuckDeletions, [app(2 * DAY_MIN)], {
      without: [{ group: '', kind: 'Pod' }],
      prepare: (s) =>
        s.markUnavailable({ group: '', kind: 'Pod', resource: 'pods', status: 403, reason: 'forbidden: cannot list pods (RBAC)' }),
    });
    expect(r.findings).toEqual([]);
    expect(r.notes.join('\n')).toMatch(/whether a finalizer's controller runs cannot be told/);
  });
});

// ------------------------------------------------------------------------------------------ CSI
describe('csi-drivers', () => {
  const csinode = (name: string, drivers: string[]): KObject =>
    obj('storage.k8s.io/v1', 'CSINode', name, undefined, { spec: { drivers: drivers.map((d) => ({ name: d, nodeID: name })) } });
  const gp2 = obj('storage.k8s.io/v1', 'StorageClass', 'gp2', undefined, {
    metadata: { name: 'gp2', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: 'kubernetes.io/aws-ebs',
  } as Partial<KObject>);

  test('an in-tree class migrated to a CSI driver nobody installed: CSI01 "not installed"', () => {
    const r = runCheck(csiDrivers, [gp2, csinode('ip-10-0-1-5', [])]);
    const f = r.findings[0]!;
    expect(f).toMatchObject({ code: 'ARCH-CSI01', severity: 'error', title: 'CSI driver ebs.csi.aws.com is not installed' });
    expect(f.message).toMatch(/Used by StorageClass gp2/);
  });

  test('registered on some nodes, and kubelet says a pod on another cannot mount: names the pod and the node', () => {
    const pv = obj('v1', 'PersistentVolume', 'pvc-1', undefined, { spec: { csi: { driver: 'nfs.csi.k8s.io', volumeHandle: 'x' } } });
    const ev = obj('v1', 'Event', 'web-0.1', 'shop', {
      type: 'Warning',
      reason: 'FailedMount',
      involvedObject: { kind: 'Pod', name: 'web-0', namespace: 'shop' },
      message:
        'MountVolume.MountDevice failed for volume "pvc-1" : kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name nfs.csi.k8s.io not found in the list of registered CSI drivers',
      source: { component: 'kubelet', host: 'master-1' },
      lastTimestamp: ago(2),
    } as Partial<KObject>);
    const r = runCheck(csiDrivers, [pv, ev, csinode('worker-1', ['nfs.csi.k8s.io']), csinode('master-1', [])]);
    const f = r.findings[0]!;
    expect(f.title).toBe('CSI driver nfs.csi.k8s.io is missing where it is needed');
    expect(f.message).toMatch(/registered on 1 node but not on master-1/);
    expect(f.message).toMatch(/Pods that cannot mount: shop\/web-0 on master-1/);
  });

  test('local-path (not CSI) and a driver registered everywhere: passed', () => {
    const lp = obj('storage.k8s.io/v1', 'StorageClass', 'local-path', undefined, {
      provisioner: 'rancher.io/local-path',
    } as Partial<KObject>);
    const pv = obj('v1', 'PersistentVolume', 'pvc-2', undefined, { spec: { csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' } } });
    const r = runCheck(csiDrivers, [lp, pv, csinode('a', ['ebs.csi.aws.com']), csinode('b', ['ebs.csi.aws.com'])]);
    expect([r.status, r.reason]).toEqual(['passed', '1 CSI driver in use, each registered where it is needed (2 CSINodes)']);
  });
});
