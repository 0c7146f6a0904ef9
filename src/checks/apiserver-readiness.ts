// The door itself: the API server's own readiness checks (/readyz?verbose). When etcd is down the
// API server still answers /readyz in milliseconds — and says so — while every quorum read hangs.
// This check puts that answer at the top of the report; the fetch step has already switched to the
// watch cache so the rest of the report arrives.
import { defineCheck, finding, type Draft } from './types.js';

const ID = 'apiserver-readiness';

/** `[-]etcd failed: reason withheld` → { name: 'etcd', detail: 'failed: reason withheld' } */
export function failingReadyz(text: string): Array<{ name: string; detail: string }> {
  const out: Array<{ name: string; detail: string }> = [];
  for (const line of text.split('\n')) {
    const m = /^\[-\]([^\s]+)\s*(.*)$/.exec(line.trim());
    if (m) out.push({ name: m[1]!, detail: m[2]!.trim() });
  }
  return out;
}

const CODES = {
  'ARCH-RZ01': 'the API server reports etcd failing in /readyz: no write can succeed, reads come from its cache',
  'ARCH-RZ02': 'the API server reports another readiness check failing in /readyz',
} as const;

export const apiserverReadiness = defineCheck({
  id: ID,
  title: 'API server readiness (the door)',
  severity: 'critical',
  codes: CODES,
  needs: [],
  docs: {
    summary: "the API server's own readiness (`/readyz?verbose`), read first: etcd failing (critical) or another readiness check failing",
    what: "The API server's own readiness report, GET /readyz?verbose (readable by every authenticated user under default RBAC): one line per internal check, `[+]name ok` or `[-]name failed: reason`. Read first, before any list.",
    why: 'The API server is the only door to the cluster state, and that state lives only in etcd. When etcd is down the API server keeps answering from its watch cache, but writes fail and quorum reads hang: `kubectl get` may time out while `kubectl arch` still reports, because after a failed readiness check it lists with resourceVersion=0 (served from the cache, marked possibly stale).',
    fix: "For etcd: check the etcd members (kubectl arch quorum, or --etcd-endpoints to ask etcd directly), their disks and the network between them; on K3s/RKE2 the k3s/rke2-server service logs; on kubeadm the etcd static pod logs on each control-plane node. For other checks: the API server's own logs name the failing post-start hook or informer.",
    limits:
      '/readyz shows the view of the one API server that answered; behind a load balancer another may disagree. When /readyz is forbidden or not captured the check is skipped.',
  },
  run(ctx) {
    const h = ctx.snap.header;
    if (!h.readyz)
      return {
        findings: [],
        skipped: h.readyzError ? `/readyz?verbose could not be read: ${h.readyzError}` : '/readyz?verbose was not captured',
      };
    const failing = failingReadyz(h.readyz);
    const stale = h.fromCache
      ? " The rest of this report was listed from the API server's watch cache (resourceVersion=0): it may be stale."
      : '';
    // all etcd lines (etcd, etcd-readiness, ...) are one fact: one finding
    const etcd = failing.filter((f) => f.name === 'etcd' || f.name.startsWith('etcd-'));
    const others = failing.filter((f) => !etcd.includes(f));
    const findings: Array<Draft<keyof typeof CODES>> = [];
    if (etcd.length) {
      findings.push(
        finding(
          'ARCH-RZ01',
          'critical',
          'the API server cannot reach etcd: the cluster state is read-only or unreachable',
          `/readyz?verbose: ${etcd.map((f) => `[-]${f.name} ${f.detail}`).join('; ')}. Nothing can be written (no scheduling, scaling or status updates) until etcd answers.${stale}`,
          {
            evidence: { checks: etcd, fromCache: Boolean(h.fromCache) },
            why: 'State lives only in etcd; the API server is its only door. Without etcd, the door opens onto a cached, frozen picture.',
            fix: [
              'kubectl arch quorum   # members and verdict as the API shows them',
              'kubectl arch quorum --etcd-endpoints https://<member>:2379 --etcd-cacert … --etcd-cert … --etcd-key …   # ask etcd itself',
            ],
          },
        ),
      );
    }
    for (const f of others) {
      findings.push(
        finding(
          'ARCH-RZ02',
          'error',
          `the API server reports readiness check ${f.name} failing`,
          `/readyz?verbose: [-]${f.name} ${f.detail}.`,
          {
            evidence: { checks: [f], fromCache: Boolean(h.fromCache) },
            why: 'A failing readiness check means this API server should not be serving; load balancers will take it out of rotation.',
            fix: [`kubectl get --raw '/readyz/${f.name}?verbose'`, 'read the API server log for this check'],
          },
        ),
      );
    }
    return { findings, passed: `all ${h.readyz.split('\n').filter((l) => l.startsWith('[+]')).length} readiness checks pass` };
  },
});
