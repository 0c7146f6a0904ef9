// Builds clusters as Kubernetes objects for the embedded example, the real-cluster scenarios and tests:
// one builder, deterministic (uids and times derive from a counter and a fixed capture time), so the same
// declaration always yields the same files. Never part of the shipped CLI (nothing in src/commands imports it).
import type { KObject } from '../src/model.js';

export const MIN = 60_000;
export const HOUR = 60 * MIN;
export const DAY = 24 * HOUR;

type Labels = Record<string, string>;

export class ClusterBuilder {
  readonly objects: KObject[] = [];
  private uidN = 0;
  /** Services whose Endpoints are computed from the pods when the cluster is finished. */
  private readonly endpointsFor: KObject[] = [];

  constructor(
    readonly captured: number,
    private readonly uidPrefix = '0b5e',
  ) {}

  ago(ms: number): string {
    return new Date(this.captured - ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  uid(): string {
    const n = ++this.uidN;
    return `${this.uidPrefix}${n.toString(16).padStart(4, '0')}-5a1f-4e12-9d0a-${(1e11 + n).toString(16).padStart(12, '0')}`;
  }

  meta(name: string, namespace?: string, extra: Record<string, unknown> = {}): KObject['metadata'] {
    return {
      name,
      ...(namespace ? { namespace } : {}),
      uid: this.uid(),
      creationTimestamp: this.ago(400 * DAY),
      ...extra,
    } as KObject['metadata'];
  }

  add<T extends KObject>(o: T): T {
    this.objects.push(o);
    return o;
  }

  get(kind: string, name: string, namespace?: string): KObject | undefined {
    return this.objects.find((o) => o.kind === kind && o.metadata.name === name && o.metadata.namespace === namespace);
  }

  all(kind: string): KObject[] {
    return this.objects.filter((o) => o.kind === kind);
  }

  remove(pred: (o: KObject) => boolean): void {
    for (let i = this.objects.length - 1; i >= 0; i--) if (pred(this.objects[i]!)) this.objects.splice(i, 1);
  }

  nodeNames(): string[] {
    return this.all('Node').map((n) => n.metadata.name);
  }

  pod(
    name: string,
    ns: string,
    nodeName: string,
    labels: Labels = {},
    owner?: { kind: string; name: string; uid?: string },
    extra: { ready?: boolean; phase?: string; restarts?: number } = {},
  ): KObject {
    const nodes = this.nodeNames();
    const n = this.all('Pod').length;
    const ready = extra.ready ?? true;
    return this.add({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: this.meta(name, ns, {
        labels,
        creationTimestamp: this.ago(20 * DAY),
        ...(owner
          ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: owner.kind, name: owner.name, uid: owner.uid!, controller: true }] }
          : {}),
      }),
      spec: { nodeName, containers: [{ name: 'main', image: `${labels.app ?? labels['k8s-app'] ?? name}:stable` }] },
      status: {
        phase: extra.phase ?? 'Running',
        conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
        podIP: `10.42.${Math.max(0, nodes.indexOf(nodeName))}.${(n % 250) + 2}`,
        containerStatuses: [{ name: 'main', ready, restartCount: extra.restarts ?? 0 }],
      },
    });
  }

  /** A Deployment selecting exactly the labels given (as real charts do), its ReplicaSet and pods. */
  deployment(
    name: string,
    ns: string,
    replicas: number,
    labels: Labels,
    opts: { annotations?: Record<string, string>; nodes?: string[]; podLabels?: Labels; ready?: boolean } = {},
  ): KObject {
    const selector = opts.podLabels ?? labels;
    const d = this.add({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: this.meta(name, ns, { labels, annotations: opts.annotations ?? {}, generation: 3 }),
      spec: {
        replicas,
        selector: { matchLabels: selector },
        template: { metadata: { labels: selector }, spec: { containers: [{ name, image: `${name}:stable` }] } },
      },
      status: {
        replicas,
        readyReplicas: opts.ready === false ? 0 : replicas,
        availableReplicas: opts.ready === false ? 0 : replicas,
        observedGeneration: 3,
      },
    });
    const rs = this.add({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: this.meta(`${name}-${templateHash(`${ns}/${name}`)}`, ns, {
        labels: selector,
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: d.metadata.uid!, controller: true }],
      }),
      spec: { replicas, selector: { matchLabels: selector }, template: d.spec.template },
      status: { replicas, readyReplicas: opts.ready === false ? 0 : replicas },
    });
    const nodes = opts.nodes ?? this.nodeNames();
    for (let i = 0; i < replicas; i++) {
      this.pod(
        `${name}-${templateHash(`${ns}/${name}`)}-${podSuffix(`${ns}/${name}#${i}`)}`,
        ns,
        nodes[i % nodes.length]!,
        selector,
        { kind: 'ReplicaSet', name: rs.metadata.name, uid: rs.metadata.uid },
        { ready: opts.ready },
      );
    }
    return d;
  }

  daemonset(name: string, ns: string, labels: Labels): KObject {
    const nodes = this.nodeNames();
    const d = this.add({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: this.meta(name, ns, { labels }),
      spec: {
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name, image: `${name}:stable` }] } },
      },
      status: {
        currentNumberScheduled: nodes.length,
        numberMisscheduled: 0,
        desiredNumberScheduled: nodes.length,
        numberReady: nodes.length,
      },
    });
    for (const n of nodes)
      this.pod(`${name}-${podSuffix(`${ns}/${name}@${n}`)}`, ns, n, labels, { kind: 'DaemonSet', name, uid: d.metadata.uid });
    return d;
  }

  /** A Service; its Endpoints are derived from the pods its selector matches when the cluster is finished. */
  service(
    name: string,
    ns: string,
    selector: Labels | undefined,
    clusterIP: string,
    opts: { annotations?: Record<string, string>; labels?: Labels; ports?: Array<{ name: string; port: number; protocol: string }> } = {},
  ): KObject {
    const s = this.add({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: this.meta(name, ns, { labels: opts.labels ?? {}, annotations: opts.annotations ?? {} }),
      spec: {
        type: 'ClusterIP',
        clusterIP,
        clusterIPs: [clusterIP],
        ...(selector ? { selector } : {}),
        ports: opts.ports ?? [{ name: 'http', port: 80, protocol: 'TCP' }],
        ipFamilies: ['IPv4'],
      },
    });
    if (selector) this.endpointsFor.push(s);
    return s;
  }

  /** An Active namespace, labelled and finalized as the API server makes it. */
  namespace(name: string): KObject {
    return this.add({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: this.meta(name, undefined, { labels: { 'kubernetes.io/metadata.name': name } }),
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  }

  configmap(name: string, ns: string, data: Record<string, string>, extra: Record<string, unknown> = {}): KObject {
    return this.add({ apiVersion: 'v1', kind: 'ConfigMap', metadata: this.meta(name, ns, extra), data });
  }

  event(
    name: string,
    ns: string,
    involved: Record<string, string | undefined>,
    e: { reason: string; type: string; message: string; count: number; first: number; last: number; component: string; host?: string },
  ): KObject {
    return this.add({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: this.meta(name, ns, { creationTimestamp: this.ago(e.first) }),
      involvedObject: involved,
      reason: e.reason,
      type: e.type,
      count: e.count,
      message: e.message,
      firstTimestamp: this.ago(e.first),
      lastTimestamp: this.ago(e.last),
      source: { component: e.component, ...(e.host ? { host: e.host } : {}) },
      ...(e.type === 'Warning' ? { reportingComponent: e.component, ...(e.host ? { reportingInstance: e.host } : {}) } : {}),
    });
  }

  /** Endpoints and EndpointSlices as the EndpointSlice controller would write them: ready pods only. */
  finish(): KObject[] {
    for (const s of this.endpointsFor) {
      const ns = s.metadata.namespace!;
      const sel = s.spec.selector as Labels;
      const pods = this.all('Pod').filter(
        (p) => p.metadata.namespace === ns && Object.entries(sel).every(([k, v]) => p.metadata.labels?.[k] === v),
      );
      const ready = pods.filter(
        (p) =>
          p.status?.phase === 'Running' &&
          p.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True'),
      );
      const notReady = pods.filter((p) => !ready.includes(p));
      const ports = (s.spec.ports as Array<{ name: string; port: number; protocol: string }>).map((p) => ({
        name: p.name,
        port: p.port,
        protocol: p.protocol,
      }));
      const addr = (p: KObject) => ({
        ip: p.status.podIP,
        nodeName: p.spec.nodeName,
        targetRef: { kind: 'Pod', namespace: ns, name: p.metadata.name },
      });
      const subset =
        ready.length || notReady.length
          ? [
              {
                ...(ready.length ? { addresses: ready.map(addr) } : {}),
                ...(notReady.length ? { notReadyAddresses: notReady.map(addr) } : {}),
                ports,
              },
            ]
          : [];
      this.add({
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: this.meta(s.metadata.name, ns, { labels: s.metadata.labels }),
        subsets: subset,
      });
      this.add({
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: this.meta(`${s.metadata.name}-x7k2p`, ns, {
          labels: {
            'kubernetes.io/service-name': s.metadata.name,
            'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
          },
        }),
        addressType: 'IPv4',
        ports,
        endpoints: pods.map((p) => ({
          addresses: [p.status.podIP],
          conditions: { ready: ready.includes(p) },
          nodeName: p.spec.nodeName,
          targetRef: { kind: 'Pod', namespace: ns, name: p.metadata.name },
        })),
      });
    }
    this.endpointsFor.length = 0;
    return this.objects;
  }
}

/** Kubernetes' "safe" alphabet for generated names (k8s.io/apimachinery/pkg/util/rand: no vowels, no 0/1/3). */
const SAFE = 'bcdfghjklmnpqrstvwxz2456789';
/** FNV-1a, 32 bits: deterministic names for a scenario (the same object gets the same name on every build). */
function fnv(s: string, seed = 0x811c9dc5): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
function safeChars(key: string, n: number): string {
  let out = '';
  for (let i = 0; out.length < n; i++) {
    let h = fnv(`${key}:${i}`);
    for (let j = 0; j < 5 && out.length < n; j++, h = Math.floor(h / SAFE.length)) out += SAFE[h % SAFE.length];
  }
  return out;
}
/** A ReplicaSet's pod-template-hash as a Deployment names it (10 characters), distinct per Deployment. */
const templateHash = (key: string): string => safeChars(`rs:${key}`, 10);
/** A pod's random suffix as a ReplicaSet names it (5 characters). */
const podSuffix = (key: string): string => safeChars(`pod:${key}`, 5);
