// what-if's codes for a change (`what-if -f`, `what-if --k3s-config`): what the API server would refuse, what an owner
// would prune or leave behind, what the door would turn away, and what a K3s server configuration cannot change.
// The one list of them; explain and completion read it with the node predictions' codes (src/whatif/codes.ts).
export const CHANGE_CODES = {
  'ARCH-WI20': 'the API server would refuse the change: a field that cannot change once set (and the owner that would retry it)',
  'ARCH-WI21': 'a PersistentVolumeClaim would not grow: its StorageClass does not allow expansion (admission refuses it)',
  'ARCH-WI22': 'an object its owner tracks is not in the new render: the owner would prune it',
  'ARCH-WI23': 'an object its owner tracks is not in the new render: the owner does not prune, so it would be left behind',
  'ARCH-WI24': 'the API server does not serve this kind (its CustomResourceDefinition is not installed)',
  'ARCH-WI25': 'the namespace does not exist (and the manifests do not create it)',
  'ARCH-WI26': 'a fail-closed admission webhook with no ready backend would reject it',
  'ARCH-WI27': 'K3s cluster-dns changed after install: the coredns addon would be re-applied and refused every 15 s, forever',
  'ARCH-WI28': 'a K3s server setting that cannot change after the cluster was created (cluster-cidr, service-cidr, the datastore)',
  'ARCH-WI29': 'a K3s component newly disabled: what it deployed is left behind',
  'ARCH-WI30': 'the etcd snapshot settings change: the backups as they would be',
} as const;

export type ChangeCode = keyof typeof CHANGE_CODES;
