// ARCH-WI43: an owner that would keep applying a removed version after the upgrade — the field notes' first outage,
// after an upgrade: Argo CD and Flux re-apply what their source holds (their own records say through which version:
// Argo CD status.resources[].version, Flux status.inventory.entries[].v), the K3s deploy controller re-applies its
// manifest files every 15 s, a K3s HelmChart's helm-install Job retries, a Helm release cannot be upgraded any more
// (Helm parses the manifest it stored), an operator's writes fail at every reconcile. Named with how often, and the fix.
import { ownerOf, type ObjectOwner } from '../../../change/owners.js';
import { command, type Step } from '../../../lib/shell.js';
import type { KObject, ObjectRef } from '../../../model.js';
import { R } from '../../../resources.js';
import type { Snapshot } from '../../../snapshot/snapshot.js';
import { definePrediction, input, refText, type Prediction } from '../../types.js';
import { REMOVED_READS, removedFor, removedKey } from '../../upgrade/removed.js';
import { versionText } from '../../upgrade/version.js';
import { apiVersionText, refusal, writerText } from '../../upgrade/words.js';
import type { ApiRemoval } from '../../../lib/removed-apis.js';

/** What telling an object's owner reads (change/owners.ts ownerOf): what each GitOps owner says it manages, whether
 *  it prunes, and which HelmChart installs a release. */
export const OWNER_READS = [
  { ...R.argoApplications, fields: ['spec.syncPolicy.automated', 'status.resources'] },
  { ...R.fluxKustomizations, fields: ['spec.prune', 'status.inventory.entries[].id'] },
  { ...R.helmcharts, fields: ['spec.targetNamespace'] },
];

/** Owners that write on their own, again and again (or that a removed version blocks for good: a Helm release). */
const RETRYING = new Set<ObjectOwner['tool']>([
  'argocd',
  'flux-kustomization',
  'flux-helmrelease',
  'k3s-addon',
  'k3s-helmchart',
  'helm',
  'controller',
]);

/** The owner that would write it again after the upgrade, if it has one (ARCH-WI43 speaks for it, not ARCH-WI40). */
export function retryingOwner(o: KObject, snap: Snapshot): ObjectOwner | undefined {
  const owner = ownerOf(o, snap);
  return owner && RETRYING.has(owner.tool) ? owner : undefined;
}

interface Entry {
  owner: ObjectOwner;
  items: Array<{ target: ObjectRef; removal: ApiRemoval; how: string }>;
}

/** How often the owner tries again, and whether it stops by itself. */
function cadence(owner: ObjectOwner): string {
  const o = owner.object;
  switch (owner.tool) {
    case 'argocd': {
      const sp = o?.spec?.syncPolicy;
      if (!o) return 'the Application is not visible: how often it syncs is not known';
      if (!sp?.automated)
        return 'it syncs by hand: every sync fails from then on, and its status shows the error at every refresh (3 min by default)';
      const limit = typeof sp.retry?.limit === 'number' ? sp.retry.limit : 5;
      return `it syncs automatically: every sync fails (retried ${limit < 0 ? 'without limit' : `${limit} time${limit === 1 ? '' : 's'}`} per attempt${sp.retry ? '' : ', the default without syncPolicy.retry'}), again at every refresh (3 min by default) and every commit — forever, until its source changes`;
    }
    case 'flux-kustomization': {
      const every = o?.spec?.retryInterval ?? o?.spec?.interval;
      return `it re-applies ${every ? `every ${String(every)} (${o?.spec?.retryInterval ? 'retryInterval' : 'its interval'})` : 'at every interval'}, forever: Ready=False with the error`;
    }
    case 'flux-helmrelease':
      return `its helm-controller retries the upgrade ${o?.spec?.interval ? `every ${String(o.spec.interval)}` : 'at every interval'}: Helm cannot read the release it stored (Ready=False), forever`;
    case 'k3s-addon':
      return 'the deploy controller re-scans its manifest every 15 s and records it only on success: refused every 15 s, forever';
    case 'k3s-helmchart':
      return 'its helm-install Job fails and is retried (backoffLimit 1000): a retry loop until the chart changes';
    case 'helm':
      return 'the next helm upgrade of it fails ("The current release manifest contains removed kubernetes api(s)"): Helm parses the release it stored, whatever the new chart says — the release is stuck until it is mapped';
    case 'controller':
      return 'its controller fails at every reconcile and retries with backoff (at most about 16 min apart), forever, until the operator writes the new version';
  }
}

