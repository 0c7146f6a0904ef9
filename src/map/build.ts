// The cluster by contract, the view the field notes draw by hand: state (etcd), the door (API servers, their
// certificate, webhooks and aggregated APIs in the request path), the loops (controllers and who leads them,
// GitOps, distribution controllers, operators by their leader-election leases) and the interfaces (CRI, CNI,
// CSI, DNS, ingress and load balancers). Each line carries the status of the checks that concern it: a check
// with a finding on one of the line's objects marks that line; checks about the whole part mark its summary.
import { quorumView } from '../etcd/quorum.js';
import { fingerprint } from '../fingerprint.js';
import { condition } from '../lib/k8s.js';
import { human } from '../lib/time.js';
import {
  worstRank,
  type ArchMap,
  type CheckResult,
  type Contract,
  type KObject,
  type LineCheck,
  type MapLine,
  type MapSection,
  type ObjectRef,
  type Severity,
} from '../model.js';
import type { Check, MapPlace } from '../checks/types.js';
import { R } from '../resources.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { byText } from '../lib/order.js';

/** What the map and its blast radii read beyond the checks' own inputs (where a part runs, what a route serves). */
export const MAP_READS = [
  { ...R.etcdSnapshotFiles, fields: ['status.error.time', 'status.error.message'] },
  { ...R.endpointslices, fields: ['endpoints[].addresses'] },
  { ...R.ingresses, fields: ['spec.ingressClassName'] },
  { ...R.leases, fields: ['spec.holderIdentity', 'spec.leaseDurationSeconds'] },
  { ...R.persistentvolumes, fields: ['spec.claimRef.name', 'spec.claimRef.namespace', 'spec.hostPath.path', 'spec.local.path'] },
];

export type { ArchMap, LineCheck, MapLine, MapSection };

/** A line's check with the findings that concern the line counted by severity (only those with any): one error and
 *  one info are "ERROR (+1 info)", not "ERROR ×2". */
export type CountedCheck = LineCheck & { bySeverity?: Partial<Record<Severity, number>> };

const SEVS: Severity[] = ['info', 'warning', 'error', 'critical'];
const sameRef = (a: ObjectRef, b: ObjectRef): boolean =>
  a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');

/** The checks placed on a part of the map (each check says where it belongs), primary ones first. */
type Placed = Array<{ id: string; about?: RegExp }>;
function placer(checks: Check[]): (contract: Contract, part: string) => Placed {
  const all = checks.flatMap((c) => c.map.map((m, i) => ({ id: c.id, m, order: checks.indexOf(c) * 100 + i })));
  return (contract, part) =>
    all
      .filter((x) => x.m.contract === contract && x.m.part === part)
      .sort((a, b) => Number(Boolean(b.m.primary)) - Number(Boolean(a.m.primary)) || a.order - b.order)
      .map((x) => ({ id: x.id, ...(x.m.about ? { about: x.m.about } : {}) }));
}

/** The status of each placed check for a line: findings on the line's objects, or (for a summary line) the check's own
 *  status, or its findings that concern the part. */
function statusFor(results: CheckResult[], placed: Placed, objects: ObjectRef[] | undefined): CountedCheck[] {
  const out: CountedCheck[] = [];
  for (const { id, about } of placed) {
    const r = results.find((x) => x.id === id);
    if (!r) continue;
    const mine = objects
      ? r.findings.filter((f) => f.objects.some((o) => objects.some((x) => sameRef(o, x))))
      : about
        ? r.findings.filter((f) => about.test(`${f.title}\n${f.message}\n${JSON.stringify(f.evidence)}`))
        : r.findings;
    const w = worstRank(mine);
    const bySeverity: Partial<Record<Severity, number>> = {};
    for (const sev of [...SEVS].reverse()) {
      const n = mine.filter((f) => f.severity === sev).length;
      if (n) bySeverity[sev] = n;
    }
    if ((objects || about) && r.status === 'findings' && !mine.length) {
      out.push({ id, status: 'passed', findings: 0 });
      continue;
    }
    out.push({
      id,
      status: mine.length ? 'findings' : r.status,
      findings: mine.length,
      ...(w >= 0 ? { worst: SEVS[w] } : {}),
      ...(mine.length ? { indexes: mine.map((f) => r.findings.indexOf(f)), bySeverity } : {}),
    });
  }
  return out;
}

