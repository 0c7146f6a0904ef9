// The nodes' interfaces after an upgrade: what would stop a kubelet, or a pod's volume. ARCH-WI47: dockershim is gone
// (v1.24) and the node runs Docker through it; the kubelet refuses cgroup v1 by default (v1.35). ARCH-WI48: volumes
// of an in-tree plugin the target removed, with no CSI driver to take them over. ARCH-WI49: an in-tree cloud provider
// (removed in v1.31). ARCH-WI50: a flag the target removed, passed by K3s or RKE2 (node-args: --kubelet-arg,
// --kube-apiserver-arg). The releases come from the kubelet's own source, by difference (src/lib/node-removals.ts).
import { MIGRATED, MIGRATED_SINCE } from '../../../checks/csi-drivers/check.js';
import { CORE_EVENT_FIELDS, normaliseEvents, V1_EVENT_FIELDS } from '../../../lib/events.js';
import { command } from '../../../lib/shell.js';
import {
  CGROUP_V1_REFUSED,
  CLOUD_PROVIDERS_REMOVED,
  DOCKERSHIM_REMOVED,
  KUBELET_FLAGS_REMOVED,
  VOLUME_PLUGINS_REMOVED,
} from '../../../lib/node-removals.js';
import type { KObject, ObjectRef } from '../../../model.js';
import { R } from '../../../resources.js';
import { count, definePrediction, input, type Prediction } from '../../types.js';
import { nodeArgs, split, values } from '../../upgrade/node-args.js';
import { versionText, type UpgradeHypothesis } from '../../upgrade/version.js';

/** The CSI driver of a migrated plugin the csi-drivers check does not list. */
const DRIVER: Record<string, string> = { ...MIGRATED, 'kubernetes.io/portworx-volume': 'pxd.portworx.com' };

/** Releases an upgrade passes: after the current one (unknown: every one) up to the target. */
const crosses = (u: UpgradeHypothesis, minor: number): boolean =>
  (!u.current || u.current.version.minor < minor) && u.target.minor >= minor;

/** What an OS image says about cgroups: v2 by default (kubernetes.io "About cgroup v2", runc docs/cgroup-v2.md), v1 by
 *  default, or not known. */
function cgroupDefault(osImage: string): 'v2' | 'v1' | undefined {
  const num = (re: RegExp): number | undefined => {
    const m = re.exec(osImage);
    return m ? Number(m[1]) : undefined;
  };
  const ubuntu = /Ubuntu (\d+\.\d+)/.exec(osImage);
  if (ubuntu) return Number(ubuntu[1]) >= 21.1 ? 'v2' : 'v1';
  const debian = num(/Debian GNU\/Linux (\d+)/);
  if (debian !== undefined) return debian >= 11 ? 'v2' : 'v1';
  const fedora = num(/Fedora(?: Linux)? (\d+)/);
  if (fedora !== undefined) return fedora >= 31 ? 'v2' : 'v1';
  const rhel = num(/(?:Red Hat Enterprise Linux|Rocky Linux|AlmaLinux|CentOS Stream|CentOS Linux|Oracle Linux Server)\D*(\d+)/);
  if (rhel !== undefined) return rhel >= 9 ? 'v2' : 'v1';
  if (/Container-Optimized OS/.test(osImage)) {
    const m = num(/\b(?:M|cos-)(\d+)/);
    return m === undefined ? undefined : m >= 97 ? 'v2' : 'v1';
  }
  if (/Arch Linux|openSUSE Tumbleweed/.test(osImage)) return 'v2';
  if (/Amazon Linux 2023/.test(osImage)) return 'v2';
  if (/Amazon Linux 2\b/.test(osImage)) return 'v1';
  return undefined;
}

const kernelBelow = (kernel: string, major: number, minor: number): boolean => {
  const m = /^(\d+)\.(\d+)/.exec(kernel);
  return Boolean(m && (Number(m[1]) < major || (Number(m[1]) === major && Number(m[2]) < minor)));
};

const nodeRef = (n: KObject): ObjectRef => ({ kind: 'Node', name: n.metadata.name });

