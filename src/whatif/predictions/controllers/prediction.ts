// ARCH-WI05: a controller with no running pod left: what it reconciles stops changing. A leader that moves to a
// replica elsewhere is info.
import { R } from '../../../resources.js';
import { toleratesAll } from '../capacity/prediction.js';
import { definePrediction, input, refText, type Prediction } from '../../types.js';

const CONTROLLER =
  /(application-controller|applicationset-controller|source-controller|kustomize-controller|helm-controller|notification-controller|image-(reflector|automation)-controller|^cert-manager$|local-path-provisioner|-operator$|controller-manager$|^flux$|^kyverno$|^gatekeeper-controller-manager$|^external-secrets$|^velero$)/;

export default definePrediction({
  id: 'controllers',
  code: 'ARCH-WI05',
  title: 'a controller has no running pod left: what it reconciles stops changing',
  contract: 'loops',
  reads: [
    { ...R.deployments, fields: ['spec.replicas'] },
    { ...R.statefulsets, fields: ['spec.replicas'] },
  ],
  needs: [
    input(R.pods, 'subject', 'which controllers run there', {
      fields: [
        'metadata.annotations["kubernetes.io/config.mirror"]',
        'spec.nodeName',
        'spec.tolerations[].key',
        'spec.tolerations[].operator',
        'status.phase',
      ],
    }),
    input(R.leases, 'evidence', 'which workloads hold a leader-election lease (controllers not known by name)', {
      relevant: (c) => c.pods.some(c.on),
      fields: ['spec.holderIdentity'],
    }),
  ],
  docs: {
    what: 'A workload is a controller when its name is a well-known one (Argo CD, Flux, cert-manager, operators, controller managers…) or one of its pods holds a leader-election Lease. When every running pod of it is on the nodes going down, it stops reconciling: syncs, certificates, volumes and releases wait. A controller whose pod tolerates every taint is never evicted: it waits on the node instead of moving. A leader that moves to a replica elsewhere is info.',
    why: 'Everything but the state is a reconcile loop; a loop whose controller is gone stops quietly.',
    limits: 'A controller known neither by name nor by a lease is not recognised.',
  },
  predict(c) {
    const predictions: Prediction[] = [];
    const holders = c.shared('leaseHolders', () =>
      c.snap
        .of(R.leases)
        .filter((l) => l.metadata.namespace !== 'kube-node-lease' && l.spec?.holderIdentity)
        .map((l) => String(l.spec.holderIdentity)),
    );
    const holder = (name: string): boolean => holders.some((h) => h.startsWith(name));
    for (const w of c.workloadsThere) {
      const holds = w.pods.some((p) => holder(p.metadata.name));
      if (!CONTROLLER.test(w.ref.name) && !holds) continue;
      const run = w.pods.filter((p) => p.status?.phase === 'Running');
      if (!run.length) continue;
      if (run.every(c.on)) {
        const stuck = run.some(toleratesAll);
        predictions.push({
          contract: 'loops',
          code: 'ARCH-WI05',
          from: 'what-if',
          severity: 'error',
          title: `${refText(w.ref)} stops reconciling: ${run.length === 1 ? 'its only running pod is' : 'all its running pods are'} there`,
          message: `${run.map((p) => `${p.metadata.name} on ${p.spec?.nodeName}`).join(', ')}. Until it runs again, what it reconciles does not change (syncs, certificates, volumes, releases wait).${stuck ? ' Its pod tolerates every taint, so it is never evicted: it does not move while the node is down, it waits there.' : ''}`,
          objects: [w.ref],
          why: 'Everything but the state is a reconcile loop; a loop whose controller is gone stops quietly.',
          fix: [
            stuck
              ? `give ${w.ref.name} tolerations for the taints it needs only (not operator: Exists), so that it moves; or run 2 replicas with leader election`
              : `run ${w.ref.name} with 2 replicas and leader election, or keep it off these nodes for the window`,
          ],
        });
      } else if (run.some((p) => c.on(p) && holder(p.metadata.name)))
        predictions.push({
          contract: 'loops',
          code: 'ARCH-WI05',
          from: 'what-if',
          severity: 'info',
          title: `${refText(w.ref)}'s leader is there: another replica takes over`,
          message: 'Its leader-election lease expires and a replica on another node becomes leader (seconds).',
          objects: [w.ref],
        });
    }
    return { predictions };
  },
});
