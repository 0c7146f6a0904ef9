// what-if's own finding codes: what no check covers when nodes go down (src/whatif/predict.ts emits them).
export const WHATIF_CODES = {
  'ARCH-WI01': 'a Deployment or StatefulSet has no ready pod left: it is down until its pods run elsewhere',
  'ARCH-WI02': 'a PodDisruptionBudget allows fewer disruptions than the drain needs: kubectl drain would wait on it',
  'ARCH-WI03': 'a pod is pinned to a volume on those nodes (local-path, local, hostPath): it cannot move, its data stays there',
  'ARCH-WI04': 'pods to move do not fit on the schedulable nodes left (by their requests)',
  'ARCH-WI05': 'a controller has no running pod left: what it reconciles stops changing',
  'ARCH-WI06': 'an ingress or load-balancer Service has no ready backend left',
  'ARCH-WI07': 'no API server is left: nothing can be read, written or rescheduled',
  'ARCH-WI08': "the only etcd snapshots are on the servers being removed' disks",
} as const;
