// What serves each address a Service's Endpoints or EndpointSlices list. The controllers write a pod's address with
// its targetRef and nodeName; a Service without a selector has Endpoints written by hand (or by an operator), often an
// IP alone — a pod's IP, or a node's own address for something served from the host (hostNetwork, a webhook on the
// node). An address is mapped to what serves it: its targetRef or nodeName when present, else the pod whose
// status.podIP(s) it is, else the node whose status.addresses it is; an address that maps to nothing visible is
// unknown, never alive. The API server dials a listed ready address whatever serves it (k8s.io/apiserver
// pkg/util/proxy ResolveEndpoint: a random ready endpoint of the Service's EndpointSlices, mirrored from hand-written
// Endpoints by the EndpointSlice mirroring controller).
import { condition } from './k8s.js';
import type { KObject } from '../model.js';

/** The fields each reader of listed addresses reads, per type: every check, prediction and engine that maps addresses
 *  with this module declares them in its inputs (what a snapshot keeps is held to the declarations). */
const ADDRESS = ['ip', 'nodeName', 'targetRef'];
export const ADDRESS_FIELDS = {
  endpoints: ['addresses', 'notReadyAddresses'].flatMap((l) => ADDRESS.map((f) => `subsets[].${l}[].${f}`)),
  /** Slices name their Service by label (kubernetes.io/service-name: metadata.labels is kept of every object). */
  endpointslices: [
    'metadata.labels["kubernetes.io/service-name"]',
    'endpoints[].addresses',
    'endpoints[].conditions.ready',
    'endpoints[].nodeName',
    'endpoints[].targetRef',
  ],
  /** A pod whose IP an address is, its node, and whether it still holds it (a finished pod's IP is given away). */
  pods: ['spec.nodeName', 'status.phase', 'status.podIP', 'status.podIPs[].ip'],
  /** A node whose own address it is (not its Hostname), and whether it still posts status. */
  nodes: ['status.addresses[].address', 'status.addresses[].type', 'status.conditions'],
} as const;

/** One address as listed, and whether it is listed as ready. */
export interface Listed {
  ip: string;
  ready: boolean;
  nodeName?: string;
  targetRef?: { kind?: string; namespace?: string; name?: string };
}

/** What serves an address: the pod, and the node it runs on (by name). */
export interface Served {
  via: 'targetRef' | 'nodeName' | 'pod IP' | 'node address';
  pod?: KObject;
  node?: string;
}

const arr = <T = any>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
const podKey = (ns: string | undefined, name: string | undefined): string => `${ns ?? ''}/${name ?? ''}`;

/** The addresses of Endpoints (ready and not ready). */
export function endpointsAddresses(ep: KObject): Listed[] {
  return arr(ep.subsets).flatMap((s: Record<string, unknown>) => [
    ...arr(s?.addresses).map((a) => listed(a, true)),
    ...arr(s?.notReadyAddresses).map((a) => listed(a, false)),
  ]);
}

/** The addresses of EndpointSlices (an endpoint is ready unless its ready condition says false). */
export function sliceAddresses(slices: readonly KObject[]): Listed[] {
  return slices.flatMap((s) =>
    arr(s.endpoints).flatMap((e: Record<string, any>) =>
      // the API server dials only the first address of an endpoint
      arr(e?.addresses)
        .slice(0, 1)
        .map((ip) => listed({ ip, nodeName: e?.nodeName, targetRef: e?.targetRef }, e?.conditions?.ready !== false)),
    ),
  );
}

function listed(a: Record<string, any>, ready: boolean): Listed {
  return {
    ip: String(a?.ip ?? ''),
    ready,
    ...(str(a?.nodeName) ? { nodeName: a.nodeName } : {}),
    ...(a?.targetRef && typeof a.targetRef === 'object' ? { targetRef: a.targetRef } : {}),
  };
}

/** Looks addresses up among the pods and nodes visible. Each index is built on first use (a cluster whose endpoints
 *  all name their pods never builds the one by IP: 50,000 pods are two maps of 50,000). */
export class AddressBook {
  private byName?: Map<string, KObject>;
  private byIpMap?: Map<string, KObject>;
  private nodeByIp = new Map<string, string>();
  private nodeNames = new Set<string>();

  constructor(
    private readonly podList: readonly KObject[],
    nodes: readonly KObject[],
  ) {
    for (const n of nodes) {
      this.nodeNames.add(n.metadata.name);
      for (const a of arr(n.status?.addresses))
        if (str(a?.address) && a?.type !== 'Hostname') this.nodeByIp.set(a.address, n.metadata.name);
    }
  }

  private get pods(): Map<string, KObject> {
    return (this.byName ??= new Map(this.podList.map((p) => [podKey(p.metadata.namespace, p.metadata.name), p] as const)));
  }

