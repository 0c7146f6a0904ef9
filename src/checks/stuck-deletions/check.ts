// Loops whose controller is gone: an object is deleted only when every finalizer on it is removed, by the
// controller that put it there. When that controller was uninstalled first (an operator, Argo CD deleting
// itself), nothing can finish the deletion — the dual of orphans. Namespaces stuck Terminating say why in their
// conditions (pkg/controller/namespace/deletion: NamespaceDeletionDiscoveryFailure, NamespaceDeletionContentFailure,
// NamespaceContentRemaining, NamespaceFinalizersRemaining; status True is the problem).
import { human } from '../../lib/time.js';
import { condition, refOf } from '../../lib/k8s.js';
import { refText } from '../../model.js';
import { R } from '../../resources.js';
import { defineCheck, finding, type CheckContext, type Draft } from '../types.js';
import { command, type Step } from '../../lib/shell.js';

const CODES = {
  'ARCH-DEL01': "an object is stuck deleting: its finalizer's controller does not run here",
  'ARCH-DEL02': 'a namespace is stuck Terminating (the reason from its conditions)',
} as const;
type Code = keyof typeof CODES;

const LONG_MS = 24 * 3600_000;

/** Finalizers that Kubernetes itself handles (kube-controller-manager, the kubelet, the API server). */
const BUILT_IN =
  /^(kubernetes|foregroundDeletion|orphan|kubernetes\.io\/.*|batch\.kubernetes\.io\/.*|service\.kubernetes\.io\/.*|external-attacher\/.*|snapshot\.storage\.kubernetes\.io\/.*|networking\.k8s\.io\/.*|resource\.kubernetes\.io\/.*)$/;
/** Words too common to say which controller a finalizer belongs to. */
const GENERIC = new Set([
  'io',
  'com',
  'org',
  'net',
  'dev',
  'cloud',
  'k8s',
  'kubernetes',
  'x',
  'finalizer',
  'finalizers',
  'resources',
  'resource',
  'cleanup',
  'protection',
  'controller',
  'operator',
  'gateway',
  'app',
  'apps',
  'api',
  'apis',
  'kube',
  'system',
  'sigs',
  'www',
  'delete',
  'deletion',
  'foreground',
  'background',
  'v1',
  'v1alpha1',
  'v1beta1',
]);

/** The words of a finalizer that name its controller: `resources-finalizer.argocd.argoproj.io` → argocd, argoproj. */
export const finalizerTokens = (f: string): string[] => [
  ...new Set(
    f
      .toLowerCase()
      .split(/[./_-]+/)
      .filter((t) => t.length >= 3 && !GENERIC.has(t)),
  ),
];

/** Is a controller for this finalizer running? true/false, or null when pods are not visible. */
function controllerRunning(ctx: CheckContext, tokens: string[]): boolean | null {
  if (ctx.snap.visibility(R.pods)) return null;
  if (!tokens.length) return null;
  return ctx.snap
    .of(R.pods)
    .some(
      (p) =>
        p.status?.phase === 'Running' &&
        !p.metadata.deletionTimestamp &&
        tokens.some((t) =>
          [p.metadata.name, p.metadata.namespace ?? '', ...Object.values(p.metadata.labels ?? {})].some((v) => v.toLowerCase().includes(t)),
        ),
    );
}

