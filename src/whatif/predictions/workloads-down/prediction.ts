// ARCH-WI01: a workload with every ready pod on the nodes going down — whatever controls it (a Deployment, a
// StatefulSet, an Argo Rollout, a CloudNativePG Cluster, any operator's kind): it is down until they run elsewhere.
import { R } from '../../../resources.js';
import { running } from '../../cluster.js';
import { count, definePrediction, input, refText, type Prediction } from '../../types.js';
import { command, inNamespace } from '../../../lib/shell.js';

export default definePrediction({
  id: 'workloads-down',
  code: 'ARCH-WI01',
  title: 'a workload (any controller) has no ready pod left: it is down until its pods run elsewhere',
  contract: 'workloads',
  reads: [
    { ...R.leases, fields: ['spec.renewTime'] },
    { ...R.persistentvolumeclaims, fields: ['spec.volumeName'] },
    { ...R.persistentvolumes, fields: ['spec.nodeAffinity.required'] },
    // which nodes a pinned volume allows (by their labels), and whether one left takes pods
    { ...R.nodes, fields: ['metadata.labels', 'spec.unschedulable', 'status.conditions'] },
  ],
  needs: [
    input(R.pods, 'subject', 'which workloads run there', {
      fields: [
        'metadata.annotations["kubernetes.io/config.mirror"]',
        'spec.nodeName',
        'spec.volumes[].persistentVolumeClaim.claimName',
        'status.conditions',
        'status.phase',
      ],
    }),
    input(R.replicasets, 'context', "which Deployment or Rollout a ReplicaSet's pods belong to (else read from its name)", { fields: [] }),
    input(R.deployments, 'context', 'how many replicas a Deployment wants', { fields: ['spec.replicas'] }),
    input(R.statefulsets, 'context', 'how many replicas a StatefulSet wants', { fields: ['spec.replicas'] }),
  ],
  docs: {
    what: 'Pods are grouped by their top controller (ownerReferences marked controller, followed through every visible owner: Pod → ReplicaSet → Deployment or Rollout; a pod owned by any other kind is grouped by that kind). A workload whose every ready pod runs on the nodes going down is predicted down: an error when it has (or wants) more than one replica — it was meant to survive a node — a warning for a single replica.',
    why: 'Replicas are there to survive a node; all of them on one set of nodes survives nothing. The scheduler packs pods where there is room, so after one drain a whole workload often sits on the next node to go.',
    limits:
      'DaemonSet and static pods stay with their node and are not counted. A single ready pod whose controller cannot be read (its kind is not listed) may belong to a workload that wants more: that is said as not judged, not guessed. A pod that will move is not ready again until it is scheduled, pulled and started elsewhere.',
  },
  predict(c) {
    const predictions: Prediction[] = [];
    const unjudged: Array<{ what: string }> = [];
    // with no live API server left, nothing reschedules them
    const noApi = c.apiServers.some((a) => c.down.has(a.node)) && !c.apiServers.some((a) => a.live && !c.down.has(a.node));
    for (const w of c.workloadsThere) {
      const ready = w.pods.filter(running);
      if (!ready.length || ready.some((p) => !c.on(p))) continue;
      // a workload whose pods cannot move is said once, by ARCH-WI03 (it goes down and stays down)
      if (w.pods.filter(c.on).every((p) => c.pinned.has(`${p.metadata.namespace}/${p.metadata.name}`))) continue;
      if (w.replicas === undefined && ready.length === 1)
        unjudged.push({ what: `whether ${refText(w.ref)} wants more replicas than its one ready pod (the ${w.ref.kind} is not visible)` });
      const many = (w.replicas ?? 0) > 1 || ready.length > 1;
      predictions.push({
        contract: 'workloads',
        code: 'ARCH-WI01',
        from: 'what-if',
        severity: many ? 'error' : 'warning',
        title: `${refText(w.ref)} goes down: ${many ? `all ${count(ready.length, 'ready pod')} run there` : 'its one replica runs there'}`,
        message: `${ready.map((p) => `${p.metadata.name} on ${p.spec?.nodeName}`).join(', ')}. It serves nothing until ${many ? 'they run' : 'it runs'} elsewhere${noApi ? ' — and with no API server left, nothing reschedules them' : ` (after the node is drained, or ${c.h.remove ? 'at once' : 'about 5 minutes after the node stops answering'})`}.`,
        objects: [w.ref],
        why: many
          ? 'Replicas are there to survive a node; all of them on one set of nodes survives nothing.'
          : 'A single replica is down whenever its node is: fine for a batch job, an outage for a service.',
        fix: [
          many && new Set(ready.map((p) => p.spec?.nodeName)).size > 1
            ? `they are spread already, over nodes that go down together: take the nodes one at a time — a PodDisruptionBudget on ${refText(w.ref)}'s pods with maxUnavailable 1 makes kubectl drain (and an upgrade that drains) wait until each is back before the next`
            : many
              ? `spread them: a topologySpreadConstraint (topologyKey kubernetes.io/hostname) or pod anti-affinity on ${refText(w.ref)}, then let them reschedule before the maintenance`
              : ['Deployment', 'StatefulSet', 'ReplicaSet'].includes(w.ref.kind)
                ? command(['kubectl', ...inNamespace(w.ref.namespace), 'scale', w.ref.kind.toLowerCase(), w.ref.name, '--replicas', '2'], {
                    say: 'if it must stay up',
                    note: 'with anti-affinity',
                  })
                : `if it must stay up: give ${refText(w.ref)} a second replica (its own replicas or instances setting), with anti-affinity`,
        ],
      });
    }
    return { predictions, unjudged };
  },
});
