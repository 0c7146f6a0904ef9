// what-if -f's model (#45), piece by piece: the object the API server receives by how the change is applied
// (src/change/apply.ts), the digests that let a snapshot judge what it does not keep (src/snapshot/digest.ts), and the
// update rules of the cluster's version (src/change/rules/) on the failures users and a hostile pass found. The same
// rules are held to the real API servers' answers by the difference test (__tests__/difference.test.ts).
import { describe, expect, test } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import { receive } from '../src/change/apply.js';
import { withDefaults } from '../src/change/defaults.js';
import { parseManifests } from '../src/change/manifests.js';
import { predictChange } from '../src/change/predict.js';
import { judgeUpdate } from '../src/change/rules/index.js';
import type { KObject } from '../src/model.js';
import { R } from '../src/resources.js';
import { digestMatches, digestOf, isDigest } from '../src/snapshot/digest.js';
import { ingest, scrubWhole } from '../src/snapshot/scrub.js';
import { Snapshot } from '../src/snapshot/snapshot.js';

const obj = (o: Record<string, unknown>): KObject => o as unknown as KObject;
const ctx = (minor = 36, extra: Record<string, unknown> = {}) => ({ minor, storageClass: () => undefined, ...extra });
const fields = (j: ReturnType<typeof judgeUpdate>): string[] => j.refusals.map((r) => r.field);

const deployment = (containers: unknown[], meta: Record<string, unknown> = {}, spec: Record<string, unknown> = {}): KObject =>
  obj({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', ...meta },
    spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers } }, ...spec },
  });

describe('the object received', () => {
  test('client-side apply removes what the last apply wrote and this one does not, and keeps what others wrote', () => {
    const first = deployment([
      {
        name: 'web',
        image: 'a',
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
      },
    ]);
    const live = deployment(
      [
        {
          name: 'web',
          image: 'a',
          imagePullPolicy: 'IfNotPresent',
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '2' },
          ],
        },
      ],
      {
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(first) },
      },
    );
    // the plugin reads the annotation as digests only
    const read = scrubWhole(JSON.parse(JSON.stringify(live)) as KObject);
    expect(read.metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration']).not.toContain('"B"');
    const next = receive(deployment([{ name: 'web', image: 'b', env: [{ name: 'A', value: '1' }] }]), read, 'client-side').object;
    const c = next.spec.template.spec.containers[0];
    expect(c.env).toEqual([{ name: 'A', value: '1' }]);
    expect(c.image).toBe('b');
    // written by the server, not by an apply: stays
    expect(c.imagePullPolicy).toBe('IfNotPresent');
  });

  test('client-side apply with no last-applied annotation removes nothing (a first kubectl apply)', () => {
    const live = deployment([{ name: 'web', image: 'a', env: [{ name: 'B', value: '2' }] }]);
    const next = receive(deployment([{ name: 'web', image: 'a' }]), live, 'client-side');
    expect(next.object.spec.template.spec.containers[0].env).toEqual([{ name: 'B', value: '2' }]);
    expect(next.notes.join(' ')).toMatch(/no last-applied-configuration/);
  });

  test('a strategy the manifest changes to Recreate loses its rollingUpdate (retainKeys)', () => {
    const live = deployment([{ name: 'web', image: 'a' }], {}, { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } });
    const next = receive(deployment([{ name: 'web', image: 'a' }], {}, { strategy: { type: 'Recreate' } }), live, 'client-side').object;
    expect(next.spec.strategy).toEqual({ type: 'Recreate' });
  });

  test('server-side apply removes what the manager applied and applies no more, unless another manager owns it', () => {
    const live = obj({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'cfg',
        managedFields: [
          { manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {}, 'f:c': {} } } },
          { manager: 'other', operation: 'Update', fieldsV1: { 'f:data': { 'f:c': {} } } },
        ],
      },
      data: { a: '1', b: '2', c: '3', d: '4' },
    });
    const next = receive(
      obj({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { a: '9' } }),
      live,
      'server-side',
    ).object;
    expect(next.data).toEqual({ a: '9', c: '3', d: '4' });
  });

  test('replace: the manifest is the whole object; Helm: nothing dropped is known, and it says why', () => {
    const live = deployment([{ name: 'web', image: 'a' }], { labels: { x: '1' } });
    expect(receive(deployment([{ name: 'web', image: 'a' }]), live, 'replace').object.metadata.labels).toBeUndefined();
    const h = receive(deployment([{ name: 'web', image: 'a' }]), live, 'helm');
    expect(h.object.metadata.labels).toEqual({ x: '1' });
    expect(h.notes.join(' ')).toMatch(/Secret \(never read\)/);
  });

  test('wrangler (K3s addons): its gzipped objectset.rio.cattle.io/applied is the last apply', () => {
    const applied = obj({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { a: '1', b: '2' } });
    const live = obj({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', annotations: { 'objectset.rio.cattle.io/applied': gzipSync(JSON.stringify(applied)).toString('base64') } },
      data: { a: '1', b: '2' },
    });
    expect(
      receive(obj({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { a: '1' } }), live, 'wrangler').object.data,
    ).toEqual({
      a: '1',
    });
  });
});

