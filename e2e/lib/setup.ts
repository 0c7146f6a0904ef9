// What the real-cluster test files share: the control-plane binaries, built (or found cached) once per file, and
// the shape of the report they read.
import { beforeAll } from '@jest/globals';
import { buildApiserver, buildControllerManager } from './cluster.mjs';

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
