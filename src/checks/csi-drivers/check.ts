// Node boundaries are swappable interfaces; CSI is the storage one. A PersistentVolume, StorageClass or claim
// naming a CSI driver that no node registers (CSINode) cannot be attached or mounted: pods stay in
// ContainerCreating with "driver name X not found in the list of registered CSI drivers" (kubelet's CSI client).
// In-tree provisioners are migrated to their CSI drivers (CSIMigration, GA since 1.25), so a gp2 StorageClass
// with kubernetes.io/aws-ebs needs ebs.csi.aws.com installed.
import { refOf } from '../../lib/k8s.js';
import { R } from '../../resources.js';
import type { KObject, ObjectRef } from '../../model.js';
import { normaliseEvents, CORE_EVENT_FIELDS, V1_EVENT_FIELDS } from '../../lib/events.js';
import { defineCheck, finding, type CheckContext, type Draft } from '../types.js';

const CODES = {
  'ARCH-CSI01': 'volumes use a CSI driver that is not installed, or not registered on the nodes their pods run on',
} as const;
type Code = keyof typeof CODES;

/** In-tree volume plugins and the CSI drivers they are migrated to. */
export const MIGRATED: Record<string, string> = {
  'kubernetes.io/aws-ebs': 'ebs.csi.aws.com',
  'kubernetes.io/gce-pd': 'pd.csi.storage.gke.io',
  'kubernetes.io/azure-disk': 'disk.csi.azure.com',
  'kubernetes.io/azure-file': 'file.csi.azure.com',
  'kubernetes.io/cinder': 'cinder.csi.openstack.org',
  'kubernetes.io/vsphere-volume': 'csi.vsphere.vmware.com',
};
/** The release from which each migration is on by default (before it, the in-tree plugin serves the volumes and no CSI
 *  driver is needed): AWS EBS, GCE PD and Azure Disk 1.23, Azure File 1.24, Cinder 1.21, vSphere 1.25 (Kubernetes
 *  release notes, "CSI migration … enabled by default"). */
export const MIGRATED_SINCE: Record<string, number> = {
  'kubernetes.io/aws-ebs': 23,
  'kubernetes.io/gce-pd': 23,
  'kubernetes.io/azure-disk': 23,
  'kubernetes.io/azure-file': 24,
  'kubernetes.io/cinder': 21,
  'kubernetes.io/vsphere-volume': 25,
};
/** The in-tree provisioner, if the server is older than its migration: it still serves the volumes itself. */
const inTreeStill = (provisioner: string | undefined, minor: number | undefined): boolean =>
  provisioner !== undefined && minor !== undefined && MIGRATED_SINCE[provisioner] !== undefined && minor < MIGRATED_SINCE[provisioner]!;

/** Provisioners that are not CSI drivers (in-tree without migration, or no provisioner at all). */
const NOT_CSI =
  /^(kubernetes\.io\/(no-provisioner|host-path|nfs|glusterfs|portworx-volume|rbd|iscsi)|rancher\.io\/local-path|microk8s\.io\/hostpath|k8s\.io\/minikube-hostpath|docker\.io\/hostpath)$/;
const UNREGISTERED = /driver name (\S+) not found in the list of registered CSI drivers/;

/** Drivers that were renamed upstream: volumes made before keep the old name (longhorn/longhorn#1448,
 *  kubernetes/cloud-provider-openstack#597, kubernetes-csi/csi-driver-nfs#26, ceph/ceph-csi#296). */
const RENAMED: Record<string, string> = {
  'io.rancher.longhorn': 'driver.longhorn.io',
  'csi-cinderplugin': 'cinder.csi.openstack.org',
  'csi-nfsplugin': 'nfs.csi.k8s.io',
  'csi-rbdplugin': 'rbd.csi.ceph.com',
  'csi-cephfsplugin': 'cephfs.csi.ceph.com',
  'com.nutanix.csi': 'csi.nutanix.com',
  'io.drbd.linstor-csi': 'linstor.csi.linbit.com',
};
const GENERIC = new Set(['csi', 'io', 'com', 'org', 'net', 'k8s', 'driver', 'plugin', 'storage', 'kubernetes', 'cloud', 'x']);
const tokens = (d: string): string[] =>
  d
    .toLowerCase()
    .split(/[.\-/_]/)
    .map((t) => t.replace(/plugin$/, ''))
    .filter((t) => t.length >= 3 && !GENERIC.has(t));

/** A driver the cluster has that serves the same storage as the one in use: a known rename, else a shared product
 *  name (nfs → nfs2.csi.k8s.io). Advice points there before suggesting an install. */
export function sameStorage(driver: string, available: Iterable<string>): string | undefined {
  const have = [...available].filter((d) => d !== driver);
  const renamed = RENAMED[driver];
  if (renamed && have.includes(renamed)) return renamed;
  const mine = tokens(driver);
  return have.find((d) =>
    tokens(d).some((t) => mine.some((m) => t === m || (t.startsWith(m) && m.length >= 3) || (m.startsWith(t) && t.length >= 3))),
  );
}

