// doctor's summary of the orphan scan; `kubectl arch orphans` shows it in depth.
import { scanOrphans, type Deleting, type ElsewhereGroup, type OrphanGroup } from '../../orphans/scan.js';
import { human } from '../../lib/time.js';
import { refText } from '../../model.js';
import { CONFIGMAPS, R } from '../../resources.js';
import { ABOUT, defineCheck, type Draft } from '../types.js';
import { command, inNamespace } from '../../lib/shell.js';

const ID = 'gitops-orphans';

/** Owner types (does it still exist?) and liveness inputs (pods, endpoints, routes: OR01 → OR02 → OR03). */
const OWNERS = ['Application.argoproj.io', 'Kustomization.kustomize.toolkit.fluxcd.io', 'HelmRelease.helm.toolkit.fluxcd.io'];
const LIVE = [
  'Pod',
  'Service',
  'Endpoints',
  'EndpointSlice.discovery.k8s.io',
  'Ingress.networking.k8s.io',
  'HTTPRoute.gateway.networking.k8s.io',
];

const CODES = {
  'ARCH-OR01': 'objects left by a deleted Argo CD/Flux owner (or one that now deploys to another cluster) are still serving traffic',
  'ARCH-OR02':
    'objects left by a deleted owner still run pods (directly or through a leftover HelmRelease, Application or operator resource)',
  'ARCH-OR03': 'objects left by a deleted owner (idle: config, RBAC, volumes)',
  'ARCH-OR04': 'a live Argo CD Application has no cascading finalizer: deleting it would orphan its resources',
  'ARCH-OR05': 'an app-of-apps parent has no cascading finalizer: its child Applications would be left behind',
  'ARCH-OR06': 'ownerReferences point at owners that no longer exist (garbage collection stuck or disabled)',
  'ARCH-OR07': 'objects tracked by a GitOps owner whose controller is not in this cluster: cannot be judged here',
  'ARCH-OR08': 'an Argo CD Application is being deleted (deletionTimestamp and finalizer): not an orphan; warning when it has lasted long',
} as const;
type Code = keyof typeof CODES;

const ownerText = (g: OrphanGroup): string => refText(g.owner);

export function groupFinding(g: OrphanGroup): Draft<Code> {
  const where = [...new Set(g.objects.filter((o) => o.namespace).map((o) => o.namespace))];
  const counts = `${g.namespaced} object${g.namespaced === 1 ? '' : 's'}${where.length ? ` in namespace${where.length === 1 ? '' : 's'} ${where.join(', ')}` : ''}${g.clusterScoped ? `, ${g.clusterScoped} cluster-scoped` : ''}`;
  const running = g.liveness.runningPods > 0 || g.liveness.activeApps.length > 0;
  const code = g.liveness.servingTraffic ? 'ARCH-OR01' : running ? 'ARCH-OR02' : 'ARCH-OR03';
  // what is still running matters whatever the evidence; idle leftovers on weak evidence are only info
  const severity = g.liveness.servingTraffic ? 'error' : running || g.confidence !== 'low' ? 'warning' : 'info';
  return {
    code,
    severity,
    title: `${g.owner.tool} ${ownerText(g)} ${g.movedTo ? `(now deploys to ${g.movedTo}), left here` : '(gone)'}: ${counts}${g.liveness.servingTraffic ? ' — still serving traffic' : running ? ' — still running' : ''}`,
    message: `${g.movedTo ? `${ownerText(g)} exists, but its destination is ${g.movedTo}, not this cluster: it no longer syncs or prunes what it left here. ` : ''}${g.liveness.summary}. Confidence ${g.confidence} (matched by ${g.signals.join(', ')}).${g.caveats.length ? ` Evidence: ${g.caveats.join('; ')}.` : ''}`,
    objects: g.objects.map(({ kind, apiVersion, namespace, name }) => ({ kind, apiVersion, namespace, name })),
    evidence: {
      owner: g.owner,
      ...(g.movedTo ? { movedTo: g.movedTo } : {}),
      confidence: g.confidence,
      signals: g.signals,
      liveness: g.liveness,
      oldest: g.oldest,
      namespaced: g.namespaced,
      clusterScoped: g.clusterScoped,
    },
    why: 'Deleting the declaration is not deleting the thing: without a cascading finalizer or ownerReferences, nothing garbage-collects what the owner created. Deleting the namespace still leaves cluster-scoped objects (PVs, ClusterRoles).',
    fix: [
      'kubectl arch orphans --cleanup-plan   # prints the kubectl delete commands in a safe order, for review',
      'or re-create the owner to adopt the objects again',
    ],
  };
}

