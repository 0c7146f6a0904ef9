// what-if --upgrade's codes: the one list of them (its units' own titles say the first of each, and these the rest).
export const UPGRADE_CODES = {
  'ARCH-WI40': 'an API version the target no longer serves is still written to: the next write through it is refused',
  'ARCH-WI41': 'a kind the target no longer serves in any version: its objects go with it',
  'ARCH-WI42': 'a webhook (admission or conversion) takes only review versions the target no longer sends',
  'ARCH-WI43': 'an owner would keep applying a version the target no longer serves: a retry loop (or a stuck release) after the upgrade',
  'ARCH-WI44': 'the upgrade takes more etcd servers down at once than quorum allows (a Plan with concurrency > 1)',
  'ARCH-WI45': 'the upgrade skips a minor version: the API server, kubeadm, K3s and RKE2 go one minor at a time',
  'ARCH-WI46': 'a kubelet (and the kube-proxy beside it) would be outside the version skew the target supports',
  'ARCH-WI47': "a node's kubelet would not start on the target: dockershim is gone, or the node runs cgroup v1",
  'ARCH-WI48': 'volumes of an in-tree plugin the target removed, with no CSI driver to take them over',
  'ARCH-WI49': 'an in-tree cloud provider the target removed: nodes and load balancers lose their cloud controller',
  'ARCH-WI50': 'a flag the target removed, passed to a component: it does not start',
} as const;