function fixFor(owner: ObjectOwner, removals: ApiRemoval[]): Step[] {
  const to = [
    ...new Set(
      removals.map((r) => (r.replacement ? `${apiVersionText(r)} → ${r.replacement}` : `${apiVersionText(r)} (no replacement: drop it)`)),
    ),
  ].join(', ');
  const ns = owner.ref.namespace;
  switch (owner.tool) {
    case 'argocd':
      return [
        `before the upgrade, change the manifests in its source (${to}) and let it sync`,
        command(['kubectl', ...(ns ? ['-n', ns] : []), 'get', 'application', owner.ref.name, '-o', 'jsonpath={.spec.source}'], {
          say: 'where its manifests are',
        }),
      ];
    case 'flux-kustomization':
      return [
        `before the upgrade, change the manifests in its source (${to})`,
        command(['flux', 'reconcile', 'kustomization', owner.ref.name, ...(ns ? ['-n', ns] : []), '--with-source'], {
          say: 'then apply them',
        }),
      ];
    case 'flux-helmrelease':
      return [
        `before the upgrade, move the HelmRelease to a chart version that renders ${to}; after it, map the release it stored`,
        command(['helm', 'mapkubeapis', owner.ref.name, '--namespace', ns ?? 'default'], {
          say: 'if the upgrade came first',
          note: 'the helm-mapkubeapis plugin rewrites removed versions in the stored release',
        }),
      ];
    case 'k3s-addon':
      return [`before the upgrade, edit its manifest under /var/lib/rancher/k3s/server/manifests on every server (${to})`];
    case 'k3s-helmchart':
      return [`before the upgrade, set the HelmChart's spec.version to a chart version that renders ${to}`];
    case 'helm': {
      const release = owner.ref.name.replace(/^sh\.helm\.release\.v1\./, '');
      return [
        `before the upgrade, upgrade the release to a chart version that renders ${to}`,
        command(['helm', 'mapkubeapis', release, '--namespace', ns ?? 'default'], {
          say: 'if the cluster was upgraded first',
          note: 'the helm-mapkubeapis plugin rewrites removed versions in the stored release',
        }),
      ];
    }
    case 'controller':
      return [`before the upgrade, upgrade the operator behind ${owner.ref.kind} ${owner.ref.name} to a release that writes ${to}`];
  }
}

const ownerObjectRef = (owner: ObjectOwner): ObjectRef =>
  owner.tool === 'helm'
    ? { kind: 'Helm release', namespace: owner.ref.namespace, name: owner.ref.name.replace(/^sh\.helm\.release\.v1\./, '') }
    : owner.ref;

