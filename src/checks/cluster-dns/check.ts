// The cluster's own critical Services: cluster DNS with no ready endpoint (every pod loses name resolution),
// DNS pods partly down (NodeLocal DNSCache included), and the `kubernetes` Service pointing at API servers
// that are gone. Facts: K3s's CoreDNS manifest (k3s-io/k3s manifests/coredns.yaml) labels its pods
// `k8s-app: kube-dns` and the kube-dns Service selects that; the EndpointSlice controller lists only ready
// pods as ready endpoints; the API server's lease reconciler keeps default/kubernetes to the live servers.
import { condition, isReady } from '../../lib/k8s.js';
import { refText, type KObject, type ObjectRef } from '../../model.js';
import { ADDRESS_FIELDS, deadAddresses, endpointsAddresses, sliceAddresses, type Listed } from '../../lib/endpoints.js';
import { nodeNamer } from '../../lib/nodes.js';
import { R } from '../../resources.js';
import { KUBELET_DNS } from '../immutable-retry-loop/check.js';
import { defineCheck, finding, type CheckContext, type Draft } from '../types.js';
import { byText } from '../../lib/order.js';
import { command, inNamespace } from '../../lib/shell.js';

const CODES = {
  'ARCH-DNS01': 'cluster DNS has no ready endpoint: no pod can resolve names',
  'ARCH-DNS02': 'some cluster DNS pods (or NodeLocal DNSCache pods) are not ready',
  'ARCH-DNS03': 'the `kubernetes` Service points at API servers that are not live (or misses live ones)',
} as const;
type Code = keyof typeof CODES;

const DNS_NAMESPACES = new Set(['kube-system', 'openshift-dns']);
const POD_LABELS = ['kube-dns', 'coredns', 'node-local-dns'];
/** Recently renewed identity leases mean a live API server (renewed every 10 s). */
const LEASE_FRESH_MS = 60_000;

const matches = (sel: Record<string, string>, labels: Record<string, string> | undefined): boolean =>
  Object.entries(sel).every(([k, v]) => labels?.[k] === v);
const svcRef = (s: KObject): ObjectRef => ({ kind: 'Service', apiVersion: 'v1', namespace: s.metadata.namespace, name: s.metadata.name });
const podRef = (p: KObject): ObjectRef => ({ kind: 'Pod', apiVersion: 'v1', namespace: p.metadata.namespace, name: p.metadata.name });

/** The cluster DNS Service: the one the kubelets point at (--deep), else by name or label. */
function dnsServices(ctx: CheckContext): { services: KObject[]; how: string } {
  const services = ctx.snap.of(R.services);
  const kubelet = new Set(
    (ctx.snap.header.perNode?.[KUBELET_DNS.id] ?? []).flatMap((a) => (Array.isArray(a.value) ? (a.value as string[]) : [])),
  );
  if (kubelet.size) {
    const byIp = services.filter((s) => kubelet.has(s.spec?.clusterIP));
    if (byIp.length) return { services: byIp, how: `the kubelets' clusterDNS (${[...kubelet].join(', ')})` };
  }
  const here = services.filter((s) => DNS_NAMESPACES.has(s.metadata.namespace ?? ''));
  const pick =
    here.find((s) => s.metadata.name === 'kube-dns') ??
    here.find((s) => s.metadata.name === 'dns-default') ??
    here.find((s) => /coredns$/.test(s.metadata.name)) ??
    here.find((s) => s.metadata.labels?.['k8s-app'] === 'kube-dns' && !/upstream/.test(s.metadata.name));
  return { services: pick ? [pick] : [], how: 'name and labels (kube-dns, CoreDNS)' };
}

/** Services not visible: the DNS Service's endpoints are found by its name (Endpoints kube-system/kube-dns, or
 *  EndpointSlices labelled kubernetes.io/service-name=kube-dns); stand-ins carry only that name. */
