// Aggregated APIs that are down: an APIService whose backend does not answer (Available=False, e.g.
// metrics.k8s.io after metrics-server is gone) breaks discovery for every client — kubectl prints "unable to
// retrieve the complete list of server APIs" — and namespace deletion, which needs complete discovery.
// Condition reasons from kube-aggregator's availability controller: ServiceNotFound, ServicePortError,
// EndpointsNotFound, MissingEndpoints, FailedDiscoveryCheck (False), ServiceAccessError, EndpointsAccessError (Unknown).
import { condition } from '../lib/k8s.js';
import { R } from '../resources.js';
import { defineCheck, finding } from './types.js';

const CODES = {
  'ARCH-API01': 'an aggregated API (APIService) is not available: discovery is incomplete, namespace deletion stalls',
} as const;

export const aggregatedApis = defineCheck({
  id: 'aggregated-apis',
  title: 'Aggregated APIs that are down (the door)',
  severity: 'error',
  codes: CODES,
  needs: [
    { ...R.apiservices, role: 'subject', lost: 'aggregated APIs cannot be judged' },
    { ...R.namespaces, role: 'context', lost: 'namespaces stuck on it cannot be named' },
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
              `kubectl -n ${a.spec.service.namespace} get service,endpoints ${a.spec.service.name}; kubectl -n ${a.spec.service.namespace} get pods   # is the backend there and ready?`,
              `only if ${gv} was uninstalled and nothing uses it any more: kubectl delete apiservice ${a.metadata.name} (cost: clients of that API get "not found" instead of "unavailable")`,
            ],
          },
        ),
      ];
    });
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
