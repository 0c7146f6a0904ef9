// HelmChart installs against the real K3s helm-controller (#35): github.com/k3s-io/helm-controller, built from its Go
// module (e2e/build-helm-controller.sh), runs against the real kube-apiserver, with kube-controller-manager's job
// controller next to it. Two HelmCharts: the real controller creates each one's helm-install Job, the job controller
// its pod; no kubelet runs, so the test writes each pod's status as a kubelet would — one crash-looping (restarts,
// CrashLoopBackOff, the last run's exit and message, the kubelet's BackOff event), one completed. doctor, as the
// least-privilege reader through the kubectl plugin mechanism, must find the first (ARCH-RL04) and not the second.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { DEFAULT_CONTROLLERS, startControlPlane, type ControlPlane } from './lib/cluster.mjs';
import { controlPlaneBinaries } from './lib/setup.js';
import { grantReaders } from './lib/readers.mjs';
import { kubectl, ROOT } from '../__tests__/helpers/run.js';

const bins = controlPlaneBinaries();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const iso = (t: number): string => new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('HelmCharts with the real helm-controller', () => {
  let cp: ControlPlane;
  let hc: ChildProcess | undefined;
  let hcLog = '';
  const until = async <T>(what: string, probe: () => Promise<T | undefined>, boundMs = 180_000): Promise<T> => {
    const end = Date.now() + boundMs;
    for (;;) {
      const v = await probe();
      if (v !== undefined) return v;
      if (hc && hc.exitCode !== null) throw new Error(`helm-controller exited (${hc.exitCode}): ${hcLog.slice(-2000)}`);
      if (Date.now() > end) throw new Error(`${what}: not within ${boundMs / 1000} s\n${hcLog.slice(-2000)}`);
      await sleep(500);
    }
  };
  const podOf = (job: string) =>
    until(`the job controller's pod for ${job}`, async () => {
      const items = (await cp.admin('GET', `/api/v1/namespaces/kube-system/pods?labelSelector=batch.kubernetes.io%2Fjob-name%3D${job}`))
        .json.items;
      return items?.length ? items[0] : undefined;
    });

  beforeAll(async () => {
    const binary = execFileSync('bash', [`${ROOT}e2e/build-helm-controller.sh`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
    cp = await startControlPlane({
      apiserver: bins.apiserver,
      controllerManager: bins.controllerManager,
      controllers: [...DEFAULT_CONTROLLERS, 'job-controller'],
    });
    await grantReaders(cp);
    // a K3s server, as its kubelet reports itself (the checks judge HelmCharts on K3s and RKE2)
    const t = Date.now();
    const node = await cp.admin('POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'server-1', labels: { 'node-role.kubernetes.io/control-plane': 'true', 'node-role.kubernetes.io/master': 'true' } },
      spec: { providerID: 'k3s://server-1' },
    });
    expect(node.status).toBe(201);
    node.json.status = {
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: iso(t), lastTransitionTime: iso(t) }],
      nodeInfo: { kubeletVersion: 'v1.36.3+k3s1', containerRuntimeVersion: 'containerd://2.1.5-k3s1' },
    };
    expect((await cp.admin('PUT', '/api/v1/nodes/server-1/status', node.json)).status).toBe(200);
    // the real helm-controller, as the admin (it creates its CRDs, Jobs, service accounts and bindings)
    hc = spawn(binary, ['--kubeconfig', cp.kubeconfig, '--pprof-port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    hc.stderr!.on('data', (d) => {
      hcLog = (hcLog + d).slice(-8000);
    });
    await until('the HelmChart CRD served', async () =>
      (await cp.admin('GET', '/apis/helm.cattle.io/v1/helmcharts')).status === 200 ? true : undefined,
    );
    for (const name of ['broken', 'fine'])
      expect(
        (
          await cp.admin('POST', '/apis/helm.cattle.io/v1/namespaces/kube-system/helmcharts', {
            apiVersion: 'helm.cattle.io/v1',
            kind: 'HelmChart',
            metadata: { name, namespace: 'kube-system' },
            // never fetched: no kubelet runs the job's container
            spec: {
              chart: name,
              repo: 'https://127.0.0.1:1/charts',
              version: '1.2.3',
              targetNamespace: 'apps',
              valuesContent: 'replicas: 1\n',
            },
          })
        ).status,
      ).toBe(201);
  }, 1_800_000);
  afterAll(async () => {
    if (hc && hc.exitCode === null) {
      hc.kill('SIGKILL');
      await new Promise((r) => hc!.once('exit', r));
    }
    await cp?.stop();
  });

  test('a chart whose job crash-loops is ARCH-RL04 with its job, pod and reason; one whose job completed is not', async () => {
    // what the real controller wrote: the Job, its name and label, and a pod the job controller made for it
    const broken = await podOf('helm-install-broken');
    const fine = await podOf('helm-install-fine');
    const job = (await cp.admin('GET', '/apis/batch/v1/namespaces/kube-system/jobs/helm-install-broken')).json;
    expect(job.metadata.labels['helmcharts.helm.cattle.io/chart']).toBe('broken');
    expect(job.spec.template.spec.containers.map((c: any) => c.name)).toEqual(['helm']);
    expect(broken.metadata.labels['helmcharts.helm.cattle.io/chart']).toBe('broken');

    // the kubelet's report of a chart that cannot install: the helm container fails, restarts, backs off
    const t = Date.now();
    const container = broken.spec.containers[0];
    broken.status = {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: iso(t - 3_600_000) }],
      startTime: iso(t - 3_600_000),
      containerStatuses: [
        {
          name: container.name,
          image: container.image,
          imageID: '',
          ready: false,
          restartCount: 9,
          state: {
            waiting: {
              reason: 'CrashLoopBackOff',
              message: `back-off 5m0s restarting failed container=helm pod=${broken.metadata.name}_kube-system(${broken.metadata.uid})`,
            },
          },
          lastState: {
            terminated: {
              exitCode: 1,
              reason: 'Error',
              message: 'Error: INSTALLATION FAILED: chart "broken" version "1.2.3" not found in https://127.0.0.1:1/charts repository',
              startedAt: iso(t - 120_000),
              finishedAt: iso(t - 110_000),
            },
          },
        },
      ],
    };
    const w = await cp.admin('PUT', `/api/v1/namespaces/kube-system/pods/${broken.metadata.name}/status`, broken);
    expect([w.status, w.text.slice(0, 300)]).toEqual([200, expect.anything()]);
    const ev = await cp.admin('POST', '/api/v1/namespaces/kube-system/events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${broken.metadata.name}.backoff`, namespace: 'kube-system' },
      involvedObject: {
        apiVersion: 'v1',
        kind: 'Pod',
        name: broken.metadata.name,
        namespace: 'kube-system',
        uid: broken.metadata.uid,
        fieldPath: 'spec.containers{helm}',
      },
      reason: 'BackOff',
      type: 'Warning',
      message: `Back-off restarting failed container helm in pod ${broken.metadata.name}_kube-system(${broken.metadata.uid})`,
      count: 40,
      firstTimestamp: iso(t - 3_500_000),
      lastTimestamp: iso(t - 60_000),
      source: { component: 'kubelet', host: 'server-1' },
    });
    expect(ev.status).toBe(201);
    // and of one that installed: helm wrote its release (a Secret of type helm.sh/release.v1 in the target namespace,
    // labelled with the config hash the controller passed to the job) and the container ran to completion; the job
    // controller marks the Job Complete. Without the release the real controller would see a completed job whose
    // release is missing and replace the Job at once (getJobAndRelatedResources in helm-controller v0.17.9).
    const fineJob = (await cp.admin('GET', '/apis/batch/v1/namespaces/kube-system/jobs/helm-install-fine')).json;
    const env = Object.fromEntries(fineJob.spec.template.spec.containers[0].env.map((e: any) => [e.name, e.value]));
    expect(env.CONFIG_HASH).toMatch(/^[0-9A-F]{63}$/); // SHA256=%X, cut to a label value
    expect((await cp.admin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } })).status).toBe(
      201,
    );
    const release = await cp.admin('POST', '/api/v1/namespaces/apps/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'helm.sh/release.v1',
      metadata: {
        name: 'sh.helm.release.v1.fine.v1',
        namespace: 'apps',
        labels: { owner: 'helm', name: 'fine', status: 'deployed', version: '1', 'helmcharts.helm.cattle.io/configHash': env.CONFIG_HASH },
      },
      data: { release: '' },
    });
    expect(release.status).toBe(201);
    fine.status = {
      phase: 'Succeeded',
      startTime: iso(t - 600_000),
      conditions: [{ type: 'Ready', status: 'False', reason: 'PodCompleted', lastTransitionTime: iso(t - 500_000) }],
      containerStatuses: [
        {
          name: fine.spec.containers[0].name,
          image: fine.spec.containers[0].image,
          imageID: '',
          ready: false,
          restartCount: 1,
          state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: iso(t - 550_000), finishedAt: iso(t - 500_000) } },
          lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: iso(t - 600_000), finishedAt: iso(t - 580_000) } },
        },
      ],
    };
    expect((await cp.admin('PUT', `/api/v1/namespaces/kube-system/pods/${fine.metadata.name}/status`, fine)).status).toBe(200);
    await until('the job controller marked helm-install-fine Complete', async () => {
      const j = (await cp.admin('GET', '/apis/batch/v1/namespaces/kube-system/jobs/helm-install-fine')).json;
      expect(j.metadata?.uid).toBe(fineJob.metadata.uid); // the controller kept the Job: its release is in place
      return (j.status?.conditions ?? []).some((c: any) => c.type === 'Complete' && c.status === 'True') ? true : undefined;
    });

    const r = await kubectl(['arch', 'doctor', '--kubeconfig', cp.kubeconfig, '--context', 'reader', '-o', 'json']);
    expect([r.code, r.stderr]).toEqual([1, '']);
    const check = JSON.parse(r.stdout).checks.find((c: any) => c.id === 'immutable-retry-loop');
    const charts = check.findings.filter((f: any) => ['ARCH-RL04', 'ARCH-RL08'].includes(f.code));
    expect(charts.map((f: any) => `${f.code} ${f.objects[0].kind} ${f.objects[0].namespace}/${f.objects[0].name}`)).toEqual([
      'ARCH-RL04 HelmChart kube-system/broken',
    ]);
    const f = charts[0];
    expect(f.severity).toBe('error');
    expect(f.message).toContain(`pod ${broken.metadata.name}: CrashLoopBackOff, 9 restarts, last exit 1 (Error)`);
    expect(f.message).toContain('chart "broken" version "1.2.3" not found');
    expect(f.message).toContain('40 BackOff events');
    expect(f.fix[0]).toBe('read the reason: kubectl -n kube-system logs job/helm-install-broken');
  }, 600_000);
});
