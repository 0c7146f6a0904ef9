// The list of checks: the only one. Everything else loops over it — doctor, explain, map (each check says where it
// belongs: `map`), every output format, the corpus (src/checks/<id>/cases/), the scenarios (src/checks/<id>/scenario.ts)
// and the README's checks table (`npm run gen`).
//
// A check is one folder, src/checks/<id>/ (the folder name is its id): check.ts (the pure function written with
// defineCheck, its codes, its needs with their roles, its docs, where it belongs on the map, which inputs prove each
// code), scenario.ts (what it adds to the example and the real-cluster suite), cases/<slug>/ (real threads).
// Adding one = that folder and its entry below (an import and its place in the list, which is the report order):
// __tests__/new-check.test.ts proves no other file is touched.
//
// Domain logic: a check's own model lives in its folder (the retry-loop parser, merge and advice in
// immutable-retry-loop/), since only that check reads it. Logic a command shares stays in src/<domain>/ (the orphan
// scan in src/orphans for `orphans`, the quorum view in src/etcd for `quorum`): the command walks straight to its
// domain module and on to the renderer, without passing through a check. Event normalisation, read by three checks,
// is in src/lib/events.ts.
import { admissionWebhooks } from './admission-webhooks/check.js';
import { aggregatedApis } from './aggregated-apis/check.js';
import { apiserverCertificates } from './apiserver-certificates/check.js';
import { apiserverReadiness } from './apiserver-readiness/check.js';
import { csiDrivers } from './csi-drivers/check.js';
import { stuckDeletions } from './stuck-deletions/check.js';
import { clusterDns } from './cluster-dns/check.js';
import { etcdBackups } from './etcd-backups/check.js';
import { etcdQuorum } from './etcd-quorum/check.js';
import { gitopsOrphans } from './gitops-orphans/check.js';
import { retryLoops } from './immutable-retry-loop/check.js';
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
  etcdBackups,
];

export function findCheck(idOrCode: string): Check | undefined {
  const q = idOrCode.toLowerCase();
  return CHECKS.find((c) => c.id === q || Object.keys(c.codes).some((k) => k.toLowerCase() === q));
}