function dnsByEndpoints(ctx: CheckContext): KObject[] {
  const names = ['kube-dns', 'dns-default'];
  const seen = new Map<string, KObject>();
  const add = (ns: string | undefined, name: string | undefined): void => {
    if (!ns || !name || !DNS_NAMESPACES.has(ns) || !names.includes(name)) return;
    seen.set(`${ns}/${name}`, { apiVersion: 'v1', kind: 'Service', metadata: { namespace: ns, name } });
  };
  for (const e of ctx.snap.of(R.endpoints)) add(e.metadata.namespace, e.metadata.name);
  for (const e of ctx.snap.of(R.endpointslices)) add(e.metadata.namespace, e.metadata.labels?.['kubernetes.io/service-name']);
  return [...seen.values()];
}

function readyEndpoints(ctx: CheckContext, s: KObject): { ready: string[]; notReady: string[]; source: string } | null {
  const ns = s.metadata.namespace;
  // a ready address whose node stopped answering (or is gone) is not one: endpoints written by hand keep it
  const { dead } = deadAddresses(ctx.snap.of(R.pods), ctx.snap.of(R.nodes), !ctx.snap.gap(R.nodes));
  const split = (all: Array<{ a: Listed; name: string }>): { ready: string[]; notReady: string[] } => {
    const ready: string[] = [];
    const notReady: string[] = [];
    for (const { a, name } of all) {
      const why = a.ready ? dead(a) : undefined;
      if (!a.ready) notReady.push(name);
      else if (why) notReady.push(`${name} (${why})`);
      else ready.push(name);
    }
    return { ready, notReady };
  };
  const slices = ctx.snap
    .of(R.endpointslices)
    .filter((e) => e.metadata.namespace === ns && e.metadata.labels?.['kubernetes.io/service-name'] === s.metadata.name);
  if (slices.length) {
    const eps = slices.flatMap((e) => (Array.isArray(e.endpoints) ? e.endpoints : []));
    const name = (e: { addresses?: string[]; targetRef?: { name?: string } }): string => e.targetRef?.name ?? e.addresses?.[0] ?? '?';
    return {
      ...split(eps.map((e) => ({ a: sliceAddresses([{ ...s, endpoints: [e] }])[0] ?? { ip: '', ready: false }, name: name(e) }))),
      source: `EndpointSlice${slices.length > 1 ? 's' : ''} ${slices.map((e) => e.metadata.name).join(', ')}`,
    };
  }
  const ep = ctx.snap.of(R.endpoints).find((e) => e.metadata.namespace === ns && e.metadata.name === s.metadata.name);
  if (!ep) return null;
  return {
    ...split(endpointsAddresses(ep).map((a) => ({ a, name: a.targetRef?.name ?? (a.ip || '?') }))),
    source: `Endpoints ${ns}/${s.metadata.name}`,
  };
}

const waiting = (p: KObject, down?: Set<string>): string => {
  // what-if: its node is down by hypothesis, so is the pod, whatever phase it last reported
  if (down?.has(String(p.spec?.nodeName ?? ''))) return `${p.metadata.name} (stopping: its node ${p.spec.nodeName} is down by hypothesis)`;
  const cs = Array.isArray(p.status?.containerStatuses) ? p.status.containerStatuses : [];
  const w = cs
    .map((c: { state?: { waiting?: { reason?: string } }; restartCount?: number }) =>
      [c?.state?.waiting?.reason, c?.restartCount ? `${c.restartCount} restarts` : ''].filter(Boolean).join(', '),
    )
    .filter(Boolean);
  return `${p.metadata.name} (${p.status?.phase ?? '?'}${isReady(p) ? ', Ready' : condition(p, 'Ready') ? ', not Ready' : ''}${w.length ? `, ${w.join('; ')}` : ''})`;
};

/** How a DNS pod is, as said in a finding: in a what-if, a pod on a node down by hypothesis is stopping with it. */
const podState = (ctx: CheckContext): ((p: KObject) => string) => {
  const h = ctx.snap.header.hypothetical;
  const down = new Set(h && !h.remove ? h.nodes : []);
  return (p) => waiting(p, down);
};

