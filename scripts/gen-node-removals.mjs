#!/usr/bin/env node
// Writes src/lib/node-removals.ts: what each release removed at the node boundary, read by difference from the source
// of every minor release of the k8s.io/kubernetes module (the kubelet's own code, not release notes):
// - the kubelet flags cmd/kubelet/app/options and pkg/kubelet/config/flags.go register (a flag a release no longer registers stops the
//   kubelet: "unknown flag");
// - the in-tree volume plugins under pkg/volume (and whether k8s.io/csi-translation-lib still translates each to its
//   CSI driver: a migrated plugin's volumes keep working through that driver);
// - the oldest external etcd kubeadm accepts (cmd/kubeadm/app/constants MinExternalEtcdVersion);
// - dockershim (pkg/kubelet/dockershim), the in-tree cloud providers (k8s.io/legacy-cloud-providers in go.mod), and the
//   release whose kubelet refuses cgroup v1 by default (pkg/kubelet/apis/config/v1beta1/defaults.go: FailCgroupV1).
// Run by hand when a release is added (`node scripts/gen-node-removals.mjs`); it downloads the modules with
// `go mod download` (the Go module proxy).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The newest patch of each minor read (any patch registers the same flags: flags change in minor releases). */
const RELEASES = [
  'v1.23.17',
  'v1.24.17',
  'v1.25.16',
  'v1.26.15',
  'v1.27.16',
  'v1.28.15',
  'v1.29.15',
  'v1.30.14',
  'v1.31.14',
  'v1.32.10',
  'v1.33.6',
  'v1.34.2',
  'v1.35.1',
  'v1.36.3',
  'v1.37.2',
];
/** pkg/volume directories of in-tree plugins: the plugin's name (StorageClass provisioner) and its PV source field. */
const PLUGINS = {
  awsebs: ['kubernetes.io/aws-ebs', 'awsElasticBlockStore'],
  azuredd: ['kubernetes.io/azure-disk', 'azureDisk'],
  azure_file: ['kubernetes.io/azure-file', 'azureFile'],
  cinder: ['kubernetes.io/cinder', 'cinder'],
  gcepd: ['kubernetes.io/gce-pd', 'gcePersistentDisk'],
  vsphere_volume: ['kubernetes.io/vsphere-volume', 'vsphereVolume'],
  glusterfs: ['kubernetes.io/glusterfs', 'glusterfs'],
  rbd: ['kubernetes.io/rbd', 'rbd'],
  cephfs: ['kubernetes.io/cephfs', 'cephfs'],
  portworx: ['kubernetes.io/portworx-volume', 'portworxVolume'],
  flocker: ['kubernetes.io/flocker', 'flocker'],
  quobyte: ['kubernetes.io/quobyte', 'quobyte'],
  storageos: ['kubernetes.io/storageos', 'storageos'],
  scaleio: ['kubernetes.io/scaleio', 'scaleIO'],
};

const dirOf = (mod) => JSON.parse(execFileSync('go', ['mod', 'download', '-json', mod], { encoding: 'utf8' })).Dir;
const minorOf = (v) => Number(v.split('.')[1]);

