export interface ApiResult {
  status: number;
  json: any;
  text: string;
}
export interface ControlPlane {
  dir: string;
  /** The network namespace the control plane runs in (netns: true), else undefined. */
  netns?: string;
  url: string;
  /** The CA the kubeconfig trusts (the self-signed serving cert, or our CA with servingCertDays). */
  caFile: string;
  kubeconfig: string;
  /** The serving certificate of ours (servingCertDays), else undefined. */
  servingCert?: string;
  auditLog: string;
  pids: number[];
  etcdPid: number;
  controllerManagerPid?: number;
  /** The controllers kube-controller-manager runs; empty when it does not run. */
  controllers: string[];
  /** The tail of kube-controller-manager's stderr. */
  controllerManagerLog(): string;
  /** Throws (with its log) if kube-controller-manager has exited. */
  assertControllerManager(): void;
  /** Resolves once the garbage collector has collected a fresh object whose owner does not exist. */
  gcBarrier(boundMs?: number): Promise<void>;
  killEtcd(): Promise<void>;
  /** Another kube-apiserver on the same etcd, in a UTS namespace with this host name (root only). */
  addApiserver(hostname: string): Promise<{ url: string; stop(): Promise<void> }>;
  /** Stop kube-apiserver and start this binary in its place on the same etcd (same flags, port, certificates). */
  replaceApiserver(binary: string): Promise<void>;
  admin(method: string, path: string, body?: unknown): Promise<ApiResult>;
  stop(): Promise<void>;
}
export const USERS: Record<'admin' | 'reader' | 'limited', { token: string; name: string; groups: string }>;
export const DEFAULT_CONTROLLERS: readonly string[];
export function buildApiserver(): string;
/** kube-apiserver alone at this release (K8S_VERSION), built once and cached. */
export function buildApiserverAt(version: string): string;
export function buildControllerManager(): string;
export function freePort(): Promise<number>;
export function startControlPlane(opts?: {
  apiserver?: string;
  /** Path of kube-controller-manager, or true to build it (cached) like kube-apiserver. */
  controllerManager?: string | true;
  controllers?: readonly string[];
  /** More kube-controller-manager flags (e.g. a short --node-monitor-grace-period). */
  controllerManagerFlags?: string[];
  /** Serve kube-apiserver with a certificate of ours, signed by a CA the kubeconfig trusts, valid this many days. */
  servingCertDays?: number;
  /** Run kube-apiserver in a UTS namespace of its own with this host name (root only): its identity lease names it. */
  hostname?: string;
  /** Admission plugins kept on that the harness otherwise disables (e.g. PersistentVolumeClaimResize). */
  admission?: string[];
  /** Run the control plane in a network namespace of its own (root only), reached through a Unix socket bridge. */
  netns?: boolean;
  log?: (s: string) => void;
}): Promise<ControlPlane>;
/** A process in network namespace ns, once it prints "ready"; stop() ends it by PID. */
export function startInNetns(ns: string, bin: string, argv: string[]): Promise<{ pid: number; stop(): Promise<void> }>;
export function request(
  conn: { url: string; caFile: string; token: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiResult>;
export function readAudit(file: string): any[];
