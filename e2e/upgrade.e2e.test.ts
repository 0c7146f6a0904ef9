// what-if --upgrade held to a real upgrade (#47): kube-apiserver v1.24.17 on a real etcd, objects written through the
// API versions v1.25 removes — by kubectl (client-side apply and create) and by an owner that keeps applying them
// (server-side apply as Flux's kustomize-controller, every 2 s, with the Kustomization's inventory saying through
// which version) — beside objects written through the versions that stay. The reader predicts `what-if --upgrade
// v1.25.16`; then the upgrade is done for real: the v1.24.17 API server stopped and a v1.25.16 one started on the
// same etcd. Every predicted removal must be refused (404 on its group version, and kubectl's apply refused), the
// owner's applies must fail for exactly the objects predicted, and nothing unpredicted may break: every other object
// is still served, every write through a version that stays still succeeds. The table itself is held to the real
// servers by difference: what v1.24.17 serves and v1.25.16 does not, and what v1.25.16 serves and v1.36.3 does not,
// is exactly what src/lib/api-removals.ts says those releases removed.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { buildApiserverAt, startControlPlane, type ControlPlane } from './lib/cluster.mjs';
import { controlPlaneBinaries } from './lib/setup.js';
import { grantReaders } from './lib/readers.mjs';
import { kubectl } from '../__tests__/helpers/run.js';
import { API_REMOVALS } from '../src/lib/removed-apis.js';

const OLD = 'v1.24.17';
const NEW = 'v1.25.16';
const bins = controlPlaneBinaries();
const built = { old: '', new: '' };
beforeAll(() => {
  built.old = buildApiserverAt(OLD);
  built.new = buildApiserverAt(NEW);
}, 3_600_000);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const dir = mkdtempSync(join(tmpdir(), 'kubectl-arch-upgrade-'));
const file = (name: string, docs: unknown[]): string => {
  const p = join(dir, name);
  writeFileSync(p, docs.map((d) => dump(d)).join('---\n'));
  return p;
};

/** Every top-level resource a server serves, as "group/version Kind" (discovery: /api, /apis, each group version). */
async function served(cp: ControlPlane): Promise<Set<string>> {
  const out = new Set<string>();
  const gvs = [
    'v1',
    ...((await cp.admin('GET', '/apis')).json.groups as Array<{ versions: Array<{ groupVersion: string }> }>).flatMap((g) =>
      g.versions.map((v) => v.groupVersion),
    ),
  ];
  for (const gv of gvs) {
    const r = await cp.admin('GET', gv === 'v1' ? '/api/v1' : `/apis/${gv}`);
    for (const res of (r.json.resources ?? []) as Array<{ name: string; kind: string }>)
      if (!res.name.includes('/')) out.add(`${gv} ${res.kind}`);
  }
  return out;
}
const row = (r: { group: string; version: string; kind: string }): string => `${r.group ? `${r.group}/` : ''}${r.version} ${r.kind}`;

