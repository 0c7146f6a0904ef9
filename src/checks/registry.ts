// The list of checks. Adding a check = adding its file and one line here.
import { etcdQuorum } from './etcd-quorum.js';
import { retryLoops } from './retry-loops.js';
import type { Check } from './types.js';

export const CHECKS: Check[] = [retryLoops, etcdQuorum];

export function findCheck(idOrCode: string): Check | undefined {
  const q = idOrCode.toLowerCase();
  return CHECKS.find((c) => c.id === q || Object.keys(c.codes).some((k) => k.toLowerCase() === q));
}
