// Aggregated APIs that are down: an APIService whose backend does not answer (Available=False, e.g.
// metrics.k8s.io after metrics-server is gone) breaks discovery for every client — kubectl prints "unable to
// retrieve the complete list of server APIs" — and namespace deletion, which needs complete discovery.
// Condition reasons from kube-aggregator's availability controller: ServiceNotFound, ServicePortError,
// EndpointsNotFound, MissingEndpoints, FailedDiscoveryCheck (False), ServiceAccessError, EndpointsAccessError (Unknown).
import { condition } from '../../lib/k8s.js';
import { R } from '../../resources.js';
import { defineCheck, finding } from '../types.js';
import { command, inNamespace } from '../../lib/shell.js';

const CODES = {
  'ARCH-API01': 'an aggregated API (APIService) is not available: discovery is incomplete, namespace deletion stalls',
} as const;

export const aggregatedApis = defineCheck({
  id: 'aggregated-apis',
  title: 'Aggregated APIs that are down (the door)',
  severity: 'error',
  map: [
    { contract: 'door', part: 'aggregated APIs' },
    { contract: 'door', part: 'APIService' },
  ],
  codes: CODES,
  proofs: { 'ARCH-API01': ['APIService.apiregistration.k8s.io'] },
  needs: [
    {
      ...R.apiservices,
      fields: ['spec.group', 'spec.service.name', 'spec.service.namespace', 'spec.version', 'status.conditions'],
      role: 'subject',
      lost: "APIServices are not read: an unavailable one is found only through the discovery failures of namespaces stuck deleting (its Service and the aggregator's reason cannot be shown)",
    },
    {
      ...R.namespaces,
      fields: ['status.conditions'],
      role: 'context',
      // without APIServices, namespaces stuck on discovery are what is judged
      roleHere: (snap) => (snap.gap(R.apiservices) ? 'subject' : 'context'),
      lost: 'namespaces stuck on an unavailable API cannot be named (and without APIServices too, nothing can be judged)',
    },
  ],
  docs: {
    summary:
      'APIServices that are not available (e.g. metrics.k8s.io with metrics-server gone): discovery, kubectl and namespace deletion break',
    what: "Every APIService served by a Service (not local) whose Available condition is not True, with the aggregator's reason (ServiceNotFound, MissingEndpoints, FailedDiscoveryCheck, …) and the namespaces already stuck Terminating because discovery failed.",
    why: 'The API server is the only door, and it also serves the aggregated APIs: when one does not answer, discovery is incomplete for every client. kubectl warns on every call, the namespace controller cannot delete namespaces (NamespaceDeletionDiscoveryFailure), and garbage collection and quota controllers degrade.',
    fix: 'Bring the backend back (its Service and ready pods; for metrics-server, often its --kubelet-insecure-tls or network access to kubelets). If the API was uninstalled and its APIService left behind, delete the APIService — only when nothing uses that API any more.',
    limits: "The condition is the aggregator's last probe (every 30 s at most); a flapping backend may show either way.",
  },
  run(ctx) {
    const apis = ctx.snap.of(R.apiservices).filter((a) => a.spec?.service);
    const stuckNs = ctx.snap
      .of(R.namespaces)
      .filter((n) => n.metadata.deletionTimestamp && condition(n, 'NamespaceDeletionDiscoveryFailure')?.status === 'True');
    const findings = apis.flatMap((a) => {
      const c = condition(a, 'Available');
      if (c?.status === 'True') return [];
      const gv = `${a.spec.group || 'core'}/${a.spec.version}`;
      const svc = `${a.spec.service.namespace}/${a.spec.service.name}`;
      const stuck = stuckNs.filter((n) =>
        (condition(n, 'NamespaceDeletionDiscoveryFailure')?.message ?? '').includes(`${a.spec.group}/${a.spec.version}`),
      );
      return [
        finding(
          'ARCH-API01',
          'error',
          `APIService ${a.metadata.name} is not available (${c?.reason ?? 'no condition'})`,
          `${gv}, served by Service ${svc}: Available=${c?.status ?? '?'} ${c?.reason ?? ''}${c?.message ? `: ${c.message}` : ''}. Discovery is incomplete for every client (kubectl: "unable to retrieve the complete list of server APIs: ${gv}: the server is currently unable to handle the request"), and the namespace controller cannot delete namespaces while it lasts.${stuck.length ? ` Already stuck Terminating because of it: ${stuck.map((n) => n.metadata.name).join(', ')}.` : ''}`,
          {
            objects: [
              { kind: 'APIService', apiVersion: 'apiregistration.k8s.io/v1', name: a.metadata.name },
              ...stuck.map((n) => ({ kind: 'Namespace', apiVersion: 'v1', name: n.metadata.name })),
            ],
            evidence: { groupVersion: gv, service: svc, condition: c, stuckNamespaces: stuck.map((n) => n.metadata.name) },
            why: 'Discovery lists every API the door serves; one unanswering backend makes the list incomplete for everyone.',
            fix: [
              command(['kubectl', ...inNamespace(a.spec.service.namespace), 'get', 'service,endpoints', a.spec.service.name], {
                note: 'is the backend there?',
              }),
              command(['kubectl', ...inNamespace(a.spec.service.namespace), 'get', 'pods'], { note: 'and ready?' }),
              command(['kubectl', 'delete', 'apiservice', a.metadata.name], {
                say: `only if ${gv} was uninstalled and nothing uses it any more (cost: clients of that API get "not found" instead of "unavailable")`,
              }),
            ],
          },
        ),
      ];
    });
    // APIServices not visible: the namespace controller's discovery failures still name the group-versions that
    // do not answer ("unable to retrieve the complete list of server APIs: upload.cdi.kubevirt.io/v1alpha1: the
    // server is currently unable to handle the request"); an APIService is always named <version>.<group>
    if (ctx.snap.gap(R.apiservices)) {
      const byGv = new Map<string, string[]>();
      for (const n of stuckNs) {
        const msg = String(condition(n, 'NamespaceDeletionDiscoveryFailure')?.message ?? '').replace(/\s+/g, ' ');
        for (const m of msg.matchAll(
          /([a-z0-9][a-z0-9.-]*\.[a-z0-9-]+)\/(v[0-9][a-z0-9]*): the server is currently unable to handle the request/g,
        ))
          byGv.set(`${m[1]}/${m[2]}`, [...(byGv.get(`${m[1]}/${m[2]}`) ?? []), n.metadata.name]);
      }
      for (const [gv, nss] of byGv) {
        const [group, version] = gv.split('/') as [string, string];
        const name = `${version}.${group}`;
        findings.push(
          finding(
            'ARCH-API01',
            'error',
            `APIService ${name} is not available (seen through namespaces stuck deleting)`,
            `${gv} does not answer discovery: the namespace controller reports "${gv}: the server is currently unable to handle the request" for ${nss.join(', ')}, which stay Terminating while it lasts. The APIService itself was not visible, so its Service and the aggregator's reason cannot be shown.`,
            {
              objects: [
                { kind: 'APIService', apiVersion: 'apiregistration.k8s.io/v1', name },
                ...nss.map((n) => ({ kind: 'Namespace', apiVersion: 'v1', name: n })),
              ],
              evidence: { groupVersion: gv, from: 'NamespaceDeletionDiscoveryFailure', stuckNamespaces: nss },
              why: 'Discovery lists every API the door serves; one unanswering backend makes the list incomplete for everyone.',
              fix: [
                command(['kubectl', 'get', 'apiservice', name, '-o', 'yaml'], { note: "its Service and the Available condition's reason" }),
                command(['kubectl', 'delete', 'apiservice', name], {
                  say: `only if ${gv} was uninstalled and nothing uses it any more (cost: clients of that API get "not found" instead of "unavailable"; the namespaces then finish deleting)`,
                }),
              ],
            },
          ),
        );
      }
    }
    return {
      findings,
      passed: !apis.length
        ? 'no aggregated APIService (every API is served by the API server itself)'
        : apis.length === 1
          ? `the one aggregated APIService (${apis[0]!.metadata.name}) is available`
          : `all ${apis.length} aggregated APIServices are available`,
    };
  },
});