  private get byIp(): Map<string, KObject> {
    if (this.byIpMap) return this.byIpMap;
    const m = new Map<string, KObject>();
    for (const p of this.podList) {
      // a finished pod's IP may be given to another one: only pods that hold it now
      if (p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
      for (const ip of [str(p.status?.podIP), ...arr(p.status?.podIPs).map((x: { ip?: unknown }) => str(x?.ip))]) if (ip) m.set(ip, p);
    }
    return (this.byIpMap = m);
  }

  /** What serves the address, or undefined when nothing visible does. */
  serves(a: Pick<Listed, 'ip' | 'nodeName' | 'targetRef'>): Served | undefined {
    const ref = a.targetRef;
    if (ref?.kind === 'Node' && ref.name) return { via: 'targetRef', node: ref.name };
    const pod = ref?.kind === 'Pod' && ref.name ? this.pods.get(podKey(ref.namespace, ref.name)) : undefined;
    if (pod)
      return { via: 'targetRef', pod, ...(str(pod.spec?.nodeName) || a.nodeName ? { node: str(pod.spec?.nodeName) ?? a.nodeName } : {}) };
    if (a.nodeName) {
      const byIp = this.byIp.get(a.ip);
      return { via: 'nodeName', ...(byIp && str(byIp.spec?.nodeName) === a.nodeName ? { pod: byIp } : {}), node: a.nodeName };
    }
    // a node's own address first: a pod with that IP is a hostNetwork one, and the node answers for it
    const node = this.nodeByIp.get(a.ip);
    if (node) return { via: 'node address', node };
    const byIp = this.byIp.get(a.ip);
    if (byIp) return { via: 'pod IP', pod: byIp, ...(str(byIp.spec?.nodeName) ? { node: byIp.spec.nodeName } : {}) };
    return undefined;
  }

  hasNode(name: string): boolean {
    return this.nodeNames.has(name);
  }
}

/** Whether what serves an address answers, as far as the objects tell: its node stopped posting status (Ready
 *  Unknown: down or cut off) or no longer exists, or its pod has finished — dead; anything else — alive (a listed
 *  ready address is what the API server dials, and nothing says it would not answer). */
export function fate(s: Served, nodes: ReadonlyMap<string, KObject>, nodesSeen: boolean): { alive: true } | { alive: false; why: string } {
  if (s.pod && (s.pod.status?.phase === 'Succeeded' || s.pod.status?.phase === 'Failed'))
    return { alive: false, why: `it has ${String(s.pod.status.phase).toLowerCase()}` };
  if (s.node) {
    const n = nodes.get(s.node);
    if (!n && nodesSeen) return { alive: false, why: `node ${s.node} no longer exists` };
    const ready = n ? condition(n, 'Ready') : undefined;
    if (ready?.status === 'Unknown') return { alive: false, why: `node ${s.node} stopped posting status (Ready Unknown)` };
  }
  return { alive: true };
}

/** An address in words: "10.42.1.7 (pod web/api-0 on node w-2)", "10.0.0.12 (node w-2's InternalIP)". */
export function servedText(a: Pick<Listed, 'ip'>, s: Served | undefined, nodes?: ReadonlyMap<string, KObject>): string {
  if (!s) return `${a.ip} (no visible pod or node has it)`;
  const pod = s.pod ? `${s.pod.metadata.namespace}/${s.pod.metadata.name}` : undefined;
  if (pod) return `${a.ip} (pod ${pod}${s.node ? ` on node ${s.node}` : ''})`;
  // written with its node (by a controller, or resolved by what-if): still the node's own address when it is one
  const type = nodes?.get(s.node ?? '')?.status?.addresses?.find?.((x: { address?: string; type?: string }) => x?.address === a.ip)
    ?.type as string | undefined;
  return `${a.ip} (node ${s.node}${type ? `'s ${type}` : s.via === 'node address' ? `'s address` : ''})`;
}

/** The address book of these lists, built once per pair of lists (by identity, with their lengths: lists only grow). */
const books = new WeakMap<readonly KObject[], { nodes: readonly KObject[]; p: number; n: number; book: AddressBook }>();
export function addressBook(pods: readonly KObject[], nodes: readonly KObject[]): AddressBook {
  const had = books.get(pods);
  if (had && had.nodes === nodes && had.p === pods.length && had.n === nodes.length) return had.book;
  const book = new AddressBook(pods, nodes);
  books.set(pods, { nodes, p: pods.length, n: nodes.length, book });
  return book;
}

/** A reader of listed addresses for one snapshot's pods and nodes: why an address is dead (nothing answers there), or
 *  undefined when it is live or maps to nothing visible (a caller that must not count on it asks `serves`). */
export function deadAddresses(
  pods: readonly KObject[],
  nodes: readonly KObject[],
  nodesSeen: boolean,
): { book: AddressBook; dead: (a: Pick<Listed, 'ip' | 'nodeName' | 'targetRef'>) => string | undefined } {
  const book = addressBook(pods, nodes);
  const byName = new Map(nodes.map((n) => [n.metadata.name, n] as const));
  return {
    book,
    dead: (a) => {
      const s = book.serves(a);
      const f = s ? fate(s, byName, nodesSeen) : undefined;
      return f && !f.alive ? `${servedText(a, s, byName)}: ${f.why}` : undefined;
    },
  };
}
