import { describe, expect, test } from '@jest/globals';
import { clusterDns } from '../src/checks/cluster-dns/check.js';
import { KUBELET_DNS } from '../src/checks/immutable-retry-loop/check.js';
import { runChecks } from '../src/checks/run.js';
import type { KObject } from '../src/model.js';
import { R } from '../src/resources.js';
import { build } from '../scenarios/index.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { loadSnapshot } from '../src/snapshot/load.js';
import { scenarios } from '../src/checks/cluster-dns/scenario.js';
import { runCheck } from './helpers/check.js';
import { EXAMPLE, obj } from './helpers/fixtures.js';

const svc = (name: string, selector: Record<string, string>, ip: string): KObject =>
  obj('v1', 'Service', name, 'kube-system', {
    metadata: { name, namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } },
    spec: { clusterIP: ip, selector },
  });
const pod = (name: string, labels: Record<string, string>, ready: boolean, extra: Record<string, unknown> = {}): KObject =>
  obj('v1', 'Pod', name, 'kube-system', {
    metadata: { name, namespace: 'kube-system', labels },
    spec: { nodeName: 'n1' },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }], ...extra },
  });
const slice = (svcName: string, eps: Array<[string, boolean]>): KObject =>
  obj('discovery.k8s.io/v1', 'EndpointSlice', `${svcName}-x`, 'kube-system', {
    metadata: { name: `${svcName}-x`, namespace: 'kube-system', labels: { 'kubernetes.io/service-name': svcName } },
    endpoints: eps.map(([n, r]) => ({ addresses: ['10.42.0.1'], conditions: { ready: r }, targetRef: { kind: 'Pod', name: n } })),
  });

describe('cluster DNS', () => {
  test('the example cluster serves DNS (K3s CoreDNS labels)', () => {
    const r = runChecks([clusterDns], loadSnapshot(EXAMPLE))[0]!;
    expect(r.status).toBe('passed');
    expect(r.reason).toMatch(/kube-system\/kube-dns \(10\.43\.0\.10\) has ready endpoints/);
  });

  test('the label-mismatch scenario: critical, naming the selector and the pods that carry other labels', () => {
    const { objects, header } = build(scenarios);
    const snap = new Snapshot(header);
    for (const o of objects) snap.addObject(o);
    const f = runChecks([clusterDns], snap)[0]!.findings[0]!;
    expect(f).toMatchObject({ code: 'ARCH-DNS01', severity: 'critical', checkId: 'cluster-dns' });
    expect(f.message).toMatch(/the selector k8s-app=kube-dns matches no pod in kube-system; DNS pods there carry other labels: coredns-/);
    expect(f.evidence).toMatchObject({ selector: { 'k8s-app': 'kube-dns' }, readyEndpoints: [] });
  });

  test('pods matched but none ready: critical, with why (waiting reason, restarts)', () => {
    const r = runCheck(clusterDns, [
      svc('kube-dns', { 'k8s-app': 'kube-dns' }, '10.96.0.10'),
      pod('coredns-a', { 'k8s-app': 'kube-dns' }, false, {
        containerStatuses: [{ name: 'coredns', restartCount: 9, state: { waiting: { reason: 'CrashLoopBackOff' } } }],
      }),
      slice('kube-dns', [['coredns-a', false]]),
    ]);
    expect(r.findings[0]!.code).toBe('ARCH-DNS01');
    expect(r.findings[0]!.message).toMatch(
      /1 pod matches the selector k8s-app=kube-dns, none is ready: coredns-a \(Running, not Ready, CrashLoopBackOff, 9 restarts\)/,
    );
  });

  test('one of two DNS pods down: a warning, DNS still served', () => {
    const r = runCheck(clusterDns, [
      svc('kube-dns', { 'k8s-app': 'kube-dns' }, '10.96.0.10'),
      pod('coredns-a', { 'k8s-app': 'kube-dns' }, true),
      pod('coredns-b', { 'k8s-app': 'kube-dns' }, false),
      slice('kube-dns', [
        ['coredns-a', true],
        ['coredns-b', false],
      ]),
    ]);
    expect(r.findings.map((f) => [f.code, f.severity])).toEqual([['ARCH-DNS02', 'warning']]);
  });

  test('with --deep, the DNS Service is the one the kubelets point at', () => {
    const r = runCheck(
      clusterDns,
      [
        svc('kube-dns', { 'k8s-app': 'kube-dns' }, '10.96.0.10'),
        svc('rke2-coredns-rke2-coredns', { app: 'x' }, '10.43.0.10'),
        slice('rke2-coredns-rke2-coredns', []),
      ],
      { deep: true, perNode: { [KUBELET_DNS.id]: [{ node: 'n1', value: ['10.43.0.10'] }] } },
    );
    expect(r.findings[0]!.title).toMatch(/rke2-coredns-rke2-coredns, 10\.43\.0\.10/);
    expect(r.findings[0]!.evidence.found).toMatch(/kubelets' clusterDNS/);
  });

  test('no DNS Service at all: skipped, never passed', () => {
    expect(runCheck(clusterDns, []).status).toBe('skipped');
  });

  test('nothing to read endpoints from: skipped with the reason', () => {
    const r = runCheck(clusterDns, [svc('kube-dns', { 'k8s-app': 'kube-dns' }, '10.96.0.10')], {
      without: [R.endpoints, R.endpointslices, R.pods],
    });
    expect(r.status).toBe('skipped');
    expect(r.reason).toMatch(/cannot be told/);
  });
});