const ns = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const cron = (name: string, apiVersion: string) => ({
  apiVersion,
  kind: 'CronJob',
  metadata: { name, namespace: 'ops' },
  spec: {
    schedule: '0 3 * * *',
    jobTemplate: {
      spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'registry.example/backup:1' }] } } },
    },
  },
});
const fluxLabels = { 'kustomize.toolkit.fluxcd.io/name': 'infra', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' };
/** What the owner applies: through versions v1.25 removes (predicted) and one that stays (a true negative). */
const owned = [
  {
    apiVersion: 'policy/v1beta1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'web', namespace: 'shop', labels: fluxLabels },
    spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
  },
  {
    apiVersion: 'autoscaling/v2beta1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'api', namespace: 'shop', labels: fluxLabels },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' },
      minReplicas: 1,
      maxReplicas: 3,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 80 } }],
    },
  },
  { apiVersion: 'node.k8s.io/v1beta1', kind: 'RuntimeClass', metadata: { name: 'gvisor', labels: fluxLabels }, handler: 'runsc' },
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'shop-settings', namespace: 'shop', labels: fluxLabels },
    data: { mode: 'prod' },
  },
];
const KUSTOMIZATION_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'kustomizations.kustomize.toolkit.fluxcd.io' },
  spec: {
    group: 'kustomize.toolkit.fluxcd.io',
    scope: 'Namespaced',
    names: { kind: 'Kustomization', plural: 'kustomizations', singular: 'kustomization', listKind: 'KustomizationList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

interface Attempt {
  /** When it started: an apply that started before the upgrade may end after it, with kubectl's discovery of the old
   *  server (a stale discovery cache makes kubectl send the request, and the server answers 404 NotFound). */
  started: number;
  at: number;
  ok: boolean;
  out: string;
}

describe(`what-if --upgrade ${NEW} on ${OLD}, then the upgrade for real`, () => {
  let cp: ControlPlane;
  let prediction: any;
  let predictedExit = -1;
  const attempts: Attempt[] = [];
  let looping = true;
  let loop: Promise<void> | undefined;
  // kubectl's discovery cache is per server address, which the upgrade keeps: one cache per release
  let cacheDir = join(dir, `cache-${OLD}`);
  const admin = (args: string[]) => kubectl([...args, '--kubeconfig', cp.kubeconfig, '--context', 'admin', '--cache-dir', cacheDir]);
  let served24: Set<string>;
  let served25: Set<string>;
  let ownedFile = '';
  let upgradedAt = Infinity;

  beforeAll(async () => {
    cp = await startControlPlane({ apiserver: built.old });
    await grantReaders(cp);
    for (const n of ['ops', 'shop', 'flux-system']) expect((await cp.admin('POST', '/api/v1/namespaces', ns(n))).status).toBe(201);
    // kubectl apply through the removed version: the door (ARCH-WI40); and a CronJob written through batch/v1 (no prediction)
    const applied = await admin(['apply', '-f', file('cron-old.yaml', [cron('backup', 'batch/v1beta1')])]);
    expect([applied.code, applied.stderr]).toEqual([0, expect.anything()]);
    expect((await admin(['apply', '-f', file('cron-new.yaml', [cron('report', 'batch/v1')])])).code).toBe(0);
    // kubectl create through removed versions: an EndpointSlice and a Warning event; a PodSecurityPolicy (no replacement)
    const created = await admin([
      'create',
      '-f',
      file('created.yaml', [
        {
          apiVersion: 'discovery.k8s.io/v1beta1',
          kind: 'EndpointSlice',
          metadata: { name: 'legacy-db', namespace: 'shop' },
          addressType: 'IPv4',
          endpoints: [{ addresses: ['10.0.0.9'], topology: { 'kubernetes.io/hostname': 'db-host' } }],
          ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }],
        },
        {
          apiVersion: 'events.k8s.io/v1beta1',
          kind: 'Event',
          metadata: { name: 'legacy-alert', namespace: 'shop' },
          eventTime: new Date().toISOString().replace(/Z$/, '000Z'),
          reportingController: 'legacy-alerter',
          reportingInstance: 'legacy-alerter-1',
          action: 'Alert',
          reason: 'DiskFilling',
          type: 'Warning',
          note: 'disk 91% full',
          regarding: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'shop-settings' },
        },
        {
          apiVersion: 'policy/v1beta1',
          kind: 'PodSecurityPolicy',
          metadata: { name: 'restricted' },
          spec: {
            privileged: false,
            seLinux: { rule: 'RunAsAny' },
            runAsUser: { rule: 'MustRunAsNonRoot' },
            supplementalGroups: { rule: 'RunAsAny' },
            fsGroup: { rule: 'RunAsAny' },
            volumes: ['configMap', 'secret'],
          },
        },
      ]),
    ]);
    expect([created.code, created.stderr]).toEqual([0, expect.not.stringMatching(/error/i)]);
    // the owner: a Flux Kustomization (its CRD and object, its inventory saying through which version each entry was
    // applied), and the loop that applies its manifests every 2 s as kustomize-controller does (server-side apply)
    expect((await cp.admin('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', KUSTOMIZATION_CRD)).status).toBe(201);
    await sleep(1500);
    const ks = await cp.admin('POST', '/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations', {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: 'infra', namespace: 'flux-system' },
      spec: { interval: '2s', prune: true, path: './infra', sourceRef: { kind: 'GitRepository', name: 'infra' } },
    });
    expect(ks.status).toBe(201);
    const inventory = owned.map((o) => ({
      id: `${o.metadata.namespace ?? ''}_${o.metadata.name}_${o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : ''}_${o.kind}`,
      v: o.apiVersion.split('/').pop(),
    }));
    const st = await cp.admin('PUT', '/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/infra/status', {
      ...ks.json,
      status: {
        inventory: { entries: inventory },
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'ReconciliationSucceeded',
            message: 'Applied revision: main@sha1:abc',
            lastTransitionTime: new Date().toISOString(),
          },
        ],
      },
    });
    expect(st.status).toBe(200);
    ownedFile = file('owned.yaml', owned);
    loop = (async () => {
      while (looping) {
        const started = Date.now();
        const r = await admin(['apply', '--server-side', '--field-manager=kustomize-controller', '--force-conflicts', '-f', ownedFile]);
        attempts.push({ started, at: Date.now(), ok: r.code === 0, out: `${r.stdout}${r.stderr}` });
        await sleep(2000);
      }
    })();
    // the owner applied everything at least once on the old server
    while (!attempts.some((a) => a.ok)) await sleep(200);
    served24 = await served(cp);
    // the prediction, as the reader, through the real kubectl plugin mechanism
    const r = await kubectl(['arch', 'what-if', '--upgrade', NEW, '--kubeconfig', cp.kubeconfig, '--context', 'reader', '-o', 'json']);
    predictedExit = r.code;
    expect([r.code, r.stderr]).toEqual([1, '']);
    prediction = JSON.parse(r.stdout);
    // the upgrade, for real: the old API server stopped, the new one started on the same etcd
    await cp.replaceApiserver(built.new);
    cacheDir = join(dir, `cache-${NEW}`);
    upgradedAt = Date.now();
    served25 = await served(cp);
    // two of the owner's passes that started against the new server
    while (attempts.filter((a) => a.started > upgradedAt).length < 2) await sleep(500);
  }, 3_600_000);
  afterAll(async () => {
    looping = false;
    await loop;
    await cp?.stop();
  });

  const predicted = (code: string) => prediction.predictions.filter((p: any) => p.code === code);
  const names = (p: any) => p.objects.map((o: any) => `${o.kind}/${o.namespace ? `${o.namespace}/` : ''}${o.name}`).sort();

  test('the prediction: the door, the owner that would keep applying, the kind that goes; nothing for what stays', () => {
    expect(predictedExit).toBe(1);
    expect(prediction.hypothesis.upgrade).toMatchObject({ from: OLD, to: NEW, minors: ['v1.25'] });
    const wi40 = predicted('ARCH-WI40')
      .map((p: any) => `${p.severity} ${names(p).join(',')}`)
      .sort();
    expect(wi40).toEqual(['error CronJob/ops/backup', 'error EndpointSlice/shop/legacy-db', 'warning Event/shop/legacy-alert']);
    expect(predicted('ARCH-WI40').find((p: any) => p.objects[0].name === 'backup').message).toMatch(
      /kubectl-client-side-apply|last-applied/,
    );
    expect(predicted('ARCH-WI41').map(names)).toEqual([['PodSecurityPolicy/restricted']]);
    const loops = predicted('ARCH-WI43');
    expect(loops.map(names)).toEqual([
      ['HorizontalPodAutoscaler/shop/api', 'Kustomization/flux-system/infra', 'PodDisruptionBudget/shop/web', 'RuntimeClass/gvisor'],
    ]);
    expect(loops[0].message).toMatch(/every 2s/);
    const all = prediction.predictions.flatMap((p: any) => p.objects.map((o: any) => o.name));
    for (const stays of ['report', 'shop-settings']) expect(all).not.toContain(stays);
    // every v1.25 removal is in the table it printed, with what uses it
    expect(
      prediction.upgrade.removals
        .filter((x: any) => x.written + x.applied + x.gone > 0)
        .map((x: any) => `${x.apiVersion} ${x.kind}`)
        .sort(),
    ).toEqual(
      [
        'autoscaling/v2beta1 HorizontalPodAutoscaler',
        'batch/v1beta1 CronJob',
        'discovery.k8s.io/v1beta1 EndpointSlice',
        'events.k8s.io/v1beta1 Event',
        'node.k8s.io/v1beta1 RuntimeClass',
        'policy/v1beta1 PodDisruptionBudget',
        'policy/v1beta1 PodSecurityPolicy',
      ].sort(),
    );
  });

  test('after the upgrade every predicted removal is refused: 404 on its group version, kubectl apply turned away', async () => {
    const removedGvs = prediction.upgrade.removals.filter((x: any) => x.written + x.applied + x.gone > 0).map((x: any) => x.apiVersion);
    for (const gv of new Set(removedGvs)) {
      const r = await cp.admin('GET', `/apis/${gv}`);
      // policy/v1beta1 held only PodSecurityPolicy and PodDisruptionBudget: the whole group version is gone
      expect([gv, r.status]).toEqual([gv, 404]);
    }
    const again = await admin(['apply', '-f', join(dir, 'cron-old.yaml')]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('no matches for kind "CronJob" in version "batch/v1beta1"');
    // the object itself stays, served through the replacement
    expect((await cp.admin('GET', '/apis/batch/v1/namespaces/ops/cronjobs/backup')).status).toBe(200);
    expect((await cp.admin('GET', '/apis/policy/v1beta1/podsecuritypolicies/restricted')).status).toBe(404);
  });

  test("the owner's applies fail from the upgrade on, for exactly the objects predicted, in the prediction's words", () => {
    const after = attempts.filter((a) => a.started > upgradedAt).slice(0, 2);
    expect(after).toHaveLength(2);
    expect(after.every((a) => !a.ok)).toBe(true);
    const loops = predicted('ARCH-WI43')[0];
    for (const o of loops.objects.filter((x: any) => x.kind !== 'Kustomization')) {
      const r = API_REMOVALS.find((x) => x.kind === o.kind && x.removed === 25)!;
      const words = `no matches for kind "${o.kind}" in version "${r.group}/${r.version}"`;
      expect(loops.message).toContain(words);
      expect(after[0]!.out).toContain(words);
    }
    // the true negative in the same file is applied all the same (kubectl applies the rest)
    expect(after[0]!.out).toMatch(/configmap\/shop-settings serverside-applied/);
  });

  test('nothing unpredicted broke: what stays is still served and still written', async () => {
    for (const path of [
      '/apis/batch/v1/namespaces/ops/cronjobs/report',
      '/apis/batch/v1/namespaces/ops/cronjobs/backup',
      '/apis/policy/v1/namespaces/shop/poddisruptionbudgets/web',
      '/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers/api',
      '/apis/node.k8s.io/v1/runtimeclasses/gvisor',
      '/apis/discovery.k8s.io/v1/namespaces/shop/endpointslices/legacy-db',
      '/api/v1/namespaces/shop/configmaps/shop-settings',
      '/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/infra',
    ])
      expect([path, (await cp.admin('GET', path)).status]).toEqual([path, 200]);
    expect((await admin(['apply', '-f', join(dir, 'cron-new.yaml')])).code).toBe(0);
  });

  test('the table, by difference: what v1.24.17 serves and v1.25.16 does not is exactly what it says v1.25 removed', () => {
    const gone = [...served24].filter((x) => !served25.has(x)).sort();
    const table = API_REMOVALS.filter((r) => r.removed === 25 && served24.has(row(r)))
      .map(row)
      .sort();
    expect(gone).toEqual(table);
    // and nothing it says is removed later is gone yet, nothing it says was removed before is still there
    for (const r of API_REMOVALS) {
      if (r.removed > 25 && served24.has(row(r))) expect([row(r), served25.has(row(r))]).toEqual([row(r), true]);
      if (r.removed <= 24) expect([row(r), served24.has(row(r))]).toEqual([row(r), false]);
    }
  });

  test('the table, by difference on a third release: v1.25.16 to v1.36.3', async () => {
    const cp36 = await startControlPlane({ apiserver: bins.apiserver });
    try {
      const served36 = await served(cp36);
      // the Kustomization CRD is this cluster's own, not the release's
      const gone = [...served25].filter((x) => !served36.has(x) && !x.startsWith('kustomize.toolkit.fluxcd.io/')).sort();
      const table = API_REMOVALS.filter((r) => r.removed > 25 && r.removed <= 36 && served25.has(row(r)))
        .map(row)
        .sort();
      expect(gone).toEqual(table);
      for (const r of API_REMOVALS) if (r.removed <= 36) expect([row(r), served36.has(row(r))]).toEqual([row(r), false]);
    } finally {
      await cp36.stop();
    }
  });
});
