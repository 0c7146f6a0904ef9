// doctor's summary of the orphan scan; `kubectl arch orphans` shows it in depth.
import { scanOrphans, type OrphanGroup } from '../orphans/scan.js';
import type { Finding } from '../model.js';
import { CONFIGMAPS, R } from '../resources.js';
import type { Check } from './types.js';

const ID = 'gitops-orphans';

const ownerText = (g: OrphanGroup): string => `${g.owner.kind} ${g.owner.namespace ? g.owner.namespace + '/' : ''}${g.owner.name}`;

export function groupFinding(g: OrphanGroup): Finding {
  const where = [...new Set(g.objects.filter((o) => o.namespace).map((o) => o.namespace))];
  const counts = `${g.namespaced} object${g.namespaced === 1 ? '' : 's'}${where.length ? ` in namespace${where.length === 1 ? '' : 's'} ${where.join(', ')}` : ''}${g.clusterScoped ? `, ${g.clusterScoped} cluster-scoped` : ''}`;
  const code = g.liveness.servingTraffic ? 'ARCH-OR01' : g.liveness.runningPods > 0 ? 'ARCH-OR02' : 'ARCH-OR03';
  const severity = g.liveness.servingTraffic ? 'error' : g.confidence === 'low' ? 'info' : 'warning';
  return {
    code, checkId: ID, severity,
    title: `${g.owner.tool} ${ownerText(g)} (gone): ${counts}${g.liveness.servingTraffic ? ' — still serving traffic' : g.liveness.runningPods ? ' — still running' : ''}`,
    message: `${g.liveness.summary}. Confidence ${g.confidence} (matched by ${g.signals.join(', ')}).${g.confidence === 'low' ? ' The instance label alone is weak evidence: Helm charts set the same label.' : ''}`,
    objects: g.objects.map(({ kind, apiVersion, namespace, name }) => ({ kind, apiVersion, namespace, name })),
    evidence: { owner: g.owner, confidence: g.confidence, signals: g.signals, liveness: g.liveness, oldest: g.oldest, namespaced: g.namespaced, clusterScoped: g.clusterScoped },
    why: 'Deleting the declaration is not deleting the thing: without a cascading finalizer or ownerReferences, nothing garbage-collects what the owner created. Deleting the namespace still leaves cluster-scoped objects (PVs, ClusterRoles).',
    fix: ['kubectl arch orphans --cleanup-plan   # prints the kubectl delete commands in a safe order, for review', 'or re-create the owner to adopt the objects again'],
  };
}

