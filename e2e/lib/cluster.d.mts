export interface ApiResult {
  status: number;
  json: any;
  text: string;
}
export interface ControlPlane {
  dir: string;
  url: string;
  caFile: string;
  kubeconfig: string;
  auditLog: string;
  pids: number[];
  etcdPid: number;
  killEtcd(): Promise<void>;
  admin(method: string, path: string, body?: unknown): Promise<ApiResult>;
  stop(): Promise<void>;
}
export const USERS: Record<'admin' | 'reader' | 'limited', { token: string; name: string; groups: string }>;
export function buildApiserver(): string;
export function freePort(): Promise<number>;
export function startControlPlane(opts?: { apiserver?: string; log?: (s: string) => void }): Promise<ControlPlane>;
export function readAudit(file: string): any[];
