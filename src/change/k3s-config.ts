// `what-if --k3s-config FILE` (and --rke2-config): a new config.yaml for the servers, against what the cluster runs —
// the flags each server records (k3s.io/node-args, which hold config.yaml values since v1.21.1, credentials masked),
// the original cluster DNS (ConfigMap kube-system/cluster-dns, written once and never updated), the live kube-dns
// Service, the packaged components deployed (Addons, HelmCharts). The field notes' outage first: cluster-dns changed
// after install makes the coredns addon's kube-dns Service be re-applied with another clusterIP, refused every 15 s,
// forever. Then what cannot change after the cluster was created (cluster-cidr, service-cidr, the datastore), what
// `disable:` leaves behind, and what a change of the etcd snapshot settings does to the backups.
import { isMap, LineCounter, parseDocument } from 'yaml';
import { InputError } from '../errors.js';
import { openRegular, readFull } from '../lib/files.js';
import type { KObject, ObjectRef } from '../model.js';
import { R } from '../resources.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import type { Unjudged } from '../model.js';
import type { ChangePrediction } from './predict.js';
import { closeSync } from 'node:fs';
import { command } from '../lib/shell.js';

export type Program = 'k3s' | 'rke2';

/** A config.yaml: keys without K3s's `+` (append) suffix, values as written, and the line of each key. */
export interface ServerConfig {
  file: string;
  values: Map<string, unknown>;
  line(key: string): number;
}

export function readServerConfig(file: string, program: Program): ServerConfig {
  const { fd, size } = openRegular(file, `--${program}-config ${file}`, 1 << 20);
  let text: string;
  try {
    const b = Buffer.alloc(size);
    text = b.subarray(0, readFull(fd, b, size)).toString('utf8');
  } finally {
    closeSync(fd);
  }
  return parseServerConfig(text, file, program);
}

/** A config.yaml given as text (the MCP server's k3sConfig). */
export function parseServerConfig(text: string, file: string, program: Program): ServerConfig {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors[0])
    throw new InputError(`${file}:${lines.linePos(doc.errors[0].pos[0]).line}: malformed YAML: ${doc.errors[0].message.split('\n')[0]}`);
  const values = new Map<string, unknown>();
  const at = new Map<string, number>();
  if (doc.contents && !isMap(doc.contents)) throw new InputError(`${file}: a ${program} config.yaml is a mapping of flag names to values`);
  for (const pair of isMap(doc.contents) ? doc.contents.items : []) {
    const raw = String((pair.key as { value?: unknown } | null)?.value ?? '');
    const key = raw.replace(/\+$/, '');
    values.set(key, (pair.value as { toJSON?: () => unknown } | null)?.toJSON?.() ?? null);
    const r = (pair.key as { range?: [number, number, number] } | null)?.range;
    if (r) at.set(key, lines.linePos(r[0]).line);
  }
  return { file, values, line: (k) => at.get(k) ?? 1 };
}

/** A flag's values as a list: `disable: [traefik, servicelb]`, `disable: traefik,servicelb`, `--disable x` twice. */
const listOf = (v: unknown): string[] =>
  (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v])
    .flatMap((x) => String(x).split(','))
    .map((x) => x.trim())
    .filter(Boolean);

/** What the servers run with: their node-args, parsed (flag → values), and the nodes they come from. */
function runningFlags(snap: Snapshot, program: Program): { flags: Map<string, string[]>; node: string } | undefined {
  const servers = snap
    .of(R.nodes)
    .filter((n) => {
      try {
        return (JSON.parse(n.metadata.annotations?.[`${program}.io/node-args`] ?? '[]') as unknown[])[0] === 'server';
      } catch {
        return false;
      }
    })
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const n = servers[0];
  if (!n) return undefined;
  const args = (JSON.parse(n.metadata.annotations![`${program}.io/node-args`]!) as unknown[]).map(String);
  const flags = new Map<string, string[]>();
  for (let i = 1; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    const name = (eq > 0 ? a.slice(2, eq) : a.slice(2)).replace(/\+$/, '');
    const value = eq > 0 ? a.slice(eq + 1) : args[i + 1] !== undefined && !args[i + 1]!.startsWith('--') ? args[++i]! : 'true';
    flags.set(name, [...(flags.get(name) ?? []), value]);
  }
  return { flags, node: n.metadata.name };
}

