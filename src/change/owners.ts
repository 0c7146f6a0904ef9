// Who owns a live object, as the retry-loop check and the orphan scan read it (Argo CD tracking, Flux labels, the K3s
// deploy controller's objectset labels, Helm's release annotations, a controller's ownerReference), and what that
// owner does with a change that is refused (retry, how often, for how long) or with an object its source stops
// declaring (prune or leave). Facts: Argo CD sync (argoproj/argo-cd controller/appcontroller.go), Flux kustomize-controller (retryInterval,
// default the interval) and helm-controller (upgrade.remediation.retries, default 0), K3s deploy controller (re-scans
// every 15 s), K3s helm-controller (a helm-install Job with backoffLimit 1000); an automated Argo CD sync without
// syncPolicy.retry retries 5 times.
import { groupOf, type KObject, type ObjectRef } from '../model.js';
import { argoConfig, claim } from '../orphans/tracking.js';
import { R } from '../resources.js';
import type { Snapshot } from '../snapshot/snapshot.js';

export interface ObjectOwner {
  key: string;
  /** e.g. "Argo CD Application argocd/blog". */
  label: string;
  ref: ObjectRef;
  tool: 'argocd' | 'flux-kustomization' | 'flux-helmrelease' | 'k3s-addon' | 'helm' | 'k3s-helmchart' | 'controller';
  /** What the owner says it manages (Argo CD status.resources, Flux status.inventory), when it says. */
  inventory?: Array<{ group: string; kind: string; namespace?: string; name: string }>;
  prunes: boolean;
  pruneWhy: string;
  /** The owner object as read (its sync policy), when visible. */
  object?: KObject;
}

const nsName = (m: { namespace?: string; name: string }): string => `${m.namespace ?? ''}/${m.name}`;

