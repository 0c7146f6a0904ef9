import { describe, expect, test } from '@jest/globals';
import { gitopsOrphans } from '../src/checks/gitops-orphans/check.js';
import { runChecks } from '../src/checks/run.js';
import type { KObject } from '../src/model.js';
import { cleanupPlan } from '../src/orphans/plan.js';
import { parseTrackingId, scanOrphans } from '../src/orphans/scan.js';
import { R } from '../src/resources.js';
import { loadSnapshot } from '../src/snapshot/load.js';
import { EXAMPLE, obj, snapshotOf } from './helpers/fixtures.js';

const CAPTURED = [
  R.pods,
  R.services,
  R.configmaps,
  R.endpoints,
  R.ingresses,
  R.persistentvolumes,
  R.persistentvolumeclaims,
  R.argoApplications,
  R.fluxKustomizations,
  R.fluxHelmReleases,
  R.deployments,
].map((n) => ({ group: n.group, kind: n.kind }));
let uid = 0;
const o = (
  apiVersion: string,
  kind: string,
  name: string,
  ns: string | undefined,
  labels: Record<string, string> = {},
  annotations: Record<string, string> = {},
  rest: Partial<KObject> = {},
): KObject =>
  obj(apiVersion, kind, name, ns, {
    ...rest,
    metadata: {
      name,
      ...(ns ? { namespace: ns } : {}),
      uid: `u${++uid}`,
      labels,
      annotations,
      creationTimestamp: '2026-01-01T00:00:00Z',
      ...(rest.metadata ?? {}),
    },
  });
const argoCm = (data: Record<string, string> = {}): KObject =>
  o('v1', 'ConfigMap', 'argocd-cm', 'argocd', { 'app.kubernetes.io/part-of': 'argocd' }, {}, { data });
const app = (name: string, ns = 'argocd', finalizers?: string[]): KObject =>
  o('argoproj.io/v1alpha1', 'Application', name, ns, {}, {}, { metadata: { name, namespace: ns, uid: `app-${name}`, finalizers } });
const tid = (app: string, group: string, kind: string, ns: string, name: string): Record<string, string> => ({
  'argocd.argoproj.io/tracking-id': `${app}:${group}/${kind}:${ns}/${name}`,
});
const inst = (v: string): Record<string, string> => ({ 'app.kubernetes.io/instance': v });
const scan = (objs: KObject[], captured = CAPTURED) => scanOrphans(snapshotOf(objs, { captured }));

describe('tracking id', () => {
  test('parses core, grouped and apps-in-any-namespace forms', () => {
    expect(parseTrackingId('web:/Service:blog/web')).toEqual({ app: 'web', group: '', kind: 'Service', namespace: 'blog', name: 'web' });
    expect(parseTrackingId('team-a_shop:apps/Deployment:shop/api')).toMatchObject({
      app: 'team-a_shop',
      group: 'apps',
      kind: 'Deployment',
    });
    expect(parseTrackingId('garbage')).toBeNull();
  });
});

