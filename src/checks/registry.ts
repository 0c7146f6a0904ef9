// The list of checks. The rule every check follows: logic shared with a command lives in src/<domain>/ (the
// retry-loop model in src/retry, the orphan scan in src/orphans, the quorum view in src/etcd); the check file
// maps it to findings. Adding a check = its file (src/checks/<id>.ts, written with defineCheck), its test, its
// scenario declaration (src/checks/<id>.scenario.ts, found by name) and one line here; `npm run gen` then
// regenerates the README's checks table and the example.
import { admissionWebhooks } from './admission-webhooks.js';
import { aggregatedApis } from './aggregated-apis.js';
import { apiserverCertificates } from './apiserver-certificates.js';
import { apiserverReadiness } from './apiserver-readiness.js';
import { csiDrivers } from './csi-drivers.js';
import { stuckDeletions } from './stuck-deletions.js';
import { clusterDns } from './cluster-dns.js';
import { etcdQuorum } from './etcd-quorum.js';
import { gitopsOrphans } from './gitops-orphans.js';
import { retryLoops } from './retry-loops.js';
import type { Check } from './types.js';

export const CHECKS: Check[] = [
  apiserverReadiness,
  apiserverCertificates,
  admissionWebhooks,
  aggregatedApis,
  clusterDns,
  retryLoops,
  gitopsOrphans,
  stuckDeletions,
  csiDrivers,
  etcdQuorum,
];

export function findCheck(idOrCode: string): Check | undefined {
  const q = idOrCode.toLowerCase();
  return CHECKS.find((c) => c.id === q || Object.keys(c.codes).some((k) => k.toLowerCase() === q));
}