function dnsFindings(ctx: CheckContext, s: KObject, how: string, serviceSeen = true): Array<Draft<Code>> {
  const out: Array<Draft<Code>> = [];
  const sel = (s.spec?.selector ?? {}) as Record<string, string>;
  const pods = ctx.snap.of(R.pods).filter((p) => p.metadata.namespace === s.metadata.namespace);
  const matched = Object.keys(sel).length ? pods.filter((p) => matches(sel, p.metadata.labels)) : [];
  const ep = readyEndpoints(ctx, s);
  const ready = ep?.ready ?? matched.filter(isReady).map((p) => p.metadata.name);
  const selText =
    Object.entries(sel)
      .map(([k, v]) => `${k}=${v}`)
      .join(',') || '(none)';
  const evidence = {
    service: refText(svcRef(s)),
    clusterIP: s.spec?.clusterIP,
    selector: sel,
    found: how,
    matchingPods: matched.map(podState(ctx)),
    readyEndpoints: ready,
    endpointsSource: ep?.source ?? 'none',
  };
  if (ready.length === 0) {
    let why: string;
    let objects: ObjectRef[] = [svcRef(s)];
    if (!serviceSeen) why = 'its endpoints list no ready address (the Service itself was not visible: its selector cannot be compared)';
    else if (!Object.keys(sel).length) why = 'the Service has no selector, and no endpoint lists a ready address';
    else if (matched.length === 0) {
      // the classic: DNS pods carry other labels than the Service selects (an upgrade, a hand-edited chart)
      // NodeLocal DNSCache pods are a cache in front of the Service, not its backend; sorted, so a capture's order does not matter
      const lookalikes = pods
        .filter((p) => /dns/.test(p.metadata.name) || POD_LABELS.includes(p.metadata.labels?.['k8s-app'] ?? ''))
        .filter((p) => !p.metadata.name.startsWith('node-local-dns') && p.metadata.labels?.['k8s-app'] !== 'node-local-dns')
        .sort((a, b) => byText(a.metadata.name, b.metadata.name));
      why = `the selector ${selText} matches no pod in ${s.metadata.namespace}${
        lookalikes.length
          ? `; DNS pods there carry other labels: ${lookalikes
              .slice(0, 3)
              .map(
                (p) =>
                  `${p.metadata.name} {${Object.entries(p.metadata.labels ?? {})
                    .map(([k, v]) => `${k}=${v}`)
                    .join(',')}}`,
              )
              .join('; ')}`
          : ''
      }`;
      objects = [...objects, ...lookalikes.slice(0, 3).map(podRef)];
    } else {
      why = `${matched.length} pod${matched.length === 1 ? '' : 's'} match${matched.length === 1 ? 'es' : ''} the selector ${selText}, none is ready: ${matched.slice(0, 4).map(podState(ctx)).join('; ')}`;
      objects = [...objects, ...matched.slice(0, 4).map(podRef)];
    }
    out.push(
      finding(
        'ARCH-DNS01',
        'critical',
        `cluster DNS (${refText(svcRef(s))}, ${s.spec?.clusterIP ?? '?'}) has no ready endpoint`,
        `${why}. ${ep ? `${ep.source}: ${ep.ready.length} ready, ${ep.notReady.length} not ready.` : 'No Endpoints or EndpointSlice exists for it.'} Every pod resolves names through it: service discovery and external names fail cluster-wide.`,
        {
          objects,
          evidence,
          why: "Every pod's /etc/resolv.conf points at the cluster DNS Service; without a ready endpoint behind it, nothing answers.",
          fix:
            matched.length === 0 && Object.keys(sel).length
              ? [
                  `make the DNS pods carry ${selText} (the labels of the distribution's own CoreDNS manifest) — or, if the pods are right, restore the Service's selector`,
                  command(['kubectl', ...inNamespace(s.metadata.namespace), 'get', 'pods', '--show-labels'], {
                    pipe: [['grep', '-i', 'dns']],
                  }),
                ]
              : [
                  command(
                    ['kubectl', ...inNamespace(s.metadata.namespace), 'logs', matched[0]?.metadata.name ?? 'deploy/coredns', '--previous'],
                    {
                      note: 'why it does not become ready (a forward loop, an unreachable upstream, a bad Corefile)',
                    },
                  ),
                  command(
                    matched[0]
                      ? ['kubectl', ...inNamespace(s.metadata.namespace), 'describe', 'pod', matched[0].metadata.name]
                      : ['kubectl', ...inNamespace(s.metadata.namespace), 'describe', 'deployment', 'coredns'],
                  ),
                ],
        },
      ),
    );
    return out;
  }
  const down = matched.filter((p) => !isReady(p) && condition(p, 'Ready'));
  if (down.length) {
    out.push(
      finding(
        'ARCH-DNS02',
        'warning',
        `${down.length} of ${matched.length} cluster DNS pods are not ready`,
        `${down.map(podState(ctx)).join('; ')}. DNS is still served by ${ready.length} ready endpoint${ready.length === 1 ? '' : 's'}, with less headroom.`,
        {
          objects: down.map(podRef),
          evidence,
          why: 'Fewer DNS replicas means slower answers and one failure from an outage.',
          fix: [command(['kubectl', ...inNamespace(s.metadata.namespace), 'logs', down[0]!.metadata.name, '--previous'])],
        },
      ),
    );
  }
  return out;
}