export default definePrediction({
  id: 'upgrade-loops',
  code: 'ARCH-WI43',
  title: 'an owner would keep applying a version the target no longer serves: a retry loop (or a stuck release) after the upgrade',
  contract: 'loops',
  applies: (h) => Boolean(h.upgrade),
  needs: [
    input(R.argoApplications, 'evidence', 'which versions Argo CD Applications apply (status.resources)', {
      fields: ['status.resources', 'spec.syncPolicy.automated', 'spec.syncPolicy.retry'],
    }),
    input(R.fluxKustomizations, 'evidence', 'which versions Flux Kustomizations apply (status.inventory)', {
      fields: ['status.inventory.entries[].id', 'status.inventory.entries[].v', 'spec.interval', 'spec.retryInterval'],
    }),
    input(R.helmcharts, 'context', 'which Helm releases a K3s HelmChart installs', { fields: [] }),
  ],
  reads: [...REMOVED_READS, ...OWNER_READS, { ...R.fluxHelmReleases, fields: ['spec.interval'] }],
  docs: {
    what: [
      'For every object written through a removed version (see ARCH-WI40) its owner is read as the retry-loop check reads',
      "it: Argo CD tracking, Flux labels, the K3s deploy controller's objectset annotations, a K3s HelmChart, Helm's release",
      'annotations, a controller ownerReference. Argo CD and Flux also say themselves which version they apply',
      '(status.resources[].version, status.inventory.entries[].v): those are read even when the object was last written',
      'through another one. Each owner is one prediction, with the objects, the versions, how often it would try again',
      '(Argo CD refresh and retry policy, Flux interval, every 15 s for the deploy controller, the helm-install Job,',
      'an operator backoff) and the fix: move the source to the served version before the upgrade (or, for a Helm',
      'release caught after it, helm mapkubeapis).',
    ].join(' '),
    why: 'Everything but the state is a reconcile loop: a loop whose source still says a removed version fails on every pass after the upgrade, and never stops by itself.',
    limits:
      "An owner whose records are not visible (Applications or Kustomizations not listed) is named only through the objects it last wrote. A Helm release is named from its objects' annotations: the release itself (a Secret) is never read, so a removed version only in a chart template that rendered no object since is not seen.",
  },
  predict(c) {
    const u = c.h.upgrade!;
    const rm = removedFor(c.snap, u);
    const target = versionText(u.target);
    const by = new Map<string, Entry>();
    const add = (owner: ObjectOwner, target: ObjectRef, removal: ApiRemoval, how: string): void => {
      const e = by.get(owner.key) ?? { owner, items: [] };
      if (!e.items.some((i) => refText(i.target) === refText(target) && removedKey(i.removal) === removedKey(removal)))
        e.items.push({ target, removal, how });
      by.set(owner.key, e);
    };
    for (const w of rm.writes) {
      const owner = retryingOwner(w.object, c.snap);
      if (owner) add(owner, w.ref, w.removal, `last written through it by ${[...new Set(w.writes.map(writerText))].join(' and ')}`);
    }
    for (const d of rm.declared) {
      const owner = d.owner.kind === 'Application' ? ownerOfApp(d.owner) : ownerOfKustomization(d.owner);
      add(
        owner,
        { kind: d.target.kind, namespace: d.target.namespace, name: d.target.name },
        d.removal,
        `its ${d.record} says it applies it through ${apiVersionText(d.removal)}`,
      );
    }
    const predictions: Prediction[] = [];
    for (const { owner, items } of by.values()) {
      const removals = [...new Map(items.map((i) => [removedKey(i.removal), i.removal])).values()];
      const what = items.map((i) => `${refText(i.target)} (${apiVersionText(i.removal)}: ${i.how})`).join('; ');
      predictions.push({
        contract: 'loops',
        code: 'ARCH-WI43',
        from: 'what-if',
        severity: 'error',
        title: `${owner.label} would keep applying ${removals.map((r) => `${apiVersionText(r)} ${r.kind}`).join(', ')}, which ${target} no longer serves`,
        message: `${what}. After the upgrade each apply is refused (${removals.map(refusal).join('; ')}): ${cadence(owner)}.`,
        objects: [ownerObjectRef(owner), ...items.map((i) => i.target)],
        why: "Everything but the state is a reconcile loop: a loop whose source still says a removed version fails on every pass, and never stops by itself (the field notes' first outage after an upgrade).",
        fix: fixFor(owner, removals),
      });
    }
    return { predictions };
  },
});

function ownerOfApp(app: KObject): ObjectOwner {
  const ns = app.metadata.namespace;
  return {
    key: `argocd/${ns ?? ''}/${app.metadata.name}`,
    label: `Argo CD Application ${ns ? `${ns}/` : ''}${app.metadata.name}`,
    ref: { kind: 'Application', apiVersion: 'argoproj.io/v1alpha1', namespace: ns, name: app.metadata.name },
    tool: 'argocd',
    object: app,
    prunes: false,
    pruneWhy: '',
  };
}

function ownerOfKustomization(ks: KObject): ObjectOwner {
  const ns = ks.metadata.namespace;
  return {
    key: `ks/${ns ?? ''}/${ks.metadata.name}`,
    label: `Flux Kustomization ${ns}/${ks.metadata.name}`,
    ref: { kind: 'Kustomization', apiVersion: 'kustomize.toolkit.fluxcd.io/v1', namespace: ns, name: ks.metadata.name },
    tool: 'flux-kustomization',
    object: ks,
    prunes: false,
    pruneWhy: '',
  };
}
