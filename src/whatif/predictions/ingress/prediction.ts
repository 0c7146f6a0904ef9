// ARCH-WI06: a load-balancer or ingress Service whose every ready backend is on the nodes going down: traffic from
// outside stops.
import { refOf } from '../../../lib/k8s.js';
import type { KObject } from '../../../model.js';
import { R } from '../../../resources.js';
import { ADDRESS_FIELDS, addressBook, endpointsAddresses, sliceAddresses } from '../../../lib/endpoints.js';
import { definePrediction, input, refText, type Prediction } from '../../types.js';

const INGRESS = /(ingress|traefik|gateway|haproxy|contour|envoy|kong|nginx)/;

export default definePrediction({
  id: 'ingress',
  code: 'ARCH-WI06',
  title: 'an ingress or load-balancer Service has no ready backend left',
  contract: 'interfaces',
  reads: [
    { ...R.deployments, fields: ['spec.replicas'] },
    { ...R.endpoints, fields: ADDRESS_FIELDS.endpoints },
  ],
  needs: [
    input(R.services, 'subject', 'which Services take traffic from outside', { fields: ['spec.type'] }),
    input(R.endpointslices, 'evidence', "where a Service's ready backends run", { or: R.endpoints, fields: ADDRESS_FIELDS.endpointslices }),
    input(R.pods, 'context', 'the node of a backend whose endpoint does not name it', { fields: ADDRESS_FIELDS.pods }),
    input(R.nodes, 'context', 'the node whose own address a hand-written endpoint lists', {
      fields: ['status.addresses[].address', 'status.addresses[].type'],
    }),
  ],
  docs: {
    what: 'A Service of type LoadBalancer, or one named for an ingress or gateway (traefik, ingress-nginx, istio gateways, envoy, kong, haproxy, contour), whose every ready endpoint runs on the nodes going down: traffic from outside stops until its pods run elsewhere.',
    why: 'The ingress is the interface between the cluster and its users; with no backend, every route behind it fails.',
    limits:
      'Endpoints are read from Endpoints or EndpointSlices, whichever is visible; each address is mapped to what serves it (its nodeName or pod, else the pod or node whose IP it is), and one that maps to nothing visible makes the Service not judged rather than live. An ingress controller Service named otherwise is not recognised unless it is a LoadBalancer.',
  },
  predict(c) {
    const predictions: Prediction[] = [];
    // every Service that takes traffic from outside, with the nodes of its ready backends: once per snapshot
    const front = c.shared('ingressBackends', () => {
      const byService = new Map<string, KObject>();
      for (const e of c.snap.of(R.endpoints)) byService.set(`${e.metadata.namespace}/${e.metadata.name}`, e);
      const slices = new Map<string, KObject[]>();
      for (const e of c.snap.of(R.endpointslices)) {
        const k = `${e.metadata.namespace}/${e.metadata.labels?.['kubernetes.io/service-name']}`;
        slices.set(k, [...(slices.get(k) ?? []), e]);
      }
      // what serves each address: its node, its pod's, or the pod or node whose IP it is (hand-written endpoints)
      const book = addressBook(c.pods, c.snap.of(R.nodes));
      return c.snap
        .of(R.services)
        .filter((s) => s.spec?.type === 'LoadBalancer' || INGRESS.test(s.metadata.name))
        .map((s) => {
          const key = `${s.metadata.namespace}/${s.metadata.name}`;
          const ep = byService.get(key);
          const listed = ep ? endpointsAddresses(ep) : sliceAddresses(slices.get(key) ?? []);
          const ready = listed
            .filter((a) => a.ready)
            .map((a) => ({ ip: a.ip, node: book.serves(a)?.node, pod: a.targetRef?.kind === 'Pod' ? a.targetRef.name : undefined }));
          return { s, ready };
        });
    });
    const unjudged: Array<{ what: string }> = [];
    for (const { s, ready } of front) {
      if (!ready.length || ready.some((e) => e.node && !c.down.has(e.node))) continue;
      // an address no visible pod or node has is never counted live, nor down
      const unknown = ready.filter((e) => !e.node);
      if (unknown.length) {
        unjudged.push({
          what: `whether ${s.metadata.namespace}/${s.metadata.name} keeps a backend: it lists ${unknown.map((e) => e.ip).join(', ')}, which no visible pod or node has`,
        });
        continue;
      }
      const nodeOf = (e: { node?: string }): string | undefined => e.node;
      const owner = c.workloadsThere.find((w) =>
        w.pods.some((p) => ready.some((e) => e.pod === p.metadata.name && p.metadata.namespace === s.metadata.namespace)),
      );
      predictions.push({
        contract: 'interfaces',
        code: 'ARCH-WI06',
        from: 'what-if',
        severity: 'error',
        title: `${s.spec?.type === 'LoadBalancer' ? 'load balancer' : 'ingress'} ${s.metadata.namespace}/${s.metadata.name} has no ready backend left${owner ? ` (${refText(owner.ref)})` : ''}`,
        message: `Every ready endpoint of Service ${s.metadata.namespace}/${s.metadata.name} is on ${[...new Set(ready.map(nodeOf))].join(', ')}: traffic from outside stops until its pods run elsewhere.`,
        objects: owner ? [owner.ref, refOf(s)] : [refOf(s)],
        why: 'The ingress is the interface between the cluster and its users; with no backend, every route behind it fails.',
        fix: [`run ${owner ? owner.ref.name : 'its pods'} with replicas on other nodes before the maintenance`],
      });
    }
    return { predictions, unjudged };
  },
});