function stuckObjects(ctx: CheckContext): Array<Draft<Code>> {
  const out: Array<Draft<Code>> = [];
  for (const o of ctx.snap.deleting()) {
    if (o.kind === 'Namespace' || !o.metadata.deletionTimestamp || !o.metadata.finalizers?.length) continue;
    const age = ctx.now.getTime() - Date.parse(o.metadata.deletionTimestamp);
    if (!(age > ctx.settings.stuckAfterMs)) continue;
    const foreign = o.metadata.finalizers.filter((f) => !BUILT_IN.test(f));
    const gone = foreign.filter((f) => controllerRunning(ctx, finalizerTokens(f)) === false);
    if (!gone.length) continue;
    out.push(
      finding(
        'ARCH-DEL01',
        age > LONG_MS ? 'error' : 'warning',
        `${refText(refOf(o))} has been deleting for ${human(Math.round(age / 1000))}: nothing runs to remove ${gone.join(', ')}`,
        `deletionTimestamp ${o.metadata.deletionTimestamp}; finalizers ${o.metadata.finalizers.join(', ')}. No running pod looks like the controller of ${gone.join(', ')} (by name, namespace and labels), so the deletion cannot finish${o.metadata.namespace ? ` — and namespace ${o.metadata.namespace} cannot be deleted while it remains` : ''}.`,
        {
          objects: [refOf(o)],
          evidence: {
            deletionTimestamp: o.metadata.deletionTimestamp,
            finalizers: o.metadata.finalizers,
            orphanedFinalizers: gone,
            ageSeconds: Math.round(age / 1000),
          },
          why: 'Every reconcile loop owns its finalizers; when the controller is removed before the objects it guards, their deletion waits forever.',
          fix: [
            `best: reinstall or restart the controller that owns ${gone[0]} — it finishes the deletion, including whatever it cleans up outside the cluster`,
            command(
              [
                'kubectl',
                ...(o.metadata.namespace ? ['-n', o.metadata.namespace] : []),
                'patch',
                (o.kind ?? '').toLowerCase(),
                o.metadata.name,
                '--type',
                'json',
                '-p',
                JSON.stringify([{ op: 'remove', path: `/metadata/finalizers/${o.metadata.finalizers.indexOf(gone[0]!)}` }]),
              ],
              {
                say: "only if that cleanup is not needed (cost: what the finalizer would have removed — cloud resources, DNS records, an app's resources — is left behind)",
              },
            ),
          ],
        },
      ),
    );
  }
  return out;
}

const NS_CONDITIONS = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceFinalizersRemaining',
  'NamespaceContentRemaining',
];

function stuckNamespaces(ctx: CheckContext): Array<Draft<Code>> {
  const out: Array<Draft<Code>> = [];
  for (const n of ctx.snap.of(R.namespaces)) {
    if (!n.metadata.deletionTimestamp) continue;
    const age = ctx.now.getTime() - Date.parse(n.metadata.deletionTimestamp);
    if (!(age > ctx.settings.stuckAfterMs)) continue;
    const problems = NS_CONDITIONS.map((t) => ({ type: t, c: condition(n, t) })).filter((x) => x.c?.status === 'True');
    const top = problems[0];
    const inside = ctx.snap
      .deleting()
      .filter((o) => o.metadata.namespace === n.metadata.name && o.metadata.deletionTimestamp && o.metadata.finalizers?.length)
      .slice(0, 5);
    const fixes: Step[] = [];
    if (top?.type === 'NamespaceDeletionDiscoveryFailure')
      fixes.push(
        'fix or remove the unavailable APIService named in the message (kubectl get apiservices | grep False): discovery must be complete before a namespace can be emptied',
      );
    if (problems.some((p) => p.type === 'NamespaceFinalizersRemaining'))
      fixes.push(
        'bring back the controllers whose finalizers remain (see the objects below), or — only if their cleanup is not needed — remove those finalizers from the objects, never from the namespace',
      );
    if (top?.type === 'NamespaceDeletionContentFailure')
      fixes.push(
        'read the resource types named in the message: their API failed to delete (often an aggregated API or a CRD whose conversion webhook is down)',
      );
    fixes.push(command(['kubectl', 'get', 'namespace', n.metadata.name, '-o', 'jsonpath={.status.conditions}']));
    out.push(
      finding(
        'ARCH-DEL02',
        'error',
        `namespace ${n.metadata.name} has been Terminating for ${human(Math.round(age / 1000))}${top ? `: ${top.c?.reason ?? top.type}` : ''}`,
        `${problems.length ? problems.map((p) => `${p.type}: ${p.c?.reason ?? ''}${p.c?.message ? ` — ${p.c.message}` : ''}`).join('; ') : 'no condition says why yet'}.${inside.length ? ` Objects inside still deleting: ${inside.map((o) => `${refText(refOf(o))} (finalizers ${o.metadata.finalizers!.join(', ')})`).join('; ')}.` : ''}`,
        {
          objects: [{ kind: 'Namespace', apiVersion: 'v1', name: n.metadata.name }, ...inside.map(refOf)],
          evidence: { deletionTimestamp: n.metadata.deletionTimestamp, conditions: problems.map((p) => p.c), remaining: inside.map(refOf) },
          why: 'The namespace controller empties a namespace before removing it; a discovery failure, a failing API or a finalizer nobody removes keeps it Terminating forever, and nothing can be created in it meanwhile.',
          fix: fixes,
        },
      ),
    );
  }
  return out;
}

