// ARCH-WI45: the upgrade skips a minor version; ARCH-WI46: kubelets (and the kube-proxy beside each) outside the skew
// the target's API server supports. The rules are the Kubernetes version skew policy (kubernetes/website
// content/en/releases/version-skew-policy.md): kube-apiserver must not skip a minor ("even in single-instance
// clusters"), and HA API servers are within one minor of each other; a kubelet is never newer than the API server and
// at most three minors older (two for kubelets before v1.25); kube-proxy the same, and within three (two) of its
// kubelet. kubeadm refuses to skip ("kubeadm can upgrade only 1 minor version at a time": cmd/kubeadm/app/phases/
// upgrade/policy.go); K3s and RKE2 upgrade one minor at a time; managed clouds take one minor per upgrade. etcd: the
// distributions that embed it or run it beside the API server upgrade it themselves; kubeadm with an external etcd
// needs at least the version its release names (cmd/kubeadm/app/constants MinExternalEtcdVersion), which the API does
// not show.
import { command } from '../../../lib/shell.js';
import { KUBEADM_MIN_EXTERNAL_ETCD } from '../../../lib/node-removals.js';
import { CONFIGMAPS, R } from '../../../resources.js';
import { count, definePrediction, input, type Prediction } from '../../types.js';
import { parseVersion, versionText } from '../../upgrade/version.js';

/** How many minors a kubelet (or kube-proxy) of this minor may be behind the API server. */
export const kubeletSkew = (minor: number): number => (minor >= 25 ? 3 : 2);

export default definePrediction({
  id: 'upgrade-versions',
  code: 'ARCH-WI45',
  title: 'the upgrade skips a minor version: the API server, kubeadm, K3s and RKE2 go one minor at a time',
  contract: 'door',
  applies: (h) => Boolean(h.upgrade),
  needs: [
    input(R.nodes, 'evidence', 'which versions the kubelets run (the skew they would have against the target)', {
      fields: ['status.nodeInfo.kubeletVersion'],
    }),
    input(CONFIGMAPS, 'context', "whether kubeadm's etcd is external (kube-system/kubeadm-config)", {
      fields: ['data.ClusterConfiguration'],
    }),
  ],
  docs: {
    what: [
      'From the version the API server reports (else the kubelets of the control-plane nodes) to the target: more than one',
      'minor is ARCH-WI45 — kube-apiserver must not skip a minor even with one instance, kubeadm refuses it, K3s and RKE2',
      'document one minor at a time. Every node whose kubelet would be newer than the target, or further behind it than',
      "the skew policy allows (three minors; two for kubelets before v1.25), is ARCH-WI46: the kubelet's kube-proxy follows",
      'the same rule (kubeadm upgrades kube-proxy with the control plane; K3s and RKE2 run it in the node process).',
      'kubeadm with an external etcd needs at least the etcd its release names: that version is not visible, and is said so.',
    ].join(' '),
    why: 'The door opens only to clients it was built to serve: a control plane that skips a minor misses the storage migrations between, and a kubelet too far behind talks an API it no longer knows.',
    limits:
      'kube-proxy versions are not read (nodeInfo.kubeProxyVersion is no longer set): they are judged by the kubelet beside them. An external etcd, a kine datastore (K3s) or a managed control plane is not seen through the API.',
  },
  predict(c) {
    const u = c.h.upgrade!;
    const predictions: Prediction[] = [];
    const unjudged: Array<{ what: string }> = [];
    const target = versionText(u.target);
    const d = c.distribution;
    if (u.current) {
      const skipped = u.target.minor - u.current.version.minor - 1;
      if (skipped > 0) {
        const between = Array.from({ length: skipped }, (_, i) => versionText({ minor: u.current!.version.minor + 1 + i }));
        predictions.push({
          contract: 'door',
          code: 'ARCH-WI45',
          from: 'what-if',
          severity: 'error',
          title: `${u.current.version.text} to ${target} skips ${count(skipped, 'minor version')} (${between.join(', ')})`,
          message: `${
            d === 'kubeadm'
              ? `kubeadm refuses it ("Specified version to upgrade to ${JSON.stringify(u.target.text)} is too high; kubeadm can upgrade only 1 minor version at a time")`
              : d === 'K3s' || d === 'RKE2'
                ? `${d} supports upgrades one minor at a time (its upgrade docs); a system-upgrade-controller Plan does not stop a skip`
                : d === 'EKS' || d === 'GKE' || d === 'AKS'
                  ? `${d} upgrades one minor at a time`
                  : 'the version skew policy does not allow it, even with one API server'
          }; during it the API servers would be more than one minor apart.`,
          objects: [],
          why: 'Each release migrates what the one before it stored and serves both sides of one step only: the door opens one minor at a time.',
          fix: [
            `upgrade to ${between.join(', then ')}, then ${target} — each one as its own upgrade`,
            command(['kubectl', 'arch', 'what-if', '--upgrade', between[0]!], { say: 'foresee the first one' }),
          ],
        });
      }
    }
    // kubelets outside the skew against the target
    const bad: Array<{ node: string; kubelet: string; why: string }> = [];
    for (const n of c.snap.of(R.nodes)) {
      const k = parseVersion(n.status?.nodeInfo?.kubeletVersion);
      if (!k) {
        unjudged.push({ what: `node ${n.metadata.name}'s kubelet version (not reported)` });
        continue;
      }
      if (k.minor > u.target.minor) bad.push({ node: n.metadata.name, kubelet: k.text, why: `newer than ${target}` });
      else if (u.target.minor - k.minor > kubeletSkew(k.minor))
        bad.push({
          node: n.metadata.name,
          kubelet: k.text,
          why: `${u.target.minor - k.minor} minors behind ${target} (a v1.${k.minor} kubelet may be ${kubeletSkew(k.minor)} behind)`,
        });
    }
    if (bad.length)
      predictions.push({
        contract: 'interfaces',
        code: 'ARCH-WI46',
        from: 'what-if',
        severity: 'error',
        title: `${count(bad.length, 'kubelet')} would be outside the version skew ${target} supports`,
        message: `${bad.map((b) => `${b.node} (${b.kubelet}: ${b.why})`).join('; ')}. The API server then serves kubelets (and their kube-proxy) it was not built for: pod status, node leases and volume attachments break in ways no release tests.`,
        objects: bad.map((b) => ({ kind: 'Node', name: b.node })),
        why: 'Node boundaries are swappable interfaces only within the skew each release promises.',
        fix: [
          `before the control plane goes to ${target}, upgrade those kubelets (drain each node first: in-place minor kubelet upgrades are not supported)`,
        ],
      });
    // etcd: an external one (kubeadm) is not visible
    if (d === 'kubeadm') {
      const cm = c.snap.of(CONFIGMAPS).find((x) => x.metadata.namespace === 'kube-system' && x.metadata.name === 'kubeadm-config');
      const cfg = String(cm?.data?.ClusterConfiguration ?? '');
      if (/^\s+external:/m.test(cfg)) {
        const min = KUBEADM_MIN_EXTERNAL_ETCD[u.target.minor];
        unjudged.push({
          what: `the version of the external etcd (kubeadm-config etcd.external: not visible through the API)${min ? `: kubeadm ${target} needs at least ${min}` : ''}`,
        });
      }
    }
    return { predictions, unjudged };
  },
});
