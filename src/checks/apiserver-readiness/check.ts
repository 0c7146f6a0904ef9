// The door itself: the API server's own readiness checks (/readyz?verbose). When etcd is down the
// API server still answers /readyz in milliseconds — and says so — while every quorum read hangs.
// This check puts that answer at the top of the report; the fetch step has already switched to the
// watch cache so the rest of the report arrives.
import { detectDistribution, type Distribution } from '../../fingerprint.js';
import { R } from '../../resources.js';
import { defineCheck, finding, type CheckContext, type Draft } from '../types.js';
import { command } from '../../lib/shell.js';

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

/** How long after its start a failing post-start hook is start-up, not a fault. */
const STARTING_MS = 2 * 60_000;

/** How long before the capture the API server (its kubeadm/RKE2 static pod) started, when that is visible. */
function startedAgo(ctx: CheckContext): number | undefined {
  const pod = ctx.snap.of(R.pods).find((p) => p.metadata.namespace === 'kube-system' && p.metadata.labels?.component === 'kube-apiserver');
  const cs = Array.isArray(pod?.status?.containerStatuses) ? pod.status.containerStatuses : [];
  const at = Date.parse(cs[0]?.state?.running?.startedAt ?? pod?.status?.startTime ?? '');
  return Number.isNaN(at) ? undefined : Math.max(0, ctx.now.getTime() - at);
}

/** Where the API server's and etcd's own logs are, for the distribution in front of the user. */
function logsFor(d: Distribution): { logs: string; etcd: string } {
  switch (d) {
    case 'K3s':
      return {
        logs: 'journalctl -u k3s on the server (the API server runs inside k3s)',
        etcd: 'on each server: journalctl -u k3s | grep -i etcd (embedded etcd: disk, clock, port 2380)',
      };
    case 'RKE2':
      return {
        logs: 'on the server: journalctl -u rke2-server; /var/log/pods/kube-system_kube-apiserver-*',
        etcd: 'on each server: journalctl -u rke2-server; crictl logs of the etcd container (/var/lib/rancher/rke2/agent/etc/crictl.yaml)',
      };
    case 'k0s':
      return {
        logs: 'on the controller: journalctl -u k0scontroller',
        etcd: 'on each controller: journalctl -u k0scontroller | grep -i etcd',
      };
    case 'kubeadm':
      return {
        logs: 'on the control-plane node: crictl logs of the kube-apiserver container',
        etcd: 'on each control-plane node: crictl logs of the etcd container; its disk (fsync latency) and port 2380',
      };
    default:
      return {
        logs: "read the API server's log for this check",
        etcd: "check each etcd member's logs, its disk and the network between members",
      };
  }
}

const CODES = {
  'ARCH-RZ01': 'the API server reports etcd failing in /readyz: no write can succeed, reads come from its cache',
  'ARCH-RZ02': 'the API server reports another readiness check failing in /readyz',
} as const;

