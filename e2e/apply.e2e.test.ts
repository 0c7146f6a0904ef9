// The object the API server receives, proven by difference against real `kubectl apply` (#45): for each case, the
// harness applies a first manifest for real (client-side, or --server-side), then asks kubectl to apply the second with
// --dry-run=server -o json (what the server made of it). what-if -f's model (src/change/apply.ts), from the live object
// as the plugin reads it (scrubbed, the last-applied annotation as digests), predicts the object received; the harness
// gives that object to the same server (a PUT with dryRun=All) and the two results must be the same object.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { startControlPlane, type ControlPlane } from './lib/cluster.mjs';
import { controlPlaneBinaries } from './lib/setup.js';
import { kubectl } from '../__tests__/helpers/run.js';
import { receive, type ApplyMode } from '../src/change/apply.js';
import { scrubWhole } from '../src/snapshot/scrub.js';
import type { KObject } from '../src/model.js';

type Obj = Record<string, any>;
const bins = controlPlaneBinaries();

const ns = 'apply';
const deploy = (spec: Obj, meta: Obj = {}): Obj => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: ns, ...meta },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27', ...spec.container }], ...spec.pod },
    },
    ...spec.top,
  },
});

/** First apply, second apply: what each case proves. */
const CASES: Array<{ name: string; first: Obj; second: Obj; path: string }> = [
  {
    name: 'an env var the second apply drops is removed; one it keeps stays',
    first: deploy({
      container: {
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
      },
    }),
    second: deploy({ container: { env: [{ name: 'A', value: '1' }], image: 'nginx:1.28' } }),
    path: '/apis/apps/v1/namespaces/apply/deployments/web',
  },
  {
    name: 'strategy Recreate: rollingUpdate is cleared (retainKeys)',
    first: deploy({ top: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 2, maxUnavailable: 0 } } } }),
    second: deploy({ top: { strategy: { type: 'Recreate' } } }),
    path: '/apis/apps/v1/namespaces/apply/deployments/web',
  },
  {
    name: 'a label and replicas the first apply set, dropped (replicas back to the default)',
    first: deploy({ top: { replicas: 3 } }, { labels: { team: 'a', tier: 'web' } }),
    second: deploy({}, { labels: { team: 'a' } }),
    path: '/apis/apps/v1/namespaces/apply/deployments/web',
  },
  {
    name: 'a volume added, tolerations replaced whole (an atomic list)',
    first: deploy({
      pod: {
        tolerations: [
          { key: 'a', operator: 'Exists' },
          { key: 'b', operator: 'Exists' },
        ],
      },
    }),
    second: {
      ...deploy({ pod: { tolerations: [{ key: 'c', operator: 'Exists' }], volumes: [{ name: 'cache', emptyDir: {} }] } }),
    },
    path: '/apis/apps/v1/namespaces/apply/deployments/web',
  },
  {
    name: 'a ConfigMap key dropped',
    first: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: ns }, data: { a: '1', b: '2' } },
    second: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: ns }, data: { a: '1', c: '3' } },
    path: '/api/v1/namespaces/apply/configmaps/cfg',
  },
  {
    name: 'a Service port dropped, clusterIP "" then left out (kept by the server)',
    first: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc', namespace: ns },
      spec: {
        clusterIP: '',
        selector: { app: 'web' },
        ports: [
          { name: 'http', port: 80 },
          { name: 'https', port: 443 },
        ],
      },
    },
    second: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc', namespace: ns },
      spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] },
    },
    path: '/api/v1/namespaces/apply/services/svc',
  },
];

/** What both results are compared on: the object without the server's bookkeeping and the apply records. */
function comparable(o: Obj): Obj {
  const c = JSON.parse(JSON.stringify(o)) as Obj;
  for (const k of ['managedFields', 'resourceVersion', 'generation', 'uid', 'creationTimestamp']) delete c.metadata[k];
  delete c.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'];
  if (c.metadata.annotations && !Object.keys(c.metadata.annotations).length) delete c.metadata.annotations;
  delete c.status;
  return c;
}

let cp: ControlPlane;
let tmp: string;
beforeAll(async () => {
  cp = await startControlPlane({ apiserver: bins.apiserver });
  tmp = mkdtempSync(join(tmpdir(), 'ka-apply-'));
  await cp.admin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
}, 600_000);
afterAll(async () => {
  await cp?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe.each((['client-side', 'server-side'] as ApplyMode[]).map((m) => [m] as const))('kubectl apply %s', (mode) => {
  test.each(CASES.map((c) => [c.name, c] as const))('%s: the predicted object is what kubectl sent', async (_n, c) => {
    const ssa = mode === 'server-side' ? ['--server-side', '--field-manager', 'kubectl'] : [];
    const file = (o: Obj, n: string): string => {
      const f = join(tmp, `${n}.yaml`);
      writeFileSync(f, dump(o));
      return f;
    };
    const k = (args: string[]) => kubectl([...args, '--kubeconfig', cp.kubeconfig, '--context', 'admin']);
    try {
      const a = await k(['apply', ...ssa, '-f', file(c.first, 'first')]);
      expect([a.code, a.stderr]).toEqual([0, '']);
      const real = await k(['apply', ...ssa, '--dry-run=server', '-o', 'json', '-f', file(c.second, 'second')]);
      expect([real.code, real.stderr]).toEqual([0, '']);
      // the plugin's view of the live object: whole, scrubbed, the last apply kept as digests
      const live = (await cp.admin('GET', c.path)).json as KObject;
      const predicted = receive(c.second as KObject, scrubWhole(JSON.parse(JSON.stringify(live)) as KObject), mode).object;
      delete predicted.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'];
      delete (predicted.metadata as Obj).managedFields;
      const served = await cp.admin('PUT', `${c.path}?dryRun=All`, {
        ...predicted,
        metadata: { ...predicted.metadata, resourceVersion: live.metadata.resourceVersion },
      });
      expect(served.status).toBe(200);
      expect(comparable(served.json)).toEqual(comparable(JSON.parse(real.stdout)));
      // the cases discriminate: a merge that removes nothing (no last apply, no managed fields) gets each removal wrong
      const naive = receive(c.second as KObject, scrubWhole(JSON.parse(JSON.stringify(live)) as KObject), 'helm').object;
      const naiveServed = await cp.admin('PUT', `${c.path}?dryRun=All`, {
        ...naive,
        metadata: { ...naive.metadata, resourceVersion: live.metadata.resourceVersion },
      });
      if (!/^(a volume added|strategy Recreate)/.test(c.name))
        expect(comparable(naiveServed.json)).not.toEqual(comparable(JSON.parse(real.stdout)));
    } finally {
      await k(['delete', '-f', file(c.first, 'first'), '--wait=true', '--ignore-not-found']);
    }
  });
});