/** "1 Addon", "6 Addons", and for none "no Addons" (never "0 Addons ()"). */
const count = (n: number, one: string, many = `${one}s`): string => (n === 0 ? `no ${many}` : `${n} ${n === 1 ? one : many}`);
const names = (xs: string[], max = 5): string => (xs.length > max ? `${xs.slice(0, max).join(', ')}, +${xs.length - max}` : xs.join(', '));
const notVisible = (snap: Snapshot, n: Parameters<Snapshot['visibility']>[0]): string | null => snap.visibility(n)?.reason ?? null;

function stateSection(snap: Snapshot, results: CheckResult[], now: Date, on: Placer): MapSection {
  const v = quorumView(snap, now);
  // what the API server's /readyz says of etcd, said once (the reason may say it already)
  const why = v.reason ?? 'no evidence of etcd members';
  const notSeen = v.readyzEtcd !== 'unknown' && !why.includes('readyz etcd:') ? `${why} (readyz etcd: ${v.readyzEtcd})` : why;
  const lines: MapLine[] = [
    {
      name: 'etcd',
      detail: v.visible ? `${v.verdictLine} (${v.source})` : `not visible: ${notSeen}`,
      checks: statusFor(results, on('state', 'etcd'), undefined),
    },
  ];
  for (const m of v.members) {
    const objects: ObjectRef[] = m.node ? [{ kind: 'Node', name: m.node }] : [];
    lines.push({
      name: m.name,
      detail: `${m.where} — ${m.role}, ${m.health}`,
      indent: true,
      objects,
      checks: statusFor(results, on('state', 'etcd member'), objects),
    });
  }
  // the newest snapshot that could bring the state back (K3s/RKE2 record them; elsewhere the check says where to look)
  const files = snap.of(R.etcdSnapshotFiles);
  const good = files
    .filter((f) => f.status?.readyToUse === true && !f.status?.error && Date.parse(f.status?.creationTime ?? '') > 0)
    .sort((a, b) => Date.parse(b.status.creationTime) - Date.parse(a.status.creationTime));
  const backups = results.find((r) => on('state', 'etcd backups').some((p) => p.id === r.id));
  if (files.length || backups)
    lines.push({
      name: 'etcd backups',
      detail: files.length
        ? `${good[0] ? `newest good snapshot ${human(Math.round((now.getTime() - Date.parse(good[0].status.creationTime)) / 1000))} old (${good[0].spec?.nodeName}, ${String(good[0].spec?.location ?? '').startsWith('s3://') ? 'S3' : 'local'})` : 'no good snapshot'}; ${count(files.length, 'snapshot file')}, ${files.filter((f) => String(f.spec?.location ?? '').startsWith('s3://')).length} on S3`
        : backups?.status === 'skipped'
          ? `not judged: ${backups.reason}`
          : (backups?.reason ?? ''),
      checks: statusFor(results, on('state', 'etcd backups'), undefined),
    });
  return { contract: 'state', title: 'STATE — lives only in etcd', lines };
}