export function ownerOf(o: KObject, snap: Snapshot): ObjectOwner | undefined {
  const l = o.metadata.labels ?? {};
  const a = o.metadata.annotations ?? {};
  // K3s deploy controller (manifests in /var/lib/rancher/k3s/server/manifests): objectset owner labels on an Addon
  const gvk = a['objectset.rio.cattle.io/owner-gvk'] ?? l['objectset.rio.cattle.io/owner-gvk'];
  const ownerName = a['objectset.rio.cattle.io/owner-name'] ?? l['objectset.rio.cattle.io/owner-name'];
  if (gvk && /Kind=Addon/.test(gvk) && ownerName) {
    const ns = a['objectset.rio.cattle.io/owner-namespace'] ?? l['objectset.rio.cattle.io/owner-namespace'] ?? 'kube-system';
    return {
      key: `addon/${ns}/${ownerName}`,
      label: `the K3s deploy controller (Addon ${ns}/${ownerName})`,
      ref: { kind: 'Addon', apiVersion: 'k3s.cattle.io/v1', namespace: ns, name: ownerName },
      tool: 'k3s-addon',
      prunes: true,
      pruneWhy: 'the deploy controller deletes what a manifest file stops declaring',
    };
  }
  const cfg = argoConfig(snap);
  const apps = snap.of(R.argoApplications);
  const liveApps = new Set(apps.map((x) => nsName(x.metadata)));
  const c = claim(o, cfg, cfg.namespace ?? apps[0]?.metadata.namespace, liveApps);
  if (c && 'attr' in c) {
    const at = c.attr;
    if (at.tool === 'Argo CD') {
      const app = apps.find((x) => x.metadata.namespace === at.namespace && x.metadata.name === at.name);
      const automated = app?.spec?.syncPolicy?.automated;
      const prunes = Boolean(automated && automated.prune === true);
      return {
        key: `argocd/${at.namespace ?? ''}/${at.name}`,
        label: `Argo CD Application ${at.namespace ? `${at.namespace}/` : ''}${at.name}`,
        ref: { kind: 'Application', apiVersion: 'argoproj.io/v1alpha1', namespace: at.namespace, name: at.name },
        tool: 'argocd',
        object: app,
        inventory: Array.isArray(app?.status?.resources)
          ? (app.status.resources as Array<Record<string, unknown>>).map((r) => ({
              group: String(r.group ?? ''),
              kind: String(r.kind ?? ''),
              namespace: typeof r.namespace === 'string' && r.namespace ? r.namespace : undefined,
              name: String(r.name ?? ''),
            }))
          : undefined,
        prunes,
        pruneWhy: !app
          ? 'the Application is not visible'
          : prunes
            ? 'syncPolicy.automated.prune: true'
            : automated
              ? 'automated sync without prune: true'
              : 'manual sync, which prunes only when asked to',
      };
    }
    const type = at.kind === 'Kustomization' ? R.fluxKustomizations : R.fluxHelmReleases;
    const owner = snap.of(type).find((x) => x.metadata.namespace === at.namespace && x.metadata.name === at.name);
    if (at.kind === 'Kustomization') {
      const entries = owner?.status?.inventory?.entries;
      return {
        key: `ks/${at.namespace ?? ''}/${at.name}`,
        label: `Flux Kustomization ${at.namespace}/${at.name}`,
        ref: { kind: 'Kustomization', apiVersion: 'kustomize.toolkit.fluxcd.io/v1', namespace: at.namespace, name: at.name },
        tool: 'flux-kustomization',
        object: owner,
        inventory: Array.isArray(entries)
          ? entries.map((e: { id?: string }) => fluxEntry(String(e?.id ?? ''))).filter((e) => e !== null)
          : undefined,
        prunes: owner?.spec?.prune === true,
        pruneWhy: !owner ? 'the Kustomization is not visible' : owner.spec?.prune === true ? 'spec.prune: true' : 'spec.prune is not true',
      };
    }
    return {
      key: `hr/${at.namespace ?? ''}/${at.name}`,
      label: `Flux HelmRelease ${at.namespace}/${at.name}`,
      ref: { kind: 'HelmRelease', apiVersion: 'helm.toolkit.fluxcd.io/v2', namespace: at.namespace, name: at.name },
      tool: 'flux-helmrelease',
      object: owner,
      prunes: true,
      pruneWhy: 'a Helm upgrade deletes what the chart stops rendering',
    };
  }
  const release = a['meta.helm.sh/release-name'];
  if (release) {
    const relNs = a['meta.helm.sh/release-namespace'] ?? o.metadata.namespace;
    // K3s's helm-controller installs a HelmChart's release under the chart's name
    const chart = snap
      .of(R.helmcharts)
      .find((h) => h.metadata.name === release && (h.spec?.targetNamespace ?? h.metadata.namespace) === relNs);
    if (chart)
      return {
        key: `helmchart/${chart.metadata.namespace}/${chart.metadata.name}`,
        label: `K3s HelmChart ${chart.metadata.namespace}/${chart.metadata.name}`,
        ref: { kind: 'HelmChart', apiVersion: 'helm.cattle.io/v1', namespace: chart.metadata.namespace, name: chart.metadata.name },
        tool: 'k3s-helmchart',
        object: chart,
        prunes: true,
        pruneWhy: 'a Helm upgrade deletes what the chart stops rendering',
      };
    return {
      key: `helm/${relNs ?? ''}/${release}`,
      label: `Helm release ${relNs ? `${relNs}/` : ''}${release}`,
      ref: { kind: 'Secret', apiVersion: 'v1', namespace: relNs, name: `sh.helm.release.v1.${release}` },
      tool: 'helm',
      prunes: true,
      pruneWhy: 'a Helm upgrade deletes what the chart stops rendering',
    };
  }
  const ctl = (o.metadata.ownerReferences ?? []).find((r) => r.controller);
  if (ctl)
    return {
      key: `ctl/${o.metadata.namespace ?? ''}/${ctl.kind}/${ctl.name}`,
      label: `its controller (${ctl.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${ctl.name})`,
      ref: { kind: ctl.kind, apiVersion: ctl.apiVersion, namespace: o.metadata.namespace, name: ctl.name },
      tool: 'controller',
      prunes: false,
      pruneWhy: 'a controller keeps what it owns',
    };
  return undefined;
}

