// Small readers of Kubernetes object shapes, shared by every check (objects from files may be malformed:
// each tolerates a missing or wrong-typed field).
import type { KObject, ObjectRef } from '../model.js';

/** The reference a finding names an object by. */
export const refOf = (o: KObject): ObjectRef => ({
  kind: o.kind ?? '?',
  apiVersion: o.apiVersion,
  namespace: o.metadata.namespace,
  name: o.metadata.name,
});

export interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

/** status.conditions[type], or undefined. */
export function condition(o: KObject | undefined, type: string): Condition | undefined {
  const list: unknown = o?.status?.conditions;
  return Array.isArray(list) ? (list as Condition[]).find((c) => c?.type === type) : undefined;
}

/** Ready=True (pods and nodes). */
export const isReady = (o: KObject): boolean => condition(o, 'Ready')?.status === 'True';

/** "deployments.apps", "services": how kubectl and RBAC name a resource type. */
export const resourceName = (resource: string | undefined, group: string): string => `${resource ?? '?'}${group ? `.${group}` : ''}`;

/** A list field as an array (anything else: empty). */
export const arr = <T = any>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);