/** NodeLocal DNSCache: each node resolves through its own pod; a pod that is not ready breaks DNS on that node only. */
function nodeLocalFindings(ctx: CheckContext): Array<Draft<Code>> {
  const pods = ctx.snap
    .of(R.pods)
    .filter((p) => DNS_NAMESPACES.has(p.metadata.namespace ?? '') && p.metadata.labels?.['k8s-app'] === 'node-local-dns');
  const down = pods.filter((p) => condition(p, 'Ready') && !isReady(p));
  if (!down.length) return [];
  return [
    finding(
      'ARCH-DNS02',
      'warning',
      `NodeLocal DNSCache is not ready on ${down.length} node${down.length === 1 ? '' : 's'}: ${down.map((p) => p.spec?.nodeName ?? '?').join(', ')}`,
      `${down.map(podState(ctx)).join('; ')}. Pods on ${down.length === 1 ? 'that node' : 'those nodes'} resolve through the local cache (169.254.20.10 or the kube-dns IP it binds), so DNS fails there while the rest of the cluster works.`,
      {
        objects: down.map(podRef),
        evidence: { pods: down.map(podState(ctx)) },
        why: "NodeLocal DNSCache intercepts DNS on each node: its pod is the node's only resolver.",
        fix: [
          command(['kubectl', ...inNamespace(down[0]!.metadata.namespace), 'logs', down[0]!.metadata.name, '--previous'], {
            note: 'often a forward loop to itself, or a bind address in use',
          }),
        ],
      },
    ),
  ];
}

