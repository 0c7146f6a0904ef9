// The other built-in groups' update rules (rbac, storage, networking, policy, scheduling, node, coordination,
// discovery, autoscaling, admissionregistration, apiextensions, apiregistration, events), v1.24–v1.36.
import { DETAILS } from './core.js';
import type { Rule } from './update.js';

const roleBinding: Rule = (u) => {
  u.immutable('roleRef', 'roleRef', DETAILS.roleRef);
  u.allow('subjects');
};

const storageClass: Rule = (u) => {
  // "Forbidden: updates to <field> are forbidden." until v1.35; v1.36 (declarative validation): "field is immutable"
  for (const f of ['parameters', 'provisioner', 'reclaimPolicy'])
    if (u.since(36)) u.immutable(f, f);
    else u.immutable(f, f, `updates to ${f} are forbidden.`, 'Forbidden');
  u.immutable('volumeBindingMode', 'volumeBindingMode');
  u.allow('allowVolumeExpansion', 'mountOptions', 'allowedTopologies');
};

const csiDriver: Rule = (u) => {
  // the API server names it attachedRequired (sic)
  u.immutable('spec.attachRequired', 'spec.attachedRequired');
  // fsGroupPolicy and podInfoOnMount became mutable in v1.30, volumeLifecycleModes stay
  if (u.since(30)) u.allow('spec.fsGroupPolicy', 'spec.podInfoOnMount');
  else {
    u.immutable('spec.fsGroupPolicy', 'spec.fsGroupPolicy');
    u.immutable('spec.podInfoOnMount', 'spec.podInfoOnMount');
  }
  u.immutable('spec.volumeLifecycleModes', 'spec.volumeLifecycleModes');
  u.allow(
    'spec.storageCapacity',
    'spec.tokenRequests',
    'spec.requiresRepublish',
    'spec.seLinuxMount',
    'spec.nodeAllocatableUpdatePeriodSeconds',
  );
};

const volumeAttachment: Rule = (u) => {
  u.immutable('spec', 'spec');
};

const csiStorageCapacity: Rule = (u) => {
  u.immutable('storageClassName', 'storageClassName');
  u.immutable('nodeTopology', 'nodeTopology');
  u.allow('capacity', 'maximumVolumeSize');
};

const csiNode: Rule = (u) => {
  u.immutable('spec.drivers', 'spec.drivers');
};

const priorityClass: Rule = (u) => {
  // the API server named it "Value" until v1.25
  u.immutable('value', u.since(25) ? 'value' : 'Value', 'may not be changed in an update.', 'Forbidden');
  u.immutable('preemptionPolicy', 'preemptionPolicy');
  u.allow('globalDefault', 'description');
};

const runtimeClass: Rule = (u) => {
  u.immutable('handler', 'handler');
  u.allow('overhead', 'scheduling');
};

const ingressClass: Rule = (u) => {
  u.immutable('spec.controller', 'spec.controller');
  u.allow('spec.parameters');
};

const endpointSlice: Rule = (u) => {
  u.immutable('addressType', 'addressType');
  u.allow('endpoints', 'ports');
};

const crd: Rule = (u) => {
  u.immutable('spec.group', 'spec.group');
  u.immutable('spec.scope', 'spec.scope');
  u.immutable('spec.names.plural', 'spec.names.plural');
  u.allow(
    'spec.names',
    'spec.conversion',
    'spec.preserveUnknownFields',
    'spec.versions[*].additionalPrinterColumns',
    'spec.versions[*].subresources',
    'spec.versions[*].selectableFields',
  );
  // the versions: exactly one is stored; which are served may change (schemas and the rest: not judged)
  const v = u.cover(
    'spec.versions[*].storage',
    'spec.versions[*].served',
    'spec.versions[*].deprecated',
    'spec.versions[*].deprecationWarning',
  );
  const versions = (u.next.spec?.versions ?? []) as Array<{ storage?: boolean }>;
  if (v.length && versions.filter((x) => x.storage === true).length !== 1)
    u.refuse({
      field: 'spec.versions',
      at: ['spec', 'versions'],
      error: 'spec.versions: Invalid value: …: must have exactly one version marked as storage version',
      status: 422,
    });
  // the versions and their schemas: changing a schema is allowed, dropping a stored version is not; not judged here
};

export const OTHER_RULES: Record<string, Rule> = {
  'RoleBinding.rbac.authorization.k8s.io': roleBinding,
  'ClusterRoleBinding.rbac.authorization.k8s.io': roleBinding,
  'Role.rbac.authorization.k8s.io': (u) => u.allow('rules'),
  'ClusterRole.rbac.authorization.k8s.io': (u) => u.allow('rules', 'aggregationRule'),
  'StorageClass.storage.k8s.io': storageClass,
  'CSIDriver.storage.k8s.io': csiDriver,
  'VolumeAttachment.storage.k8s.io': volumeAttachment,
  'CSIStorageCapacity.storage.k8s.io': csiStorageCapacity,
  'CSINode.storage.k8s.io': csiNode,
  'PriorityClass.scheduling.k8s.io': priorityClass,
  'RuntimeClass.node.k8s.io': runtimeClass,
  'IngressClass.networking.k8s.io': ingressClass,
  'Ingress.networking.k8s.io': (u) => u.allow('spec'),
  'NetworkPolicy.networking.k8s.io': (u) => u.allow('spec'),
  'EndpointSlice.discovery.k8s.io': endpointSlice,
  'Lease.coordination.k8s.io': (u) => u.allow('spec'),
  'PodDisruptionBudget.policy': (u) => u.allow('spec'),
  'HorizontalPodAutoscaler.autoscaling': (u) => u.allow('spec'),
  'ValidatingWebhookConfiguration.admissionregistration.k8s.io': (u) => u.allow('webhooks'),
  'MutatingWebhookConfiguration.admissionregistration.k8s.io': (u) => u.allow('webhooks'),
  'CustomResourceDefinition.apiextensions.k8s.io': crd,
  'APIService.apiregistration.k8s.io': (u) => u.allow('spec'),
  'Event.events.k8s.io': (u) => u.allow('note', 'series', 'deprecatedCount', 'deprecatedLastTimestamp'),
};
