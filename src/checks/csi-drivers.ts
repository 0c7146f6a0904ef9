// Node boundaries are swappable interfaces; CSI is the storage one. A PersistentVolume, StorageClass or claim
// naming a CSI driver that no node registers (CSINode) cannot be attached or mounted: pods stay in
// ContainerCreating with "driver name X not found in the list of registered CSI drivers" (kubelet's CSI client).
// In-tree provisioners are migrated to their CSI drivers (CSIMigration, GA since 1.25), so a gp2 StorageClass
// with kubernetes.io/aws-ebs needs ebs.csi.aws.com installed.
import { R } from '../resources.js';
import type { KObject, ObjectRef } from '../model.js';
import { normaliseEvents } from '../retry/events.js';
import { defineCheck, finding, type CheckContext, type Draft } from './types.js';

const CODES = {
  'ARCH-CSI01': 'volumes use a CSI driver that is not installed, or not registered on the nodes their pods run on',
} as const;
type Code = keyof typeof CODES;

/** In-tree volume plugins and the CSI drivers they are migrated to. */
const MIGRATED: Record<string, string> = {
  'kubernetes.io/aws-ebs': 'ebs.csi.aws.com',
  'kubernetes.io/gce-pd': 'pd.csi.storage.gke.io',
  'kubernetes.io/azure-disk': 'disk.csi.azure.com',
  'kubernetes.io/azure-file': 'file.csi.azure.com',
  'kubernetes.io/cinder': 'cinder.csi.openstack.org',
  'kubernetes.io/vsphere-volume': 'csi.vsphere.vmware.com',
};
/** Provisioners that are not CSI drivers (in-tree without migration, or no provisioner at all). */
const NOT_CSI =
  /^(kubernetes\.io\/(no-provisioner|host-path|nfs|glusterfs|portworx-volume|rbd|iscsi)|rancher\.io\/local-path|microk8s\.io\/hostpath|k8s\.io\/minikube-hostpath|docker\.io\/hostpath)$/;
const UNREGISTERED = /driver name (\S+) not found in the list of registered CSI drivers/;

const csiName = (provisioner: string | undefined): string | undefined => {
  if (!provisioner || NOT_CSI.test(provisioner)) return undefined;
  return MIGRATED[provisioner] ?? (provisioner.startsWith('kubernetes.io/') ? undefined : provisioner);
};

interface Use {
  driver: string;
  objects: ObjectRef[];
}

