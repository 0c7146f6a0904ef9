// Fix advice for a retry loop, by the policy in the README ("Fix advice: scoped and safe"):
// 1. first, the change that cannot hurt: make the declaration match what can exist;
// 2. a destructive step only for the one object at fault, its cost named before the command;
// 3. nothing the error shows is already in use (a rejection "when replacing" means Replace is on);
// 4. never an app-wide --force/--replace or spec.force on a whole Kustomization;
// 5. when the owner is Argo CD managing itself, say that recreating its objects replaces the controller.
import { refText, type KObject, type ObjectRef } from '../../model.js';
import type { Loop } from './loops.js';
import { command, inNamespace, type Step } from '../../lib/shell.js';

export interface AdviceContext {
  /** The PersistentVolume bound to a claim, for its reclaim policy. */
  volumeOf: (pvc: ObjectRef) => KObject | undefined;
  /** Namespace Argo CD runs in (where its Applications live), when known. */
  argoNamespace?: string;
}

const resource = (o: ObjectRef): string => {
  const g = o.apiVersion?.includes('/') ? o.apiVersion.split('/')[0] : DEFAULT_GROUP[o.kind];
  return g ? `${o.kind.toLowerCase()}.${g}` : o.kind.toLowerCase();
};
const DEFAULT_GROUP: Record<string, string> = {
  Deployment: 'apps',
  StatefulSet: 'apps',
  DaemonSet: 'apps',
  ReplicaSet: 'apps',
  Job: 'batch',
  CronJob: 'batch',
};
const argoResource = (o: ObjectRef): string => {
  const g = o.apiVersion?.includes('/') ? o.apiVersion.split('/')[0] : (DEFAULT_GROUP[o.kind] ?? '');
  return `${g}:${o.kind}:${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
};
const text = refText;

/** What recreating the object costs, said before any command that does it. */
export function recreateCost(o: ObjectRef, ctx: AdviceContext): string | null {
  switch (o.kind) {
    case 'Job':
      return 'the Job runs again';
    case 'Service':
      return "the Service gets a new clusterIP unless the manifest sets one, and traffic to it fails until it is recreated; clients that cached the old IP (e.g. pods' resolv.conf for kube-dns) keep failing";
    case 'Deployment':
    case 'ReplicaSet':
      return 'its pods are deleted and recreated: downtime until the new ones are Ready';
    case 'DaemonSet':
      return 'its pod on every node is deleted and recreated';
    case 'StatefulSet':
      return null; // handled with --cascade=orphan, which keeps the pods
    case 'PersistentVolumeClaim': {
      const pv = ctx.volumeOf(o);
      const policy = pv?.spec?.persistentVolumeReclaimPolicy;
      return `deleting a bound claim ${policy === 'Delete' ? `DELETES ITS DATA (PersistentVolume ${pv!.metadata.name} has reclaimPolicy Delete)` : policy ? `releases PersistentVolume ${pv!.metadata.name} (reclaimPolicy ${policy}): it does not bind again by itself` : 'may delete its data (reclaimPolicy of its volume not visible)'}`;
    }
    default:
      return 'everything that depends on it is interrupted until it is recreated';
  }
}

/** The non-destructive fix: what the declaration must say instead. */
function matchFix(loop: Loop, where: string): string[] {
  const r = loop.rejection;
  const o = loop.object;
  const out: string[] = [];
  if (/primary clusterIP can not be unset/i.test(r.detail)) {
    out.push(
      `${text(o)} is being replaced (PUT) without its clusterIP: set spec.clusterIP${r.liveValue ? `: ${r.liveValue}` : ' to the live value'} in ${where}, or stop replacing this Service (remove Replace from its sync options / the tool's force-replace setting)`,
    );
    return out;
  }
  if (o.kind === 'PersistentVolumeClaim' && r.changes?.length) {
    const set = r.changes.filter((c) => c.old !== undefined && c.old !== '(unset)').map((c) => `${c.field}: ${c.old}`);
    out.push(
      `make the claim in ${where} say what the cluster set when it was bound${set.length ? ` (${set.join(', ')})` : ''}, or have the tool ignore those fields (Argo CD ignoreDifferences); only resources.requests may change on a bound claim`,
    );
    return out;
  }
  if (o.kind === 'Job' && /template/.test(r.field ?? '')) {
    out.push(
      `a Job's pod template can never change: in ${where}, make the Job a hook that is recreated rather than patched (Argo CD: argocd.argoproj.io/hook: Sync with argocd.argoproj.io/hook-delete-policy: BeforeHookCreation; Helm: helm.sh/hook with helm.sh/hook-delete-policy: before-hook-creation), or give it a name that changes with its content; a template that changes on every render (a timestamp) must be fixed in the chart`,
    );
    return out;
  }
  if (o.kind === 'StatefulSet') {
    out.push(
      `revert the StatefulSet in ${where}: only replicas, ordinals, template, updateStrategy, revisionHistoryLimit, persistentVolumeClaimRetentionPolicy and minReadySeconds may change (usually volumeClaimTemplates, serviceName, selector or podManagementPolicy were edited)`,
    );
    return out;
  }
  const live = r.liveValue !== undefined ? ` to the live value ${r.liveValue}` : '';
  out.push(
    `revert ${r.field ?? 'the field'} of ${text(o)} in ${where}${live}${r.value !== undefined ? ` (it now asks for ${r.value})` : ''}`,
  );
  return out;
}

