import { describe, expect, test } from '@jest/globals';
import { KUBELET_DNS, retryLoops } from '../src/checks/immutable-retry-loop/check.js';
import { ago, runCheck } from './helpers/check.js';
import { runChecks } from '../src/checks/run.js';
import { parseRejections, isImmutableRejection } from '../src/checks/immutable-retry-loop/rejections.js';
import type { KObject } from '../src/model.js';
import { R } from '../src/resources.js';
import { loadSnapshot } from '../src/snapshot/load.js';
import { EXAMPLE, obj } from './helpers/fixtures.js';

// the API server's words (kubernetes pkg/apis/core/validation, pkg/apis/apps/validation; the e2e suite proves them against a real kube-apiserver)
const SVC_MSG = 'Service "kube-dns" is invalid: spec.clusterIPs[0]: Invalid value: ["169.254.20.10"]: may not change once set';
const DEPLOY_MSG = 'Deployment.apps "web" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"web2"}}: field is immutable';
const STS_MSG =
  "StatefulSet.apps \"db\" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";
const PVC_MSG =
  'PersistentVolumeClaim "data" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims';

const CAPTURED = [R.eventsV1, R.deployments].map((n) => ({ group: n.group, kind: n.kind }));
const run = (
  objects: KObject[],
  opts: { deep?: boolean; kubeletDNS?: Array<{ node: string; clusterDNS?: string[] }>; captured?: typeof CAPTURED } = {},
) =>
  runCheck(retryLoops, objects, {
    deep: opts.deep,
    captured: opts.captured ?? CAPTURED,
    perNode: opts.kubeletDNS ? { [KUBELET_DNS.id]: opts.kubeletDNS.map((k) => ({ node: k.node, value: k.clusterDNS })) } : undefined,
  });

const event = (
  name: string,
  involved: Record<string, string>,
  reason: string,
  message: string,
  count: number,
  firstMin: number,
  lastMin: number,
  type = 'Warning',
): KObject =>
  obj('v1', 'Event', name, involved.namespace, {
    metadata: { name, namespace: involved.namespace, uid: `uid-${name}` },
    involvedObject: involved,
    reason,
    type,
    message,
    count,
    firstTimestamp: ago(firstMin),
    lastTimestamp: ago(lastMin),
    source: { component: 'deployment-controller' },
  });

describe('immutable-field matcher', () => {
  test.each([SVC_MSG, DEPLOY_MSG, STS_MSG, PVC_MSG, 'spec.clusterIP: Invalid value: "10.0.0.2": field is immutable'])('matches %s', (m) => {
    expect(isImmutableRejection(m)).toBe(true);
  });
  test('does not match ordinary errors', () => {
    expect(
      isImmutableRejection('Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0'),
    ).toBe(false);
    expect(isImmutableRejection('ComparisonError: rpc error: code = Unknown desc = authentication required')).toBe(false);
  });
  test('parses object, field and value', () => {
    expect(parseRejections(SVC_MSG)).toEqual([
      {
        kind: 'Service',
        name: 'kube-dns',
        namespace: undefined,
        field: 'spec.clusterIPs[0]',
        value: '169.254.20.10',
        detail: 'may not change once set',
      },
    ]);
    expect(parseRejections(DEPLOY_MSG)[0]).toMatchObject({
      kind: 'Deployment',
      name: 'web',
      field: 'spec.selector',
      value: '{matchLabels: {app: web2}}',
      detail: 'field is immutable',
    });
    expect(parseRejections(STS_MSG)[0]).toMatchObject({ kind: 'StatefulSet', name: 'db', field: 'spec' });
    expect(parseRejections(PVC_MSG)[0]).toMatchObject({
      kind: 'PersistentVolumeClaim',
      field: 'spec',
      detail: expect.stringMatching(/immutable after creation/),
    });
    const wr = parseRejections(`failed to update kube-system/kube-dns /v1, Kind=Service for Addon kube-system/coredns: ${SVC_MSG}`);
    expect(wr[0]).toMatchObject({ namespace: 'kube-system', name: 'kube-dns' });
    const two = parseRejections(
      'Service "x" is invalid: [spec.clusterIPs[0]: Invalid value: ["10.0.0.9"]: may not change once set, spec.ipFamilies[0]: Invalid value: "IPv6": may not change once set]',
    );
    expect(two.map((r) => r.field)).toEqual(['spec.clusterIPs[0]', 'spec.ipFamilies[0]']);
  });
});