function driversInUse(ctx: CheckContext): Map<string, Use> {
  const uses = new Map<string, Use>();
  const add = (driver: string | undefined, o: KObject): void => {
    if (!driver) return;
    const u = uses.get(driver) ?? { driver, objects: [] };
    if (u.objects.length < 10)
      u.objects.push({ kind: o.kind ?? '?', apiVersion: o.apiVersion, namespace: o.metadata.namespace, name: o.metadata.name });
    uses.set(driver, u);
  };
  for (const pv of ctx.snap.of(R.persistentvolumes))
    add(pv.spec?.csi?.driver ?? (pv.spec?.awsElasticBlockStore ? MIGRATED['kubernetes.io/aws-ebs'] : undefined), pv);
  for (const sc of ctx.snap.of(R.storageclasses)) {
    const inUse = ctx.snap.of(R.persistentvolumeclaims).some((c) => c.spec?.storageClassName === sc.metadata.name);
    if (inUse || sc.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true') add(csiName(sc.provisioner), sc);
  }
  for (const c of ctx.snap.of(R.persistentvolumeclaims)) {
    if (c.status?.phase === 'Bound') continue;
    const a = c.metadata.annotations ?? {};
    add(csiName(a['volume.kubernetes.io/storage-provisioner'] ?? a['volume.beta.kubernetes.io/storage-provisioner']), c);
  }
  return uses;
}

export const csiDrivers = defineCheck({
  id: 'csi-drivers',
  title: 'Volumes whose CSI driver is not there (the storage interface)',
  severity: 'error',
  codes: CODES,
  needs: [
    {
      ...R.csinodes,
      role: 'evidence',
      lost: 'which node registers which driver cannot be seen; CSIDriver objects alone tell whether a driver is installed',
    },
    { ...R.csidrivers, role: 'evidence', lost: 'whether a driver is installed at all is told by CSINode only' },
    { ...R.storageclasses, role: 'subject', lost: 'StorageClass provisioners are not compared' },
    { ...R.persistentvolumes, role: 'subject', lost: "PersistentVolumes' drivers are not compared" },
    { ...R.persistentvolumeclaims, role: 'subject', lost: 'pending claims are not named' },
    { ...R.events, role: 'subject', lost: 'pods that cannot mount are not named' },
  ],
  docs: {
    summary:
      'PersistentVolumes, StorageClasses and pending claims naming a CSI driver (in-tree provisioners mapped to their migrated drivers) that no node registers, and the nodes where pods cannot mount because of it',
    what: 'The CSI drivers volumes depend on — PersistentVolumes\' spec.csi.driver, the provisioners of StorageClasses in use (in-tree ones mapped to their CSI migration drivers: kubernetes.io/aws-ebs → ebs.csi.aws.com, …), pending claims\' storage-provisioner annotation — against the drivers each node registers (CSINode) and the CSIDriver objects; and kubelet events "driver name X not found in the list of registered CSI drivers", which name the pod and the node.',
    why: "The node boundary is a swappable interface: Kubernetes only calls a CSI driver by name. When the driver's node plugin is not running on a node (never installed, removed, or missing on tainted control-plane nodes), volumes cannot attach or mount there and pods hang in ContainerCreating without a clear cluster-level error.",
    fix: 'Install the driver (e.g. the EBS CSI driver add-on after CSI migration), or make its node plugin DaemonSet run on every node that runs such pods (tolerations for tainted nodes). kubectl get csinodes -o yaml shows which node registers what.',
    limits:
      "A node without a CSINode object cannot be judged. Pods' volumes are known through kubelet events (an expired event proves nothing); drivers used only by inline ephemeral volumes are not seen.",
  },
  run(ctx) {
    const registeredOn = new Map<string, string[]>();
    const csinodes = ctx.snap.of(R.csinodes);
    for (const n of csinodes)
      for (const d of Array.isArray(n.spec?.drivers) ? n.spec.drivers : [])
        if (d?.name) registeredOn.set(d.name, [...(registeredOn.get(d.name) ?? []), n.metadata.name]);
    const installed = new Set(ctx.snap.of(R.csidrivers).map((d) => d.metadata.name));
    const uses = driversInUse(ctx);
    // kubelet says which node could not find which driver, for which pod
    const failing = new Map<string, Array<{ node: string; pod: ObjectRef }>>();
    for (const e of normaliseEvents(ctx.snap.of(R.events), ctx.snap.of(R.eventsV1))) {
      const m = UNREGISTERED.exec(e.message);
      if (!m || e.object.kind !== 'Pod') continue;
      const node = e.host ?? '';
      failing.set(m[1]!, [
        ...(failing.get(m[1]!) ?? []),
        { node, pod: { kind: 'Pod', apiVersion: 'v1', namespace: e.object.namespace, name: e.object.name } },
      ]);
      if (!uses.has(m[1]!)) uses.set(m[1]!, { driver: m[1]!, objects: [] });
    }
    const findings: Array<Draft<Code>> = [];
    for (const u of uses.values()) {
      const nodes = registeredOn.get(u.driver) ?? [];
      const fails = (failing.get(u.driver) ?? []).filter((f) => !nodes.includes(f.node));
      if (nodes.length && !fails.length) continue;
      const where = nodes.length
        ? `registered on ${nodes.length} node${nodes.length === 1 ? '' : 's'} but not on ${[...new Set(fails.map((f) => f.node).filter(Boolean))].join(', ') || 'the nodes where pods need it'}`
        : installed.has(u.driver)
          ? 'installed (CSIDriver object) but registered on no node: its node plugin does not run'
          : 'not installed: no CSIDriver object, and no node registers it';
      findings.push(
        finding(
          'ARCH-CSI01',
          'error',
          `CSI driver ${u.driver} is ${nodes.length ? 'missing where it is needed' : installed.has(u.driver) ? 'registered on no node' : 'not installed'}`,
          `${u.driver} is ${where}.${u.objects.length ? ` Used by ${u.objects.map((o) => `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`).join(', ')}.` : ''}${fails.length ? ` Pods that cannot mount: ${fails.map((f) => `${f.pod.namespace}/${f.pod.name}${f.node ? ` on ${f.node}` : ''}`).join(', ')} ("driver name ${u.driver} not found in the list of registered CSI drivers").` : ''}`,
          {
            objects: [...u.objects, ...fails.map((f) => f.pod)].slice(0, 20),
            evidence: { driver: u.driver, registeredOn: nodes, csiDriverObject: installed.has(u.driver), failingPods: fails },
            why: "Storage crosses the node boundary through CSI, by driver name: without the driver's node plugin on a node, nothing there can attach or mount the volume.",
            fix: nodes.length
              ? [
                  `make the ${u.driver} node plugin run on ${[...new Set(fails.map((f) => f.node))].join(', ')} (its DaemonSet's nodeSelector/tolerations: control-plane nodes are usually tainted)`,
                  'kubectl get csinodes -o custom-columns=NODE:.metadata.name,DRIVERS:.spec.drivers[*].name',
                ]
              : [
                  `install the ${u.driver} CSI driver (for a migrated in-tree class: the cloud's CSI driver add-on), then check kubectl get csinodes`,
                ],
          },
        ),
      );
    }
    return {
      findings,
      passed: uses.size
        ? `${uses.size} CSI driver${uses.size === 1 ? '' : 's'} in use, each registered where it is needed (${csinodes.length} CSINode${csinodes.length === 1 ? '' : 's'})`
        : `no volume, StorageClass or claim depends on a CSI driver (${csinodes.length} CSINode${csinodes.length === 1 ? '' : 's'} read)`,
    };
  },
});
