// --cleanup-plan: the kubectl delete commands a human can review and run. Printed, never run.
// Rules (README "Orphans: a cleanup plan that cannot hurt"):
// - object by object, in this order: traffic first (Ingress, routes, Service), then workloads, then
//   configuration, storage last with the data it holds named (the PV's reclaimPolicy), cluster-scoped objects,
//   and the namespace at the very end — only when every object in it belongs to the group;
// - kept-on-purpose objects are never in the plan (the scan keeps them out of groups);
// - a group still serving traffic, or matched on weak evidence only, is printed commented out, the reason first.
import { refText } from '../model.js';
import { termSafe } from '../lib/safe.js';
import { argvText } from '../lib/shell.js';
import type { OrphanGroup, StorageNote } from './scan.js';
import { byText } from '../lib/order.js';

const ORDER: Record<string, number> = {
  Ingress: 0,
  HTTPRoute: 0,
  GRPCRoute: 0,
  TCPRoute: 0,
  TLSRoute: 0,
  IngressRoute: 0,
  Gateway: 0,
  Service: 1,
  Deployment: 2,
  StatefulSet: 2,
  DaemonSet: 2,
  ReplicaSet: 2,
  Job: 2,
  CronJob: 2,
  Pod: 2,
  Rollout: 2,
  HelmRelease: 2,
  Application: 2,
  Kustomization: 2,
  HorizontalPodAutoscaler: 3,
  PodDisruptionBudget: 3,
  ConfigMap: 4,
  ServiceAccount: 4,
  Role: 4,
  RoleBinding: 4,
  NetworkPolicy: 4,
  PersistentVolumeClaim: 6,
};

const rank = (kind: string, namespaced: boolean): number => {
  if (kind === 'Namespace') return 10;
  if (kind === 'PersistentVolume') return 9;
  if (!namespaced) return 8;
  return ORDER[kind] ?? 5;
};

const resourceArg = (kind: string, apiVersion: string | undefined): string => {
  const g = apiVersion && apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  return g ? `${kind.toLowerCase()}.${g}` : kind.toLowerCase();
};

function dataWarning(s: StorageNote): string {
  const what = termSafe(refText(s));
  const on = s.volume ? ` on ${termSafe(s.volume)}` : '';
  if (s.reclaimPolicy === 'Delete')
    return `# DATA: deleting ${what} DELETES THE DATA (reclaimPolicy Delete${on}); back it up first, or set the PV's reclaimPolicy to Retain`;
  if (s.reclaimPolicy)
    return `# DATA: ${what} — reclaimPolicy ${termSafe(s.reclaimPolicy)}${on}: the disk stays after deletion and must be removed by hand`;
  return `# DATA: ${what} holds data; its volume's reclaimPolicy is not visible — check it (kubectl get pv) before deleting`;
}

/** A comment line of the plan: text from the cluster shown as text, on one line (lib/safe.ts). */
const comment = (text: string): string => `# ${termSafe(text)}`;

function groupLines(g: OrphanGroup): string[] {
  const L: string[] = [];
  const owner = `${g.owner.tool} ${refText(g.owner)}`;
  L.push(
    '',
    comment(
      `${owner} ${g.movedTo ? `(now deploys to ${g.movedTo}: left here)` : '(gone)'} — confidence ${g.confidence} (${g.signals.join(', ')}) — ${g.liveness.summary}`,
    ),
  );
  const holdReasons: string[] = [];
  if (g.liveness.servingTraffic)
    holdReasons.push(`it is still serving traffic (${g.liveness.routes.join(', ')}): deleting it is an outage for whoever still uses it`);
  if (g.confidence === 'low')
    holdReasons.push(`it was matched on weak evidence only (${g.caveats.join('; ') || 'the instance label'}): check each object first`);
  const hold = holdReasons.length > 0;
  if (hold) {
    L.push(
      '# NOT RECOMMENDED AS IS — every command below is commented out because',
      ...holdReasons.map((r) => comment(`  ${r}`)),
      '# Re-create the owner to adopt these objects again, or remove the leading "# " only after checking.',
    );
  }
  // every command is an argument list, quoted by the one function (lib/shell.ts): a name is one argument, whatever it holds
  const cmd = (argv: string[]): string => (hold ? `# ${argvText(argv)}` : argvText(argv));
  const objs = [...g.objects].sort(
    (a, b) => rank(a.kind, Boolean(a.namespace)) - rank(b.kind, Boolean(b.namespace)) || byText(a.kind, b.kind) || byText(a.name, b.name),
  );
  for (const o of objs) {
    if (o.kind === 'Namespace' && !o.namespace) continue; // decided below, with what else it holds
    const s = g.storage.find((x) => x.kind === o.kind && x.name === o.name && x.namespace === o.namespace);
    if (s) L.push(dataWarning(s));
    L.push(
      cmd(['kubectl', 'delete', resourceArg(o.kind, o.apiVersion), o.name, ...(o.namespace ? ['-n', o.namespace] : []), '--wait=false']),
    );
  }
  for (const ns of g.namespaces) {
    const tracked = g.objects.some((o) => o.kind === 'Namespace' && o.name === ns.name);
    if (ns.deletable && tracked) {
      L.push(comment(`namespace ${ns.name} holds nothing else the scan can see (Secrets are not read: any in it are deleted too)`));
      L.push(cmd(['kubectl', 'delete', 'namespace', ns.name, '--wait=false']));
    } else if (!ns.deletable) {
      L.push(comment(`namespace ${ns.name} is not deleted: it also holds ${ns.others.join(', ')}`));
    }
  }
  return L;
}

export function cleanupPlan(groups: OrphanGroup[]): string {
  // a shell script for a human: a name from the cluster is one quoted argument of its command, and shown as text in a
  // comment, so a newline or an escape in it can neither end a comment nor start a command
  const lines = [
    '# kubectl-arch cleanup plan — review before running; kubectl-arch never runs it.',
    "# For bash or zsh: names are quoted for them (a name holding control characters is written $'...').",
    '# Order: traffic (Ingress, routes, Services), workloads, configuration, storage (data warnings), cluster-scoped objects,',
    '# namespaces last and only when nothing else lives in them. Kept-on-purpose objects are never listed.',
  ];
  for (const g of groups) lines.push(...groupLines(g));
  if (groups.length === 0) lines.push('', '# nothing to clean up');
  return lines.join('\n') + '\n';
}