/** Owner-specific, object-scoped ways to recreate the one object, each with its cost first. */
function recreateFix(loop: Loop, ctx: AdviceContext): Step[] {
  const r = loop.rejection;
  const o = loop.object;
  const out: Step[] = [];
  // Replace is already in use, or the rejection is about unsetting: recreating would not be the fix
  const replacing = /when replacing|failed to replace|primary clusterIP can not be unset/i.test(
    loop.sources.map((s) => s.message).join('\n') + r.detail,
  );
  if (replacing || o.kind === 'PersistentVolumeClaim') {
    if (o.kind === 'PersistentVolumeClaim') out.push(`do not force or replace the claim: ${recreateCost(o, ctx)}`);
    return out;
  }
  const cost = recreateCost(o, ctx);
  const owner = loop.owner.ref;
  if (o.kind === 'StatefulSet') {
    out.push(
      command(['kubectl', ...inNamespace(o.namespace), 'delete', 'statefulset', o.name, '--cascade=orphan'], {
        say: 'only if the change is really wanted (cost: the StatefulSet is briefly absent; its pods and volumes stay)',
        note: `then let ${text(owner)} recreate it (it adopts the running pods)`,
      }),
    );
    return out;
  }
  if (loop.owner.tool === 'argocd') {
    out.push(
      `only if the new value is really wanted (cost: ${cost}): annotate that one object in Git with argocd.argoproj.io/sync-options: Force=true,Replace=true, or once:`,
      command(['argocd', 'app', 'sync', owner.name, '--resource', argoResource(o), '--force', '--replace']),
    );
  } else if (loop.owner.tool === 'flux' && owner.kind === 'Kustomization') {
    out.push(
      `only if the new value is really wanted (cost: ${cost}): annotate that one object in Git with kustomize.toolkit.fluxcd.io/force: enabled (not spec.force on the whole Kustomization, which recreates every object it applies with an immutable diff)`,
    );
  } else if (loop.owner.tool === 'flux') {
    out.push(
      command(['kubectl', ...inNamespace(o.namespace), 'delete', resource(o), o.name], {
        say: `only if the new value is really wanted (cost: ${cost})`,
      }),
      command(['flux', 'reconcile', 'helmrelease', owner.name, ...inNamespace(owner.namespace)], {
        say: 'then',
        note: 'spec.upgrade.force does not help: it replaces, and the API server rejects a replace the same way',
      }),
    );
  } else {
    out.push(
      command(['kubectl', ...inNamespace(o.namespace), 'delete', resource(o), o.name], {
        say: `only if the new value is really wanted (cost: ${cost})`,
        note: `and let ${owner.kind === 'controller' ? owner.name : text(owner)} recreate it`,
      }),
    );
  }
  return out;
}

function selfManaged(loop: Loop, ctx: AdviceContext): boolean {
  if (loop.owner.tool !== 'argocd') return false;
  const argoNs = ctx.argoNamespace ?? loop.owner.ref.namespace;
  return loop.object.namespace === argoNs || /^argocd-/.test(loop.object.name);
}

export function adviceFor(loop: Loop, ctx: AdviceContext): Step[] {
  const owner = loop.owner.ref;
  if (loop.state === 'one-off') {
    return ['nothing to do if it does not come back; if it does, the owner still sends the change: fix it at the source'];
  }
  const where =
    loop.owner.tool === 'argocd'
      ? `the Git source of Application ${owner.name}`
      : loop.owner.tool === 'flux'
        ? `the source of ${owner.kind} ${owner.namespace}/${owner.name}`
        : 'whatever declares it';
  const lines: Step[] = [...matchFix(loop, where)];
  if (selfManaged(loop, ctx)) {
    lines.push(
      `Application ${owner.name} manages Argo CD itself: recreating these objects replaces the controller doing the sync (it may not come back to finish it); change the manifest instead`,
    );
    return lines;
  }
  lines.push(...recreateFix(loop, ctx));
  return lines;
}
