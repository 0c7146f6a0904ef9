// What the real-cluster test files share: the control-plane binaries, built (or found cached) once per file, and
// the shape of the report they read.
import { beforeAll } from '@jest/globals';
import { buildApiserver, buildControllerManager, type ControlPlane } from './cluster.mjs';

/** kube-apiserver and kube-controller-manager, cached outside the repo (e2e/build-kube-apiserver.sh builds both in
 *  one go build the first time: minutes). Read the fields inside tests and hooks, after beforeAll ran. */
export function controlPlaneBinaries(): { apiserver: string; controllerManager: string } {
  const bins = { apiserver: '', controllerManager: '' };
  beforeAll(() => {
    bins.apiserver = buildApiserver();
    bins.controllerManager = buildControllerManager();
  }, 1_800_000);
  return bins;
}

/** A doctor report as the tests read it (-o json). */
export interface Report {
  checks: Array<{
    id: string;
    status: string;
    reason?: string;
    notes: string[];
    findings: Array<{ code: string; severity: string; title: string; message: string; objects: Array<{ kind: string; name: string }> }>;
  }>;
  fingerprint: any;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The probe's answer once it has one (not undefined), polled every `everyMs`; the controller manager's last words
 *  when not within the bound, or at once when it exited. */
export async function until<T>(
  cp: ControlPlane,
  what: string,
  probe: () => Promise<T | undefined>,
  boundMs = 180_000,
  everyMs = 500,
): Promise<T> {
  const end = Date.now() + boundMs;
  for (;;) {
    cp.assertControllerManager();
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${boundMs / 1000} s\n${cp.controllerManagerLog().slice(-2000)}`);
    await sleep(everyMs);
  }
}
