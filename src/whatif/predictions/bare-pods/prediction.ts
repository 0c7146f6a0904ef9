// ARCH-WI09: a running pod with no controller on the nodes going down: kubectl drain refuses it without --force, and
// once it is deleted (by the drain, or by the node lifecycle controller ~5 minutes after the node stops answering)
// nothing recreates it.
import { refOf } from '../../../lib/k8s.js';
import { R } from '../../../resources.js';
import { count, definePrediction, input, refText } from '../../types.js';

export default definePrediction({
  id: 'bare-pods',
  code: 'ARCH-WI09',
  title: 'a pod with no controller runs there: kubectl drain refuses it without --force, and nothing recreates it',
  contract: 'workloads',
  needs: [
    input(R.pods, 'subject', 'which pods run there without a controller', {
      fields: ['metadata.annotations["kubernetes.io/config.mirror"]', 'spec.nodeName', 'status.phase'],
    }),
  ],
  docs: {
    what: 'A pod on the nodes going down with no ownerReference marked controller (created by hand or by a tool that does not own it), not a static pod: kubectl drain stops with "cannot delete Pods not managed by ReplicationController, ReplicaSet, Job, DaemonSet or StatefulSet (use --force to override)", and once it is deleted nothing brings it back.',
    why: 'Only a controller recreates a pod elsewhere; a bare pod lives and dies with its node.',
    limits: 'A pod owned by a kind that is not a controller (an ownerReference without controller: true) counts as bare.',
  },
  predict(c) {
    const bare = new Set(c.bare);
    const there = c.podsThere.filter((p) => bare.has(p));
    if (!there.length) return { predictions: [] };
    return {
      predictions: [
        {
          contract: 'workloads',
          code: 'ARCH-WI09',
          from: 'what-if',
          severity: 'warning',
          title: `${count(there.length, 'pod')} with no controller ${there.length === 1 ? 'runs' : 'run'} there: ${there
            .slice(0, 5)
            .map((p) => refText(refOf(p)))
            .join(', ')}${there.length > 5 ? ', …' : ''}`,
          message: `\`kubectl drain\` refuses ${there.length === 1 ? 'it' : 'them'} without --force ("cannot delete Pods not managed by ReplicationController, ReplicaSet, Job, DaemonSet or StatefulSet"), and once deleted nothing recreates ${there.length === 1 ? 'it' : 'them'} — the node lifecycle controller deletes ${there.length === 1 ? 'it' : 'them'} too, about 5 minutes after the node stops answering.`,
          objects: there.map(refOf),
          why: 'Only a controller recreates a pod elsewhere; a bare pod lives and dies with its node.',
          fix: [
            'run it under a Deployment (or a Job for a one-off), or recreate it by hand on another node after the maintenance; `kubectl drain --force` deletes it for good',
          ],
        },
      ],
    };
  },
});