const csiName = (provisioner: string | undefined): string | undefined => {
  if (!provisioner || NOT_CSI.test(provisioner)) return undefined;
  return MIGRATED[provisioner] ?? (provisioner.startsWith('kubernetes.io/') ? undefined : provisioner);
};

interface Use {
  driver: string;
  objects: ObjectRef[];
  /** Reached through an in-tree provisioner's CSI migration (kubernetes.io/aws-ebs → ebs.csi.aws.com). */
  migrated?: boolean;
}

function driversInUse(ctx: CheckContext): Map<string, Use> {
  const uses = new Map<string, Use>();
  const v = ctx.snap.header.serverVersion;
  const minor = Number((/^v?1\.(\d+)/.exec(v?.gitVersion ?? '') ?? [])[1] ?? /^(\d+)/.exec(v?.minor ?? '')?.[1] ?? NaN);
  const old = (provisioner: string): boolean => inTreeStill(provisioner, Number.isNaN(minor) ? undefined : minor);
  const add = (driver: string | undefined, o: KObject, migrated = false): void => {
    if (!driver) return;
    const u = uses.get(driver) ?? { driver, objects: [] };
    if (migrated) u.migrated = true;
    if (u.objects.length < 10) u.objects.push(refOf(o));
    uses.set(driver, u);
  };
  for (const pv of ctx.snap.of(R.persistentvolumes))
    pv.spec?.csi?.driver
      ? add(pv.spec.csi.driver, pv)
      : add(pv.spec?.awsElasticBlockStore && !old('kubernetes.io/aws-ebs') ? MIGRATED['kubernetes.io/aws-ebs'] : undefined, pv, true);
  for (const sc of ctx.snap.of(R.storageclasses)) {
    const inUse = ctx.snap.of(R.persistentvolumeclaims).some((c) => c.spec?.storageClassName === sc.metadata.name);
    if (
      (inUse || sc.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true') &&
      !old(String(sc.provisioner ?? ''))
    )
      add(csiName(sc.provisioner), sc, Boolean(sc.provisioner && MIGRATED[sc.provisioner]));
  }
  for (const c of ctx.snap.of(R.persistentvolumeclaims)) {
    if (c.status?.phase === 'Bound') continue;
    const a = c.metadata.annotations ?? {};
    const prov = a['volume.kubernetes.io/storage-provisioner'] ?? a['volume.beta.kubernetes.io/storage-provisioner'];
    if (!old(String(prov ?? ''))) add(csiName(prov), c);
  }
  return uses;
}

export const csiDrivers = defineCheck({
  id: 'csi-drivers',
  title: 'Volumes whose CSI driver is not there (the storage interface)',
  severity: 'error',
  map: [{ contract: 'interfaces', part: 'CSI' }],
  codes: CODES,
  proofs: { 'ARCH-CSI01': ['CSINode.storage.k8s.io', 'Event'] },
  reads: [{ ...R.eventsV1, fields: V1_EVENT_FIELDS }],
  needs: [
    {
      ...R.csinodes,
      fields: ['spec.drivers[].name'],
      role: 'evidence',
      lost: 'which node registers which driver cannot be seen; CSIDriver objects alone tell whether a driver is installed',
    },
    { ...R.csidrivers, fields: [], role: 'evidence', lost: 'whether a driver is installed at all is told by CSINode only' },
    {
      ...R.storageclasses,
      fields: ['metadata.annotations["storageclass.kubernetes.io/is-default-class"]', 'provisioner'],
      role: 'subject',
      lost: 'StorageClass provisioners are not compared',
    },
    {
      ...R.persistentvolumes,
      fields: ['spec.awsElasticBlockStore.volumeID', 'spec.csi.driver'],
      role: 'subject',
      lost: "PersistentVolumes' drivers are not compared",
    },
    {
      ...R.persistentvolumeclaims,
      fields: [
        'metadata.annotations["volume.beta.kubernetes.io/storage-provisioner"]',
        'metadata.annotations["volume.kubernetes.io/storage-provisioner"]',
        'spec.storageClassName',
        'status.phase',
      ],
      role: 'subject',
      lost: 'pending claims are not named',
    },
    {
      ...R.events,
      fields: CORE_EVENT_FIELDS,
      role: 'subject',
      lost: 'pods that cannot mount are not named',
    },
  ],
  docs: {
    summary:
      'PersistentVolumes, StorageClasses and pending claims naming a CSI driver (in-tree provisioners mapped to their migrated drivers) that no node registers, and the nodes where pods cannot mount because of it',
    what: 'The CSI drivers volumes depend on — PersistentVolumes\' spec.csi.driver, the provisioners of StorageClasses in use (in-tree ones mapped to their CSI migration drivers: kubernetes.io/aws-ebs → ebs.csi.aws.com, …), pending claims\' storage-provisioner annotation — against the drivers each node registers (CSINode) and the CSIDriver objects; and kubelet events "driver name X not found in the list of registered CSI drivers", which name the pod and the node.',
    why: "The node boundary is a swappable interface: Kubernetes only calls a CSI driver by name. When the driver's node plugin is not running on a node (never installed, removed, or missing on tainted control-plane nodes), volumes cannot attach or mount there and pods hang in ContainerCreating without a clear cluster-level error.",
    fix: 'Install the driver (e.g. the EBS CSI driver add-on after CSI migration), or make its node plugin DaemonSet run on every node that runs such pods (tolerations for tainted nodes). `kubectl get csinodes -o yaml` shows which node registers what.',
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
    // CSINodes not visible: where a driver is registered is known only from kubelet's events
    const nodesVisible = !ctx.snap.gap(R.csinodes);
    const available = new Set([...registeredOn.keys(), ...installed]);
    for (const u of uses.values()) {
      const nodes = registeredOn.get(u.driver) ?? [];
      const fails = (failing.get(u.driver) ?? []).filter((f) => !nodes.includes(f.node));
      if (nodes.length && !fails.length) continue;
      if (!nodesVisible && !fails.length) continue; // nothing proves it is missing
      const failNodes = [...new Set(fails.map((f) => f.node).filter(Boolean))];
      const other = nodes.length ? undefined : sameStorage(u.driver, available);
      const otherWhere = other
        ? registeredOn.get(other)?.length
          ? `registered on ${registeredOn.get(other)!.length} node${registeredOn.get(other)!.length === 1 ? '' : 's'}`
          : 'installed (CSIDriver object)'
        : '';
      const where = !nodesVisible
        ? `not registered on ${failNodes.join(', ') || 'the nodes where pods need it'} (whether other nodes register it cannot be told: CSINodes not visible)`
        : nodes.length
          ? `registered on ${nodes.length} node${nodes.length === 1 ? '' : 's'} but not on ${failNodes.join(', ') || 'the nodes where pods need it'}`
          : installed.has(u.driver)
            ? 'installed (CSIDriver object) but registered on no node: its node plugin does not run'
            : 'not installed: no CSIDriver object, and no node registers it';
      const holders = u.objects.map((o) => o.kind);
      const fix = !nodesVisible
        ? [
            `see where ${u.driver}'s node plugin runs: kubectl get csinodes -o custom-columns=NODE:.metadata.name,DRIVERS:.spec.drivers[*].name`,
            `make it run on ${failNodes.join(', ') || 'those nodes'} (its DaemonSet's nodeSelector and tolerations; kubectl -n <driver namespace> get pods -o wide)`,
          ]
        : nodes.length
          ? [
              `make the ${u.driver} node plugin run on ${failNodes.join(', ')} (its DaemonSet's nodeSelector/tolerations: control-plane nodes are usually tainted)`,
              'kubectl get csinodes -o custom-columns=NODE:.metadata.name,DRIVERS:.spec.drivers[*].name',
            ]
          : [
              ...(other
                ? [
                    `this cluster has ${other} (${otherWhere}) for the same storage: point what names ${u.driver} at it before installing anything —${holders.includes('StorageClass') ? ` a StorageClass's provisioner cannot change, so re-create the class with provisioner ${other};` : ''}${holders.includes('PersistentVolume') ? ` a PersistentVolume's spec.csi.driver cannot change, so migrate those volumes to ${other} with the driver vendor's migration procedure (set their reclaimPolicy to Retain first, so no data goes);` : ''}${!holders.includes('StorageClass') && !holders.includes('PersistentVolume') ? ` use ${other} in the claims' StorageClass;` : ''} then check kubectl get csinodes`,
                    `only if ${u.driver} is really another driver that is meant to be here: install it`,
                  ]
                : [
                    `install the ${u.driver} CSI driver${u.migrated ? " (a migrated in-tree class: the cloud's CSI driver add-on)" : ''}, then check kubectl get csinodes`,
                  ]),
            ];
      findings.push(
        finding(
          'ARCH-CSI01',
          'error',
          `CSI driver ${u.driver} is ${!nodesVisible || nodes.length ? 'missing where it is needed' : installed.has(u.driver) ? 'registered on no node' : 'not installed'}${other ? ` (the cluster has ${other})` : ''}`,
          `${u.driver} is ${where}.${other ? ` The cluster has ${other} (${otherWhere}), which serves the same storage under ${RENAMED[u.driver] === other ? 'its new name' : 'another name'}.` : ''}${u.objects.length ? ` Used by ${u.objects.map((o) => `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`).join(', ')}.` : ''}${fails.length ? ` Pods that cannot mount: ${fails.map((f) => `${f.pod.namespace}/${f.pod.name}${f.node ? ` on ${f.node}` : ''}`).join(', ')} ("driver name ${u.driver} not found in the list of registered CSI drivers").` : ''}`,
          {
            objects: [...u.objects, ...fails.map((f) => f.pod)].slice(0, 20),
            evidence: {
              driver: u.driver,
              registeredOn: nodesVisible ? nodes : null,
              csiDriverObject: installed.has(u.driver),
              failingPods: fails,
              ...(other ? { sameStorage: other } : {}),
            },
            why: "Storage crosses the node boundary through CSI, by driver name: without the driver's node plugin on a node, nothing there can attach or mount the volume.",
            fix,
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