describe('digests: a change judged without keeping the value', () => {
  test('a digest stands for its value alone, salted each time', () => {
    const a = digestOf('s3cr3t');
    const b = digestOf('s3cr3t');
    expect(isDigest(a)).toBe(true);
    expect(a).not.toBe(b);
    expect(a).not.toContain('s3cr3t');
    expect([digestMatches(a, 's3cr3t'), digestMatches(a, 'other'), digestMatches(b, 's3cr3t')]).toEqual([true, false, true]);
    expect(digestMatches(digestOf({ b: 1, a: [2] }), { a: [2], b: 1 })).toBe(true);
  });

  const job = (env: string, image = 'perl:5.34'): KObject =>
    obj({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'migrate', namespace: 'shop' },
      spec: {
        completions: 1,
        parallelism: 1,
        selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u1' } },
        template: {
          metadata: { labels: { 'batch.kubernetes.io/controller-uid': 'u1' } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'm', image, env: [{ name: 'TOKEN', value: env }] }] },
        },
      },
      status: { startTime: '2026-11-30T00:00:00Z' },
    });

  test("a snapshot keeps a Job's template with its env values as digests: a changed value is refused, the same one is not", () => {
    const kept = ingest(job('t0ps3cret'));
    expect(JSON.stringify(kept)).not.toContain('t0ps3cret');
    const manifest = (env: string, image?: string): KObject => {
      const j = job(env, image);
      delete j.spec.selector;
      delete j.spec.template.metadata;
      return j;
    };
    const judge = (m: KObject) => judgeUpdate(withDefaults(kept), receive(m, kept, 'client-side').object, ctx());
    expect(fields(judge(manifest('t0ps3cret')))).toEqual([]);
    expect(judge(manifest('t0ps3cret')).unseen).toEqual([]);
    expect(fields(judge(manifest('rotated')))).toEqual(['spec.template']);
    expect(fields(judge(manifest('t0ps3cret', 'perl:5.36')))).toEqual(['spec.template']);
  });
});