function doorSection(snap: Snapshot, results: CheckResult[], now: Date, on: Placer): MapSection {
  const lines: MapLine[] = [];
  const leases = snap.of(R.leases);
  const identities = leases.filter((l) => l.metadata.labels?.['apiserver.kubernetes.io/identity'] === 'kube-apiserver');
  const live = identities.filter((l) => now.getTime() - Date.parse(l.spec?.renewTime ?? '') < 60_000);
  const kubernetesSlices = snap
    .of(R.endpointslices)
    .filter((e) => e.metadata.namespace === 'default' && e.metadata.labels?.['kubernetes.io/service-name'] === 'kubernetes');
  const endpoints = kubernetesSlices.flatMap((e) => (Array.isArray(e.endpoints) ? e.endpoints : [])).flatMap((e) => e?.addresses ?? []);
  const who = live.map((l) => l.metadata.labels?.['kubernetes.io/hostname'] ?? l.metadata.name);
  const leaseText = notVisible(snap, R.leases)
    ? 'identity leases not visible'
    : identities.length
      ? live.length
        ? `${count(live.length, 'live API server')} (identity leases: ${names(who)})`
        : `no live API servers (${count(identities.length, 'identity lease')}, none renewed within a minute)`
      : 'no identity leases (a managed or older control plane)';
  lines.push({
    name: 'API servers',
    detail: `${leaseText}${endpoints.length ? `; the kubernetes Service → ${names(endpoints)}` : ''}; ${snap.header.server ?? 'server unknown'}`,
    checks: statusFor(results, on('door', 'API servers'), undefined),
  });
  const serving = snap.header.tls?.serving;
  if (serving)
    lines.push({
      name: 'serving certificate',
      detail: `${serving.subject ? `CN ${serving.subject}` : 'certificate'}${serving.issuer ? `, issued by ${serving.issuer}` : ''}, valid until ${serving.notAfter.slice(0, 10)}`,
      indent: true,
      checks: statusFor(results, on('door', 'serving certificate'), undefined),
    });
  const hooks = [...snap.of(R.validatingWebhooks), ...snap.of(R.mutatingWebhooks)];
  const hookVis = notVisible(snap, R.validatingWebhooks);
  lines.push({
    name: 'admission webhooks',
    detail: hookVis ? `not visible: ${hookVis}` : hooks.length ? `${count(hooks.length, 'configuration')} in the request path` : 'none',
    checks: statusFor(results, on('door', 'admission webhooks'), undefined),
  });
  for (const h of hooks) {
    const ref: ObjectRef = { kind: h.kind ?? '?', name: h.metadata.name };
    const short = h.kind === 'MutatingWebhookConfiguration' ? 'mutating' : 'validating';
    const ws: Array<Record<string, any>> = Array.isArray(h.webhooks) ? h.webhooks : [];
    const targets = [
      ...new Set(
        ws.map((w) =>
          w.clientConfig?.service ? `${w.clientConfig.service.namespace}/${w.clientConfig.service.name}` : (w.clientConfig?.url ?? '?'),
        ),
      ),
    ];
    const closed = ws.filter((w) => (w.failurePolicy ?? 'Fail') === 'Fail').length;
    lines.push({
      name: `${short} ${h.metadata.name}`,
      detail: ws.length
        ? `${count(ws.length, 'webhook')}${closed ? `, ${closed} fail closed` : ', all fail open'} → ${names(targets, 3)}`
        : count(0, 'webhook'),
      indent: true,
      objects: [ref],
      checks: statusFor(results, on('door', 'admission webhook configuration'), [ref]),
    });
  }
  const apis = snap.of(R.apiservices).filter((a) => a.spec?.service);
  const apiVis = notVisible(snap, R.apiservices);
  lines.push({
    name: 'aggregated APIs',
    detail: apiVis ? `not visible: ${apiVis}` : apis.length ? count(apis.length, 'APIService') + ' served by Services' : 'none',
    checks: statusFor(results, on('door', 'aggregated APIs'), undefined),
  });
  for (const a of apis) {
    const ref: ObjectRef = { kind: 'APIService', name: a.metadata.name };
    const c = condition(a, 'Available');
    lines.push({
      name: a.metadata.name,
      detail: `→ ${a.spec.service.namespace}/${a.spec.service.name}, Available=${c?.status ?? '?'}${c?.reason ? ` (${c.reason})` : ''}`,
      indent: true,
      objects: [ref],
      checks: statusFor(results, on('door', 'APIService'), [ref]),
    });
  }
  return { contract: 'door', title: 'DOOR — the API server is the only way in', lines };
}

/** Leader-election leases: a component name, its holder (the node or pod before "_"), and when it was renewed. */
function leaders(snap: Snapshot, now: Date): Array<{ ns: string; name: string; holder: string; renewed: string; stale: boolean }> {
  return snap
    .of(R.leases)
    .filter(
      (l) =>
        l.metadata.namespace !== 'kube-node-lease' && !l.metadata.labels?.['apiserver.kubernetes.io/identity'] && l.spec?.holderIdentity,
    )
    .map((l) => {
      const renewedMs = now.getTime() - Date.parse(l.spec?.renewTime ?? '');
      const dur = (l.spec?.leaseDurationSeconds ?? 15) * 1000;
      return {
        ns: l.metadata.namespace ?? '',
        name: l.metadata.name,
        holder: String(l.spec.holderIdentity).split('_')[0]!,
        renewed: Number.isNaN(renewedMs) ? 'never' : `${human(Math.max(0, Math.round(renewedMs / 1000)))} ago`,
        stale: !(renewedMs <= Math.max(dur * 4, 60_000)),
      };
    })
    .sort((a, b) => byText(a.ns, b.ns) || byText(a.name, b.name));
}