/** default/kubernetes lists the live API servers (the lease reconciler); compare with the identity leases. */
function kubernetesServiceFindings(ctx: CheckContext): Array<Draft<Code>> {
  const snap = ctx.snap;
  if (snap.visibility(R.leases) || snap.visibility(R.nodes)) return [];
  const leases = snap
    .of(R.leases)
    .filter((l) => l.metadata.namespace === 'kube-system' && l.metadata.labels?.['apiserver.kubernetes.io/identity'] === 'kube-apiserver');
  const live = leases.filter((l) => ctx.now.getTime() - Date.parse(l.spec?.renewTime ?? '') <= LEASE_FRESH_MS);
  if (!leases.length || !live.length) return [];
  const ipOf = new Map(
    snap
      .of(R.nodes)
      .map((n) => [
        n.metadata.name,
        (Array.isArray(n.status?.addresses) ? n.status.addresses : []).find((a: { type?: string }) => a?.type === 'InternalIP')?.address as
          string | undefined,
      ]),
  );
  // a lease names its server's host name: the node it names may be labelled so rather than named so
  const nodeOf = nodeNamer(snap.of(R.nodes));
  const liveIps = live
    .map((l) => ipOf.get(nodeOf(l.metadata.labels?.['kubernetes.io/hostname'] ?? '')))
    .filter((x): x is string => Boolean(x));
  if (liveIps.length !== live.length) return []; // a lease we cannot map to an address: no claim
  const ep = snap.of(R.endpoints).find((e) => e.metadata.namespace === 'default' && e.metadata.name === 'kubernetes');
  const slices = snap
    .of(R.endpointslices)
    .filter((e) => e.metadata.namespace === 'default' && e.metadata.labels?.['kubernetes.io/service-name'] === 'kubernetes');
  if (!ep && !slices.length) return [];
  const listed: string[] = ep
    ? (Array.isArray(ep.subsets) ? ep.subsets : [])
        .flatMap((x: { addresses?: Array<{ ip?: string }> }) => (x.addresses ?? []).map((a) => a.ip ?? ''))
        .filter(Boolean)
    : slices.flatMap((e) => (Array.isArray(e.endpoints) ? e.endpoints : [])).flatMap((e) => (e?.addresses ?? []) as string[]);
  const stale = listed.filter((ip) => !liveIps.includes(ip));
  const missing = liveIps.filter((ip) => !listed.includes(ip));
  if (!stale.length && !missing.length) return [];
  return [
    finding(
      'ARCH-DNS03',
      'warning',
      `the kubernetes Service lists ${stale.length ? `API server address${stale.length === 1 ? '' : 'es'} ${stale.join(', ')} that ${stale.length === 1 ? 'is' : 'are'} not live` : `${listed.length} of ${liveIps.length} live API servers`}`,
      `default/kubernetes endpoints: ${listed.join(', ') || 'none'}; live API servers (identity leases renewed in the last minute): ${liveIps.join(', ')}.${missing.length ? ` Not listed: ${missing.join(', ')}.` : ''} In-cluster clients (controllers, operators, kubectl in pods) are sent to every listed address: a dead one makes a share of their requests time out.`,
      {
        objects: [{ kind: 'Endpoints', apiVersion: 'v1', namespace: 'default', name: 'kubernetes' }],
        evidence: { listed, live: liveIps, stale, missing },
        why: "The API server's endpoint reconciler keeps this list to the servers that renew their lease; a server removed uncleanly can stay listed until its lease key expires, and a mismatched --advertise-address keeps the wrong address.",
        fix: [
          "check the removed server is really gone (its kube-apiserver stopped), and each server's --advertise-address",
          command(['kubectl', '-n', 'default', 'get', 'endpoints', 'kubernetes', '-o', 'yaml']),
          command(['kubectl', '-n', 'kube-system', 'get', 'leases', '-l', 'apiserver.kubernetes.io/identity=kube-apiserver']),
        ],
      },
    ),
  ];
}

