// Backends that cannot be judged: a fail-closed webhook, an APIService or the cluster DNS whose Service lists an address
// that maps to no visible pod or node (written by hand: a VM, a secondary address, a pod not visible). Such an
// address is never counted alive — it may be on the node going down — so when nothing else behind the Service is
// known to stay, what-if says it could not judge that backend instead of "safe". An address known to stay (its pod
// or node is not going down and answers) is enough: the Service still has a backend.
import { addressBook, endpointsAddresses, fate, sliceAddresses, type Listed } from '../lib/endpoints.js';
import type { KObject } from '../model.js';
import { R } from '../resources.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { arr } from './cluster.js';
import type { Hypothesis } from './hypothesis.js';
import type { Unjudged, WhatIfContract } from './types.js';

/** The ready addresses of a Service as the API server resolves it: its Endpoints, else its EndpointSlices. */
function readyOf(snap: Snapshot, ns: string, name: string): Listed[] {
  const ep = snap.of(R.endpoints).find((e) => e.metadata.namespace === ns && e.metadata.name === name);
  if (ep) return endpointsAddresses(ep).filter((a) => a.ready);
  const slices = snap
    .of(R.endpointslices)
    .filter((e) => e.metadata.namespace === ns && e.metadata.labels?.['kubernetes.io/service-name'] === name);
  return sliceAddresses(slices).filter((a) => a.ready);
}

/** What could not be judged behind the door with these nodes down or removed. */
export function unjudgedBackends(snap: Snapshot, h: Hypothesis, contractOf: (checkId: string) => WhatIfContract): Unjudged[] {
  const nodes = snap.of(R.nodes);
  const byName = new Map(nodes.map((n) => [n.metadata.name, n] as const));
  const book = addressBook(snap.of(R.pods), nodes);
  const seen = !snap.gap(R.nodes);
  const down = new Set(h.nodes);
  const out: Unjudged[] = [];
  const judge = (svc: { namespace?: string; name?: string } | undefined, who: string, by: string): void => {
    if (!svc?.namespace || !svc.name) return;
    const ready = readyOf(snap, svc.namespace, svc.name);
    const unknown: string[] = [];
    for (const a of ready) {
      const s = book.serves(a);
      if (!s) {
        unknown.push(a.ip);
        continue;
      }
      if (!(s.node && down.has(s.node)) && fate(s, byName, seen).alive) return;
    }
    if (unknown.length)
      out.push({
        contract: contractOf(by),
        what: `whether ${who} keeps a backend: Service ${svc.namespace}/${svc.name} lists ${unknown.join(', ')}, which no visible pod or node has (an address written by hand, never counted as live)`,
        by,
      });
  };
  for (const cfg of [...snap.of(R.validatingWebhooks), ...snap.of(R.mutatingWebhooks)])
    for (const w of arr<{ name?: string; failurePolicy?: string; clientConfig?: { service?: { namespace?: string; name?: string } } }>(
      cfg.webhooks,
    ))
      if ((w?.failurePolicy ?? 'Fail') === 'Fail')
        judge(w?.clientConfig?.service, `webhook ${String(w?.name)} of ${cfg.kind} ${cfg.metadata.name}`, 'admission-webhooks');
  for (const a of snap.of(R.apiservices) as KObject[]) judge(a.spec?.service, `APIService ${a.metadata.name}`, 'aggregated-apis');
  // the cluster DNS Service, by the names the cluster-dns check finds it by
  for (const [namespace, name] of [
    ['kube-system', 'kube-dns'],
    ['openshift-dns', 'dns-default'],
  ] as const)
    judge({ namespace, name }, 'cluster DNS', 'cluster-dns');
  return out;
}