function loopsSection(snap: Snapshot, results: CheckResult[], now: Date, controlPlane: string, on: Placer): MapSection {
  const lines: MapLine[] = [{ name: 'control plane', detail: controlPlane, checks: [] }];
  const leads = leaders(snap, now);
  const core = leads.filter((l) => l.ns === 'kube-system');
  const others = leads.filter((l) => l.ns !== 'kube-system');
  for (const l of core)
    lines.push({
      name: l.name,
      detail: `leader ${l.holder}, renewed ${l.renewed}${l.stale ? ' — stale: no leader is renewing it' : ''}`,
      indent: true,
      checks: [],
    });
  const addons = snap.of(R.addons);
  const charts = snap.of(R.helmcharts);
  if (!notVisible(snap, R.addons) || addons.length)
    lines.push({
      name: 'K3s deploy controller',
      detail: addons.length
        ? `${count(addons.length, 'Addon')} (${names(
            addons.map((a) => a.metadata.name),
            6,
          )})`
        : count(0, 'Addon'),
      checks: statusFor(results, on('loops', 'K3s deploy controller'), undefined),
    });
  if (!notVisible(snap, R.helmcharts) || charts.length)
    lines.push({
      name: 'K3s helm controller',
      detail: count(charts.length, 'HelmChart'),
      checks: statusFor(results, on('loops', 'K3s helm controller'), undefined),
    });
  const apps = snap.of(R.argoApplications);
  const argoVis = notVisible(snap, R.argoApplications);
  const argoPods = snap.of(R.pods).filter((p) => /argocd-application-controller/.test(p.metadata.name) && p.status?.phase === 'Running');
  lines.push({
    name: 'Argo CD',
    detail: argoVis
      ? `not visible: ${argoVis}`
      : `${count(apps.length, 'Application')}${
          argoPods.length
            ? `; application controller running (${names(
                argoPods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`),
                2,
              )})`
            : apps.length
              ? '; no running application controller seen'
              : ''
        }`,
    checks: statusFor(results, on('loops', 'Argo CD'), undefined),
  });
  const ks = snap.of(R.fluxKustomizations);
  const hr = snap.of(R.fluxHelmReleases);
  const fluxVis = notVisible(snap, R.fluxKustomizations);
  lines.push({
    name: 'Flux',
    detail: fluxVis && !hr.length ? `not visible: ${fluxVis}` : `${count(ks.length, 'Kustomization')}, ${count(hr.length, 'HelmRelease')}`,
    checks: fluxVis && !hr.length ? [] : statusFor(results, on('loops', 'Flux'), undefined),
  });
  for (const l of others)
    lines.push({
      name: `${l.ns}/${l.name}`,
      detail: `leader-election lease held by ${l.holder}, renewed ${l.renewed}${l.stale ? ' — stale' : ''}`,
      indent: true,
      checks: [],
    });
  const deleting = [...snap.all()].filter((o) => o.metadata.deletionTimestamp).length;
  lines.push({
    name: 'finalizers',
    detail: deleting ? `${count(deleting, 'object')} deleting` : 'nothing deleting',
    checks: statusFor(results, on('loops', 'finalizers'), undefined),
  });
  return { contract: 'loops', title: 'LOOPS — everything else reconciles', lines };
}

function lbImplementation(snap: Snapshot): string {
  const pods = snap.of(R.pods);
  if (pods.some((p) => p.metadata.name.startsWith('svclb-'))) return 'K3s ServiceLB (svclb pods)';
  if (snap.of(R.namespaces).some((n) => n.metadata.name === 'metallb-system')) return 'MetalLB';
  const provider = snap.of(R.nodes)[0]?.spec?.providerID ?? '';
  if (/^(aws|gce|azure|digitalocean|hcloud|linode|openstack|vsphere):/.test(provider))
    return `the cloud provider (${provider.split(':')[0]})`;
  return 'no implementation seen';
}

function interfacesSection(snap: Snapshot, results: CheckResult[], fp: ReturnType<typeof fingerprint>, on: Placer): MapSection {
  const lines: MapLine[] = [];
  lines.push({
    name: 'CRI',
    detail: fp.runtimes.length ? fp.runtimes.map((r) => `${r.runtime} on ${count(r.count, 'node')}`).join('; ') : 'no nodes visible',
    checks: [],
  });
  lines.push({ name: 'CNI', detail: fp.cni, checks: [] });
  const drivers = snap.of(R.csidrivers).map((d) => d.metadata.name);
  const registered = new Map<string, number>();
  for (const n of snap.of(R.csinodes))
    for (const d of Array.isArray(n.spec?.drivers) ? n.spec.drivers : [])
      if (d?.name) registered.set(d.name, (registered.get(d.name) ?? 0) + 1);
  const classes = snap
    .of(R.storageclasses)
    .map(
      (s: KObject) =>
        `${s.metadata.name} (${s.provisioner}${s.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true' ? ', default' : ''})`,
    );
  const csiVis = notVisible(snap, R.csinodes);
  lines.push({
    name: 'CSI',
    detail: csiVis
      ? `not visible: ${csiVis}`
      : `${[...new Set([...drivers, ...registered.keys()])].map((d) => `${d} on ${count(registered.get(d) ?? 0, 'node')}`).join(', ') || 'no CSI driver registered'}; StorageClasses: ${classes.join(', ') || 'none'}`,
    checks: statusFor(results, on('interfaces', 'CSI'), undefined),
  });
  const dns = results.find((r) => r.id === 'cluster-dns');
  lines.push({
    name: 'DNS',
    detail:
      dns?.status === 'passed'
        ? (dns.reason ?? '')
        : dns?.status === 'skipped'
          ? `not judged: ${dns.reason}`
          : (dns?.findings[0]?.title ?? ''),
    checks: statusFor(results, on('interfaces', 'DNS'), undefined),
  });
  const ingresses = snap.of(R.ingresses);
  const byClass = new Map<string, number>();
  for (const i of ingresses) {
    const c = i.spec?.ingressClassName ?? i.metadata.annotations?.['kubernetes.io/ingress.class'] ?? '(default class)';
    byClass.set(c, (byClass.get(c) ?? 0) + 1);
  }
  const ingVis = notVisible(snap, R.ingresses);
  lines.push({
    name: 'ingress',
    detail: ingVis
      ? `not visible: ${ingVis}`
      : ingresses.length
        ? [...byClass].map(([c, n]) => `${count(n, 'Ingress', 'Ingresses')} of class ${c}`).join(', ')
        : 'no Ingress',
    checks: [],
  });
  const lbs = snap.of(R.services).filter((s) => s.spec?.type === 'LoadBalancer');
  lines.push({
    name: 'load balancers',
    detail: `${count(lbs.length, 'Service')} of type LoadBalancer; implementation: ${lbImplementation(snap)}`,
    checks: statusFor(results, on('interfaces', 'load balancers'), undefined),
  });
  return { contract: 'interfaces', title: 'INTERFACES — node boundaries are swappable (CRI, CNI, CSI)', lines };
}

/** Parts a check declares that no line above draws: each gets a line of its own, so a new check shows on the map. */
function undrawn(section: MapSection, checks: Check[], results: CheckResult[], on: Placer): MapSection {
  const drawn = new Set(section.lines.map((l) => l.name));
  const SUB = new Set(['etcd member', 'admission webhook configuration', 'APIService']);
  const parts = [...new Set(checks.flatMap((c) => c.map.filter((m: MapPlace) => m.contract === section.contract).map((m) => m.part)))];
  for (const part of parts) {
    if (drawn.has(part) || SUB.has(part)) continue;
    const titles = on(section.contract, part).map((p) => checks.find((c) => c.id === p.id)?.title ?? p.id);
    section.lines.push({ name: part, detail: titles.join('; '), checks: statusFor(results, on(section.contract, part), undefined) });
  }
  return section;
}

type Placer = ReturnType<typeof placer>;

export function buildMap(snap: Snapshot, results: CheckResult[], now: Date, checks: Check[]): ArchMap {
  const fp = fingerprint(snap);
  const on = placer(checks);
  return {
    distribution: fp.distribution,
    serverVersion: fp.serverVersion,
    nodes: fp.nodes.summary,
    sections: [
      stateSection(snap, results, now, on),
      doorSection(snap, results, now, on),
      loopsSection(snap, results, now, fp.controlPlane, on),
      interfacesSection(snap, results, fp, on),
    ].map((sec) => undrawn(sec, checks, results, on)),
  };
}
