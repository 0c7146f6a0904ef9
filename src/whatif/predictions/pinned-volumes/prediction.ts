// ARCH-WI03: a pod whose claim is bound to a volume only a node going down can mount (local-path, local PVs,
// hostPath by nodeAffinity): it cannot move, and with --remove its data goes with the node.
import { refOf } from '../../../lib/k8s.js';
import { R } from '../../../resources.js';
import { definePrediction, input, refText, type Prediction } from '../../types.js';

export default definePrediction({
  id: 'pinned-volumes',
  code: 'ARCH-WI03',
  title: 'a pod is pinned to a volume on those nodes (local-path, local, hostPath): it cannot move, its data stays there',
  contract: 'interfaces',
  needs: [
    input(R.pods, 'subject', 'which pods there have claims', {
      fields: ['metadata.annotations["kubernetes.io/config.mirror"]', 'spec.nodeName', 'spec.volumes[].persistentVolumeClaim.claimName'],
    }),
    input(R.persistentvolumeclaims, 'evidence', "which volume a pod's claim is bound to", {
      relevant: (c) => c.claimsThere,
      fields: ['spec.volumeName'],
    }),
    input(R.persistentvolumes, 'evidence', 'which node a volume can be mounted on', {
      relevant: (c) => c.claimsThere,
      fields: ['spec.nodeAffinity.required', 'spec.storageClassName'],
    }),
    input(
      R.nodes,
      'evidence',
      "which nodes a volume's nodeAffinity matches (by their labels: kubernetes.io/hostname is not always the node's name)",
      { relevant: (c) => c.claimsThere, fields: ['metadata.labels', 'spec.unschedulable', 'status.conditions'] },
    ),
  ],
  docs: {
    what: 'A pod on the nodes going down whose PersistentVolumeClaim is bound to a PersistentVolume whose nodeAffinity no node left can satisfy (kubernetes.io/hostname In [node], as local-path and local volumes are written; or a zone whose nodes all go down) cannot be scheduled elsewhere: its replacement stays Pending with "volume node affinity conflict" until a node it allows is back — and with --remove, the data goes with the node. The nodeAffinity is matched as the scheduler and the kubelet match it: against each node\'s labels (In, NotIn, Exists, DoesNotExist, Gt, Lt; terms ORed), so a volume pinned to kubernetes.io/hostname=w1 lives on the node labelled so, whatever its name (cloud providers, --hostname-override). A node left that matches but is not Ready or is cordoned takes no pod now: it does not count as a way out.',
    why: 'Node-local storage is the node: the pod can only run where its data is. A workload whose pods cannot move is said once, here, not also as down (ARCH-WI01).',
    limits:
      "Nodes that are not in the cluster yet (an autoscaler's) are not counted. A volume's matchFields (metadata.name) pins nothing: upstream matches a volume's nodeAffinity against the labels alone, so such a pod is placed elsewhere, without its data — not predicted. DaemonSet pods are not counted. With the nodes not visible, only a volume that names a node going down by kubernetes.io/hostname is found, and the verdict is not judged.",
  },
  predict(c) {
    const predictions: Prediction[] = [...c.pinned.values()].map(({ pod: p, claim, pv, pvc, nodes, idle }) => {
      const where = nodes.join(', ');
      const only = `only ${where} can mount (nodeAffinity)${idle.length ? `; ${idle.join(', ')} could too, but ${idle.length === 1 ? 'it takes' : 'they take'} no pod now (not Ready or cordoned)` : ''}`;
      return {
        contract: 'interfaces',
        code: 'ARCH-WI03',
        from: 'what-if',
        severity: 'error',
        title: `${refText(refOf(p))} cannot move: its volume ${pv.metadata.name} lives on ${where}`,
        message: `Claim ${claim} is bound to ${pv.metadata.name} (${(pv.spec?.storageClassName ?? pv.spec?.hostPath) ? `${pv.spec?.storageClassName ?? 'hostPath'}` : 'local'}), which ${only}. A replacement pod stays Pending with "volume node affinity conflict"${c.h.remove ? `, and the data goes with ${where}` : ` until ${where} ${nodes.length === 1 ? 'is' : 'are'} back; its data stays there`}.`,
        objects: [refOf(p), { kind: 'PersistentVolume', name: pv.metadata.name }, ...(pvc ? [refOf(pvc)] : [])],
        why: 'Node-local storage (local-path, local PVs) is the node: the pod can only run where its data is.',
        fix: c.h.remove
          ? [
              `move the data off ${where} before removing it (a backup and restore into a claim on shared storage), or accept losing it: its claim must then be deleted for the pod to start elsewhere`,
            ]
          : [
              `plan for the pod being down while ${where} ${nodes.length === 1 ? 'is' : 'are'}; for a replicated store (Elasticsearch, databases) let the others take over first`,
            ],
      };
    });
    return { predictions };
  },
});