/** The flag names a kubelet registers: the first string literal of every fs.<Method>( call. */
function kubeletFlags(root) {
  const dir = join(root, 'cmd/kubelet/app/options');
  const names = new Set();
  const files = [
    ...readdirSync(dir)
      .filter((n) => n.endsWith('.go') && !n.endsWith('_test.go') && !n.includes('windows'))
      .map((n) => join(dir, n)),
    // the container runtime's flags (dockershim's until v1.24, --container-runtime until v1.27)
    join(root, 'pkg/kubelet/config/flags.go'),
  ].filter((f) => existsSync(f));
  for (const f of files) {
    for (const m of readFileSync(f, 'utf8').matchAll(/\bfs\.\w+\((?:[^"\n]|"(?![a-z][a-z0-9-]*")[^"\n]*")*?"([a-z][a-z0-9-]*)"/g))
      names.add(m[1]);
  }
  return names;
}

const seen = [];
for (const v of RELEASES) {
  const root = dirOf(`k8s.io/kubernetes@${v}`);
  // csi-translation-lib is a staging module, published as its own: what the newest release translates decides
  const translations =
    v === RELEASES[RELEASES.length - 1]
      ? new Set(
          readdirSync(join(dirOf(`k8s.io/csi-translation-lib@v0.${v.slice(3)}`), 'plugins')).filter(
            (n) => n.endsWith('.go') && !n.endsWith('_test.go'),
          ),
        )
      : new Set();
  const defaults = join(root, 'pkg/kubelet/apis/config/v1beta1/defaults.go');
  seen.push({
    minor: minorOf(v),
    version: v,
    flags: kubeletFlags(root),
    plugins: new Set(Object.keys(PLUGINS).filter((p) => existsSync(join(root, 'pkg/volume', p)))),
    translated: translations,
    dockershim: existsSync(join(root, 'pkg/kubelet/dockershim')),
    legacyCloud: readFileSync(join(root, 'go.mod'), 'utf8').includes('k8s.io/legacy-cloud-providers'),
    minExternalEtcd: /MinExternalEtcdVersion\s*=\s*"([^"]+)"/.exec(
      readFileSync(join(root, 'cmd/kubeadm/app/constants/constants.go'), 'utf8'),
    )?.[1],
    failCgroupV1: existsSync(defaults) && /FailCgroupV1 = [\w.]+\(true\)/.test(readFileSync(defaults, 'utf8')),
  });
}
const flags = [];
const plugins = [];
let dockershim;
let cloud;
let cgroup;
for (let i = 1; i < seen.length; i++) {
  const [a, b] = [seen[i - 1], seen[i]];
  for (const f of a.flags) if (!b.flags.has(f)) flags.push({ flag: f, removed: b.minor });
  for (const p of a.plugins) if (!b.plugins.has(p)) plugins.push({ plugin: PLUGINS[p][0], field: PLUGINS[p][1], removed: b.minor });
  if (a.dockershim && !b.dockershim) dockershim = b.minor;
  if (a.legacyCloud && !b.legacyCloud) cloud = b.minor;
  if (!a.failCgroupV1 && b.failCgroupV1) cgroup = b.minor;
}
// a plugin gone before the oldest release read
for (const p of Object.keys(PLUGINS))
  if (!seen[0].plugins.has(p)) plugins.push({ plugin: PLUGINS[p][0], field: PLUGINS[p][1], removed: seen[0].minor });
const newest = seen[seen.length - 1];
const translatedFile = {
  'kubernetes.io/aws-ebs': 'aws_ebs.go',
  'kubernetes.io/azure-disk': 'azure_disk.go',
  'kubernetes.io/azure-file': 'azure_file.go',
  'kubernetes.io/cinder': 'openstack_cinder.go',
  'kubernetes.io/gce-pd': 'gce_pd.go',
  'kubernetes.io/vsphere-volume': 'vsphere_volume.go',
  'kubernetes.io/portworx-volume': 'portworx.go',
};
for (const p of plugins) p.migrated = Boolean(translatedFile[p.plugin] && newest.translated.has(translatedFile[p.plugin]));
flags.sort((a, b) => a.removed - b.removed || a.flag.localeCompare(b.flag));
plugins.sort((a, b) => a.removed - b.removed || a.plugin.localeCompare(b.plugin));

const out = `// Generated by scripts/gen-node-removals.mjs from the source of k8s.io/kubernetes ${RELEASES[0]} … ${newest.version}: do not edit.
// What each release removed at the node boundary, by difference between consecutive minor releases.

/** The releases read: removals before the first are not known here. */
export const NODE_REMOVALS_READ = { from: ${seen[0].minor}, to: ${newest.minor} } as const;

/** Flags the kubelet (cmd/kubelet/app/options) no longer registers from that release: a kubelet given one does not
 *  start ("unknown flag"). */
export const KUBELET_FLAGS_REMOVED: ReadonlyArray<{ flag: string; removed: number }> = ${JSON.stringify(flags)};

/** In-tree volume plugins (pkg/volume) removed from that release; migrated: k8s.io/csi-translation-lib still translates
 *  its volumes to the plugin's CSI driver, which then serves them (when it is installed). */
export const VOLUME_PLUGINS_REMOVED: ReadonlyArray<{ plugin: string; field: string; removed: number; migrated: boolean }> = ${JSON.stringify(plugins)};

/** pkg/kubelet/dockershim is gone from this release: a kubelet told to use Docker directly does not start. */
export const DOCKERSHIM_REMOVED = ${dockershim};
/** k8s.io/legacy-cloud-providers is gone from this release: --cloud-provider takes only "external". */
export const CLOUD_PROVIDERS_REMOVED = ${cloud};
/** From this release the kubelet's failCgroupV1 defaults to true: it does not start on a cgroup v1 host. */
export const CGROUP_V1_REFUSED = ${cgroup};

/** The oldest external etcd kubeadm accepts, by release (cmd/kubeadm/app/constants MinExternalEtcdVersion). */
export const KUBEADM_MIN_EXTERNAL_ETCD: Readonly<Record<number, string>> = ${JSON.stringify(Object.fromEntries(seen.map((x) => [x.minor, x.minExternalEtcd])))};
`;
writeFileSync(new URL('../src/lib/node-removals.ts', import.meta.url), out);
console.log(
  `${flags.length} kubelet flags, ${plugins.length} volume plugins; dockershim ${dockershim}, cloud ${cloud}, cgroup v1 ${cgroup}`,
);
