// The door's gatekeepers: admission webhooks that fail closed. A webhook with failurePolicy Fail (the default
// in admissionregistration.k8s.io/v1) whose Service is gone or has no ready endpoint makes the API server reject
// every matching request ("failed calling webhook …: no endpoints available for service …"); one that matches
// kube-system can block the control plane's own writes. The API server resolves a webhook Service through its
// Endpoints (ready addresses only: k8s.io/apiserver pkg/util/proxy ResolveEndpoint), which is what is read here.
// Endpoints written by hand (a Service without a selector) are not kept by any controller: an address whose node
// stopped answering (Ready Unknown) or is gone stays listed, and the API server dials it in vain — each address is
// mapped to what serves it (lib/endpoints.ts) and judged by that.
import { ADDRESS_FIELDS, deadAddresses, endpointsAddresses, sliceAddresses, type Listed } from '../../lib/endpoints.js';
import { refText, type KObject, type ObjectRef, type Severity } from '../../model.js';
import { R } from '../../resources.js';
import { defineCheck, finding, type CheckContext, type Draft } from '../types.js';
import { certNotAfter } from '../../lib/der.js';
import { command, inNamespace } from '../../lib/shell.js';

/** What this check reads of a webhook configuration, validating or mutating alike. */
const READS = [
  'webhooks[].clientConfig.caBundle',
  'webhooks[].clientConfig.service.name',
  'webhooks[].clientConfig.service.namespace',
  'webhooks[].clientConfig.url',
  'webhooks[].failurePolicy',
  'webhooks[].name',
  'webhooks[].namespaceSelector',
  'webhooks[].objectSelector',
  'webhooks[].rules[].apiGroups',
  'webhooks[].rules[].operations',
  'webhooks[].rules[].resources',
];

const CODES = {
  'ARCH-WH01':
    'a fail-closed admission webhook has no ready backend: matching requests are rejected (critical when it matches kube-system)',
  'ARCH-WH02': "an admission webhook's caBundle is empty, unreadable or expired: every call fails TLS verification",
  'ARCH-WH03': 'a fail-closed URL webhook: its backend cannot be checked from inside the cluster',
} as const;
type Code = keyof typeof CODES;

interface Hook {
  name?: string;
  failurePolicy?: string;
  clientConfig?: { service?: { namespace?: string; name?: string; port?: number }; url?: string; caBundle?: string };
  rules?: Array<{ apiGroups?: string[]; resources?: string[]; operations?: string[]; scope?: string }>;
  namespaceSelector?: {
    matchLabels?: Record<string, string>;
    matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
  };
  objectSelector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
}