export const clusterDns = defineCheck({
  id: 'cluster-dns',
  title: 'Cluster DNS and the kubernetes Service are served',
  severity: 'critical',
  map: [{ contract: 'interfaces', part: 'DNS' }],
  codes: CODES,
  proofs: {
    'ARCH-DNS01': ['Endpoints', 'EndpointSlice.discovery.k8s.io'],
    'ARCH-DNS02': ['Pod'],
    'ARCH-DNS03': ['Service', 'Endpoints', 'EndpointSlice.discovery.k8s.io', 'Lease.coordination.k8s.io', 'Node'],
  },
  needs: [
    {
      ...R.services,
      fields: ['spec.clusterIP', 'spec.selector'],
      role: 'subject',
      lost: "the DNS Service's selector and the kubernetes Service cannot be read; DNS endpoints are still judged by name",
    },
    {
      ...R.podsLean,
      fields: [
        ...ADDRESS_FIELDS.pods,
        'status.conditions',
        'status.containerStatuses[].restartCount',
        'status.containerStatuses[].state.waiting.reason',
      ],
      role: 'subject',
      lost: 'which pods match the DNS selector, and their state (NodeLocal DNSCache too), cannot be shown',
      bodiesFor: (m) => DNS_NAMESPACES.has(m.namespace ?? '') && POD_LABELS.includes(m.labels?.['k8s-app'] ?? ''),
    },
    {
      ...R.endpoints,
      fields: ADDRESS_FIELDS.endpoints,
      role: 'subject',
      lost: 'ready endpoints are read from EndpointSlices only',
      or: R.endpointslices,
    },
    {
      ...R.endpointslices,
      fields: ADDRESS_FIELDS.endpointslices,
      role: 'subject',
      lost: 'ready endpoints are read from Endpoints only',
      or: R.endpoints,
    },
    {
      ...R.leases,
      fields: ['spec.renewTime'],
      role: 'evidence',
      lost: 'the kubernetes Service cannot be compared with the live API servers',
    },
    {
      ...R.nodes,
      // by its host name label too (an identity lease names the host), and whether it still posts status
      fields: ['metadata.labels["kubernetes.io/hostname"]', ...ADDRESS_FIELDS.nodes],
      role: 'evidence',
      lost: 'API server identity leases cannot be mapped to node addresses, nor a hand-written DNS address to a node that stopped answering',
    },
  ],
  docs: {
    summary:
      "the cluster's own critical Services: cluster DNS with no ready endpoint (selector matching no pod, pods none ready), DNS or NodeLocal DNSCache pods down, the `kubernetes` Service listing API servers that are not live",
    what: "The cluster DNS Service — the one the kubelets' clusterDNS points at (with --deep), else kube-dns / CoreDNS by name and labels in kube-system (openshift-dns on OpenShift) — with its selector, the pods it matches and their readiness, and its EndpointSlices (or Endpoints): no ready endpoint is critical, with the reason (no pod matches the selector, and which DNS pods carry other labels; or the matched pods and why none is ready). Partly down DNS pods and NodeLocal DNSCache pods that are not ready (DNS down on their node). The `default/kubernetes` Service's endpoints against the API servers whose identity leases were renewed in the last minute.",
    why: 'Every pod resolves names through the cluster DNS Service; with no ready endpoint behind it, service discovery fails everywhere while `kubectl get pods` shows CoreDNS "Running". A label mismatch after an upgrade or a hand-edited manifest does exactly that. A stale address in the kubernetes Service sends a share of every in-cluster client\'s requests to a server that is gone.',
    fix: 'Label mismatch: give the DNS pods the labels the Service selects (those of the distribution\'s own CoreDNS manifest — K3s: k8s-app=kube-dns), or restore the selector. Pods not ready: read their logs (CoreDNS "Loop detected", an unreachable upstream, a bad Corefile). kubernetes Service: make sure a removed API server is really stopped and each server advertises its own address.',
    limits:
      'Readiness is what Kubernetes reports: a ready endpoint can still answer wrongly (e.g. a broken upstream), and a Service path problem (kube-proxy, CNI) is not visible here. Without --deep the DNS Service is found by name and labels, not by what the kubelets use. The kubernetes Service comparison needs identity leases (Kubernetes >= 1.26) with a hostname label that maps to a Node address.',
  },
  run(ctx) {
    const found = dnsServices(ctx);
    const serviceSeen = !ctx.snap.gap(R.services);
    const services = found.services.length || serviceSeen ? found.services : dnsByEndpoints(ctx);
    const how = found.services.length || serviceSeen ? found.how : 'the name of its endpoints (Services not visible)';
    if (!services.length) {
      const others = [...nodeLocalFindings(ctx), ...kubernetesServiceFindings(ctx)];
      if (others.length) return { findings: others };
      return {
        findings: [],
        skipped: serviceSeen
          ? 'no cluster DNS Service found (no kube-dns / CoreDNS Service in kube-system)'
          : 'Services are not visible, and no Endpoints or EndpointSlice of a cluster DNS Service is',
      };
    }
    if (ctx.snap.visibility(R.endpoints) && ctx.snap.visibility(R.endpointslices) && ctx.snap.visibility(R.pods)) {
      return {
        findings: [],
        skipped: 'neither Endpoints, EndpointSlices nor pods are visible: whether DNS has a ready endpoint cannot be told',
      };
    }
    const findings = [
      ...services.flatMap((s) => dnsFindings(ctx, s, how, serviceSeen)),
      ...nodeLocalFindings(ctx),
      ...kubernetesServiceFindings(ctx),
    ];
    return {
      findings,
      passed: `cluster DNS ${services.map((s) => `${refText(svcRef(s))} (${s.spec?.clusterIP})`).join(', ')} has ready endpoints (found by ${how})`,
    };
  },
});
