// What `kubectl arch snapshot` lists so that `what-if -f --snapshot` judges as a live run does (#45): every kind the
// update rules judge (./rules/). What the snapshot keeps of each is what the rules compare (src/resources.ts
// CHANGE_FIELDS, declared as CHANGE_READS), as salted digests where a rule only compares values (a Job's env values,
// an immutable ConfigMap's data, a ControllerRevision's data, a Pod spec's fixed part) — so a change is judged without
// keeping a secret. doctor does not list them (it judges no change). A difference outside what the snapshot keeps is
// not visible: allowed where the rule allows that field, "not judged" where it would compare it, never refused.
import type { Need } from '../model.js';
import { CONFIGMAPS, R } from '../resources.js';

const t = (group: string, version: string, resource: string, kind: string, namespaced: boolean): Need => ({
  group,
  version,
  resource,
  kind,
  namespaced,
  optional: true,
});

/** The kinds what-if -f judges that no check lists with bodies, and how a snapshot keeps them. */
export const WHAT_IF_NEEDS: Need[] = [
  { ...R.replicasets, metadataOnly: false, optional: true },
  { ...R.daemonsets, metadataOnly: false, optional: true },
  { ...R.jobs, optional: true },
  // every ConfigMap's body, trimmed by its type to whether it is immutable and digests of its values
  { ...CONFIGMAPS, metadataOnly: false, bodiesFor: undefined, optional: true },
  t('', 'v1', 'serviceaccounts', 'ServiceAccount', true),
  t('', 'v1', 'replicationcontrollers', 'ReplicationController', true),
  t('', 'v1', 'podtemplates', 'PodTemplate', true),
  { ...R.resourcequotas, optional: true },
  t('', 'v1', 'limitranges', 'LimitRange', true),
  { ...R.controllerrevisions, optional: true },
  t('batch', 'v1', 'cronjobs', 'CronJob', true),
  t('autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', true),
  { ...R.ingressclasses, optional: true },
  t('networking.k8s.io', 'v1', 'networkpolicies', 'NetworkPolicy', true),
  t('rbac.authorization.k8s.io', 'v1', 'roles', 'Role', true),
  { ...R.rolebindings, optional: true },
  t('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false),
  { ...R.clusterrolebindings, optional: true },
  { ...R.volumeattachments, optional: true },
  { ...R.csistoragecapacities, optional: true },
  { ...R.priorityclasses, optional: true },
  { ...R.runtimeclasses, optional: true },
  { ...R.pdbs, optional: true },
  { ...R.persistentvolumes, optional: true },
  { ...R.persistentvolumeclaims, optional: true },
  { ...R.statefulsets, optional: true },
  { ...R.deployments, optional: true },
  { ...R.ingresses, optional: true },
  { ...R.leases, optional: true },
  { ...R.csidrivers, optional: true },
  { ...R.csinodes, optional: true },
  { ...R.apiservices, optional: true },
  { ...R.crds, optional: true },
  { ...R.pods, optional: true },
];
