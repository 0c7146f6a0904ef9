// Kubernetes versions as what-if --upgrade reads them: the target the user names (`v1.33`, `1.33.4`,
// `v1.33.4+k3s1`, `v1.33.4+rke2r1`) and the version the cluster runs now (the API server that answered, else its
// servers' kubelets where the distribution runs both from one binary).
import { InputError } from '../../errors.js';
import type { Distribution } from '../../fingerprint.js';
import { R } from '../../resources.js';
import type { Snapshot } from '../../snapshot/snapshot.js';

export interface KubeVersion {
  minor: number;
  patch?: number;
  /** A distribution's build suffix: +k3s1, +rke2r1, -eks-… */
  suffix?: string;
  /** As written or read. */
  text: string;
}

const VERSION = /^v?1\.(\d{1,3})(?:\.(\d{1,4}))?([+-][0-9A-Za-z.+-]{1,60})?$/;

/** A version as Kubernetes writes it; undefined when it is not one. */
export function parseVersion(s: string | undefined): KubeVersion | undefined {
  const m = VERSION.exec(String(s ?? '').trim());
  if (!m) return undefined;
  return {
    minor: Number(m[1]),
    ...(m[2] !== undefined ? { patch: Number(m[2]) } : {}),
    ...(m[3] ? { suffix: m[3] } : {}),
    text: String(s).trim().startsWith('v') ? String(s).trim() : `v${String(s).trim()}`,
  };
}

/** The --upgrade argument: a usage error when it is not a version. */
export function parseTarget(s: string): KubeVersion {
  const v = parseVersion(s);
  if (!v)
    throw new InputError(
      `--upgrade ${JSON.stringify(s).slice(0, 80)} is not a Kubernetes version`,
      'e.g. --upgrade v1.33, --upgrade v1.33.4 or --upgrade v1.33.4+k3s1',
    );
  return v;
}

/** The distribution a build suffix names, if any. */
export function suffixDistribution(v: KubeVersion): Distribution | undefined {
  if (/\+k3s\d*/.test(v.suffix ?? '')) return 'K3s';
  if (/\+rke2r\d*/.test(v.suffix ?? '')) return 'RKE2';
  if (/\+k0s/.test(v.suffix ?? '')) return 'k0s';
  return undefined;
}

export const versionText = (v: Pick<KubeVersion, 'minor' | 'patch'>): string =>
  `v1.${v.minor}${v.patch !== undefined ? `.${v.patch}` : ''}`;

/** The version the cluster runs, and what shows it. */
export interface Current {
  version: KubeVersion;
  from: string;
}

/** The API server's version as read; else, for a snapshot without it, the newest kubelet of a control-plane node (K3s and
 *  RKE2 servers run the API server and the kubelet from one binary; elsewhere kubeadm upgrades the control plane first). */
export function currentVersion(snap: Snapshot): Current | undefined {
  const v = parseVersion(snap.header.serverVersion?.gitVersion);
  if (v) return { version: v, from: `the API server (${v.text})` };
  let best: Current | undefined;
  for (const n of snap.of(R.nodes)) {
    const l = n.metadata.labels ?? {};
    if (l['node-role.kubernetes.io/control-plane'] === undefined && l['node-role.kubernetes.io/master'] === undefined) continue;
    const k = parseVersion(n.status?.nodeInfo?.kubeletVersion);
    if (k && (!best || k.minor > best.version.minor))
      best = { version: k, from: `the kubelet of control-plane node ${n.metadata.name} (${k.text})` };
  }
  return best;
}

/** What-if --upgrade: the cluster upgraded to the target. */
export interface UpgradeHypothesis {
  target: KubeVersion;
  /** Undefined when no version is visible: every removal up to the target is then judged. */
  current?: Current;
}

/** The minors an upgrade passes through, after the current one up to the target (just the target when the current one
 *  is not known). */
export const minorsCrossed = (u: UpgradeHypothesis): { from: number; to: number } => ({
  from: u.current ? u.current.version.minor + 1 : 0,
  to: u.target.minor,
});