const DEFAULTS: Record<string, string> = { 'cluster-cidr': '10.42.0.0/16', 'service-cidr': '10.43.0.0/16', 'cluster-dns': '10.43.0.10' };
/** The packaged components `disable:` names, and the objects each one deploys (Addon or HelmChart in kube-system). */
const COMPONENTS: Record<Program, Record<string, Array<{ kind: 'Addon' | 'HelmChart'; name: string }>>> = {
  k3s: {
    coredns: [{ kind: 'Addon', name: 'coredns' }],
    traefik: [
      { kind: 'HelmChart', name: 'traefik' },
      { kind: 'HelmChart', name: 'traefik-crd' },
      { kind: 'Addon', name: 'traefik' },
    ],
    'local-storage': [{ kind: 'Addon', name: 'local-storage' }],
    'metrics-server': [{ kind: 'Addon', name: 'metrics-server' }],
    servicelb: [],
  },
  rke2: {
    'rke2-coredns': [{ kind: 'HelmChart', name: 'rke2-coredns' }],
    'rke2-ingress-nginx': [{ kind: 'HelmChart', name: 'rke2-ingress-nginx' }],
    'rke2-metrics-server': [{ kind: 'HelmChart', name: 'rke2-metrics-server' }],
    'rke2-snapshot-controller': [{ kind: 'HelmChart', name: 'rke2-snapshot-controller' }],
  },
};

export interface ConfigResult {
  predictions: ChangePrediction[];
  notJudged: Unjudged[];
  /** Each setting compared: its value now and in the file. */
  settings: Array<{ key: string; now?: string; new?: string; changed: boolean }>;
}