export function elsewhereFinding(e: ElsewhereGroup): Draft<Code> {
  const owners = e.owners.slice(0, 8).join(', ') + (e.owners.length > 8 ? ` and ${e.owners.length - 8} more` : '');
  const where =
    e.tool === 'Argo CD' ? 'the cluster that runs Argo CD (often a management cluster)' : 'the cluster or namespace that runs Flux';
  return {
    code: 'ARCH-OR07',
    severity: 'info',
    title: `${e.objects.length} object${e.objects.length === 1 ? ' is' : 's are'} tracked by ${e.tool} ${owners}, whose ${e.tool} is not in this cluster — cannot be judged here`,
    message: `${e.tool} does not run in this cluster, so whether ${e.owners.length === 1 ? 'its owner' : 'their owners'} still exist${e.owners.length === 1 ? 's' : ''} can only be seen in ${where}.${e.installationIDs.length ? ` Installation ID: ${e.installationIDs.join(', ')}.` : ''} Meanwhile they are: ${e.liveness.summary}. Confidence ${e.labelOnly.length === e.owners.length ? 'low' : e.confidence}.${e.labelOnly.length ? ` Named by the instance label only (weak: Helm charts and other tools set it too): ${e.labelOnly.join(', ')}.` : ''}`,
    objects: e.objects.slice(0, 50).map(({ kind, apiVersion, namespace, name }) => ({ kind, apiVersion, namespace, name })),
    evidence: {
      tool: e.tool,
      owners: e.owners,
      labelOnly: e.labelOnly,
      installationIDs: e.installationIDs,
      confidence: e.confidence,
      liveness: e.liveness,
      objects: e.objects.length,
    },
    why: 'An owner that lives in another cluster cannot be checked from here: reporting these as orphans, or as fine, would both be guesses.',
    fix: [
      e.tool === 'Argo CD'
        ? `look for ${e.owners.slice(0, 3).join(', ')} in the cluster that runs Argo CD: argocd app list (or kubectl get applications -A)`
        : 'where Flux runs: flux get all -A',
      'run `kubectl arch orphans` there too: deleted Applications whose destination is this cluster leave exactly these objects',
    ],
  };
}

export function deletingFinding(d: Deleting): Draft<Code> {
  const long = d.ageSeconds !== undefined && d.ageSeconds > 3600;
  const stuckWhy =
    d.controllerRunning === false ? ' No Argo CD application controller is running, so nothing will remove the finalizer.' : '';
  return {
    code: 'ARCH-OR08',
    severity: long || d.controllerRunning === false ? 'warning' : 'info',
    title: `Argo CD Application ${d.app.namespace}/${d.app.name} is being deleted${d.ageSeconds !== undefined ? ` (for ${human(d.ageSeconds)})` : ''}`,
    message: `deletionTimestamp ${d.since}; finalizers ${d.finalizers.join(', ') || 'none of Argo CD'} keep it until its resources are deleted.${d.condition ? ` DeletionError: ${d.condition}.` : ''}${stuckWhy} Its objects are being deleted, not orphaned.`,
    objects: [d.app],
    evidence: { ...d },
    why: 'A cascading delete waits for every managed object to go; an object stuck on its own finalizer, a destination that no longer exists, or a missing controller keeps the Application (and often its namespace) Terminating.',
    fix: [
      command(['kubectl', ...inNamespace(d.app.namespace), 'get', 'application', d.app.name, '-o', 'jsonpath={.status.conditions}'], {
        note: 'why it waits',
      }),
      'kubectl get all -n <destination namespace>   # objects still terminating (their own finalizers)',
      ...(d.controllerRunning === false
        ? [
            'bring the Argo CD application controller back (it finishes the deletion), rather than removing the finalizer by hand — removing it leaves the resources behind',
          ]
        : []),
    ],
  };
}