describe('the update rules, on what went wrong', () => {
  const svc = (spec: Record<string, unknown>): KObject => obj({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec });

  test('a headless Service turned into a LoadBalancer is refused', () => {
    const live = svc({ type: 'ClusterIP', clusterIP: 'None', clusterIPs: ['None'], ports: [{ port: 80, protocol: 'TCP' }] });
    expect(fields(judgeUpdate(live, { ...live, spec: { ...live.spec, type: 'LoadBalancer' } }, ctx()))).toEqual(['spec.clusterIPs[0]']);
  });

  test('clusterIP "" applied, then left out: removed by the three-way merge; refused before v1.20, kept from v1.20', () => {
    const first = svc({ clusterIP: '', ports: [{ port: 80 }] });
    const live = svc({ type: 'ClusterIP', clusterIP: '10.43.0.7', clusterIPs: ['10.43.0.7'], ports: [{ port: 80, protocol: 'TCP' }] });
    live.metadata.annotations = { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(first) };
    const next = receive(svc({ ports: [{ port: 80 }] }), scrubWhole(JSON.parse(JSON.stringify(live)) as KObject), 'client-side').object;
    expect(next.spec.clusterIP).toBeUndefined();
    expect(fields(judgeUpdate(live, next, ctx(19)))).toEqual(['spec.clusterIP']);
    expect(fields(judgeUpdate(live, next, ctx(20)))).toEqual([]);
  });

  test('kinds the old table never listed: roleRef, StorageClass parameters, PriorityClass value, IngressClass controller, CSIDriver attachRequired', () => {
    const rb = obj({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'b' },
      roleRef: { kind: 'Role', name: 'a' },
    });
    expect(fields(judgeUpdate(rb, { ...rb, roleRef: { kind: 'ClusterRole', name: 'a' } }, ctx()))).toEqual(['roleRef']);
    const sc = obj({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'c' },
      provisioner: 'p',
      parameters: { type: 'gp2' },
    });
    expect(fields(judgeUpdate(sc, { ...sc, parameters: { type: 'gp3' } }, ctx()))).toEqual(['parameters']);
    const pc = obj({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'p' }, value: 10 });
    expect(fields(judgeUpdate(pc, { ...pc, value: 11 }, ctx()))).toEqual(['value']);
    const ic = obj({ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'i' }, spec: { controller: 'a/b' } });
    expect(fields(judgeUpdate(ic, { ...ic, spec: { controller: 'a/c' } }, ctx()))).toEqual(['spec.controller']);
    const cd = obj({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'd' }, spec: { attachRequired: true } });
    expect(fields(judgeUpdate(cd, { ...cd, spec: { attachRequired: false } }, ctx()))).toEqual(['spec.attachedRequired']);
  });

  test('a kind with no rule, or a field no rule covers, is not judged — never accepted', () => {
    const x = obj({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } });
    expect(judgeUpdate(x, { ...x, spec: { size: 2 } }, ctx()).noRule).toMatch(/no rule for Widget.example.com/);
    expect(judgeUpdate(x, x, ctx()).noRule).toBeUndefined();
    const sa = obj({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'a' } });
    const j = judgeUpdate(sa, { ...sa, somethingNew: true }, ctx());
    expect(j.unseen.map((u) => u.why)).toEqual(['somethingNew: no rule for this field of ServiceAccount']);
  });

  test('a claim whose class is named by the beta annotation grows when that class allows it', () => {
    const pvc = (size: string): KObject =>
      obj({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'c', annotations: { 'volume.beta.kubernetes.io/storage-class': 'fast' } },
        spec: { accessModes: ['ReadWriteOnce'], volumeName: 'pv1', resources: { requests: { storage: size } } },
        status: { phase: 'Bound', capacity: { storage: size } },
      });
    const sc = (allow: boolean) => () =>
      obj({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, allowVolumeExpansion: allow });
    expect(fields(judgeUpdate(pvc('10Gi'), pvc('20Gi'), ctx(36, { storageClass: sc(true) })))).toEqual([]);
    expect(judgeUpdate(pvc('10Gi'), pvc('20Gi'), ctx(36, { storageClass: sc(false) })).refusals[0]!.status).toBe(403);
  });

  test('an Indexed Job grows completions with parallelism from v1.27; before, completions is immutable', () => {
    const j = (n: number): KObject =>
      obj({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'j' },
        spec: { completionMode: 'Indexed', completions: n, parallelism: n, template: {} },
      });
    expect(fields(judgeUpdate(j(5), j(7), ctx(27)))).toEqual([]);
    expect(fields(judgeUpdate(j(5), j(7), ctx(26)))).toEqual(['spec.completions']);
  });

  test('a suspended Job that never started may change its node affinity, not its pod affinity', () => {
    const j = (affinity?: unknown): KObject =>
      obj({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'j' },
        spec: { suspend: true, template: { spec: { containers: [{ name: 'c', image: 'i' }], ...(affinity ? { affinity } : {}) } } },
        status: {},
      });
    const node = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }] },
      },
    };
    const pod = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'k', labelSelector: {} }] } };
    expect(fields(judgeUpdate(j(), j(node), ctx(30)))).toEqual([]);
    expect(fields(judgeUpdate(j(), j(pod), ctx(30)))).toEqual(['spec.template']);
  });
});

describe('reading and advising', () => {
  test('YAML merge keys are expanded, as kubectl reads them', () => {
    const text = [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: a',
      '  annotations: &a {team: t}',
      '  labels:',
      '    <<: *a',
      '    tier: x',
    ];
    expect(parseManifests(text.join('\n'), 'm.yaml')[0]!.object.metadata.labels).toEqual({ team: 't', tier: 'x' });
  });

  test('a claim that cannot shrink: the advice keeps the data (a migration, the reclaim policy named), never a delete and re-apply', () => {
    const snap = new Snapshot({ serverVersion: { gitVersion: 'v1.36.3' } });
    const claim = obj({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'registry', namespace: 'shop', uid: 'u' },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'fast',
        volumeName: 'pv-registry',
        resources: { requests: { storage: '350Gi' } },
      },
      status: { phase: 'Bound', capacity: { storage: '350Gi' } },
    });
    for (const t of [R.namespaces, R.storageclasses, R.validatingWebhooks, R.mutatingWebhooks, R.services, R.endpoints, R.crds])
      snap.addList(t.group, t.kind, []);
    snap.addList('', 'Namespace', [obj({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } })]);
    snap.addList('', 'PersistentVolume', [
      obj({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: 'pv-registry' },
        spec: { persistentVolumeReclaimPolicy: 'Delete' },
      }),
    ]);
    snap.named.set('PersistentVolumeClaim\u0000shop\u0000registry', { object: claim });
    const [m] = parseManifests(
      'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: registry, namespace: shop}\nspec: {resources: {requests: {storage: 100Gi}}}\n',
      'pvc.yaml',
    );
    const r = predictChange([m!], snap, new Date(), { defaultNamespace: 'default' });
    const p = r.predictions.find((x) => x.code === 'ARCH-WI20')!;
    const fix = JSON.stringify(p.fix);
    expect(fix).not.toMatch(/kubectl delete/);
    expect(fix).toMatch(/migrate \(keeps the data\)/);
    expect(fix).toMatch(/reclaim policy is Delete/);
    expect(r.objects.map((o) => [o.state, o.fields])).toEqual([['refused', ['spec.resources.requests.storage']]]);
  });
});