describe('orphan scan', () => {
  test('the field-notes case: Application blog deleted, workloads still serving, PV and ClusterRole left', () => {
    const rep = scanOrphans(loadSnapshot(EXAMPLE));
    expect(rep.groups).toHaveLength(1);
    const g = rep.groups[0]!;
    expect(g.owner).toMatchObject({ tool: 'Argo CD', kind: 'Application', name: 'blog', namespace: 'argocd' });
    expect(g.confidence).toBe('high');
    expect(g.namespaced).toBe(5);
    expect(g.clusterScoped).toBe(2);
    expect(g.objects.map((x) => x.kind).sort()).toEqual([
      'ClusterRole',
      'ConfigMap',
      'Deployment',
      'Ingress',
      'PersistentVolume',
      'PersistentVolumeClaim',
      'Service',
    ]);
    expect(g.liveness).toMatchObject({ servingTraffic: true, runningPods: 2, readyEndpoints: 2 });
    expect(g.liveness.routes[0]).toMatch(/Ingress blog\/blog \(blog\.home\.arpa\) → blog-web/);
    expect(rep.risks.map((r) => r.app.name)).toEqual(['uptime-kuma']);
  });

  test('annotation, annotation+label and label-only tracking, with confidence', () => {
    const rep = scan([
      argoCm(),
      app('live'),
      o('v1', 'ConfigMap', 'a', 'x', {}, tid('gone-ann', '', 'ConfigMap', 'x', 'a')),
      o('v1', 'ConfigMap', 'b', 'x', inst('gone-both'), tid('gone-both', '', 'ConfigMap', 'x', 'b')),
      o('v1', 'ConfigMap', 'c', 'x', inst('gone-label')),
      o('v1', 'ConfigMap', 'd', 'x', inst('live'), tid('live', '', 'ConfigMap', 'x', 'd')),
    ]);
    const by = Object.fromEntries(rep.groups.map((g) => [g.owner.name, g]));
    expect(Object.keys(by).sort()).toEqual(['gone-ann', 'gone-both', 'gone-label']);
    expect(by['gone-ann']).toMatchObject({ confidence: 'high', signals: ['annotation'] });
    expect(by['gone-both']).toMatchObject({ confidence: 'high', signals: ['annotation+label'] });
    expect(by['gone-label']).toMatchObject({ confidence: 'low', signals: ['label'] });
  });

  test("K3s's traefik (helm-controller: instance traefik-kube-system, release traefik) is Helm's, not a deleted Application", () => {
    const helm = { 'meta.helm.sh/release-name': 'traefik', 'meta.helm.sh/release-namespace': 'kube-system' };
    const rep = scan([
      argoCm(),
      app('blog'),
      o(
        'apps/v1',
        'Deployment',
        'traefik',
        'kube-system',
        { ...inst('traefik-kube-system'), 'app.kubernetes.io/managed-by': 'Helm' },
        helm,
      ),
      o('v1', 'Service', 'traefik', 'kube-system', inst('traefik-kube-system'), helm),
      // no Helm annotations: an Argo CD leftover still is one
      o('v1', 'ConfigMap', 'c', 'x', inst('gone-label')),
    ]);
    expect(rep.groups.map((g) => g.owner.name)).toEqual(['gone-label']);
  });

  test('label tracking configured: label-only is medium confidence; with annotation tracking a label-only leftover is still reported, flagged', () => {
    expect(
      scan([argoCm({ 'application.resourceTrackingMethod': 'label' }), app('x'), o('v1', 'ConfigMap', 'c', 'n', inst('gone'))]).groups[0]!
        .confidence,
    ).toBe('medium');
    // objects keep the old tracking until their next sync: an app deleted right after a switch leaves label-only objects
    const g = scan([argoCm({ 'application.resourceTrackingMethod': 'annotation' }), app('x'), o('v1', 'ConfigMap', 'c', 'n', inst('gone'))])
      .groups[0]!;
    expect(g).toMatchObject({ confidence: 'low', signals: ['label'] });
    expect(g.caveats.join()).toMatch(/before a switch of tracking method/);
  });

  test('custom instance label key from argocd-cm', () => {
    const rep = scan([
      argoCm({ 'application.instanceLabelKey': 'argocd.argoproj.io/instance', 'application.resourceTrackingMethod': 'label' }),
      app('x'),
      o('v1', 'ConfigMap', 'c', 'n', { 'argocd.argoproj.io/instance': 'gone' }),
      o('v1', 'ConfigMap', 'd', 'n', inst('helmish')),
    ]);
    expect(rep.groups.map((g) => g.owner.name)).toEqual(['gone']);
  });

  test('apps in any namespace: <ns>_<name>', () => {
    const rep = scan([
      argoCm(),
      app('shop', 'team-a'),
      o('apps/v1', 'Deployment', 'api', 'shop', {}, tid('team-a_shop', 'apps', 'Deployment', 'shop', 'api')),
      o('apps/v1', 'Deployment', 'old', 'legacy', {}, tid('team-b_legacy', 'apps', 'Deployment', 'legacy', 'old')),
    ]);
    expect(rep.groups.map((g) => `${g.owner.namespace}/${g.owner.name}`)).toEqual(['team-b/legacy']);
  });

  test('a deleted app-of-apps parent leaves its child Applications; a live parent without finalizer is a risk', () => {
    const child1 = app('c1', 'argocd', ['resources-finalizer.argocd.argoproj.io']);
    child1.metadata.annotations = tid('root', 'argoproj.io', 'Application', 'argocd', 'c1');
    const child2 = app('c2', 'argocd', ['resources-finalizer.argocd.argoproj.io']);
    child2.metadata.annotations = tid('root', 'argoproj.io', 'Application', 'argocd', 'c2');
    const rep = scan([argoCm(), child1, child2]);
    expect(rep.groups[0]!.owner.name).toBe('root');
    expect(rep.groups[0]!.objects.map((x) => x.name)).toEqual(['c1', 'c2']);
    const live = scan([argoCm(), app('root'), child1, child2]);
    expect(live.groups).toHaveLength(0);
    expect(live.risks).toEqual([expect.objectContaining({ kind: 'app-of-apps-parent', children: ['argocd/c1', 'argocd/c2'] })]);
  });

  test('a copied tracking annotation does not count', () => {
    const rep = scan([argoCm(), app('x'), o('v1', 'ConfigMap', 'copy', 'n', {}, tid('gone', '', 'ConfigMap', 'n', 'original'))]);
    expect(rep.groups).toHaveLength(0);
    expect(rep.ignoredCopiedAnnotations).toBe(1);
  });

  test('a Helm release sharing the instance label with a live app, and a plain Helm release, are not orphans', () => {
    const helm = (name: string, release: string): KObject =>
      o(
        'apps/v1',
        'Deployment',
        name,
        'mon',
        { ...inst(release), 'app.kubernetes.io/managed-by': 'Helm' },
        { 'meta.helm.sh/release-name': release, 'meta.helm.sh/release-namespace': 'mon' },
      );
    const rep = scan([argoCm(), app('grafana'), helm('grafana', 'grafana'), helm('loki', 'loki')]);
    expect(rep.groups).toHaveLength(0);
  });

  test('kept on purpose is listed separately', () => {
    const rep = scan([
      argoCm(),
      app('x'),
      o(
        'v1',
        'PersistentVolumeClaim',
        'data',
        'n',
        {},
        { ...tid('gone', '', 'PersistentVolumeClaim', 'n', 'data'), 'argocd.argoproj.io/sync-options': 'Prune=false,Delete=false' },
      ),
      o('v1', 'ConfigMap', 'keep', 'n', {}, { ...tid('gone', '', 'ConfigMap', 'n', 'keep'), 'helm.sh/resource-policy': 'keep' }),
      o(
        'apiextensions.k8s.io/v1',
        'CustomResourceDefinition',
        'widgets.example.com',
        undefined,
        {},
        tid('gone', 'apiextensions.k8s.io', 'CustomResourceDefinition', 'n', 'widgets.example.com'),
      ),
      o('v1', 'ConfigMap', 'really', 'n', {}, tid('gone', '', 'ConfigMap', 'n', 'really')),
    ]);
    expect(rep.kept.map((k) => k.reason).sort()).toEqual([
      'CRDs are kept on delete',
      'argocd.argoproj.io/sync-options: Delete=false',
      'helm.sh/resource-policy: keep',
    ]);
    expect(rep.groups[0]!.objects.map((x) => x.name)).toEqual(['really']);
  });

  test('installationID: objects of another Argo CD instance are not ours to judge', () => {
    const rep = scan([
      argoCm({ installationID: 'prod' }),
      app('x'),
      o(
        'v1',
        'ConfigMap',
        'theirs',
        'n',
        {},
        { ...tid('gone', '', 'ConfigMap', 'n', 'theirs'), 'argocd.argoproj.io/installation-id': 'staging' },
      ),
      o('v1', 'ConfigMap', 'ours', 'n', {}, { ...tid('gone', '', 'ConfigMap', 'n', 'ours'), 'argocd.argoproj.io/installation-id': 'prod' }),
    ]);
    expect(rep.groups[0]!.objects.map((x) => x.name)).toEqual(['ours']);
  });

  test('a Flux Kustomization deleted with prune off leaves its objects', () => {
    const fl = { 'kustomize.toolkit.fluxcd.io/name': 'apps', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' };
    const rep = scan([
      o('apps/v1', 'Deployment', 'web', 'shop', fl),
      o('v1', 'ConfigMap', 'kept', 'shop', { ...fl, 'kustomize.toolkit.fluxcd.io/prune': 'disabled' }),
      o('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'infra', 'flux-system'),
      o('v1', 'Service', 'live', 'infra', {
        'kustomize.toolkit.fluxcd.io/name': 'infra',
        'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
      }),
    ]);
    expect(rep.groups.map((g) => `${g.owner.kind} ${g.owner.name}`)).toEqual(['Kustomization apps']);
    expect(rep.groups[0]!.confidence).toBe('high');
    expect(rep.kept.map((k) => k.name)).toEqual(['kept']);
  });

  test('a healthy cluster reports nothing', () => {
    const r = runChecks(
      [gitopsOrphans],
      snapshotOf(
        [
          argoCm(),
          app('web', 'argocd', ['resources-finalizer.argocd.argoproj.io']),
          o('apps/v1', 'Deployment', 'web', 'web', inst('web'), tid('web', 'apps', 'Deployment', 'web', 'web')),
        ],
        { captured: CAPTURED },
      ),
    )[0]!;
    expect(r.status).toBe('passed');
    expect(r.findings).toEqual([]);
  });

  test('Applications forbidden: tracked objects are not judged, and the note says why', () => {
    const snap = snapshotOf([argoCm(), o('v1', 'ConfigMap', 'c', 'n', {}, tid('gone', '', 'ConfigMap', 'n', 'c'))], {
      captured: CAPTURED.filter((c) => c.group !== 'argoproj.io'),
    });
    snap.markUnavailable({
      group: 'argoproj.io',
      kind: 'Application',
      status: 403,
      reason: 'forbidden: cannot list applications.argoproj.io (RBAC)',
    });
    const rep = scanOrphans(snap);
    expect(rep.groups).toHaveLength(0);
    expect(rep.notes.join()).toMatch(/Argo CD Applications not visible \(forbidden/);
  });

  test('types that could not be listed are named as partial visibility', () => {
    const snap = snapshotOf([argoCm(), app('x')], { captured: CAPTURED });
    snap.markUnavailable({ group: 'example.com', kind: 'Widget', resource: 'widgets', status: 403, reason: 'forbidden' });
    snap.markUnavailable({ group: 'metrics.k8s.io', kind: 'PodMetrics', resource: 'pods', status: 503, reason: 'service unavailable' });
    snap.markUnavailable({ group: 'gone.io', kind: 'Old', resource: 'olds', status: 404, reason: 'not served' });
    expect(scanOrphans(snap).notes.join()).toMatch(
      /partial visibility: 2 types could not be listed, not scanned: widgets.example.com \(403\), pods.metrics.k8s.io \(503\)/,
    );
  });

  test('tracking by an Argo CD that does not run here (e.g. a management cluster): cannot be judged here, never "no orphans"', () => {
    const snap = snapshotOf(
      [
        o('v1', 'ConfigMap', 'c', 'n', {}, { ...tid('web', '', 'ConfigMap', 'n', 'c'), 'argocd.argoproj.io/installation-id': 'mgmt-1' }),
        o('v1', 'ConfigMap', 'plain', 'n', inst('web')),
      ],
      { captured: CAPTURED.filter((c) => c.group !== 'argoproj.io') },
    );
    snap.markUnavailable({ group: 'argoproj.io', kind: 'Application', status: 404, reason: 'not installed' });
    const rep = scanOrphans(snap);
    expect(rep.groups).toEqual([]);
    // the installation id is not this cluster's (there is no argocd-cm here), so it is noted as foreign; without it, judged elsewhere
    const snap2 = snapshotOf([o('v1', 'ConfigMap', 'c', 'n', {}, tid('web', '', 'ConfigMap', 'n', 'c'))], {
      captured: CAPTURED.filter((c) => c.group !== 'argoproj.io'),
    });
    snap2.markUnavailable({ group: 'argoproj.io', kind: 'Application', status: 404, reason: 'not installed' });
    const r2 = runChecks([gitopsOrphans], snap2)[0]!;
    expect(r2.findings.map((f) => [f.code, f.severity])).toEqual([['ARCH-OR07', 'info']]);
    expect(r2.findings[0]!.title).toMatch(
      /tracked by Argo CD Application web, whose Argo CD is not in this cluster — cannot be judged here/,
    );
    // the label alone is weak, but it is the only name there is: the owner is named, as label-only (#26 rule 7)
    expect(rep.elsewhere.map((e) => [e.tool, e.owners, e.labelOnly])).toEqual([['Argo CD', ['Application web'], ['Application web']]]);
  });

  test('an Application being deleted: not an orphan, shown with how long, a warning when long or when no controller runs', () => {
    const deleting = o(
      'argoproj.io/v1alpha1',
      'Application',
      'web',
      'argocd',
      {},
      {},
      {
        metadata: {
          name: 'web',
          namespace: 'argocd',
          uid: 'app-web',
          deletionTimestamp: '2026-08-11T09:00:00Z',
          finalizers: ['resources-finalizer.argocd.argoproj.io'],
        },
        status: { conditions: [{ type: 'DeletionError', message: 'Unable to delete application resources: cluster "x" not found' }] },
      },
    );
    const r = runChecks(
      [gitopsOrphans],
      snapshotOf([argoCm(), deleting, o('v1', 'ConfigMap', 'c', 'n', inst('web'), tid('web', '', 'ConfigMap', 'n', 'c'))], {
        captured: CAPTURED,
      }),
    )[0]!;
    expect(r.findings.map((f) => f.code)).toEqual(['ARCH-OR08']);
    expect(r.findings[0]).toMatchObject({ severity: 'warning' });
    expect(r.findings[0]!.title).toMatch(/is being deleted \(for 2 days\)/);
    expect(r.findings[0]!.message).toMatch(/cluster "x" not found/);
  });

  test('no Argo CD and no Flux at all: the check is skipped with the reason', () => {
    const snap = snapshotOf([], {
      captured: CAPTURED.filter((c) => !['argoproj.io', 'kustomize.toolkit.fluxcd.io', 'helm.toolkit.fluxcd.io'].includes(c.group)),
    });
    for (const n of [R.argoApplications, R.fluxKustomizations, R.fluxHelmReleases])
      snap.markUnavailable({
        group: n.group,
        kind: n.kind,
        status: 404,
        reason: `${n.resource}.${n.group} is not served here (CRD not installed)`,
      });
    const r = runChecks([gitopsOrphans], snap)[0]!;
    expect(r.status).toBe('skipped');
    expect(r.reason).toMatch(/no GitOps owner is visible/);
  });

  test('dangling ownerReferences when the owner type was captured', () => {
    const rs = o(
      'apps/v1',
      'ReplicaSet',
      'web-1',
      'n',
      {},
      {},
      {
        metadata: {
          name: 'web-1',
          namespace: 'n',
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'gone-uid' }],
        },
      },
    );
    const cm = o(
      'v1',
      'ConfigMap',
      'c',
      'n',
      {},
      {},
      {
        metadata: {
          name: 'c',
          namespace: 'n',
          ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'unknown-type' }],
        },
      },
    );
    const rep = scan([argoCm(), app('x'), rs, cm]);
    expect(rep.dangling.map((d) => d.name)).toEqual(['web-1']);
  });

  test('cleanup plan: traffic, workloads, config, storage (data named), cluster-scoped; commented out while serving', () => {
    const plan = cleanupPlan(scanOrphans(loadSnapshot(EXAMPLE)).groups);
    // the field-notes app still serves traffic: nothing runs by copy-paste
    expect(plan).toMatch(/NOT RECOMMENDED AS IS[^\n]*\n#   it is still serving traffic \(Ingress blog\/blog/);
    expect(plan.split('\n').filter((l) => l.startsWith('kubectl '))).toEqual([]);
    const cmds = plan.split('\n').filter((l) => l.startsWith('# kubectl delete'));
    expect(cmds.map((c) => c.split(' ')[3])).toEqual([
      'ingress.networking.k8s.io',
      'service',
      'deployment.apps',
      'configmap',
      'persistentvolumeclaim',
      'clusterrole.rbac.authorization.k8s.io',
      'persistentvolume',
    ]);
    expect(plan).toMatch(/# DATA: PersistentVolumeClaim blog\/blog-data/);
    expect(plan).toMatch(/# DATA: PersistentVolume pvc-3f6b1c2e-blog-data/);
    expect(plan).not.toMatch(/--now|--force/);
  });

  test('cleanup plan: a namespace is deleted only when nothing else lives in it; an idle group is runnable', () => {
    const ns = o('v1', 'Namespace', 'shared', undefined, {}, tid('gone', '', 'Namespace', 'shared', 'shared'));
    const cm = o('v1', 'ConfigMap', 'cfg', 'shared', {}, tid('gone', '', 'ConfigMap', 'shared', 'cfg'));
    const other = o('v1', 'ConfigMap', 'someone-else', 'shared');
    const plan = cleanupPlan(scan([argoCm(), app('x'), ns, cm, other]).groups);
    expect(plan).toMatch(/^kubectl delete configmap cfg -n shared --wait=false$/m);
    expect(plan).not.toMatch(/kubectl delete namespace shared/);
    expect(plan).toMatch(/# namespace shared is not deleted: it also holds ConfigMap someone-else/);
    const alone = cleanupPlan(scan([argoCm(), app('x'), ns, cm]).groups);
    expect(alone).toMatch(/^kubectl delete namespace shared --wait=false$/m);
    // the namespace comes last
    expect(alone.indexOf('delete namespace')).toBeGreaterThan(alone.indexOf('delete configmap'));
  });
});
