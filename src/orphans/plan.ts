// --cleanup-plan: the kubectl delete commands a human can review and run, in a safe order.
// Printed, never run. Workloads first (stop the pods), then what routes traffic to them, then
// config, then namespaced storage, then cluster-scoped objects, PVs last with their data called out.
import { termSafeDeep } from '../render/safe.js';
import type { OrphanGroup } from './scan.js';

const ORDER: Record<string, number> = {
  Deployment: 0, StatefulSet: 0, DaemonSet: 0, ReplicaSet: 0, Job: 0, CronJob: 0, Pod: 0, Rollout: 0,
  HorizontalPodAutoscaler: 1, PodDisruptionBudget: 1,
  Ingress: 2, HTTPRoute: 2, GRPCRoute: 2, Gateway: 2, IngressRoute: 2,
  Service: 3,
  ConfigMap: 4, ServiceAccount: 4, Role: 4, RoleBinding: 4, NetworkPolicy: 4,
  PersistentVolumeClaim: 6,
};

const rank = (kind: string, namespaced: boolean): number => {
  if (kind === 'PersistentVolume') return 9;
  if (kind === 'Namespace') return 8;
  if (!namespaced) return 7;
  return ORDER[kind] ?? 5;
};

const resourceArg = (kind: string, apiVersion: string | undefined): string => {
  const g = apiVersion && apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  return g ? `${kind.toLowerCase()}.${g}` : kind.toLowerCase();
};

export function cleanupPlan(found: OrphanGroup[]): string {
  // a shell script for a human: a newline or escape in an owner name must not become a command
  const groups = termSafeDeep(found, false);
  const lines = ['# kubectl-arch cleanup plan — review before running; kubectl-arch never runs it.', '# Order: workloads, then routes and Services, then config, then storage, then cluster-scoped objects.'];
  for (const g of groups) {
    lines.push('', `# ${g.owner.tool} ${g.owner.kind} ${g.owner.namespace ? g.owner.namespace + '/' : ''}${g.owner.name} (gone) — confidence ${g.confidence} (${g.signals.join(', ')}) — ${g.liveness.summary}`);
    if (g.confidence === 'low') lines.push('# LOW CONFIDENCE: matched on the instance label only (Helm sets the same label). Check each object before deleting.');
    const objs = [...g.objects].sort((a, b) => rank(a.kind, Boolean(a.namespace)) - rank(b.kind, Boolean(b.namespace)) || a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
    for (const o of objs) {
      if (o.kind === 'PersistentVolume' || o.kind === 'PersistentVolumeClaim') lines.push(`# ${o.kind} ${o.name} holds data: back it up first; a PV with reclaimPolicy Retain keeps the disk after deletion`);
      lines.push(`kubectl delete ${resourceArg(o.kind, o.apiVersion)} ${o.name}${o.namespace ? ` -n ${o.namespace}` : ''} --wait=false`);
    }
  }
  if (groups.length === 0) lines.push('', '# nothing to clean up');
  return lines.join('\n') + '\n';
}