export const stuckDeletions = defineCheck({
  id: 'stuck-deletions',
  title: 'Deletions no controller can finish (loops whose controller is gone)',
  severity: 'error',
  allTypes: true,
  map: [{ contract: 'loops', part: 'finalizers' }],
  codes: CODES,
  proofs: { 'ARCH-DEL01': ['Pod'], 'ARCH-DEL02': ['Namespace'] },
  needs: [
    // every object in the snapshot is judged (deletionTimestamp + finalizers), so no input is the only subject
    {
      ...R.namespaces,
      fields: ['status.conditions'],
      role: 'evidence',
      lost: 'namespaces stuck Terminating are not seen; other objects deleting still are',
    },
    {
      ...R.podsLean,
      fields: ['status.phase'],
      role: 'evidence',
      lost: "whether a finalizer's controller runs cannot be told, so stuck objects are not judged",
    },
  ],
  docs: {
    summary:
      "objects deleting for over 10 minutes (--stuck-after) whose finalizer's controller does not run here (e.g. Argo CD's resources-finalizer with no Argo CD), and namespaces stuck Terminating, with the reason from their conditions",
    what: "Every object (metadata through discovery) with a deletionTimestamp older than 10 minutes (doctor --stuck-after) and a finalizer that is not Kubernetes' own, whose controller no running pod resembles (by the finalizer's name: resources-finalizer.argocd.argoproj.io → a pod named or labelled argocd). Namespaces Terminating for over 10 minutes, with the conditions the namespace controller writes (discovery failure, content or finalizers remaining) and the objects inside still deleting.",
    why: 'Everything but etcd and the API server is a reconcile loop, and finalizers are how a loop guards its own cleanup. Uninstall the loop first — an operator, or Argo CD deleting its own namespace — and its objects can never finish deleting; their namespace stays Terminating and nothing can be created in it.',
    fix: "Reinstall or restart the controller that owns the finalizer: it finishes the deletion, including cleanup outside the cluster. Only when that cleanup is not needed, remove the finalizer from the one object (the cost: what it guarded is left behind). For a namespace, follow its condition: fix the unavailable APIService (discovery failure) or the objects with finalizers; never remove the namespace's own finalizer.",
    limits:
      "Which controller owns a finalizer is inferred from its name against running pods' names, namespaces and labels: a controller running elsewhere (another cluster) or under an unrelated name is not recognised, and a pod that merely shares a word is taken as the controller. Kubernetes' own finalizers (pvc-protection, foregroundDeletion, …) are not judged.",
  },
  run(ctx) {
    const findings = [...stuckNamespaces(ctx), ...stuckObjects(ctx)];
    const deleting = ctx.snap.deleting().length;
    return {
      findings,
      passed: deleting
        ? `${deleting} object${deleting === 1 ? ' is' : 's are'} deleting, none stuck without a controller`
        : 'nothing is stuck deleting',
    };
  },
});
