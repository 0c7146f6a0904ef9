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
      fields: ['spec.nodeAffinity', 'spec.storageClassName'],
    }),
  ],
  docs: {
    what: 'A pod on the nodes going down whose PersistentVolumeClaim is bound to a PersistentVolume whose nodeAffinity allows exactly one of those nodes (kubernetes.io/hostname In [node], as local-path and local volumes are written) cannot be scheduled elsewhere: its replacement stays Pending with "volume node affinity conflict" until the node is back — and with --remove, the data goes with the node.',
    why: 'Node-local storage is the node: the pod can only run where its data is. A workload whose pods cannot move is said once, here, not also as down (ARCH-WI01).',
    limits: 'Volumes pinned by zone (a cloud disk in one zone) are not predicted. DaemonSet pods are not counted.',
  },
  predict(c) {
    const predictions: Prediction[] = [...c.pinned.values()].map(({ pod: p, claim, pv, pvc, node }) => ({
      contract: 'interfaces',
      code: 'ARCH-WI03',
      from: 'what-if',
      severity: 'error',
      title: `${refText(refOf(p))} cannot move: its volume ${pv.metadata.name} lives on ${node}`,
      message: `Claim ${claim} is bound to ${pv.metadata.name} (${(pv.spec?.storageClassName ?? pv.spec?.hostPath) ? `${pv.spec?.storageClassName ?? 'hostPath'}` : 'local'}), which only ${node} can mount (nodeAffinity). A replacement pod stays Pending with "volume node affinity conflict"${c.h.remove ? `, and the data goes with ${node}` : ` until ${node} is back; its data stays there`}.`,
      objects: [refOf(p), { kind: 'PersistentVolume', name: pv.metadata.name }, ...(pvc ? [refOf(pvc)] : [])],
      why: 'Node-local storage (local-path, local PVs) is the node: the pod can only run where its data is.',
      fix: c.h.remove
        ? [
            `move the data off ${node} before removing it (a backup and restore into a claim on shared storage), or accept losing it: its claim must then be deleted for the pod to start elsewhere`,
          ]
        : [
            `plan for the pod being down while ${node} is; for a replicated store (Elasticsearch, databases) let the others take over first`,
          ],
    }));
    return { predictions };
  },
});