export const gitopsOrphans: Check = {
  id: ID,
  title: 'Orphans of deleted GitOps owners',
  severity: 'error',
  allTypes: true,
  codes: {
    'ARCH-OR01': 'objects left by a deleted Argo CD/Flux owner are still serving traffic',
    'ARCH-OR02': 'objects left by a deleted owner still run pods',
    'ARCH-OR03': 'objects left by a deleted owner (idle: config, RBAC, volumes)',
    'ARCH-OR04': 'a live Argo CD Application has no cascading finalizer: deleting it would orphan its resources',
    'ARCH-OR05': 'an app-of-apps parent has no cascading finalizer: its child Applications would be left behind',
    'ARCH-OR06': 'ownerReferences point at owners that no longer exist (garbage collection stuck or disabled)',
  },
  needs: [{ ...R.podsLean, optional: true }, { ...R.services, optional: true }, { ...CONFIGMAPS, optional: true }, { ...R.endpoints, optional: true }, { ...R.endpointslices, optional: true }, { ...R.ingresses, optional: true },
    { ...R.httproutes, optional: true }, { ...R.persistentvolumes, optional: true }, { ...R.persistentvolumeclaims, optional: true },
    { ...R.argoApplications, optional: true }, { ...R.fluxKustomizations, optional: true }, { ...R.fluxHelmReleases, optional: true }],
  docs: {
    what: 'Every listable object (metadata only, through discovery) that carries a GitOps owner\'s tracking — Argo CD\'s argocd.argoproj.io/tracking-id annotation or instance label (key and tracking method from argocd-cm, installationID honoured, copied annotations ignored), Flux\'s kustomize/helm toolkit labels — whose owner no longer exists, grouped by that owner, with liveness (running pods, Services with ready endpoints, Ingress/HTTPRoute pointing at them, bound volumes). Also: live Applications without a cascading finalizer, app-of-apps parents, dangling ownerReferences. Objects kept on purpose (Delete=false, helm.sh/resource-policy: keep, CRDs, Flux prune: disabled) are listed as kept.',
    why: 'Deleting an Argo CD Application that lacks resources-finalizer.argocd.argoproj.io leaves its workloads running and serving traffic; Argo CD\'s own orphaned-resources monitor only watches namespaces a live Application targets, so it cannot see this. Deleting the namespace still leaves cluster-scoped objects.',
    fix: '`kubectl arch orphans --cleanup-plan` prints the kubectl delete commands in a safe order for review. To prevent it, add resources-finalizer.argocd.argoproj.io to Applications (or delete with argocd app delete --cascade).',
    limits: 'Attribution is by tracking metadata: the annotation is strong evidence, the instance label alone is weak (Helm sets it too) and is rated low confidence. When Applications (or Flux objects) cannot be listed, their tracked objects are not judged. Secrets are never read. Flux objects of a Kustomization deleted with prune: false or deletionPolicy: Orphan were left on purpose, which the deleted object no longer shows.',
  },
  run(ctx) {
    const rep = scanOrphans(ctx.snap);
    const notes = [...rep.notes];
    for (const [n, why] of [[R.pods, 'liveness (running pods) unknown'], [R.services, 'liveness (ready endpoints) unknown'], [R.configmaps, 'argocd-cm unread: default tracking settings assumed']] as const) {
      const v = ctx.snap.visibility(n);
      if (v) notes.push(`${n.kind}: ${v.reason} — ${why}`);
    }
    if (!rep.argo.visible && !rep.flux.visible && rep.groups.length === 0) {
      return { findings: [], skipped: `no GitOps owner is visible: Argo CD (${rep.argo.reason ?? '?'}), Flux (${rep.flux.reason ?? '?'})`, notes };
    }
    const findings: Finding[] = rep.groups.map(groupFinding);
    for (const r of rep.risks) {
      findings.push({
        code: r.kind === 'app-of-apps-parent' ? 'ARCH-OR05' : 'ARCH-OR04', checkId: ID, severity: r.kind === 'app-of-apps-parent' ? 'warning' : 'info',
        title: `Argo CD Application ${r.app.name} has no cascading finalizer${r.children?.length ? ` and parents ${r.children.length} Application${r.children.length === 1 ? '' : 's'}` : ''}`,
        message: `Deleting it would leave its ${r.trackedObjects} tracked object${r.trackedObjects === 1 ? '' : 's'} running${r.children?.length ? `, including child Applications ${r.children.join(', ')} (and everything they deploy)` : ''}.`,
        objects: [r.app], evidence: { ...r },
        why: 'Without resources-finalizer.argocd.argoproj.io, deleting the Application deletes only the Application.',
        fix: [`kubectl -n ${r.app.namespace} patch application ${r.app.name} --type merge -p '{"metadata":{"finalizers":["resources-finalizer.argocd.argoproj.io"]}}'   # if cascading delete is what you want`,
          'or set it in the Application manifest in Git'],
      });
    }
    if (rep.dangling.length) {
      findings.push({
        code: 'ARCH-OR06', checkId: ID, severity: 'info',
        title: `${rep.dangling.length} object${rep.dangling.length === 1 ? '' : 's'} with ownerReferences to owners that no longer exist`,
        message: rep.dangling.slice(0, 5).map((d) => `${d.kind} ${d.namespace ? d.namespace + '/' : ''}${d.name} → ${d.ownerKind} ${d.ownerName}`).join('; ') + (rep.dangling.length > 5 ? `; and ${rep.dangling.length - 5} more` : ''),
        objects: rep.dangling.slice(0, 50).map(({ kind, apiVersion, namespace, name }) => ({ kind, apiVersion, namespace, name })),
        evidence: { dangling: rep.dangling },
        why: 'The garbage collector deletes dependents of a deleted owner; dependents that remain mean it is stuck, disabled, or the owner was deleted with --cascade=orphan.',
        fix: ['check kube-controller-manager logs for garbage collector errors', 'delete the dependents yourself if they are not needed'],
      });
    }
    return { findings, notes, passed: `no orphans among ${rep.scanned} objects (${rep.argo.apps} Argo CD apps, ${rep.flux.kustomizations + rep.flux.helmReleases} Flux owners)${rep.kept.length ? `; ${rep.kept.length} kept on purpose` : ''}` };
  },
};