export const apiserverReadiness = defineCheck({
  id: ID,
  title: 'API server readiness (the door)',
  severity: 'critical',
  map: [
    { contract: 'state', part: 'etcd' },
    { contract: 'door', part: 'API servers' },
  ],
  codes: CODES,
  needs: [
    {
      ...R.podsLean,
      fields: ['status.containerStatuses[].state.running.startedAt', 'status.startTime'],
      role: 'context',
      lost: "the API server's start time is not visible: a post-start hook still finishing right after a restart reads as stuck",
    },
  ],
  docs: {
    summary: "the API server's own readiness (`/readyz?verbose`), read first: etcd failing (critical) or another readiness check failing",
    what: "The API server's own readiness report, GET /readyz?verbose (readable by every authenticated user under default RBAC): one line per internal check, `[+]name ok` or `[-]name failed: reason`. Read first, before any list.",
    why: 'The API server is the only door to the cluster state, and that state lives only in etcd. When etcd is down the API server keeps answering from its watch cache, but writes fail and quorum reads hang: `kubectl get` may time out while `kubectl arch` still reports, because after a failed readiness check it lists with resourceVersion=0 (served from the cache, marked possibly stale).',
    fix: "For etcd: check the etcd members (kubectl arch quorum, or --etcd-endpoints to ask etcd directly), their disks and the network between them; on K3s/RKE2 the k3s/rke2-server service logs; on kubeadm the etcd static pod logs on each control-plane node. For other checks: /readyz/<name> gives the reason the combined output withholds, and the API server's own logs name the failing post-start hook or informer. Checks failing together with etcd are its consequences and are reported with it; post-start hooks still finishing in the first two minutes after a start are start-up, not a fault; a failing shutdown check is a drain on purpose (a warning).",
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
    const advice = logsFor(detectDistribution(ctx.snap).distribution);
    // all etcd lines (etcd, etcd-readiness, ...) are one fact, and the checks that fail because of it (informers,
    // post-start hooks that write) are its consequences: one fault, one finding
    const etcd = failing.filter((f) => f.name === 'etcd' || f.name.startsWith('etcd-'));
    const others = failing.filter((f) => !etcd.includes(f));
    const findings: Array<Draft<keyof typeof CODES>> = [];
    const notes: string[] = [];
    if (etcd.length) {
      findings.push(
        finding(
          'ARCH-RZ01',
          'critical',
          'the API server cannot reach etcd: the cluster state is read-only or unreachable',
          `/readyz?verbose: ${etcd.map((f) => `[-]${f.name} ${f.detail}`).join('; ')}. Nothing can be written (no scheduling, scaling or status updates) until etcd answers.${others.length ? ` Failing with it, as its consequences: ${others.map((f) => f.name).join(', ')}.` : ''}${stale}`,
          {
            evidence: { checks: etcd, consequences: others, fromCache: Boolean(h.fromCache) },
            why: 'State lives only in etcd; the API server is its only door. Without etcd, the door opens onto a cached, frozen picture.',
            fix: [
              'kubectl arch quorum   # members and verdict as the API shows them',
              'kubectl arch quorum --etcd-endpoints https://<member>:2379 --etcd-cacert … --etcd-cert … --etcd-key …   # ask etcd itself',
              advice.etcd,
            ],
          },
        ),
      );
    } else if (others.length) {
      const started = startedAgo(ctx);
      const hooksOnly = others.every((f) => f.name.startsWith('poststarthook/'));
      const shutdown = others.some((f) => f.name === 'shutdown');
      if (hooksOnly && started !== undefined && started < STARTING_MS) {
        // a post-start hook reports "not finished" until it completed once (apiserver pkg/server/hooks.go)
        notes.push(
          `the API server started ${Math.round(started / 1000)} s before the capture: its post-start hooks (${others.map((f) => f.name).join(', ')}) were still finishing — start-up, not a fault`,
        );
      } else {
        findings.push(
          finding(
            'ARCH-RZ02',
            shutdown ? 'warning' : 'error',
            shutdown
              ? 'the API server is shutting down: it withdrew its readiness while in-flight requests finish'
              : `the API server reports readiness check${others.length === 1 ? '' : 's'} ${others.map((f) => f.name).join(', ')} failing`,
            `/readyz?verbose: ${others.map((f) => `[-]${f.name} ${f.detail}`).join('; ')}.${shutdown ? ' A failing shutdown check means this API server is draining (a restart, an upgrade, a node being taken down): load balancers stop sending it requests, on purpose.' : ''}${started !== undefined && !shutdown ? ` It started ${Math.round(started / 60_000)} min before the capture, so this is not start-up.` : ''}`,
            {
              evidence: { checks: others, fromCache: Boolean(h.fromCache), ...(started !== undefined ? { startedAgoMs: started } : {}) },
              why: shutdown
                ? 'During a graceful shutdown the API server stays up to finish requests but asks not to get new ones; another API server should be taking them.'
                : 'A failing readiness check means this API server should not be serving; load balancers will take it out of rotation. A post-start hook that never finishes (rbac/bootstrap-roles, often on a slow etcd) keeps it so.',
              fix: [
                ...others.map((f) =>
                  command(['kubectl', 'get', '--raw', `/readyz/${f.name}?verbose`], {
                    note: 'the reason, which the combined output withholds',
                  }),
                ),
                shutdown ? 'check that another API server is serving, and that this one comes back after its restart' : advice.logs,
              ],
            },
          ),
        );
      }
    }
    return { findings, notes, passed: `all ${h.readyz.split('\n').filter((l) => l.startsWith('[+]')).length} readiness checks pass` };
  },
});
