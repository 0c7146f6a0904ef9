// ARCH-WI07: no live API server left. Only live servers count — a fresh identity lease, a Ready kube-apiserver pod,
// a Ready K3s/RKE2 server node: with the other server already down, the last live one is the door.
import { R } from '../../../resources.js';
import type { Cluster } from '../../cluster.js';
import { definePrediction, input, type Prediction } from '../../types.js';

const MANAGED = new Set(['EKS', 'GKE', 'AKS']);
const k3s = (c: Cluster): boolean => c.distribution === 'K3s' || c.distribution === 'RKE2';

export default definePrediction({
  id: 'api-servers',
  code: 'ARCH-WI07',
  title: 'no API server is left: nothing can be read, written or rescheduled',
  contract: 'door',
  needs: [
    input(R.nodes, 'evidence', 'which K3s/RKE2 servers run an API server and are Ready', {
      relevant: k3s,
      fields: ['spec.providerID', 'status.conditions', 'status.nodeInfo.kubeletVersion', 'status.nodeInfo.osImage'],
    }),
    input(R.pods, 'evidence', 'which kube-apiserver pods run and are Ready', {
      relevant: (c) => !k3s(c) && !MANAGED.has(c.distribution),
      fields: ['spec.nodeName', 'status.conditions', 'status.phase'],
    }),
    input(R.leases, 'context', 'which API servers renewed their identity lease within a minute', { fields: ['spec.renewTime'] }),
  ],
  docs: {
    what: 'The API servers are found where the distribution runs them — K3s and RKE2 servers (control-plane nodes), kube-apiserver static pods, kube-apiserver identity leases (Kubernetes 1.26+) — and only live ones count: a fresh identity lease (renewed within a minute), a Ready kube-apiserver pod, a Ready server node. When the nodes going down hold an API server and no live one is left elsewhere, the door closes: critical. The prediction says which evidence showed each server and why the others do not count.',
    why: 'The API server is the only door to the cluster state; without one, the cluster runs on as it is, blind and frozen. A server that is already NotReady (K3s on an external datastore with one server down, a kubeadm control plane with another kube-apiserver not Ready) is not a second door.',
    limits:
      'Managed control planes (EKS, GKE, AKS) keep the API servers to themselves: not predicted there. Where no API server is visible at all (k0s controllers are not nodes), it is not judged.',
  },
  predict(c) {
    if (MANAGED.has(c.distribution)) return { predictions: [] };
    const servers = c.apiServers;
    if (!servers.length)
      return {
        predictions: [],
        unjudged: [{ what: 'where the API servers run (no control-plane node, kube-apiserver pod or identity lease is visible)' }],
      };
    const going = servers.filter((s) => c.down.has(s.node));
    const others = servers.filter((s) => !c.down.has(s.node));
    if (!going.length || others.some((s) => s.live)) return { predictions: [] };
    const said = (s: (typeof servers)[number]): string => `${s.node} (${s.evidence.join(', ')})`;
    const predictions: Prediction[] = [
      {
        contract: 'door',
        code: 'ARCH-WI07',
        from: 'what-if',
        severity: 'critical',
        title: others.length
          ? `no live API server is left: ${going.map((s) => s.node).join(', ')} ${going.length === 1 ? 'is' : 'are'} the last live one${going.length === 1 ? '' : 's'}`
          : `no API server is left: ${going.map((s) => s.node).join(', ')} ${going.length === 1 ? 'is' : 'are'} every API server there is`,
        message: `The door closes: nothing can be read or written, no controller reconciles and no pod is rescheduled until an API server is back${c.h.remove ? ' — and with them removed, there is none to come back' : ''}. Going down: ${going.map(said).join('; ')}.${others.length ? ` Not live already: ${others.map(said).join('; ')}.` : ''}`,
        objects: going.map((s) => ({ kind: 'Node', name: s.node })),
        why: 'The API server is the only door to the cluster state; without one, the cluster runs on as it is, blind and frozen.',
        fix: [
          others.length
            ? `bring ${others.map((s) => s.node).join(', ')} back first (a live API server, Ready), then take ${going.map((s) => s.node).join(', ')} down`
            : k3s(c)
              ? 'add a server before taking this one down (3 servers for etcd quorum), or plan a window with nothing relying on the API'
              : 'keep another control-plane node up while this one is down',
        ],
      },
    ];
    return { predictions };
  },
});
