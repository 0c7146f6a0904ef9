// The list of checks. Adding a check = adding its file and one line here.
import { apiserverReadiness } from './apiserver-readiness.js';
import { etcdQuorum } from './etcd-quorum.js';
import { gitopsOrphans } from './gitops-orphans.js';
import { retryLoops } from './retry-loops.js';
import type { Check } from './types.js';

export const CHECKS: Check[] = [apiserverReadiness, retryLoops, gitopsOrphans, etcdQuorum];

export function findCheck(idOrCode: string): Check | undefined {
  const q = idOrCode.toLowerCase();
  return CHECKS.find((c) => c.id === q || Object.keys(c.codes).some((k) => k.toLowerCase() === q));
}