describe('retry-loop check', () => {
  test('the field-notes case: K3s CoreDNS addon loop, tied to the live Service and cluster-dns ConfigMap', () => {
    const r = runChecks([retryLoops], loadSnapshot(EXAMPLE))[0]!;
    expect(r.status).toBe('findings');
    const f = r.findings[0]!;
    expect(f.code).toBe('ARCH-RL03');
    expect(f.severity).toBe('error');
    expect(f.evidence).toMatchObject({
      service: 'kube-system/kube-dns',
      liveClusterIP: '10.43.0.10',
      rejectedClusterIP: '169.254.20.10',
      originalClusterDNS: '10.43.0.10',
      attempts: 97,
      live: true,
      objectsetOwner: 'coredns',
    });
    expect(f.evidence.spanSeconds).toBe(6 * 3600 - 60);
    expect(f.objects.map((o) => o.kind)).toEqual(['Addon', 'Service']);
    expect(f.fix?.join('\n')).toMatch(/cluster-dns: 10\.43\.0\.10/);
    expect(f.fix?.join('\n')).toMatch(/kubelet-arg/);
  });

  test('an addon that failed once and then applied: no finding', () => {
    const addon = { apiVersion: 'k3s.cattle.io/v1', kind: 'Addon', name: 'traefik', namespace: 'kube-system' };
    const r = run([
      obj('k3s.cattle.io/v1', 'Addon', 'traefik', 'kube-system'),
      event(
        't1',
        addon,
        'ApplyManifestFailed',
        `Applying manifest at "/var/lib/rancher/k3s/server/manifests/traefik.yaml" failed: ${SVC_MSG}`,
        1,
        50,
        50,
      ),
      event(
        't2',
        addon,
        'AppliedManifest',
        'Applied manifest at "/var/lib/rancher/k3s/server/manifests/traefik.yaml"',
        1,
        49,
        49,
        'Normal',
      ),
    ]);
    expect(r.status).toBe('passed');
  });

  test('a one-off rejection that did not repeat is info, not a loop', () => {
    const r = run([
      event('e1', { kind: 'Deployment', name: 'web', namespace: 'shop', apiVersion: 'apps/v1' }, 'FailedUpdate', DEPLOY_MSG, 1, 40, 40),
    ]);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({ code: 'ARCH-RL02', severity: 'info' });
    expect(r.findings[0]!.evidence).toMatchObject({ loop: false, attempts: 1 });
  });

  test('a live loop on a Deployment selector is an error with cadence', () => {
    const live = obj('apps/v1', 'Deployment', 'web', 'shop', { spec: { selector: { matchLabels: { app: 'web' } } } });
    const r = run(
      [
        live,
        event('e2', { kind: 'Deployment', name: 'web', namespace: 'shop', apiVersion: 'apps/v1' }, 'FailedUpdate', DEPLOY_MSG, 40, 180, 2),
      ],
      { captured: [...CAPTURED, { group: 'apps', kind: 'Deployment' }] },
    );
    const f = r.findings[0]!;
    // old and new value of the field, for -o json
    // old and new value of the field as plain YAML, not Go or JSON syntax
    expect(f.evidence).toMatchObject({
      field: 'spec.selector',
      liveValue: '{matchLabels: {app: web}}',
      value: '{matchLabels: {app: web2}}',
      state: 'retrying',
    });
    expect(f.message).toContain('spec.selector {matchLabels: {app: web}} → {matchLabels: {app: web2}}');
    expect(f).toMatchObject({ code: 'ARCH-RL01', severity: 'error' });
    // the fix names its cost before the destructive step, scoped to the one Deployment
    expect(f.fix!.join('\n')).toMatch(/cost: its pods are deleted and recreated[^\n]*\): kubectl -n shop delete deployment\.apps web/);
    expect(f.evidence).toMatchObject({ attempts: 40, live: true, loop: true, spanSeconds: 178 * 60, lastAgoSeconds: 120 });
    expect(f.message).toMatch(/spec\.selector/);
  });

  test('a loop that stopped long ago is not live', () => {
    const r = run([event('e3', { kind: 'Service', name: 'api', namespace: 'shop' }, 'UpdateFailed', SVC_MSG, 30, 300, 90)]);
    expect(r.findings[0]).toMatchObject({ code: 'ARCH-RL02', severity: 'info' });
  });

  test('events.k8s.io/v1 events with series, deduplicated against core events', () => {
    const e: KObject = obj('events.k8s.io/v1', 'Event', 'v1e', 'shop', {
      metadata: { name: 'v1e', namespace: 'shop', uid: 'uid-v1e' },
      regarding: { kind: 'StatefulSet', name: 'db', namespace: 'shop' },
      reason: 'FailedUpdate',
      type: 'Warning',
      note: STS_MSG,
      eventTime: ago(120),
      series: { count: 12, lastObservedTime: ago(3) },
      reportingController: 'argocd-application-controller',
    });
    const core = event('v1e', { kind: 'StatefulSet', name: 'db', namespace: 'shop' }, 'FailedUpdate', STS_MSG, 12, 120, 3);
    core.metadata.uid = 'uid-v1e';
    const r = run([e, core]);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({ code: 'ARCH-RL01' });
  });

  test('NodeLocal DNSCache on 169.254.20.10 with no failing apply passes (--deep)', () => {
    const r = run(
      [
        obj('v1', 'Service', 'kube-dns', 'kube-system', { spec: { clusterIP: '10.43.0.10', clusterIPs: ['10.43.0.10'] } }),
        obj('apps/v1', 'DaemonSet', 'node-local-dns', 'kube-system', {
          metadata: { name: 'node-local-dns', namespace: 'kube-system', labels: { 'k8s-app': 'node-local-dns' } },
        }),
      ],
      {
        deep: true,
        kubeletDNS: [
          { node: 'a', clusterDNS: ['169.254.20.10'] },
          { node: 'b', clusterDNS: ['169.254.20.10'] },
        ],
      },
    );
    expect(r.status).toBe('passed');
  });

  test('kubelet clusterDNS that no Service owns and no NodeLocal DNSCache (--deep)', () => {
    const r = run([obj('v1', 'Service', 'kube-dns', 'kube-system', { spec: { clusterIP: '10.43.0.10' } })], {
      deep: true,
      kubeletDNS: [{ node: 'a', clusterDNS: ['169.254.20.10'] }],
    });
    expect(r.findings[0]).toMatchObject({ code: 'ARCH-RL07', severity: 'warning' });
  });

  test('--deep without kubelet configs says so instead of passing silently', () => {
    const r = run([], { deep: true });
    expect(r.notes.join()).toMatch(/not captured/);
  });

  const argoApp = (name: string, status: Record<string, unknown>, syncPolicy: Record<string, unknown> = {}): KObject =>
    obj('argoproj.io/v1alpha1', 'Application', name, 'argocd', { spec: { syncPolicy }, status });

  test("Argo CD with a non-immutable sync error is not this check's business", () => {
    const r = run([
      argoApp('web', {
        conditions: [
          {
            type: 'SyncError',
            message: 'Failed sync attempt to 4f1c: one or more objects failed to apply, reason: admission webhook "x" denied the request',
          },
        ],
        operationState: { phase: 'Failed', message: 'one or more objects failed to apply' },
      }),
    ]);
    expect(r.status).toBe('passed');
  });

  test('Argo CD retrying forever on an immutable field is an error; exhausted automated sync is a warning', () => {
    const live = run([
      argoApp(
        'shop',
        {
          operationState: {
            phase: 'Running',
            retryCount: 14,
            message: `one or more objects failed to apply, reason: ${DEPLOY_MSG}. Retrying attempt #14 at 8:58AM.`,
            syncResult: {
              resources: [
                {
                  group: 'apps',
                  version: 'v1',
                  kind: 'Deployment',
                  namespace: 'shop',
                  name: 'web',
                  status: 'SyncFailed',
                  message: DEPLOY_MSG,
                },
              ],
            },
          },
        },
        { automated: {}, retry: { limit: -1 } },
      ),
    ]);
    expect(live.findings[0]).toMatchObject({ code: 'ARCH-RL05', severity: 'error' });
    expect(live.findings[0]!.evidence).toMatchObject({ state: 'retrying', retry: { limit: -1, count: 14 } });
    expect(live.findings[0]!.message).toMatch(/retries forever/);
    expect(live.findings[0]!.objects.map((o) => o.kind)).toEqual(['Application', 'Deployment']);
    // one rejection, one finding: operationState and syncResult are two sources of the same loop
    expect(live.findings).toHaveLength(1);
    expect(live.findings[0]!.evidence.sources).toHaveLength(2);
    const done = run([
      argoApp(
        'shop',
        {
          conditions: [
            {
              type: 'SyncError',
              message: `Failed last sync attempt to 9a8b: one or more objects failed to apply, reason: ${DEPLOY_MSG} (retried 5 times).`,
            },
          ],
          operationState: { phase: 'Failed', message: `one or more objects failed to apply, reason: ${DEPLOY_MSG} (retried 5 times).` },
        },
        { automated: { selfHeal: true } },
      ),
    ]);
    // it gave up, but still wants the change: stalled, and an error as long as it wants it
    expect(done.findings[0]).toMatchObject({ code: 'ARCH-RL05', severity: 'error' });
    expect(done.findings[0]!.evidence.state).toBe('stalled');
    expect(done.findings[0]!.message).toMatch(/every commit/);
    expect(done.findings[0]!.message).not.toMatch(/will never stop retrying|Retrying:/);
  });

  test('Flux Kustomization failing on an immutable field: per-object force, never spec.force on the whole Kustomization', () => {
    const k = obj('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'apps', 'flux-system', {
      spec: { interval: '10m', retryInterval: '2m' },
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'ReconciliationFailed',
            message: `Service/shop/api dry-run failed (Invalid): ${SVC_MSG.replace('kube-dns', 'api')}`,
            lastTransitionTime: ago(300),
          },
        ],
      },
    });
    const r = run([k]);
    expect(r.findings[0]).toMatchObject({ code: 'ARCH-RL06', severity: 'error' });
    expect(r.findings[0]!.fix?.join()).toMatch(/kustomize\.toolkit\.fluxcd\.io\/force: enabled/);
    expect(r.findings[0]!.fix?.join()).toMatch(/not spec\.force on the whole Kustomization/);
    expect(r.findings[0]!.message).toMatch(/every 2m/);
    expect(r.findings[0]!.objects.map((o) => `${o.kind} ${o.namespace}/${o.name}`)).toEqual([
      'Kustomization flux-system/apps',
      'Service shop/api',
    ]);
  });

  test('a failing K3s HelmChart', () => {
    const hc = obj('helm.cattle.io/v1', 'HelmChart', 'traefik', 'kube-system', {
      status: {
        jobName: 'helm-install-traefik',
        conditions: [
          { type: 'Failed', status: 'True', message: `Error: UPGRADE FAILED: cannot patch "traefik" with kind Deployment: ${DEPLOY_MSG}` },
        ],
      },
    });
    expect(run([hc]).findings[0]).toMatchObject({ code: 'ARCH-RL04', severity: 'error' });
  });

  test('events forbidden: judged on what is visible, partial and named, never passed', () => {
    const r = runCheck(retryLoops, [], {
      without: [R.events],
      prepare: (snap) =>
        snap.markUnavailable({ group: '', kind: 'Event', resource: 'events', status: 403, reason: 'forbidden: cannot list events (RBAC)' }),
    });
    expect(r.status).toBe('partial');
    expect(r.reason).toMatch(/not judged without Event\b/);
    expect(r.notes.join()).toMatch(/Event: forbidden: cannot list events \(RBAC\) — rejections seen only in Events/);
  });

  test('nothing it judges is visible: skipped with every reason, never passed', () => {
    const subjects = retryLoops.needs.filter((n) => n.role === 'subject');
    const r = runCheck(retryLoops, [], {
      without: subjects,
      prepare: (snap) => {
        for (const n of subjects)
          snap.markUnavailable({ group: n.group, kind: n.kind, resource: n.resource, status: 403, reason: `forbidden: ${n.resource}` });
      },
    });
    expect(r.status).toBe('skipped');
    expect(r.reason).toMatch(/forbidden: events.*forbidden: applications/);
  });

  test('Services forbidden: the check still runs on events and says what it could not compare', () => {
    const r = runCheck(
      retryLoops,
      [event('e9', { kind: 'Deployment', name: 'web', namespace: 'shop' }, 'FailedUpdate', DEPLOY_MSG, 40, 180, 2)],
      {
        without: [R.services],
        prepare: (snap) =>
          snap.markUnavailable({
            group: '',
            kind: 'Service',
            resource: 'services',
            status: 403,
            reason: 'forbidden: cannot list services (RBAC)',
          }),
      },
    );
    expect(r.findings[0]).toMatchObject({ code: 'ARCH-RL01' });
    expect(r.notes.join()).toMatch(/Service: forbidden: cannot list services \(RBAC\) — live Service values/);
  });

  test('Argo CD not installed (404): no Application can exist, so nothing is missing — passed, no "not visible" note', () => {
    const r = runCheck(retryLoops, [], {
      without: [R.argoApplications],
      prepare: (snap) =>
        snap.markUnavailable({
          group: 'argoproj.io',
          kind: 'Application',
          status: 404,
          reason: 'applications.argoproj.io is not served here (CRD not installed)',
        }),
    });
    expect(r.status).toBe('passed');
    expect(r.notes.join()).not.toMatch(/Application/);
  });

  test('an Argo CD warning event and the Application status are one finding, with both sources', () => {
    const app = argoApp(
      'shop',
      {
        sync: { status: 'OutOfSync' },
        conditions: [
          {
            type: 'SyncError',
            message: `Failed last sync attempt to [9a8b]: one or more objects failed to apply, reason: ${DEPLOY_MSG} (retried 5 times).`,
          },
        ],
        operationState: {
          phase: 'Failed',
          finishedAt: ago(10),
          message: `one or more objects failed to apply, reason: ${DEPLOY_MSG} (retried 5 times).`,
        },
      },
      { automated: {} },
    );
    const ev = event(
      'ae',
      { kind: 'Application', name: 'shop', namespace: 'argocd', apiVersion: 'argoproj.io/v1alpha1' },
      'OperationCompleted',
      `Sync operation to 9a8b failed: one or more objects failed to apply, reason: ${DEPLOY_MSG}`,
      6,
      60,
      10,
    );
    const r = run([app, ev]);
    expect(r.findings.map((f) => f.code)).toEqual(['ARCH-RL05']);
    expect((r.findings[0]!.evidence.sources as Array<{ source: string }>).map((s) => s.source)).toEqual(
      expect.arrayContaining(['argocd condition SyncError', 'argocd operationState', expect.stringMatching(/^event OperationCompleted/)]),
    );
  });

  test('rejected once, then a later sync succeeded: one-off, info, and never "will never stop retrying"', () => {
    const app = argoApp(
      'shop',
      {
        sync: { status: 'Synced' },
        operationState: { phase: 'Succeeded', finishedAt: ago(5), message: 'successfully synced (all tasks run)' },
      },
      { automated: {} },
    );
    const ev = event(
      'ae1',
      { kind: 'Application', name: 'shop', namespace: 'argocd', apiVersion: 'argoproj.io/v1alpha1' },
      'OperationCompleted',
      `Sync operation to 1a2b failed: one or more objects failed to apply, reason: ${DEPLOY_MSG}`,
      1,
      50,
      50,
    );
    const r = run([app, ev]);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({ code: 'ARCH-RL02', severity: 'info' });
    expect(r.findings[0]!.evidence.state).toBe('one-off');
    expect([r.findings[0]!.title, r.findings[0]!.message, r.findings[0]!.why].join()).not.toMatch(/never stop retrying|keeps retrying/);
  });

  test('a PVC rejection keeps the whole Go diff: old → new per field, and the data warning', () => {
    const pvcMsg =
      'PersistentVolumeClaim "data" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n  core.PersistentVolumeClaimSpec{\n  \tAccessModes: {"ReadWriteOnce"},\n- \tVolumeName:  "pvc-0f1e",\n+ \tVolumeName:  "",\n  \tStorageClassName: &"local-path",\n  }';
    const app = argoApp(
      'db',
      {
        sync: { status: 'OutOfSync' },
        operationState: {
          phase: 'Failed',
          message: `one or more objects failed to apply, reason: ${pvcMsg}`,
          syncResult: {
            resources: [
              {
                group: '',
                version: 'v1',
                kind: 'PersistentVolumeClaim',
                namespace: 'db',
                name: 'data',
                status: 'SyncFailed',
                message: pvcMsg,
              },
            ],
          },
        },
      },
      { automated: {} },
    );
    const pvc = obj('v1', 'PersistentVolumeClaim', 'data', 'db', { spec: { volumeName: 'pvc-0f1e' } });
    const pv = obj('v1', 'PersistentVolume', 'pvc-0f1e', undefined, { spec: { persistentVolumeReclaimPolicy: 'Delete' } });
    const r = run([app, pvc, pv], {
      captured: [...CAPTURED, { group: '', kind: 'PersistentVolume' }, { group: '', kind: 'PersistentVolumeClaim' }],
    });
    const f = r.findings[0]!;
    expect(f.evidence.changes).toEqual([{ field: 'volumeName', old: 'pvc-0f1e', new: '(unset)' }]);
    expect(f.message).toContain('volumeName pvc-0f1e → (unset)');
    const fix = f.fix!.join('\n');
    expect(fix).toMatch(/volumeName: pvc-0f1e/);
    expect(fix).toMatch(/DELETES ITS DATA \(PersistentVolume pvc-0f1e has reclaimPolicy Delete\)/);
    expect(fix).not.toMatch(/--replace|Replace=true|--force/);
  });

  test('"primary clusterIP can not be unset" comes from replacing: the fix never suggests Replace', () => {
    const msg = 'Service "hooks" is invalid: spec.clusterIPs[0]: Invalid value: []string(nil): primary clusterIP can not be unset';
    const app = argoApp(
      'hooks',
      {
        sync: { status: 'OutOfSync' },
        operationState: {
          phase: 'Failed',
          message: `one or more objects failed to apply, reason: error when replacing "/dev/shm/1": ${msg}`,
        },
      },
      { syncOptions: ['Replace=true'] },
    );
    const r = run([app, obj('v1', 'Service', 'hooks', 'web', { spec: { clusterIP: '10.0.0.7', clusterIPs: ['10.0.0.7'] } })]);
    const f = r.findings[0]!;
    expect(f.code).toBe('ARCH-RL05');
    expect(f.fix!.join('\n')).toMatch(/stop replacing this Service/);
    expect(f.fix!.join('\n')).not.toMatch(/--replace|Replace=true/);
  });

  test('Argo CD managing itself: recreating its objects would replace the controller doing the sync', () => {
    const app = obj('argoproj.io/v1alpha1', 'Application', 'argocd', 'argocd', {
      spec: { destination: { namespace: 'argocd' }, syncPolicy: { automated: {} } },
      status: {
        sync: { status: 'OutOfSync' },
        operationState: {
          phase: 'Failed',
          message:
            'one or more objects failed to apply, reason: Deployment.apps "argocd-redis" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"redis2"}}: field is immutable',
        },
      },
    });
    const f = run([app]).findings[0]!;
    expect(f.fix!.join('\n')).toMatch(/manages Argo CD itself: recreating these objects replaces the controller/);
    expect(f.fix!.join('\n')).not.toMatch(/--force|Force=true/);
  });

  test('errors for several objects joined by a bare comma are split, one finding each', () => {
    const two =
      'Deployment.apps "a" is invalid: spec.selector: Invalid value: v1.LabelSelector{}: field is immutable,Deployment.apps "b" is invalid: spec.selector: Invalid value: v1.LabelSelector{}: field is immutable';
    const app = argoApp(
      'ab',
      {
        sync: { status: 'OutOfSync' },
        operationState: { phase: 'Failed', message: `one or more objects failed to apply, reason: ${two}` },
      },
      { automated: {} },
    );
    expect(run([app]).findings.map((f) => f.objects[1]!.name)).toEqual(['a', 'b']);
  });

  test('Helm-managed objects: the check says Helm CLI history (Secrets) is not read', () => {
    const d = obj('apps/v1', 'Deployment', 'web', 'shop', {
      metadata: { name: 'web', namespace: 'shop', labels: { 'app.kubernetes.io/managed-by': 'Helm' } },
    });
    const r = run([d], { captured: [...CAPTURED, { group: 'apps', kind: 'Deployment' }] });
    expect(r.status).toBe('passed');
    expect(r.notes.join()).toMatch(/managed by Helm: a Helm CLI release keeps its history in Secrets/);
  });
});