/** Flux inventory ids: `<namespace>_<name>_<group>_<kind>`. */
function fluxEntry(id: string): { group: string; kind: string; namespace?: string; name: string } | null {
  const p = id.split('_');
  if (p.length !== 4) return null;
  return { namespace: p[0] || undefined, name: p[1]!, group: p[2]!, kind: p[3]! };
}

/** What the owner does with a refused change, in one sentence. */
export function retryText(owner: ObjectOwner | undefined, snap: Snapshot): { text: string; forever: boolean } {
  void snap;
  if (!owner) return { text: 'Nothing retries it: kubectl apply fails for this object (and applies the others).', forever: false };
  const o = owner.object;
  switch (owner.tool) {
    case 'k3s-addon':
      return {
        text: `${owner.label} owns it: from its manifest on the servers, it re-scans every 15 s and records the checksum only on success, so it would re-apply it and be refused every 15 s, forever.`,
        forever: true,
      };
    case 'k3s-helmchart':
      return {
        text: `${owner.label}'s helm-install Job fails and is retried (backoffLimit 1000): a retry loop until the chart is fixed.`,
        forever: true,
      };
    case 'argocd': {
      const sp = o?.spec?.syncPolicy;
      if (!o)
        return {
          text: `${owner.label} would fail to sync it (the Application is not visible: its retry policy is not known).`,
          forever: false,
        };
      if (!sp?.automated)
        return {
          text: `${owner.label} syncs manually: the next sync fails with this error, and nothing retries on its own.`,
          forever: false,
        };
      // an automated sync without syncPolicy.retry gets a limit of 5 (argo-cd appcontroller); < 0 is forever
      const limit = typeof sp.retry?.limit === 'number' ? sp.retry.limit : 5;
      if (limit < 0)
        return {
          text: `${owner.label} syncs automatically and retries without limit (syncPolicy.retry.limit ${limit}): a retry loop that never ends by itself.`,
          forever: true,
        };
      return {
        text: `${owner.label} syncs automatically and retries ${limit} time${limit === 1 ? '' : 's'} (${sp.retry ? 'syncPolicy.retry.limit' : 'the default without syncPolicy.retry'}), then stays OutOfSync with a SyncError — and fails again at every new revision.`,
        forever: false,
      };
    }
    case 'flux-kustomization': {
      const every = o?.spec?.retryInterval ?? o?.spec?.interval;
      return {
        text: `${owner.label} re-applies ${every ? `every ${String(every)} (${o?.spec?.retryInterval ? 'retryInterval' : 'its interval'})` : 'at every interval'}, forever: Ready=False with the API server's error.`,
        forever: true,
      };
    }
    case 'flux-helmrelease': {
      const retries = o?.spec?.upgrade?.remediation?.retries;
      return {
        text: `${owner.label}'s upgrade fails${typeof retries === 'number' && retries !== 0 ? ` and is retried ${retries < 0 ? 'without limit' : `${retries} time(s)`} (upgrade.remediation.retries)` : ' and is not retried (upgrade.remediation.retries is 0)'}: Ready=False.`,
        forever: typeof retries === 'number' && retries < 0,
      };
    }
    case 'helm':
      return {
        text: `${owner.label}: a helm upgrade fails and marks the release failed; nothing retries on its own (with --atomic it rolls back).`,
        forever: false,
      };
    case 'controller':
      return {
        text: `It is managed by ${owner.label}, which writes it from its own spec: change that spec, not this object.`,
        forever: false,
      };
  }
}

export const groupOfRef = (r: ObjectRef): string => groupOf(r.apiVersion);
