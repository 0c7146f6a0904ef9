// What the what-if suites on a real control plane share: the node lifecycle controller next to the default ones, with
// a grace short enough for a test; the heartbeats a kubelet posts; a node's readiness.
import { DEFAULT_CONTROLLERS, type ControlPlane } from './cluster.mjs';

/** How long the node lifecycle controller waits for a heartbeat: long enough for the loader to create each node's
 *  Lease after its Node. */
export const GRACE_S = 40;

/** startControlPlane's options for a node lifecycle controller that marks a silent node NotReady after GRACE_S. */
export const NODE_LIFECYCLE = {
  controllers: [...DEFAULT_CONTROLLERS, 'node-lifecycle-controller'],
  controllerManagerFlags: ['--node-monitor-period=2s', `--node-monitor-grace-period=${GRACE_S}s`],
};

/** What a kubelet does every 10 s, every 2 s here: renew its node's Lease (read, then write back with a fresh
 *  renewTime), for each node in `beating` (delete one: its kubelet stops). */
export function heartbeats(cp: ControlPlane, beating: Set<string>): { stop(): void } {
  const beat = async (): Promise<void> => {
    await Promise.all(
      [...beating].map(async (n) => {
        const l = await cp.admin('GET', `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${n}`);
        if (l.status !== 200) return; // not loaded yet
        l.json.spec.renewTime = new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
        await cp.admin('PUT', `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${n}`, l.json);
      }),
    );
  };
  const timer = setInterval(() => void beat().catch(() => {}), 2000);
  return { stop: () => clearInterval(timer) };
}

/** An object's Ready condition status ("True", "False", "Unknown"), if it has one. */
export const ready = (o: { status?: { conditions?: Array<{ type: string; status: string }> } }): string | undefined =>
  o.status?.conditions?.find((c) => c.type === 'Ready')?.status;