export default definePrediction({
  id: 'upgrade-nodes',
  code: 'ARCH-WI47',
  title: "a node's kubelet would not start on the target: dockershim is gone, or the node runs cgroup v1",
  contract: 'interfaces',
  applies: (h) => Boolean(h.upgrade),
  needs: [
    input(R.nodes, 'evidence', 'what each node runs (runtime, kernel, OS, the flags K3s and RKE2 pass)', {
      fields: [
        'status.nodeInfo.operatingSystem',
        'status.nodeInfo.containerRuntimeVersion',
        'status.nodeInfo.osImage',
        'status.nodeInfo.kernelVersion',
        'metadata.annotations["kubeadm.alpha.kubernetes.io/cri-socket"]',
        'metadata.annotations["k3s.io/node-args"]',
        'metadata.annotations["rke2.io/node-args"]',
        'spec.providerID',
      ],
    }),
    input(R.persistentvolumes, 'evidence', 'which volumes use an in-tree plugin the target removes', {
      relevant: (c) => VOLUME_PLUGINS_REMOVED.some((p) => crosses(c.h.upgrade!, p.removed)),
      // an AWS EBS source is kept by its volume ID (what-if -f and the CSI check read it), which every one has
      fields: VOLUME_PLUGINS_REMOVED.map((p) =>
        p.field === 'awsElasticBlockStore' ? 'spec.awsElasticBlockStore.volumeID' : `spec.${p.field}`,
      ),
    }),
    input(R.storageclasses, 'evidence', 'which StorageClasses provision with an in-tree plugin the target removes', {
      relevant: (c) => VOLUME_PLUGINS_REMOVED.some((p) => crosses(c.h.upgrade!, p.removed)),
      fields: ['provisioner'],
    }),
    input(R.csidrivers, 'evidence', 'which CSI drivers would take over migrated volumes', {
      relevant: (c) => VOLUME_PLUGINS_REMOVED.some((p) => p.migrated && crosses(c.h.upgrade!, p.removed)),
      fields: [],
    }),
    input(R.events, 'context', 'the kubelet\'s "CgroupV1" warnings (a node that started on cgroup v1 since the events last expired)', {
      fields: CORE_EVENT_FIELDS,
    }),
    input(R.pods, 'context', 'whether an external cloud-controller-manager runs', { fields: [] }),
  ],
  reads: [{ ...R.eventsV1, fields: V1_EVENT_FIELDS }],
  docs: {
    what: [
      "What the target removes at the node boundary, read from the kubelet's own source by difference between releases",
      "(src/lib/node-removals.ts). Docker through the kubelet's dockershim (runtime docker://, no cri-dockerd socket; K3s",
      'embeds cri-dockerd from v1.24) stops the kubelet from v1.24 (ARCH-WI47). From v1.35 the kubelet refuses to start on',
      'cgroup v1 unless failCgroupV1 is false (ARCH-WI47): a node is judged by the kubelet\'s own "CgroupV1" warning event,',
      "a kernel older than 4.15 (no cgroup v2), or its OS image's default (cgroup v2 from Ubuntu 21.10, Debian 11, Fedora",
      '31, RHEL-like 9, Container-Optimized OS M97, Amazon Linux 2023; v1 before); an OS whose default is not known is not',
      'judged. Volumes and StorageClasses of an in-tree plugin the target removes (ARCH-WI48): a migrated one (AWS EBS,',
      'GCE PD, Azure Disk and File, Cinder, vSphere, Portworx) is served by its CSI driver, which must be installed; the',
      'others (GlusterFS, CephFS, RBD, Flocker, Quobyte, StorageOS) have no way forward. The in-tree cloud providers are',
      'gone from v1.31 (ARCH-WI49): a node with a cloud providerID and no external cloud-controller-manager in sight. K3s',
      "and RKE2 record each node's flags (node-args): a --kubelet-arg the target's kubelet no longer registers, or",
      "PodSecurityPolicy among the API server's admission plugins from v1.25, stops that component (ARCH-WI50).",
    ].join(' '),
    why: 'Node boundaries are swappable interfaces, each with its own release schedule: an upgrade that removes one strands every node still plugged into it.',
    limits:
      'The flags of a kubeadm kubelet live in files on the node (/var/lib/kubelet/kubeadm-flags.env) and are not read; neither are feature gates. A node whose OS was switched to cgroup v2 by hand is judged by its OS default unless its kubelet said otherwise. Logging flags (removed from the kubelet in v1.26) are registered outside the files read.',
  },
  predict(c) {
    const u = c.h.upgrade!;
    const target = versionText(u.target);
    const predictions: Prediction[] = [];
    const unjudged: Array<{ what: string }> = [];
    const nodes = c.snap.of(R.nodes).filter((n) => (n.status?.nodeInfo?.operatingSystem ?? 'linux') === 'linux');
    const d = c.distribution;
    // dockershim
    if (crosses(u, DOCKERSHIM_REMOVED) && d !== 'K3s') {
      const docker = nodes.filter(
        (n) =>
          String(n.status?.nodeInfo?.containerRuntimeVersion ?? '').startsWith('docker://') &&
          !String(n.metadata.annotations?.['kubeadm.alpha.kubernetes.io/cri-socket'] ?? '').includes('cri-dockerd'),
      );
      if (docker.length)
        predictions.push({
          contract: 'interfaces',
          code: 'ARCH-WI47',
          from: 'what-if',
          severity: 'error',
          title: `${count(docker.length, 'node')} run Docker through dockershim, which v1.${DOCKERSHIM_REMOVED} removed`,
          message: `${docker.map((n) => `${n.metadata.name} (${String(n.status?.nodeInfo?.containerRuntimeVersion)})`).join(', ')}: from v1.${DOCKERSHIM_REMOVED} the kubelet talks only CRI, so a kubelet left on Docker does not start and the node goes NotReady with its pods.`,
          objects: docker.map(nodeRef),
          why: "The container runtime is a swappable interface (CRI): the kubelet stopped carrying Docker's adapter.",
          fix: [
            `before the upgrade, move each node to containerd (drain it, install containerd, point --container-runtime-endpoint at it) or install cri-dockerd`,
          ],
        });
    }
    // cgroup v1
    if (crosses(u, CGROUP_V1_REFUSED)) {
      const warned = new Set(
        normaliseEvents(c.snap.of(R.events), c.snap.of(R.eventsV1))
          .filter((e) => e.reason === 'CgroupV1' && e.object.kind === 'Node')
          .map((e) => e.object.name),
      );
      const v1: Array<{ n: KObject; why: string }> = [];
      const unknown: KObject[] = [];
      for (const n of nodes) {
        const na = nodeArgs(n);
        if (na && values(na.args, '--kubelet-arg').some((v) => split(v).name === 'fail-cgroupv1' && split(v).value === 'false')) continue;
        const os = String(n.status?.nodeInfo?.osImage ?? '');
        const kernel = String(n.status?.nodeInfo?.kernelVersion ?? '');
        if (warned.has(n.metadata.name)) v1.push({ n, why: 'its kubelet warned "CgroupV1"' });
        else if (kernel && kernelBelow(kernel, 4, 15)) v1.push({ n, why: `kernel ${kernel} has no usable cgroup v2` });
        else if (cgroupDefault(os) === 'v1') v1.push({ n, why: `${os} boots cgroup v1 unless switched` });
        else if (cgroupDefault(os) === undefined) unknown.push(n);
      }
      if (v1.length)
        predictions.push({
          contract: 'interfaces',
          code: 'ARCH-WI47',
          from: 'what-if',
          severity: 'error',
          title: `${count(v1.length, 'node')} would run a v1.${CGROUP_V1_REFUSED}+ kubelet on cgroup v1: it does not start`,
          message: `${v1.map((x) => `${x.n.metadata.name} (${x.why})`).join('; ')}. From v1.${CGROUP_V1_REFUSED} the kubelet's failCgroupV1 defaults to true: "kubelet is configured to not run on a host using cgroup v1", the node goes NotReady with its pods.`,
          objects: v1.map((x) => nodeRef(x.n)),
          why: "The node boundary includes the kernel's cgroup interface: the kubelet dropped the old one.",
          fix: [
            command(['stat', '-fc', '%T', '/sys/fs/cgroup/'], {
              say: 'on each node, before the upgrade',
              note: 'cgroup2fs is v2, tmpfs is v1',
            }),
            'move those nodes to cgroup v2 (systemd.unified_cgroup_hierarchy=1 on the kernel command line, or an OS that boots it), or set failCgroupV1: false in their kubelet configuration (K3s/RKE2: --kubelet-arg=fail-cgroupv1=false) — a stopgap',
          ],
        });
      if (unknown.length)
        unjudged.push({
          what: `whether ${unknown
            .map((n) => n.metadata.name)
            .slice(0, 10)
            .join(
              ', ',
            )}${unknown.length > 10 ? ` and ${unknown.length - 10} more` : ''} run cgroup v1 (their OS image's default is not known, and no "CgroupV1" event of their kubelet is visible)`,
        });
    }
    // in-tree volume plugins
    const removedPlugins = VOLUME_PLUGINS_REMOVED.filter((p) => crosses(u, p.removed));
    if (removedPlugins.length) {
      const drivers = new Set(c.snap.of(R.csidrivers).map((x) => x.metadata.name));
      const driversSeen = !c.snap.gap(R.csidrivers);
      for (const p of removedPlugins) {
        // a plugin already migrated at the current release is served by its driver today (the csi-drivers check says so)
        if (p.migrated && u.current && MIGRATED_SINCE[p.plugin] !== undefined && u.current.version.minor >= MIGRATED_SINCE[p.plugin]!)
          continue;
        const pvs = c.snap.of(R.persistentvolumes).filter((v) => v.spec?.[p.field]);
        const classes = c.snap.of(R.storageclasses).filter((s) => s.provisioner === p.plugin);
        if (!pvs.length && !classes.length) continue;
        const driver = DRIVER[p.plugin];
        if (p.migrated && driver && drivers.has(driver)) continue;
        if (p.migrated && !driversSeen) {
          unjudged.push({
            what: `whether the CSI driver ${driver} that takes over ${p.plugin} volumes is installed (CSIDrivers not visible)`,
          });
          continue;
        }
        const objects: ObjectRef[] = [
          ...pvs.map((v) => ({ kind: 'PersistentVolume', name: v.metadata.name })),
          ...classes.map((s) => ({ kind: 'StorageClass', name: s.metadata.name })),
        ];
        predictions.push({
          contract: 'interfaces',
          code: 'ARCH-WI48',
          from: 'what-if',
          severity: 'error',
          title: `${p.plugin} is removed in v1.${p.removed}: ${count(pvs.length, 'volume')} and ${count(classes.length, 'StorageClass', 'StorageClasses')} use it${p.migrated ? `, and its CSI driver ${driver} is not installed` : ', with no CSI migration'}`,
          message: `${objects
            .map((o) => `${o.kind} ${o.name}`)
            .slice(0, 25)
            .join(', ')}${objects.length > 25 ? ` and ${objects.length - 25} more` : ''}. ${
            p.migrated
              ? `From v1.${p.removed} only ${driver} serves them (CSI migration): without it they cannot be attached, mounted or provisioned.`
              : `From v1.${p.removed} nothing serves them: pods that use them do not start, and the class provisions nothing.`
          }`,
          objects: objects.slice(0, 25),
          why: 'Storage is a swappable interface (CSI): the in-tree plugins are being taken out, and a volume with no driver is unreachable.',
          fix: p.migrated
            ? [`before the upgrade, install the ${driver} CSI driver (and its node plugin on every node)`]
            : [
                `before the upgrade, move the data to volumes of a CSI driver and the workloads to them: v1.${p.removed} has no ${p.plugin}`,
              ],
        });
      }
    }
    // in-tree cloud providers
    if (crosses(u, CLOUD_PROVIDERS_REMOVED) && !['EKS', 'GKE', 'AKS', 'K3s'].includes(d)) {
      const cloud = nodes.filter((n) => /^(aws|gce|azure|openstack|vsphere):\/\//.test(String(n.spec?.providerID ?? '')));
      const ccm = c.pods.some((p) =>
        /cloud-controller-manager|cloud-provider-openstack|cloud-controller/.test(
          `${p.metadata.name} ${Object.values(p.metadata.labels ?? {}).join(' ')}`,
        ),
      );
      const byFlag = nodes.filter((n) => {
        const na = nodeArgs(n);
        if (!na) return false;
        const named = [
          ...values(na.args, '--cloud-provider-name'),
          ...values(na.args, '--kubelet-arg')
            .filter((v) => split(v).name === 'cloud-provider')
            .map((v) => split(v).value ?? ''),
        ];
        return named.some((v) => /^(aws|gce|azure|openstack|vsphere)$/.test(v));
      });
      if (byFlag.length || (cloud.length && !ccm))
        predictions.push({
          contract: 'interfaces',
          code: 'ARCH-WI49',
          from: 'what-if',
          severity: byFlag.length ? 'error' : 'warning',
          title: `in-tree cloud providers are gone in v1.${CLOUD_PROVIDERS_REMOVED}: ${byFlag.length ? `${count(byFlag.length, 'node')} still name one` : `${count(cloud.length, 'node')} have a cloud providerID and no external cloud-controller-manager is running`}`,
          message: `${(byFlag.length ? byFlag : cloud).map((n) => `${n.metadata.name} (${String(n.spec?.providerID ?? 'node-args')})`).join(', ')}. From v1.${CLOUD_PROVIDERS_REMOVED} --cloud-provider takes only "external": a kubelet or controller manager started with an in-tree provider does not start, and without an external cloud-controller-manager new nodes stay tainted uninitialized and LoadBalancer Services get no address.`,
          objects: (byFlag.length ? byFlag : cloud).map(nodeRef),
          why: 'The cloud is a swappable interface too: its controller moved out of the core binaries.',
          fix: [
            command(
              ['kubectl', '-n', 'kube-system', 'get', 'pods', '-l', 'component=kube-controller-manager', '-o', 'jsonpath={..command}'],
              {
                say: 'does the controller manager name an in-tree provider',
                note: 'look for --cloud-provider',
              },
            ),
            "before the upgrade, deploy your cloud's external cloud-controller-manager and switch the kubelets and the controller manager to --cloud-provider=external",
          ],
        });
    }
    // flags K3s and RKE2 pass that the target removed
    const flagHits = new Map<string, { removed: number; nodes: string[]; via: string }>();
    for (const n of c.snap.of(R.nodes)) {
      const na = nodeArgs(n);
      if (!na) continue;
      for (const v of values(na.args, '--kubelet-arg')) {
        const f = KUBELET_FLAGS_REMOVED.find((x) => x.flag === split(v).name && crosses(u, x.removed));
        if (!f) continue;
        const k = `kubelet --${f.flag}`;
        const e = flagHits.get(k) ?? { removed: f.removed, nodes: [], via: `--kubelet-arg ${split(v).name}` };
        e.nodes.push(n.metadata.name);
        flagHits.set(k, e);
      }
      if (crosses(u, 25))
        for (const v of values(na.args, '--kube-apiserver-arg')) {
          const { name, value } = split(v);
          if (name !== 'enable-admission-plugins' || !(value ?? '').split(',').includes('PodSecurityPolicy')) continue;
          const k = 'kube-apiserver --enable-admission-plugins=PodSecurityPolicy';
          const e = flagHits.get(k) ?? { removed: 25, nodes: [], via: '--kube-apiserver-arg enable-admission-plugins=…PodSecurityPolicy' };
          e.nodes.push(n.metadata.name);
          flagHits.set(k, e);
        }
    }
    for (const [what, e] of flagHits)
      predictions.push({
        contract: 'interfaces',
        code: 'ARCH-WI50',
        from: 'what-if',
        severity: 'error',
        title: `${what} is gone in v1.${e.removed}, and ${count(e.nodes.length, 'node')} pass${e.nodes.length === 1 ? 'es' : ''} it`,
        message: `${e.nodes.join(', ')}: ${d === 'RKE2' ? 'rke2' : 'k3s'} passes ${e.via} (node-args). ${what.startsWith('kubelet') ? `The ${target} kubelet does not register --${what.slice('kubelet --'.length)}: it exits with "unknown flag" and the node goes NotReady` : 'The API server no longer knows the PodSecurityPolicy admission plugin: it does not start'}.`,
        objects: e.nodes.map((name) => ({ kind: 'Node', name })),
        why: 'A component refuses a flag it no longer registers: one stale line in config.yaml takes the node down with the upgrade.',
        fix: [
          `before the upgrade, remove it from /etc/rancher/${d === 'RKE2' ? 'rke2' : 'k3s'}/config.yaml (or the install's flags) on those nodes`,
        ],
      });
    return { predictions, unjudged };
  },
});