export function predictServerConfig(cfg: ServerConfig, snap: Snapshot, program: Program): ConfigResult {
  const predictions: ChangePrediction[] = [];
  const notJudged: Unjudged[] = [];
  const settings: ConfigResult['settings'] = [];
  const at = (key: string): { file: string; line: number } => ({ file: cfg.file, line: cfg.line(key) });
  const cfgPath = `/etc/rancher/${program}/config.yaml`;
  const running = snap.gap(R.nodes) ? undefined : runningFlags(snap, program);
  if (!running)
    notJudged.push({
      contract: 'state',
      what: snap.gap(R.nodes)
        ? `Node (${snap.gap(R.nodes)!.reason})`
        : `the servers' ${program}.io/node-args (no server node records them)`,
      by: 'what-if --config',
      lost: 'the settings the servers run with now: cluster-cidr, service-cidr, the datastore, disable and the etcd snapshot settings',
    });
  const now = (k: string): string[] | undefined => running?.flags.get(k);
  const newList = (k: string): string[] | undefined => (cfg.values.has(k) ? listOf(cfg.values.get(k)) : undefined);
  const disabledNew = new Set(newList('disable') ?? []);
  const disabledNow = new Set(now('disable')?.flatMap((v) => listOf(v)) ?? []);

  // 1. cluster-dns: the kube-dns Service's clusterIP can never change; the coredns addon is re-applied every 15 s
  const dns = newList('cluster-dns');
  const coreDnsOff = program === 'k3s' ? disabledNew.has('coredns') : disabledNew.has('rke2-coredns');
  if (dns && !coreDnsOff) {
    const svcName = program === 'k3s' ? 'kube-dns' : 'rke2-coredns-rke2-coredns';
    const svc = snap.of(R.services).find((s) => s.metadata.namespace === 'kube-system' && s.metadata.name === svcName);
    const liveIP: string | undefined = svc?.spec?.clusterIP;
    const original = snap.of(R.configmaps).find((c) => c.metadata.namespace === 'kube-system' && c.metadata.name === 'cluster-dns')?.data
      ?.clusterDNS as string | undefined;
    settings.push({ key: 'cluster-dns', now: liveIP ?? original, new: dns.join(','), changed: Boolean(liveIP && dns[0] !== liveIP) });
    if (snap.gap(R.services) && !original)
      notJudged.push({
        contract: 'loops',
        what: `Service (${snap.gap(R.services)!.reason})`,
        by: 'what-if --config',
        lost: `the live ${svcName} clusterIP that cluster-dns must equal`,
      });
    else if (liveIP && dns[0] !== liveIP) {
      const ref: ObjectRef = { kind: 'Service', apiVersion: 'v1', namespace: 'kube-system', name: svcName };
      const owner: ObjectRef =
        program === 'k3s'
          ? { kind: 'Addon', apiVersion: 'k3s.cattle.io/v1', namespace: 'kube-system', name: 'coredns' }
          : { kind: 'HelmChart', apiVersion: 'helm.cattle.io/v1', namespace: 'kube-system', name: 'rke2-coredns' };
      predictions.push({
        contract: 'loops',
        code: 'ARCH-WI27',
        from: 'what-if',
        severity: 'error',
        title: `cluster-dns ${dns[0]} ≠ the live ${svcName} Service's ${liveIP}: ${program === 'k3s' ? 'the coredns addon' : 'the rke2-coredns chart'} would be refused forever`,
        message:
          program === 'k3s'
            ? `K3s templates cluster-dns into the coredns addon's manifest (clusterIP: %{CLUSTER_DNS}%). After a restart with ${dns[0]}, the deploy controller re-applies it every 15 s and the API server answers each time: Service "${svcName}" is invalid: spec.clusterIPs[0]: Invalid value: ["${dns[0]}"]: may not change once set. It records the checksum only on success, so it never stops${original ? ` (the cluster was created with ${original}: ConfigMap kube-system/cluster-dns)` : ''}. Meanwhile every kubelet restarted with the new flag writes nameserver ${dns[0]} into new pods' resolv.conf, where nothing answers unless something listens there (NodeLocal DNSCache).`
            : `RKE2 passes cluster-dns to the rke2-coredns chart's Service clusterIP: the helm-install Job's upgrade is refused (may not change once set) and retried.`,
        objects: [ref, owner],
        location: at('cluster-dns'),
        apiError: `Service "${svcName}" is invalid: spec.clusterIPs[0]: Invalid value: ["${dns[0]}"]: may not change once set`,
        why: "The Service address can never change once set, and the addon that declares it is a reconcile loop without a retry limit: the field notes' six-hour outage.",
        fix: [
          `keep cluster-dns: ${liveIP} in ${cfgPath} (or leave the line out) on every server`,
          `if the goal is NodeLocal DNSCache on ${dns[0]}: leave cluster-dns alone and point the kubelets there instead — kubelet-arg: ["cluster-dns=${dns[0]}"]`,
          command(['kubectl', '-n', 'kube-system', 'delete', 'service', svcName], {
            say: `only if the Service must move, after the restart (cost: cluster DNS is down for every pod until ${program === 'k3s' ? 'K3s recreates it, within 15 s' : 'the chart recreates it'}, and pods keep the old nameserver until they restart)`,
          }),
        ],
      });
    }
  }

  // 2. what cannot change once the cluster exists
  for (const key of ['cluster-cidr', 'service-cidr'] as const) {
    const want = newList(key);
    if (!want) continue;
    const cur = now(key)?.join(',') ?? (running ? DEFAULTS[key] : undefined);
    settings.push({ key, now: cur, new: want.join(','), changed: cur !== undefined && cur !== want.join(',') });
    if (cur === undefined || cur === want.join(',')) continue;
    predictions.push({
      contract: 'state',
      code: 'ARCH-WI28',
      from: 'what-if',
      severity: 'error',
      title: `${key} ${want.join(',')} ≠ ${cur}, set when the cluster was created`,
      message: `${key} is a critical setting every server must agree on (a server that differs is refused: "critical configuration value mismatch"), and what was allocated from the old range stays there: ${key === 'service-cidr' ? 'every Service clusterIP (the kubernetes Service, kube-dns) keeps its address, which the new range does not hold' : "every node's podCIDR and the pods' addresses, which the CNI routes by"}. The running servers read it from ${running?.node ?? 'their'} node-args.`,
      objects: running ? [{ kind: 'Node', apiVersion: 'v1', name: running.node }] : [],
      location: at(key),
      why: 'Addresses are state: they live in etcd with everything allocated from them, and a new range does not move them.',
      fix: [`keep ${key}: ${cur} in ${cfgPath}; a new range means a new cluster (and moving the workloads to it)`],
    });
  }
  const wantsEndpoint = cfg.values.get('datastore-endpoint');
  const etcdNow = running
    ? now('cluster-init') !== undefined || snap.of(R.nodes).some((n) => n.metadata.labels?.['node-role.kubernetes.io/etcd'] === 'true')
    : undefined;
  const endpointNow = now('datastore-endpoint')?.[0];
  if (wantsEndpoint !== undefined && running) {
    settings.push({
      key: 'datastore-endpoint',
      now: endpointNow ?? (etcdNow ? 'embedded etcd' : 'SQLite'),
      new: String(wantsEndpoint).replace(/\/\/[^@/]*@/, '//********@'),
      changed: true,
    });
    if (etcdNow || (endpointNow && !endpointNow.includes('********') && endpointNow !== String(wantsEndpoint)))
      predictions.push({
        contract: 'state',
        code: 'ARCH-WI28',
        from: 'what-if',
        severity: 'error',
        title: `datastore-endpoint would move the cluster's state away from ${etcdNow ? 'its embedded etcd' : 'its current datastore'}`,
        message: `State lives only in the datastore the servers read: pointed at another one, the API server serves what is there (an empty cluster, or another cluster's) — nothing is migrated. K3s migrates only from SQLite to embedded etcd (cluster-init), not ${etcdNow ? 'away from etcd' : 'between external datastores'}.`,
        objects: [{ kind: 'Node', apiVersion: 'v1', name: running.node }],
        location: at('datastore-endpoint'),
        why: 'State lives only in etcd (or the datastore in its place): the API server is a door to it, not a copy of it.',
        fix: [
          `leave datastore-endpoint out of ${cfgPath}; to move the state, restore a snapshot into the new datastore first (${program} etcd-snapshot, or the datastore's own backup)`,
        ],
      });
  }

  // 3. components newly disabled: what they deployed is left behind
  for (const name of disabledNew) {
    if (disabledNow.has(name) || !running) continue;
    const parts = COMPONENTS[program][name];
    if (!parts) continue;
    const found: KObject[] = parts.flatMap((p) =>
      snap
        .of(p.kind === 'Addon' ? R.addons : R.helmcharts)
        .filter((o) => o.metadata.namespace === 'kube-system' && o.metadata.name === p.name),
    );
    settings.push({ key: `disable ${name}`, now: 'enabled', new: 'disabled', changed: true });
    if (!found.length) continue;
    predictions.push({
      contract: 'loops',
      code: 'ARCH-WI29',
      from: 'what-if',
      severity: 'warning',
      title: `disable: ${name} leaves what it deployed: ${found.map((o) => `${o.kind} ${o.metadata.name}`).join(', ')}`,
      message: `Disabling a packaged component stops ${program} from applying its manifest; what it already deployed stays (${found.map((o) => `${o.kind} kube-system/${o.metadata.name}`).join(', ')}), no longer updated by anything — and still serving, if it was.`,
      objects: found.map((o) => ({ kind: o.kind!, apiVersion: o.apiVersion, namespace: 'kube-system', name: o.metadata.name })),
      location: at('disable'),
      why: 'Everything else is a reconcile loop: when the loop stops, what it made stays as it was.',
      fix: [
        ...found
          .filter((o) => o.kind === 'HelmChart')
          .map((o) =>
            command(['kubectl', '-n', 'kube-system', 'delete', 'helmchart', o.metadata.name], {
              say: 'to remove it (cost: helm-controller uninstalls the release, and what it serves, e.g. ingress, stops)',
            }),
          ),
        ...found
          .filter((o) => o.kind === 'Addon')
          .map((o) =>
            command(['kubectl', '-n', 'kube-system', 'delete', 'addon', o.metadata.name], {
              say: `to remove it (cost: what they serve stops), delete the objects the Addon ${o.metadata.name} applied (kubectl arch orphans lists them once it is gone), then`,
            }),
          ),
      ],
    });
  }

  // 4. etcd snapshots: the backups as they would be
  if (running && etcdNow) {
    const off = (src: 'now' | 'new'): boolean => {
      const v = src === 'now' ? now('etcd-disable-snapshots')?.[0] : cfg.values.get('etcd-disable-snapshots');
      return v === true || v === 'true';
    };
    const s3 = (src: 'now' | 'new'): boolean => {
      const v = src === 'now' ? now('etcd-s3')?.[0] : cfg.values.get('etcd-s3');
      return v === true || v === 'true';
    };
    const changes: string[] = [];
    if (!off('now') && off('new')) changes.push('etcd-disable-snapshots: no scheduled snapshots at all');
    if (s3('now') && cfg.values.has('etcd-s3') && !s3('new')) changes.push("etcd-s3 off: snapshots only on the servers' own disks");
    const cron = cfg.values.get('etcd-snapshot-schedule-cron');
    if (cron !== undefined && String(cron) !== (now('etcd-snapshot-schedule-cron')?.[0] ?? '0 */12 * * *'))
      changes.push(`schedule ${String(cron)}`);
    const ret = cfg.values.get('etcd-snapshot-retention');
    if (ret !== undefined && String(ret) !== (now('etcd-snapshot-retention')?.[0] ?? '5')) changes.push(`retention ${String(ret)}`);
    if (changes.length)
      predictions.push({
        contract: 'state',
        code: 'ARCH-WI30',
        from: 'what-if',
        severity: changes.some((c) => c.startsWith('etcd-disable') || c.startsWith('etcd-s3 off')) ? 'warning' : 'info',
        title: `the etcd snapshots would change: ${changes.join('; ')}`,
        message: `After the restart the servers take etcd snapshots with these settings: ${changes.join('; ')}. kubectl arch doctor's etcd-backups check judges them once the servers run with it.`,
        objects: [{ kind: 'Node', apiVersion: 'v1', name: running.node }],
        location: at(
          changes[0]!.startsWith('schedule')
            ? 'etcd-snapshot-schedule-cron'
            : changes[0]!.startsWith('retention')
              ? 'etcd-snapshot-retention'
              : changes[0]!.startsWith('etcd-s3')
                ? 'etcd-s3'
                : 'etcd-disable-snapshots',
        ),
        why: 'State lives only in etcd: its snapshots are the only way back from losing quorum or a bad write.',
        fix: ['keep scheduled snapshots, and a copy off the servers (etcd-s3), on every server'],
      });
  }
  return { predictions, notJudged, settings };
}