export const gitopsOrphans = defineCheck({
  id: ID,
  title: 'Orphans of deleted GitOps owners',
  severity: 'error',
  allTypes: true,
  map: [
    { contract: 'loops', part: 'Argo CD', about: ABOUT.argo, primary: true },
    { contract: 'loops', part: 'Flux', about: ABOUT.flux, primary: true },
  ],
  codes: CODES,
  proofs: {
    'ARCH-OR01': [...OWNERS, ...LIVE],
    'ARCH-OR02': [...OWNERS, ...LIVE],
    'ARCH-OR03': [...OWNERS, ...LIVE],
    'ARCH-OR04': OWNERS,
    'ARCH-OR05': OWNERS,
    'ARCH-OR06': OWNERS,
    'ARCH-OR07': OWNERS,
    'ARCH-OR08': OWNERS,
  },

  needs: [
    { ...R.podsLean, fields: ['status.phase'], role: 'context', lost: 'liveness (running pods) unknown' },
    { ...R.services, fields: [], role: 'context', lost: 'liveness (ready endpoints) unknown' },
    {
      ...CONFIGMAPS,
      fields: ['data.installationID', 'data["application.instanceLabelKey"]', 'data["application.resourceTrackingMethod"]'],
      role: 'context',
      lost: 'argocd-cm unread: default tracking settings assumed',
    },
    {
      ...R.endpoints,
      fields: ['subsets[].addresses[].ip'],
      role: 'context',
      lost: 'ready endpoints are read from EndpointSlices only',
      or: R.endpointslices,
    },
    { ...R.endpointslices, fields: [], role: 'context', lost: 'ready endpoints are read from Endpoints only', or: R.endpoints },
    {
      ...R.ingresses,
      fields: ['spec.defaultBackend', 'spec.rules[].host', 'spec.rules[].http.paths[].backend.service.name'],
      role: 'context',
      lost: 'routes into leftover Services (Ingress) are not seen',
    },
    {
      ...R.httproutes,
      fields: ['spec.rules[].backendRefs[].kind', 'spec.rules[].backendRefs[].name', 'spec.rules[].backendRefs[].namespace'],
      role: 'context',
      lost: 'routes into leftover Services (HTTPRoute) are not seen',
    },
    {
      ...R.persistentvolumes,
      fields: ['spec.persistentVolumeReclaimPolicy', 'status.phase'],
      role: 'context',
      lost: "the data a leftover claim holds (its PV's reclaim policy) is not named",
    },
    {
      ...R.persistentvolumeclaims,
      fields: ['spec.volumeName', 'status.phase'],
      role: 'context',
      lost: 'bound volumes of leftovers are not named',
    },
    {
      ...R.argoApplications,
      fields: ['spec.destination.server', 'status.conditions', 'status.health.status', 'status.resources'],
      role: 'evidence',
      lost: 'whether an Argo CD Application still exists cannot be told: objects it tracks are not judged',
    },
    {
      ...R.fluxKustomizations,
      fields: ['spec.kubeConfig.secretRef.name'],
      role: 'evidence',
      lost: 'whether a Flux Kustomization still exists cannot be told: objects it applied are not judged',
    },
    {
      ...R.fluxHelmReleases,
      fields: ['spec.kubeConfig.secretRef.name'],
      role: 'evidence',
      lost: 'whether a Flux HelmRelease still exists cannot be told: objects it released are not judged',
    },
  ],
  docs: {
    summary:
      'every listable type (discovery, metadata only; never Secrets) tracked by a GitOps owner that no longer exists, with liveness through HelmReleases, child Applications and ownerReference chains; owners that run in another cluster (cannot be judged here); Applications being deleted; live Applications without a cascading finalizer, app-of-apps parents; dangling ownerReferences',
    what: "Every listable object (metadata only, through discovery) that carries a GitOps owner's tracking — Argo CD's argocd.argoproj.io/tracking-id annotation (copied ids that do not name their own object are ignored) or instance label (key, tracking method and installationID from argocd-cm; apps in any namespace as <ns>_<name>), Flux's kustomize/helm toolkit labels — whose owner no longer exists, grouped by that owner. Liveness follows every chain a leftover can hide work behind: ownerReferences (Deployment → ReplicaSet → Pod, an operator's custom resource → its workloads), a leftover Flux HelmRelease → the release helm-controller still reconciles, a leftover Argo CD Application → what it still tracks; then Services with ready endpoints and the Ingresses/HTTPRoutes routing to them. Objects tracked by an Argo CD or Flux that does not run in this cluster (a management cluster deploying here) are reported as not judgeable here, never as fine. An owner that exists but now deploys to another cluster — an Application whose spec.destination.server is not an address this cluster answers on (the in-cluster address, the server it was read through, the default/kubernetes endpoints, its serving certificate's names), a Flux Kustomization or HelmRelease with spec.kubeConfig — no longer syncs or prunes what it left here: those objects are leftovers, with where the owner deploys now. A destination given by cluster name (other than in-cluster) cannot be resolved without Argo CD's cluster Secrets, which are never read: it is said in a note, not judged. Applications being deleted (deletionTimestamp + finalizer) are shown as such, with how long and why. Also: live Applications without a cascading finalizer, app-of-apps parents, dangling ownerReferences. Kept on purpose (never orphans, never in a cleanup plan): argocd.argoproj.io/sync-options Delete=false or Prune=false, helm.sh/resource-policy: keep, CRDs, kustomize.toolkit.fluxcd.io/prune: disabled.",
    why: "Deleting an Argo CD Application that lacks resources-finalizer.argocd.argoproj.io leaves its workloads running and serving traffic; Argo CD's own orphaned-resources monitor only watches namespaces a live Application targets, so it cannot see this. Deleting the namespace still leaves cluster-scoped objects.",
    fix: "`kubectl arch orphans --cleanup-plan` prints (never runs) kubectl delete commands object by object: traffic first (Ingress, HTTPRoute, Service), then workloads, then configuration, storage last with the data it holds named (the PV's reclaimPolicy), then cluster-scoped objects. `kubectl delete namespace` appears only when every object in the namespace belongs to the group. A group still serving traffic, or matched on weak evidence only, is printed commented out with the reason at the top. Often the better fix is to re-create the owner so it adopts the objects again. To prevent it, add resources-finalizer.argocd.argoproj.io to Applications (or delete with argocd app delete --cascade).",
    limits:
      'Attribution is by tracking metadata: the annotation is strong evidence; the instance label alone is weak (Helm charts set it too) and is rated low confidence (medium with label tracking configured). After a switch of tracking method, objects keep only the old tracking until their next sync, so label-only leftovers are still reported, flagged. When Applications (or Flux objects) cannot be listed, their tracked objects are not judged; when the tool is not installed here, they are reported as tracked elsewhere. Secrets are never read. Flux objects of a Kustomization deleted with prune: false or deletionPolicy: Orphan were left on purpose, which the deleted object no longer shows.',
  },
  run(ctx) {
    const rep = scanOrphans(ctx.snap);
    const notes = [...rep.notes];
    const findings: Array<Draft<Code>> = [
      ...rep.groups.map(groupFinding),
      ...rep.elsewhere.map(elsewhereFinding),
      ...rep.deleting.map(deletingFinding),
    ];
    if (!rep.argo.visible && !rep.flux.visible && findings.length === 0) {
      return {
        findings: [],
        skipped: `no GitOps owner is visible: Argo CD (${rep.argo.reason ?? '?'}), Flux (${rep.flux.reason ?? '?'})`,
        notes,
      };
    }
    for (const r of rep.risks) {
      findings.push({
        code: r.kind === 'app-of-apps-parent' ? 'ARCH-OR05' : 'ARCH-OR04',
        severity: r.kind === 'app-of-apps-parent' ? 'warning' : 'info',
        title: `Argo CD Application ${r.app.name} has no cascading finalizer${r.children?.length ? ` and parents ${r.children.length} Application${r.children.length === 1 ? '' : 's'}` : ''}`,
        message: `Deleting it would leave its ${r.trackedObjects} tracked object${r.trackedObjects === 1 ? '' : 's'} running${r.children?.length ? `, including child Applications ${r.children.join(', ')} (and everything they deploy)` : ''}.`,
        objects: [r.app],
        evidence: { ...r },
        why: 'Without resources-finalizer.argocd.argoproj.io, deleting the Application deletes only the Application.',
        fix: [
          command(
            [
              'kubectl',
              ...inNamespace(r.app.namespace),
              'patch',
              'application',
              r.app.name,
              '--type',
              'merge',
              '-p',
              '{"metadata":{"finalizers":["resources-finalizer.argocd.argoproj.io"]}}',
            ],
            { note: 'if cascading delete is what you want' },
          ),
          'or set it in the Application manifest in Git',
        ],
      });
    }
    for (const c of rep.comingDeletions) {
      const names = c.apps.map((a) => `${a.app.namespace}/${a.app.name}`);
      const tracked = c.apps.reduce((n, a) => n + a.trackedObjects, 0);
      const finalizers = [...new Set(c.apps.map((a) => a.finalizer))].join(', ');
      const one = c.apps.length === 1;
      const first = c.apps[0]!.app;
      findings.push({
        code: 'ARCH-OR06',
        severity: 'warning',
        title: `${one ? `Argo CD Application ${names[0]}` : `${c.apps.length} Argo CD Applications (${names.join(', ')})`} will be deleted with everything ${one ? 'it' : 'they'} deployed: ${one ? 'its' : 'their'} owner ${c.ownerKind} ${c.ownerName} is gone`,
        message: `${one ? 'Application' : 'Applications'} ${names.join(', ')} ${one ? 'has an ownerReference' : 'have ownerReferences'} to ${c.ownerKind} ${c.ownerName}, which no longer exists, so the garbage collector will delete ${one ? 'it' : 'them'}; ${one ? 'it carries' : 'they carry'} ${finalizers}, so Argo CD will then delete everything ${one ? 'it' : 'they'} deployed (${tracked} tracked object${tracked === 1 ? '' : 's'}).`,
        objects: c.apps.map((a) => a.app),
        evidence: { ...c },
        why: 'A dangling ownerReference is a coming deletion, not a stuck garbage collector: the collector deletes dependents whose owner is gone, and the cascading finalizer passes the deletion on to the workloads.',
        fix: [
          ...c.apps.map((a) =>
            command(
              [
                'kubectl',
                ...inNamespace(a.app.namespace),
                'patch',
                'application',
                a.app.name,
                '--type',
                'json',
                '-p',
                '[{"op":"remove","path":"/metadata/ownerReferences"}]',
              ],
              {
                say: `first, to keep it, remove the ownerReference from Application ${a.app.namespace}/${a.app.name} (cost: no ApplicationSet manages it until one adopts it again)`,
              },
            ),
          ),
          command(
            [
              'kubectl',
              ...inNamespace(first.namespace),
              'patch',
              'application',
              first.name,
              '--type',
              'json',
              '-p',
              '[{"op":"remove","path":"/metadata/finalizers"}]',
            ],
            {
              say: `or, where the resources must stay whatever happens to the Application, remove ${finalizers} from it (cost: deleting the Application then leaves its resources running), e.g.`,
            },
          ),
          'next time, delete an ApplicationSet with kubectl delete --cascade=orphan, or set its spec.syncPolicy.preserveResourcesOnDeletion: true',
        ],
      });
    }
    if (rep.dangling.length) {
      findings.push({
        code: 'ARCH-OR06',
        severity: 'info',
        title: `${rep.dangling.length} object${rep.dangling.length === 1 ? '' : 's'} with ownerReferences to owners that no longer exist`,
        message:
          rep.dangling
            .slice(0, 5)
            .map((d) => `${refText(d)} → ${d.ownerKind} ${d.ownerName}`)
            .join('; ') + (rep.dangling.length > 5 ? `; and ${rep.dangling.length - 5} more` : ''),
        objects: rep.dangling.slice(0, 50).map(({ kind, apiVersion, namespace, name }) => ({ kind, apiVersion, namespace, name })),
        evidence: { dangling: rep.dangling },
        why: 'The garbage collector deletes dependents of a deleted owner; dependents that remain mean it is stuck, disabled, or the owner was deleted with --cascade=orphan.',
        fix: [
          'check kube-controller-manager logs for garbage collector errors',
          'an object that should outlive its owner: remove the stale ownerReference from it; one that should not: the collector deletes it once it runs',
        ],
      });
    }
    const judged = [
      rep.argo.visible ? `${rep.argo.apps} Argo CD apps` : '',
      rep.flux.visible ? `${rep.flux.kustomizations + rep.flux.helmReleases} Flux owners` : '',
    ]
      .filter(Boolean)
      .join(', ');
    const notJudged = [
      !rep.argo.visible && rep.argo.state === 'not-visible' ? 'Argo CD' : '',
      !rep.flux.visible && rep.flux.state === 'not-visible' ? 'Flux' : '',
    ].filter(Boolean);
    return {
      findings,
      notes,
      passed: `no leftovers of deleted owners among ${rep.scanned} objects (owners judged: ${judged})${notJudged.length ? `; ${notJudged.join(' and ')} could not be judged (see notes)` : ''}${rep.kept.length ? `; ${rep.kept.length} kept on purpose` : ''}`,
    };
  },
});