/** Does a label selector select these labels? (Kubernetes semantics; an empty selector selects everything.) */
export function selects(sel: Hook['namespaceSelector'], labels: Record<string, string>): boolean {
  if (!sel) return true;
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = e.key in labels;
    const val = labels[e.key];
    if (e.operator === 'In' && !(has && (e.values ?? []).includes(val!))) return false;
    if (e.operator === 'NotIn' && has && (e.values ?? []).includes(val!)) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

const CORE = new Set([
  'pods',
  'configmaps',
  'secrets',
  'services',
  'endpoints',
  'leases',
  'events',
  'serviceaccounts',
  'deployments',
  'daemonsets',
  'replicasets',
  'nodes',
  'namespaces',
  '*',
]);

function rulesText(h: Hook): string {
  return (
    (h.rules ?? [])
      .map(
        (r) =>
          `${(r.operations ?? ['*']).join('/')} ${(r.resources ?? []).join(',')}${(r.apiGroups ?? []).some((g) => g && g !== '*') ? `.${(r.apiGroups ?? []).filter(Boolean).join('|')}` : ''}`,
      )
      .join('; ') || 'no rules'
  );
}

/** Blast radius: does it match kube-system, and objects the control plane itself writes? */
function blastRadius(h: Hook, kubeSystemLabels: Record<string, string>): { controlPlane: boolean; text: string } {
  const inKubeSystem = selects(h.namespaceSelector, kubeSystemLabels);
  const broad = (h.rules ?? []).some(
    (r) =>
      (r.resources ?? []).some((x) => CORE.has(x.split('/')[0]!)) &&
      ((r.apiGroups ?? []).includes('*') || (r.apiGroups ?? []).some((g) => ['', 'apps', 'coordination.k8s.io'].includes(g))),
  );
  const everything = (h.rules ?? []).some((r) => (r.resources ?? []).includes('*'));
  const controlPlane = inKubeSystem && !h.objectSelector?.matchLabels && (broad || everything);
  const ns =
    !h.namespaceSelector || (!h.namespaceSelector.matchLabels && !h.namespaceSelector.matchExpressions?.length)
      ? 'every namespace'
      : inKubeSystem
        ? 'the namespaces its selector matches, kube-system included'
        : 'the namespaces its selector matches (not kube-system)';
  return { controlPlane, text: `${rulesText(h)} in ${ns}` };
}

/** The addresses the API server would dial for a Service (its Endpoints, else its EndpointSlices), ready ones only;
 *  null when neither is visible. */
function readyAddresses(ctx: CheckContext, ns: string, name: string): Listed[] | null {
  const ep = ctx.snap.of(R.endpoints).find((e) => e.metadata.namespace === ns && e.metadata.name === name);
  if (ep) return endpointsAddresses(ep).filter((a) => a.ready);
  const slices = ctx.snap
    .of(R.endpointslices)
    .filter((e) => e.metadata.namespace === ns && e.metadata.labels?.['kubernetes.io/service-name'] === name);
  if (!slices.length) return ctx.snap.gap(R.endpoints) && ctx.snap.gap(R.endpointslices) ? null : [];
  return sliceAddresses(slices).filter((a) => a.ready);
}

/** What the listed ready addresses show: one answers (null); none does (dead: each with what served it and why it is
 *  down); or none is known to answer and some map to nothing while pods are listed without their IPs (metadata only,
 *  as doctor lists them) — those could be pods on a node that is gone: not judged. An address that maps to nothing
 *  while every pod's IP is visible is outside the cluster, and counts as live here, as the API server's list says. */
function backendState(ctx: CheckContext, ready: Listed[]): { dead: string } | { unknown: string[] } | null {
  const pods = ctx.snap.of(R.pods);
  const { book, dead } = deadAddresses(pods, ctx.snap.of(R.nodes), !ctx.snap.gap(R.nodes));
  // a running pod always has an IP: one without is a pod listed metadata-only
  const ipsHidden = Boolean(ctx.snap.gap(R.pods)) || pods.some((p) => p.status?.phase === 'Running' && !p.status?.podIP);
  const why: string[] = [];
  const unknown: string[] = [];
  for (const a of ready) {
    const w = dead(a);
    if (w) why.push(w);
    else if (ipsHidden && !book.serves(a)) unknown.push(a.ip);
    else return null;
  }
  return unknown.length ? { unknown } : { dead: why.join('; ') };
}

/** The caBundle's problem, if any: empty, not a certificate, or expired (every PEM in it). */
function caProblem(b64: string | undefined, now: Date): string | null {
  if (!b64)
    return "the caBundle is empty: the API server verifies the webhook's certificate against its system roots, which an in-cluster, self-signed webhook certificate is not signed by (x509: certificate signed by unknown authority)";
  let pem: string;
  try {
    pem = Buffer.from(b64, 'base64').toString('utf8');
  } catch {
    return 'the caBundle is not base64';
  }
  const certs = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (!certs.length) return 'the caBundle holds no PEM certificate';
  const ends: Date[] = [];
  for (const c of certs) {
    try {
      ends.push(certNotAfter(c));
    } catch {
      return 'the caBundle holds a certificate that cannot be parsed';
    }
  }
  const latest = new Date(Math.max(...ends.map((d) => d.getTime())));
  return latest.getTime() < now.getTime()
    ? `every CA certificate in the caBundle has expired (the latest on ${latest.toISOString().slice(0, 10)})`
    : null;
}

function configFindings(ctx: CheckContext, cfg: KObject, kubeSystemLabels: Record<string, string>, unjudged: string[]): Array<Draft<Code>> {
  const out: Array<Draft<Code>> = [];
  const ref: ObjectRef = { kind: cfg.kind ?? '?', apiVersion: cfg.apiVersion, name: cfg.metadata.name };
  const hooks: Hook[] = Array.isArray(cfg.webhooks) ? cfg.webhooks : [];
  const down: Array<{ hook: Hook; why: string; radius: ReturnType<typeof blastRadius>; svc: ObjectRef; byHand?: boolean }> = [];
  const badCa: Array<{ hook: Hook; why: string }> = [];
  const urls: Hook[] = [];
  for (const h of hooks) {
    const failClosed = (h.failurePolicy ?? 'Fail') === 'Fail';
    const svc = h.clientConfig?.service;
    if (!svc?.name || !svc.namespace) {
      if (h.clientConfig?.url && failClosed) urls.push(h);
      continue;
    }
    const caWhy = caProblem(h.clientConfig?.caBundle, ctx.now);
    if (caWhy) badCa.push({ hook: h, why: caWhy });
    if (!failClosed) continue;
    const svcRef: ObjectRef = { kind: 'Service', apiVersion: 'v1', namespace: svc.namespace, name: svc.name };
    const service = ctx.snap.of(R.services).find((s) => s.metadata.namespace === svc.namespace && s.metadata.name === svc.name);
    if (!service && !ctx.snap.gap(R.services)) {
      down.push({
        hook: h,
        why: `service "${svc.name}" not found in ${svc.namespace}`,
        radius: blastRadius(h, kubeSystemLabels),
        svc: svcRef,
      });
      continue;
    }
    // Services not visible: the backend is judged from its Endpoints or EndpointSlices alone
    if (service?.spec?.type === 'ExternalName') continue;
    const ready = readyAddresses(ctx, svc.namespace, svc.name);
    if (ready?.length === 0)
      down.push({
        hook: h,
        why: `no endpoints available for service "${svc.namespace}/${svc.name}" (no ready pod behind it)`,
        radius: blastRadius(h, kubeSystemLabels),
        svc: svcRef,
      });
    else if (ready) {
      const state = backendState(ctx, ready);
      if (state && 'unknown' in state)
        unjudged.push(
          `whether ${h.name} has a backend: Service ${svc.namespace}/${svc.name} lists ${state.unknown.join(', ')} by address alone, and the pods' addresses are not visible (pods listed without their bodies)`,
        );
      else if (state)
        down.push({
          hook: h,
          why: `service "${svc.namespace}/${svc.name}" lists only addresses nothing answers at — ${state.dead}; the endpoints were written by hand and no controller drops them, so the API server still dials them and gets no answer: failed calling webhook "${h.name}": failed to call webhook: … dial tcp ${ready[0]!.ip}:…`,
          radius: blastRadius(h, kubeSystemLabels),
          svc: svcRef,
          byHand: true,
        });
    }
  }
  if (down.length) {
    const controlPlane = down.some((d) => d.radius.controlPlane);
    const severity: Severity = controlPlane ? 'critical' : 'error';
    out.push(
      finding(
        'ARCH-WH01',
        severity,
        `${refText(ref)} fails closed with no backend: ${down.map((d) => d.hook.name).join(', ')}`,
        `${down.map((d) => `${d.hook.name}: ${d.why}; it blocks ${d.radius.text}`).join('. ')}. With failurePolicy Fail, every matching create/update is rejected ("failed calling webhook").${controlPlane ? " It matches kube-system and the objects the control plane itself writes: controllers, and even the webhook's own pods, can be blocked from starting — a deadlock." : ''}`,
        {
          objects: [
            ref,
            ...down.map((d) => d.svc).filter((s, i, a) => a.findIndex((x) => x.name === s.name && x.namespace === s.namespace) === i),
          ],
          evidence: {
            webhooks: down.map((d) => ({
              name: d.hook.name,
              failurePolicy: d.hook.failurePolicy ?? 'Fail',
              why: d.why,
              blocks: d.radius.text,
              service: d.svc,
            })),
            controlPlane,
          },
          why: 'The API server is the only door, and admission webhooks stand in it: a fail-closed webhook that cannot be called shuts the door for everything it matches.',
          fix: [
            command(['kubectl', ...inNamespace(down[0]!.svc.namespace), 'get', 'pods,endpoints', down[0]!.svc.name], {
              say: 'bring the backend back',
              note: 'is its controller scheduled, and why not ready?',
            }),
            command(['kubectl', 'delete', String(cfg.kind).toLowerCase(), cfg.metadata.name], {
              say: 'if the tool was uninstalled and the configuration left behind (cost: requests are no longer checked by it — only right when its controller is gone for good)',
            }),
            ...down
              .filter((d) => d.byHand)
              .slice(0, 1)
              .map((d) =>
                command(['kubectl', ...inNamespace(d.svc.namespace), 'get', 'endpoints', d.svc.name, '-o', 'yaml'], {
                  say: 'its endpoints are written by hand (no controller keeps them): bring back what served them, or make whoever writes them list an address that answers',
                }),
              ),
            ...(controlPlane
              ? [
                  'to break a deadlock while the backend cannot start: set failurePolicy: Ignore on the webhook (or exclude kube-system with a namespaceSelector) until it is back (cost: matching requests pass unchecked meanwhile)',
                ]
              : []),
          ],
        },
      ),
    );
  }
  if (badCa.length) {
    out.push(
      finding(
        'ARCH-WH02',
        'error',
        `${refText(ref)}: caBundle cannot verify ${badCa.map((b) => b.hook.name).join(', ')}`,
        `${badCa.map((b) => `${b.hook.name}: ${b.why}`).join('. ')}. Every call fails TLS verification${badCa.some((b) => (b.hook.failurePolicy ?? 'Fail') === 'Fail') ? ', and with failurePolicy Fail the requests are rejected' : ''}.`,
        {
          objects: [ref],
          evidence: { webhooks: badCa.map((b) => ({ name: b.hook.name, why: b.why })) },
          why: 'The API server calls webhooks over TLS and verifies them with the caBundle; the injector (cert-manager cainjector, the operator) is usually the one that failed.',
          fix: [
            'check what injects the caBundle (cert-manager cainjector, the operator) and its logs',
            command(
              ['kubectl', 'get', String(cfg.kind).toLowerCase(), cfg.metadata.name, '-o', 'jsonpath={.webhooks[*].clientConfig.caBundle}'],
              {
                pipe: [
                  ['base64', '-d'],
                  ['openssl', 'x509', '-noout', '-enddate'],
                ],
              },
            ),
          ],
        },
      ),
    );
  }
  if (urls.length) {
    out.push(
      finding(
        'ARCH-WH03',
        'info',
        `${refText(ref)}: ${urls.length} fail-closed URL webhook${urls.length === 1 ? '' : 's'} cannot be checked from here`,
        `${urls.map((h) => `${h.name} → ${h.clientConfig?.url}`).join('; ')}. Its backend is outside the cluster's Services: whether it answers can only be seen by calling it.`,
        {
          objects: [ref],
          evidence: { webhooks: urls.map((h) => ({ name: h.name, url: h.clientConfig?.url })) },
          why: 'A fail-closed webhook outside the cluster is a dependency of every matching write.',
        },
      ),
    );
  }
  return out;
}

export const admissionWebhooks = defineCheck({
  id: 'admission-webhooks',
  title: 'Admission webhooks that fail closed (the door)',
  severity: 'critical',
  map: [
    { contract: 'door', part: 'admission webhooks' },
    { contract: 'door', part: 'admission webhook configuration' },
  ],
  codes: CODES,
  proofs: { 'ARCH-WH01': ['Service', 'Endpoints', 'EndpointSlice.discovery.k8s.io'] },
  needs: [
    {
      ...R.validatingWebhooks,
      fields: READS,
      role: 'subject',
      lost: 'validating webhooks are not judged (the mutating ones still are)',
    },
    {
      ...R.mutatingWebhooks,
      fields: READS,
      role: 'subject',
      lost: 'mutating webhooks are not judged (the validating ones still are)',
    },
    {
      ...R.services,
      fields: ['spec.type'],
      role: 'evidence',
      lost: "whether a webhook's Service exists cannot be told; a backend is judged from its Endpoints or EndpointSlices alone",
    },
    {
      ...R.endpoints,
      fields: ADDRESS_FIELDS.endpoints,
      role: 'evidence',
      lost: 'ready addresses are read from EndpointSlices only',
      or: R.endpointslices,
    },
    {
      ...R.endpointslices,
      fields: ADDRESS_FIELDS.endpointslices,
      role: 'evidence',
      lost: 'ready addresses are read from Endpoints only',
      or: R.endpoints,
    },
    { ...R.namespaces, fields: [], role: 'context', lost: "kube-system's labels are assumed to be the default ones" },
    {
      ...R.nodes,
      fields: ADDRESS_FIELDS.nodes,
      role: 'context',
      lost: 'an address a Service lists by hand is not known to be on a node that stopped answering (it counts as live)',
    },
    {
      ...R.podsLean,
      fields: ADDRESS_FIELDS.pods,
      role: 'context',
      lost: 'an address a Service lists by hand is not known to be a pod on a node that stopped answering',
    },
  ],
  docs: {
    summary:
      'admission webhooks that fail closed with no ready backend (critical when they match kube-system), caBundles that are empty or expired, URL webhooks that cannot be checked',
    what: "Every Validating- and MutatingWebhookConfiguration webhook with failurePolicy Fail (the v1 default) whose Service is missing or has no ready address in its Endpoints (what the API server resolves) — or lists only addresses nothing answers at: Endpoints written by hand (a Service without a selector: an operator's, a webhook served from the host) keep an address whose pod or node is gone, and each address is mapped to what serves it (its targetRef or nodeName, else the pod whose IP it is, else the node whose address it is; dead when that node stopped posting status or no longer exists, or that pod has finished) — with what it blocks (its rules and namespaceSelector; critical when it matches kube-system and objects the control plane writes). Webhooks whose caBundle is empty, unreadable or holds only expired certificates. Fail-closed URL webhooks are reported as not checkable from inside.",
    why: 'The API server is the only door to the cluster state, and admission webhooks stand in it. A fail-closed webhook that cannot be called rejects every matching create and update ("failed calling webhook …: no endpoints available for service …"); one that matches kube-system can block the control plane\'s own writes and the webhook\'s own pods — a deadlock (kyverno and cert-manager threads show it).',
    fix: "Bring the backend back (its Deployment, its pods' readiness); if the tool was uninstalled and its configuration left behind, delete the configuration (it then checks nothing). To break a deadlock, set failurePolicy: Ignore or exclude kube-system with a namespaceSelector until the backend is back. For a caBundle, fix what injects it (cert-manager cainjector, the operator).",
    limits:
      "Readiness is what Kubernetes reports; a ready backend can still fail (TLS, network policy, a timeout) — that shows only in API server errors. A hand-written address that maps to no pod or node counts as live when every pod's address is visible (it is outside the cluster: what-if still does not count on it), and is not judged when pods are listed without their addresses (doctor lists them metadata-only): it could be a pod on a node that is gone. URL webhooks are outside reach. Fail-open webhooks are not reported (they cost latency, not rejections).",
  },
  run(ctx) {
    const ks = ctx.snap.of(R.namespaces).find((n) => n.metadata.name === 'kube-system');
    const labels = ks?.metadata.labels ?? { 'kubernetes.io/metadata.name': 'kube-system' };
    const configs = [...ctx.snap.of(R.validatingWebhooks), ...ctx.snap.of(R.mutatingWebhooks)];
    const unjudged: string[] = [];
    const findings = configs.flatMap((c) => configFindings(ctx, c, labels, unjudged));
    const hooks = configs.reduce((n, c) => n + (Array.isArray(c.webhooks) ? c.webhooks.length : 0), 0);
    return {
      findings,
      ...(unjudged.length ? { unjudged } : {}),
      passed: `${hooks} webhook${hooks === 1 ? '' : 's'} in ${configs.length} configuration${configs.length === 1 ? '' : 's'}: every fail-closed one has a ready backend`,
    };
  },
});
