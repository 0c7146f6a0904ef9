// The words the API server refuses a change of a live object in. The retry-loop check recognises rejections by these
// words after the fact (./rejections.ts); `what-if -f` predicts them before a change is applied, by the update rules of
// the cluster's version (src/change/rules/, which quote them), proven against real kube-apiservers of v1.24, v1.25 and
// v1.36 (e2e/difference.e2e.test.ts).

/** The API server's reasons, as it words them (newest first where it changed). */
export const DETAILS = {
  immutable: 'field is immutable',
  changeOnce: 'may not change once set',
  unsetIP: 'primary clusterIP can not be unset',
  unsetFamily: 'primary ipFamily can not be unset',
  statefulSet: 'updates to statefulset spec for fields other than',
  pvcSpec: 'spec is immutable after creation except resources.requests',
  pvSource: 'is immutable after creation',
  immutableSet: 'field is immutable when `immutable` is set',
  lessThanCapacity: 'field can not be less than status.capacity',
  lessThanPrevious: 'field can not be less than previous value',
  resize: 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
  releaseSecondary: "must be 'SingleStack' to release the secondary",
  podUpdate: 'pod updates may not change fields other than',
  roleRef: 'cannot change roleRef',
  parameters: 'updates to parameters are forbidden',
  provisioner: 'updates to provisioner are forbidden',
  reclaimPolicy: 'updates to reclaimPolicy are forbidden',
  noChange: 'may not be changed in an update',
  headless: "may not be set to 'None' for",
} as const;

/** What the retry-loop check recognises as "can never apply" (not a resize refusal: that one an owner can fix by a class). */
export const IMMUTABLE_WORDS: readonly string[] = [
  DETAILS.immutable,
  DETAILS.changeOnce,
  DETAILS.unsetIP,
  DETAILS.unsetFamily,
  DETAILS.statefulSet,
  DETAILS.pvSource,
  DETAILS.lessThanCapacity,
  DETAILS.lessThanPrevious,
  DETAILS.releaseSecondary,
  DETAILS.podUpdate,
  DETAILS.roleRef,
  DETAILS.parameters,
  DETAILS.provisioner,
  DETAILS.reclaimPolicy,
  DETAILS.noChange,
  DETAILS.headless,
];
