// Declarations that can never apply: an immutable-field rejection makes the owning reconcile loop
// retry forever, quietly. Every source that shows the same rejection (Events, an Argo CD Application's
// status, a Flux object's conditions, the K3s addon deployer, K3s HelmCharts) becomes one finding per
// owner + object + field, with a liveness state (retrying | stalled | one-off) and scoped, costed advice.
// The rejection parsing, the merge and the advice live beside it (rejections.ts, loops.ts, advice.ts); this file maps
// them to findings.
import { refText, type KObject, type ObjectRef } from '../../model.js';
import { CONFIGMAPS, R } from '../../resources.js';
import { adviceFor, type AdviceContext } from './advice.js';
import { cadence, human, normaliseEvents, type Cadence, type NormEvent, CORE_EVENT_FIELDS, V1_EVENT_FIELDS } from '../../lib/events.js';
import { findLoops, type Loop } from './loops.js';
import { isImmutableRejection, parseRejections, type Rejection } from './rejections.js';
import {
  chartOf,
  chartRef,
  componentOf,
  componentPods,
  costOf,
  isPackaged,
  judgeChart,
  sinceText,
  type ChartEvidence,
} from './helmcharts.js';
import { detectDistribution } from '../../fingerprint.js';
import { ABOUT, defineCheck, onlyOn, type CheckContext, type Draft, type NodeGet } from '../types.js';
import { command, inNamespace, type Step } from '../../lib/shell.js';

const ID = 'immutable-retry-loop';

const CODES = {
  'ARCH-RL01': "an immutable-field change its owner still wants, seen through Events only (the owner's own status is not visible)",
  'ARCH-RL02': 'one-off: an immutable-field change was rejected, then superseded or not repeated (info)',
  'ARCH-RL03': 'a K3s addon manifest fails to apply on every re-scan (e.g. CoreDNS clusterIP from --cluster-dns)',
  'ARCH-RL04': 'a K3s/RKE2 HelmChart cannot install: its helm-install job fails on every attempt (the component is missing or stuck)',
  'ARCH-RL05': 'an Argo CD Application retries or is stalled on an immutable field it can never sync',
  'ARCH-RL06': 'a Flux Kustomization/HelmRelease retries or is stalled on an immutable field',
  'ARCH-RL07': 'kubelet clusterDNS points at an IP no Service owns (--deep)',
  'ARCH-RL08': "a K3s/RKE2 HelmChart's failed release waits for an operator (failurePolicy abort): its job fails on purpose",
} as const;
type Code = keyof typeof CODES;

// "why" is chosen by the finding's state: no sentence may claim an endless loop the evidence does not show
const CANNOT = 'The desired state can never be reached: the API server rejects the change on every attempt.';
const CONTRACT = `${CANNOT} The reconcile loop that owns it retries without a limit, so it will never stop retrying by itself.`;
const WHY: Record<'retrying-unbounded' | 'retrying' | 'stalled' | 'one-off', string> = {
  'retrying-unbounded': CONTRACT,
  retrying: `${CANNOT} Its owner is trying again now; when its retries run out it waits for the next revision, which fails the same way.`,
  stalled: `${CANNOT} Its owner has stopped trying for now but still declares the change, so the next sync, commit or restart fails the same way.`,
  'one-off': 'A rejection that was superseded is history; it matters only if its source sends it again.',
};

/** Does the evidence show a loop without a limit? Argo CD retry.limit -1, Flux (every retryInterval while Ready=False). */
const unbounded = (l: Loop): boolean =>
  l.state === 'retrying' && ((l.owner.tool === 'argocd' && (l.retry?.limit ?? 0) < 0) || (l.owner.tool === 'flux' && l.owner.seen));

/** "Service kube-system/kube-dns: spec.clusterIPs[0] 10.43.0.10 → 169.254.20.10 rejected (may not change once set)" */
export function describeRejection(r: Rejection & { liveValue?: string }): string {
  const obj = r.kind && r.name ? refText({ kind: r.kind, namespace: r.namespace, name: r.name }) : 'the object';
  if (r.changes?.length) {
    return `${obj}: ${r.changes.map((c) => `${c.field} ${c.old ?? '(unset)'} → ${c.new ?? '(unset)'}`).join(', ')} rejected (${r.field ?? 'spec'}: ${r.detail})`;
  }
  // a whole pod template says nothing to a reader: the field name is the point
  const short = (v: string | undefined): string | undefined =>
    v !== undefined && v.length <= 200 && !/template$/.test(r.field ?? '') ? v : undefined;
  const [live, sent] = [short(r.liveValue), short(r.value)];
  const change = sent !== undefined ? ` ${live !== undefined ? `${live} → ` : '→ '}${sent}` : '';
  return `${obj}: ${r.field ?? 'a field'}${change} rejected (${r.detail})`;
}

function cadenceText(c: Cadence): string {
  if (!c.loop) return `rejected ${c.attempts === 1 ? 'once' : `${c.attempts} times`}, last ${human(c.lastAgoSeconds)} before capture`;
  return `${c.attempts} attempts recorded over ${human(c.spanSeconds)}${c.perHour ? ` (≈${c.perHour}/h recorded)` : ''}, last ${human(c.lastAgoSeconds)} before capture`;
}

const EVIDENCE_LIMITS =
  'Event counts are a lower bound: client-go lets a burst of 25 through, then about one event per 5 minutes per source and object. Events expire (1 h after their last update by default), so an absent event proves nothing.';

const ownerText = (l: Loop): string =>
  l.owner.tool === 'argocd'
    ? `Argo CD Application ${l.owner.ref.namespace ? `${l.owner.ref.namespace}/` : ''}${l.owner.ref.name}`
    : l.owner.tool === 'flux'
      ? `Flux ${refText(l.owner.ref)}`
      : l.owner.tool === 'controller'
        ? l.owner.ref.name || 'a controller'
        : refText(l.owner.ref);

// ---------------------------------------------------------------- merged loops (events, Argo CD, Flux)

function loopFinding(l: Loop, ctx: AdviceContext): Draft<Code> {
  const code: Code =
    l.state === 'one-off'
      ? 'ARCH-RL02'
      : l.owner.tool === 'argocd' && l.owner.seen
        ? 'ARCH-RL05'
        : l.owner.tool === 'flux' && l.owner.seen
          ? 'ARCH-RL06'
          : 'ARCH-RL01';
  const field = l.rejection.field ?? 'a field';
  const what = describeRejection(l.rejection);
  const stateLine =
    l.state === 'retrying'
      ? `Retrying: ${l.stateWhy}.`
      : l.state === 'stalled'
        ? `Stalled: ${l.stateWhy}. It still wants the change, so it fails again on the next attempt.`
        : `One-off: ${l.stateWhy}.`;
  const title =
    l.state === 'one-off'
      ? `an immutable-field change to ${refText(l.object)} was rejected and not repeated (${field})`
      : `${ownerText(l)} ${l.state === 'retrying' ? 'keeps retrying' : 'is stuck on'} a change to ${refText(l.object)} that can never apply: ${field} is immutable`;
  const objects: ObjectRef[] = l.owner.tool === 'controller' ? [l.object] : [{ ...l.owner.ref }, l.object];
  return {
    code,
    severity: l.state === 'one-off' ? 'info' : 'error',
    title,
    message: [what, stateLine, l.cadence ? `${cadenceText(l.cadence)}.` : '', `Seen in: ${l.sources.map((s) => s.source).join('; ')}.`]
      .filter(Boolean)
      .join('\n'),
    objects,
    evidence: {
      state: l.state,
      stateWhy: l.stateWhy,
      owner: { tool: l.owner.tool, ...l.owner.ref },
      object: l.object,
      field: l.rejection.field,
      detail: l.rejection.detail,
      value: l.rejection.value,
      liveValue: l.rejection.liveValue,
      changes: l.rejection.changes,
      sources: l.sources,
      retry: l.retry,
      ...(l.cadence ?? {}),
    },
    why: WHY[unbounded(l) ? 'retrying-unbounded' : l.state],
    fix: adviceFor(l, ctx),
  };
}

// ---------------------------------------------------------------- K3s addon deployer

function k3sAddonFindings(events: NormEvent[], ctx: CheckContext): Array<Draft<Code>> {
  const { snap } = ctx;
  const out: Array<Draft<Code>> = [];
  const byAddon = new Map<string, NormEvent[]>();
  for (const e of events) {
    if (e.object.kind !== 'Addon') continue;
    const k = `${e.object.namespace ?? 'kube-system'}/${e.object.name}`;
    byAddon.set(k, [...(byAddon.get(k) ?? []), e]);
  }
  const services = snap.of(R.services);
  const clusterDnsCm = snap.of(R.configmaps).find((c) => c.metadata.namespace === 'kube-system' && c.metadata.name === 'cluster-dns');
  for (const [key, evs] of byAddon) {
    const failed = evs.filter((e) => e.reason === 'ApplyManifestFailed');
    if (failed.length === 0) continue;
    const lastFail = Math.max(...failed.map((e) => e.last ?? -Infinity));
    const applied = evs.filter((e) => e.reason === 'AppliedManifest' && (e.last ?? -Infinity) > lastFail);
    if (applied.length > 0) continue; // failed, then applied: healed
    const count = failed.reduce((n, e) => n + e.count, 0);
    const first = Math.min(...failed.map((e) => e.first ?? Infinity));
    const c = cadence(count, Number.isFinite(first) ? first : undefined, Number.isFinite(lastFail) ? lastFail : undefined, ctx.now);
    const [ns, name] = key.split('/') as [string, string];
    const msg = failed.sort((a, b) => (b.last ?? 0) - (a.last ?? 0))[0]!.message;
    const immutable = isImmutableRejection(msg);
    const rej = immutable ? parseRejections(msg) : [];
    const addonRef: ObjectRef = { kind: 'Addon', apiVersion: 'k3s.cattle.io/v1', namespace: ns, name };
    const objects: ObjectRef[] = [addonRef];
    const evidence: Record<string, unknown> = {
      source: 'k3s-addon',
      addon: key,
      manifest: /at "([^"]+)"/.exec(msg)?.[1],
      message: msg,
      rejections: rej,
      ...c,
    };
    let title = `K3s addon ${name} fails to apply${c.live ? ' on every 15 s re-scan' : ''}`;
    let detail = immutable ? rej.map(describeRejection).join('; ') : msg;
    let fix: Step[] = [
      `read the manifest the addon applies (${(evidence.manifest as string | undefined) ?? `/var/lib/rancher/k3s/server/manifests/${name}.yaml`}) on a server and fix it, or`,
      command([
        'kubectl',
        ...inNamespace(ns),
        'get',
        'events',
        '--field-selector',
        `involvedObject.kind=Addon,involvedObject.name=${name}`,
      ]),
    ];
    // the field-notes case: the CoreDNS Service clusterIP, templated from K3s --cluster-dns
    const svcRej = rej.find((r) => r.kind === 'Service' && /^spec\.clusterIPs?(\[\d+\])?$/.test(r.field ?? ''));
    if (svcRej) {
      const svc = services.find((s) => s.metadata.name === svcRej.name && s.metadata.namespace === (svcRej.namespace ?? 'kube-system'));
      const liveIP: string | undefined = svc?.spec?.clusterIP;
      const original: string | undefined = clusterDnsCm?.data?.clusterDNS;
      const svcNs = svc?.metadata.namespace ?? svcRej.namespace ?? 'kube-system';
      const owner = svc?.metadata.annotations?.['objectset.rio.cattle.io/owner-name'];
      let applied: string | undefined;
      try {
        const raw = svc?.metadata.annotations?.['objectset.rio.cattle.io/applied'];
        if (raw && raw.trimStart().startsWith('{')) applied = (JSON.parse(raw) as KObject).spec?.clusterIP;
      } catch {
        /* gzip+base64 in newer K3s: not decoded here */
      }
      Object.assign(evidence, {
        service: `${svcNs}/${svcRej.name}`,
        field: svcRej.field,
        liveClusterIP: liveIP,
        rejectedClusterIP: svcRej.value,
        originalClusterDNS: original,
        appliedAnnotationClusterIP: applied,
        objectsetOwner: owner,
      });
      if (svc) objects.push({ kind: 'Service', apiVersion: 'v1', namespace: svcNs, name: svcRej.name! });
      title = `K3s keeps re-applying the ${svcRej.name} Service with clusterIP ${svcRej.value ?? '?'} (live: ${liveIP ?? '?'}): it can never apply`;
      detail =
        `The ${name} addon's manifest sets ${svcNs}/${svcRej.name} ${svcRej.field} to ${svcRej.value ?? '?'}, but the live Service has ${liveIP ?? '?'} and clusterIP ${svcRej.detail}.` +
        (original ? ` K3s was first started with cluster-dns ${original} (ConfigMap kube-system/cluster-dns keeps the original).` : '') +
        (owner ? ` The Service is owned by wrangler objectset of Addon ${owner}.` : '');
      fix = [
        `restore the original cluster DNS address on every K3s server: in /etc/rancher/k3s/config.yaml set \`cluster-dns: ${original ?? liveIP ?? '<original>'}\` (or remove the cluster-dns line/--cluster-dns flag), then restart k3s one server at a time (systemctl restart k3s)`,
        `if the goal was NodeLocal DNSCache on ${svcRej.value ?? '169.254.20.10'}: point the kubelets there instead and leave the Service alone — kubelet-arg: ["cluster-dns=${svcRej.value ?? '169.254.20.10'}"]`,
        command(['kubectl', ...inNamespace(svcNs), 'delete', 'service', svcRej.name!], {
          say: `only if the new IP is really wanted (cost: cluster DNS is down for every pod until K3s recreates the Service with ${svcRej.value ?? 'the new IP'}, within 15 s, and pods keep the old nameserver in /etc/resolv.conf until they restart)`,
        }),
      ];
    }
    const state = c.live ? 'retrying' : 'one-off';
    Object.assign(evidence, { state });
    out.push({
      code: immutable && !c.live ? 'ARCH-RL02' : 'ARCH-RL03',
      severity: immutable ? (c.live ? 'error' : 'info') : c.live ? 'warning' : 'info',
      title,
      message: `${detail}\n${cadenceText(c)}.${c.live ? ` The K3s deploy controller re-scans every 15 s and records the checksum only on success, so it will retry forever.` : ''}`,
      objects,
      evidence,
      // the deploy controller re-scans every 15 s for ever; a failure it stopped repeating is history
      why: c.live ? CONTRACT : WHY['one-off'],
      fix,
    });
  }
  return out;
}

/** K3s/RKE2 HelmCharts whose install (or uninstall) job fails on every attempt: one finding per chart, from every
 *  source that shows it (./helmcharts.ts). */
function helmChartFindings(ctx: CheckContext, events: NormEvent[]): Array<Draft<Code>> {
  const { snap, now } = ctx;
  const byChart = new Map<string, ChartEvidence>();
  const get = (namespace: string, name: string): ChartEvidence => {
    const k = `${namespace}/${name}`;
    let e = byChart.get(k);
    if (!e) byChart.set(k, (e = { namespace, name, pods: [], events: [] }));
    return e;
  };
  for (const hc of snap.of(R.helmcharts)) get(hc.metadata.namespace ?? 'kube-system', hc.metadata.name).chart = hc;
  const configs = new Map(snap.of(R.helmchartconfigs).map((c) => [`${c.metadata.namespace}/${c.metadata.name}`, c] as const));
  const jobs = new Map<string, ChartEvidence>();
  for (const j of snap.of(R.jobs)) {
    const c = chartOf(j);
    if (!c || c.action !== 'install') continue;
    const e = get(j.metadata.namespace ?? 'kube-system', c.name);
    e.job = j;
    jobs.set(`${j.metadata.namespace}/${j.metadata.name}`, e);
  }
  for (const p of snap.of(R.pods)) {
    const c = chartOf(p);
    if (c?.action === 'install') get(p.metadata.namespace ?? 'kube-system', c.name).pods.push(p);
  }
  for (const v of events) {
    const o = v.object;
    const ns = o.namespace ?? v.namespace ?? 'kube-system';
    if (o.kind === 'HelmChart' && v.type === 'Warning') get(ns, o.name).events.push(v);
    else if (o.kind === 'Job' || o.kind === 'Pod') {
      const m = /^helm-install-(.+?)(-[a-z0-9]{5})?$/.exec(o.name);
      const known = o.kind === 'Job' ? jobs.get(`${ns}/${o.name}`) : undefined;
      if (known) known.events.push(v);
      else if (m) {
        // a pod's name is the job's plus a suffix: the chart is the job's name less helm-install-
        const chart = o.kind === 'Pod' ? m[1]! : `${m[1]!}${m[2] ?? ''}`;
        get(ns, byChart.has(`${ns}/${chart}`) || o.kind === 'Job' ? chart : m[1]!).events.push(v);
      }
    }
  }
  const visible = {
    charts: !snap.gap(R.helmcharts),
    jobs: !snap.gap(R.jobs),
    pods: !snap.gap(R.pods),
    events: !snap.gap(R.events) || !snap.gap(R.eventsV1),
  };
  // K3s or RKE2 (the forms of the advice), and servers on different versions (a rolling upgrade under way)
  const program = detectDistribution(snap).distribution === 'RKE2' ? 'rke2' : 'k3s';
  const versions = [
    ...new Set(snap.of(R.nodes).map((n) => String(n.status?.nodeInfo?.kubeletVersion ?? '').replace(/^v?(\d+\.\d+)\..*$/, '$1'))),
  ].filter((v) => /^\d+\.\d+$/.test(v));
  const out: Array<Draft<Code>> = [];
  for (const e of byChart.values()) {
    e.config = configs.get(`${e.namespace}/${e.name}`);
    const v = judgeChart(e, now, visible);
    if (!v) continue;
    const packaged =
      isPackaged(e.chart) ||
      (!e.chart && /^(rke2-)?(traefik|traefik-crd|ingress-nginx|coredns|canal|calico|cilium|metrics-server)/.test(e.name));
    const job = e.job?.metadata.name ?? e.chart?.status?.jobName ?? `helm-install-${e.name}`;
    const target = e.chart?.spec?.targetNamespace ?? e.namespace;
    // does the component still run (its last good release), or is it missing altogether?
    const up = componentPods(snap.of(R.pods), e.name, target).filter((p) => p.status?.phase === 'Running');
    const still = visible.pods
      ? up.length
        ? ` Its last good release still runs (${up.length} pod${up.length === 1 ? '' : 's'} in ${target}): what fails is the change.`
        : ` Nothing of it runs in ${target}: ${costOf(e.name, packaged)}.`
      : '';
    const skew = versions.length > 1 ? versions.sort().join(' and ') : undefined;
    const loop =
      v.state === 'abort'
        ? 'The release is in a failed state and failurePolicy is abort: the job exits on purpose, waiting for someone to act, and restarts until then.'
        : v.state === 'retrying'
          ? 'The helm-controller re-runs it after each failure, with a growing back-off (up to 5 minutes), until the Job reaches its backoffLimit (1000 by default).'
          : 'The Job has given up (its backoffLimit reached); the helm-controller runs it again only when the chart or its HelmChartConfig changes, or at the next K3s/RKE2 server start.';
    const version = e.chart?.spec?.version ? ` ${e.chart.spec.version}` : '';
    const reason = v.reason?.trim().split('\n').slice(-3).join(' ');
    const said = reason
      ? v.reasonIsError
        ? ` The reason, as helm wrote it: ${reason}`
        : ` The job's last line: "${reason}" (the reason is in its log).`
      : '';
    out.push({
      code: v.state === 'abort' ? 'ARCH-RL08' : 'ARCH-RL04',
      // its last good release still serving: a stuck upgrade; missing (or not visible): the component is gone
      severity: visible.pods && up.length ? 'warning' : 'error',
      title: `HelmChart ${e.namespace}/${e.name}${version} ${v.state === 'abort' ? 'waits for an operator: its failed release is not retried (failurePolicy abort)' : `cannot install: job ${job} fails on every attempt`}${v.immutable ? ' (an immutable field)' : ''}${sinceText(v.since, now)}`,
      message: `${v.seen.join('; ')}.${said} ${loop}${still}${skew ? ` The nodes run Kubernetes ${skew}: a packaged chart that needs the newer one fails until every server is upgraded.` : ''}${v.lacks.length ? ` Not visible: ${v.lacks.join(', ')} — judged from the rest.` : ''}`,
      objects: [chartRef(e.namespace, e.name)],
      evidence: {
        source: 'k3s-helmchart',
        state: v.state,
        job,
        pods: e.pods.map((p) => p.metadata.name),
        seen: v.seen,
        ...(v.reason ? { lastLine: v.reason } : {}),
        ...((e.config?.spec?.failurePolicy ?? e.chart?.spec?.failurePolicy)
          ? { failurePolicy: e.config?.spec?.failurePolicy ?? e.chart?.spec?.failurePolicy }
          : {}),
        ...(v.since !== undefined ? { since: new Date(v.since).toISOString() } : {}),
      },
      why:
        visible.pods && up.length
          ? `A stuck upgrade: ${componentOf(e.name)} keeps its last good release, and every change to it (values, version, a security fix) waits until the chart installs again.`
          : `${costOf(e.name, packaged)}. ${v.state === 'retrying' ? 'A chart that cannot install fails the same way on every attempt: the loop does not heal by itself.' : 'Nothing changes until the chart, its values or its release are fixed.'}`,
      fix: [
        ...(skew ? [`finish upgrading the servers (they run ${skew}): a chart built for the newer version installs once they all do`] : []),
        command(['kubectl', ...inNamespace(e.namespace), 'logs', `job/${job}`], { say: 'read the reason' }),
        v.immutable
          ? `the chart changes an immutable field: revert that value in the HelmChart (spec.valuesContent) or its HelmChartConfig ${e.namespace}/${e.name}, or recreate that one object knowingly (its cost is in its kind: a Service gets a new clusterIP)`
          : `correct the values in the HelmChart (spec.valuesContent, spec.version) or in its HelmChartConfig ${e.namespace}/${e.name}: the next attempt uses them`,
        ...(v.state === 'abort'
          ? [
              command(['helm', ...inNamespace(target), 'rollback', e.name], {
                say: 'then let it retry: fix or roll back the failed release',
              }),
              'or set failurePolicy: reinstall on the HelmChartConfig, knowing it uninstalls the release first',
            ]
          : []),
        ...(packaged
          ? [
              program === 'rke2'
                ? `where you run your own instead: disable the packaged one (disable: [${e.name}] in /etc/rancher/rke2/config.yaml) on every server — deleting the HelmChart alone uninstalls it, and RKE2 re-creates it from the server's manifests at the next start`
                : `where you run your own instead: disable the packaged one (disable: [${e.name}] in /etc/rancher/k3s/config.yaml, or --disable ${e.name}) on every server — deleting the HelmChart alone uninstalls it, and K3s re-creates it from the server's manifests at the next start`,
            ]
          : []),
      ],
    });
  }
  return out;
}

// ---------------------------------------------------------------- kubelet clusterDNS (--deep)

export interface KubeletDNS {
  node: string;
  clusterDNS?: string[];
  error?: string;
}

/** --deep: each kubelet's clusterDNS, through the API server's node proxy (needs get nodes/proxy). */
export const KUBELET_DNS: NodeGet = {
  id: 'kubeletDNS',
  path: (node) => `/api/v1/nodes/${encodeURIComponent(node)}/proxy/configz`,
  pick: (body) => {
    const dns = (body as { kubeletconfig?: { clusterDNS?: unknown } } | null)?.kubeletconfig?.clusterDNS;
    return Array.isArray(dns) ? dns.map(String) : [];
  },
  forbidden: 'forbidden: needs get nodes/proxy',
};

function dnsDriftFindings(ctx: CheckContext, notes: string[]): Array<Draft<Code>> {
  const answers = ctx.snap.header.perNode?.[KUBELET_DNS.id] ?? ctx.snap.header.kubeletDNS;
  const configs = answers?.map((a) =>
    'value' in a || 'error' in a ? { node: a.node, clusterDNS: (a as { value?: string[] }).value, error: a.error } : a,
  ) as KubeletDNS[] | undefined;
  if (!ctx.deep && !configs) return [];
  if (!configs) {
    notes.push('kubelet clusterDNS (--deep): not captured in this snapshot');
    return [];
  }
  const services = ctx.snap.of(R.services);
  const kubeDns = services.find((s) => s.metadata.namespace === 'kube-system' && s.metadata.name === 'kube-dns');
  const svcIPs = new Set(services.flatMap((s) => [s.spec?.clusterIP, ...(s.spec?.clusterIPs ?? [])]).filter(Boolean));
  const nodeLocal =
    ctx.snap.of(R.daemonsets).some((d) => d.metadata.name === 'node-local-dns' || d.metadata.labels?.['k8s-app'] === 'node-local-dns') ||
    ctx.snap.of(R.pods).some((p) => p.metadata.labels?.['k8s-app'] === 'node-local-dns');
  const out: Array<Draft<Code>> = [];
  const bad = new Map<string, string[]>();
  for (const c of configs) {
    if (c.error) {
      notes.push(`kubelet config of ${c.node} not readable: ${c.error}`);
      continue;
    }
    for (const ip of c.clusterDNS ?? []) {
      if (kubeDns && ip === kubeDns.spec?.clusterIP) continue;
      if (svcIPs.has(ip)) continue;
      if (nodeLocal && ip.startsWith('169.254.')) continue; // NodeLocal DNSCache answers on a link-local IP on each node
      bad.set(ip, [...(bad.get(ip) ?? []), c.node]);
    }
  }
  for (const [ip, nodes] of bad) {
    out.push({
      code: 'ARCH-RL07',
      severity: 'warning',
      title: `kubelets on ${nodes.length} node(s) give pods nameserver ${ip}, which no Service owns`,
      message: `clusterDNS ${ip} on ${nodes.join(', ')}; the kube-dns Service is ${kubeDns?.spec?.clusterIP ?? 'missing'}${nodeLocal ? '' : ' and no NodeLocal DNSCache runs'}. Pods on these nodes resolve through an address nothing answers.`,
      objects: nodes.map((n) => ({ kind: 'Node', name: n })),
      evidence: { source: 'kubelet-configz', clusterDNS: ip, nodes, kubeDnsClusterIP: kubeDns?.spec?.clusterIP, nodeLocalDNS: nodeLocal },
      why: "kubelet writes clusterDNS into every pod's /etc/resolv.conf; if no Service (or node-local cache) answers there, DNS fails for those pods.",
      fix: [
        `set the kubelet clusterDNS back to ${kubeDns?.spec?.clusterIP ?? 'the kube-dns Service IP'} (K3s: cluster-dns / kubelet-arg cluster-dns=...), or deploy NodeLocal DNSCache on ${ip}`,
      ],
    });
  }
  return out;
}

export const retryLoops = defineCheck({
  id: ID,
  title: 'Declarations that can never apply (immutable-field retry loops)',
  severity: 'error',
  map: [
    { contract: 'loops', part: 'K3s deploy controller', about: /\bAddon\b|K3s addon|deploy controller/ },
    { contract: 'loops', part: 'K3s helm controller', about: /\bHelmChart\b|helm controller/ },
    { contract: 'loops', part: 'Argo CD', about: ABOUT.argo },
    { contract: 'loops', part: 'Flux', about: ABOUT.flux },
  ],
  codes: CODES,
  proofs: {
    'ARCH-RL01': ['Event'],
    'ARCH-RL02': ['Event', 'Application.argoproj.io', 'Kustomization.kustomize.toolkit.fluxcd.io', 'HelmRelease.helm.toolkit.fluxcd.io'],
    'ARCH-RL03': ['Event'],
    // a chart alone, its Job alone, its pods alone or their Events alone each make the finding
    'ARCH-RL04': [],
    'ARCH-RL08': [],
    'ARCH-RL05': ['Application.argoproj.io'],
    'ARCH-RL06': ['Kustomization.kustomize.toolkit.fluxcd.io', 'HelmRelease.helm.toolkit.fluxcd.io'],
  },

  // core/v1 and events.k8s.io/v1 are two views of the same stored events: listing one is enough
  // (events.k8s.io objects in snapshot files are still read)
  reads: [
    { ...R.eventsV1, fields: V1_EVENT_FIELDS },
    { ...R.deployments, fields: ['spec.selector'] },
  ],
  needs: [
    {
      ...R.events,
      fields: CORE_EVENT_FIELDS,
      role: 'subject',
      lost: 'rejections seen only in Events (K3s addons, Helm CLI, kubectl, operators) are missed, and no attempt is counted; Argo CD, Flux and K3s HelmChart status are still read',
    },
    {
      ...R.services,
      fields: ['metadata.annotations["objectset.rio.cattle.io/applied"]', 'spec.clusterIP', 'spec.clusterIPs'],
      role: 'context',
      lost: 'live Service values (e.g. clusterIP) cannot be compared',
    },
    { ...CONFIGMAPS, fields: ['data.clusterDNS'], role: 'context', lost: 'the original K3s cluster-dns cannot be read' },
    { ...R.daemonsets, fields: ['spec.selector'], role: 'context', lost: 'NodeLocal DNSCache is found by its pods only (--deep)' },
    {
      ...R.persistentvolumes,
      fields: ['spec.persistentVolumeReclaimPolicy'],
      role: 'context',
      lost: "a claim's data cost (the PV's reclaim policy) is not named in the advice",
    },
    {
      ...R.persistentvolumeclaims,
      fields: ['spec.volumeName'],
      role: 'context',
      lost: "a bound claim's live values cannot be put in the advice",
    },
    {
      ...R.addons,
      fields: [],
      role: 'context',
      lost: 'K3s addons are not listed (their failures still show in Events)',
      relevant: onlyOn('K3s', 'RKE2'),
    },
    {
      ...R.helmcharts,
      fields: ['spec.failurePolicy', 'spec.targetNamespace', 'spec.version', 'status.conditions'],
      role: 'subject',
      lost: "K3s/RKE2 HelmCharts are not listed: their failing installs are seen through their jobs, pods and Events only, without the chart's conditions and failurePolicy",
      relevant: onlyOn('K3s', 'RKE2'),
    },
    {
      ...R.helmchartconfigs,
      fields: ['spec.failurePolicy'],
      role: 'context',
      lost: "a HelmChartConfig's failurePolicy (abort) is not read",
      relevant: onlyOn('K3s', 'RKE2'),
    },
    {
      ...R.jobs,
      fields: [
        'spec.template.metadata.labels',
        'spec.template.metadata.annotations',
        'status.conditions',
        'status.failed',
        'status.startTime',
        'status.succeeded',
      ],
      role: 'subject',
      lost: 'helm-install jobs are not listed: whether one has failed (its backoffLimit reached) is not seen',
      relevant: onlyOn('K3s', 'RKE2'),
    },
    {
      ...R.podsLean,
      fields: [
        'status.containerStatuses[].lastState.terminated.exitCode',
        'status.containerStatuses[].lastState.terminated.message',
        'status.containerStatuses[].lastState.terminated.reason',
        'status.containerStatuses[].name',
        'status.containerStatuses[].restartCount',
        'status.containerStatuses[].state.terminated',
        'status.containerStatuses[].state.waiting.reason',
        'status.phase',
      ],
      role: 'evidence',
      lost: 'helm-install pods are not listed: a chart that crash-loops is seen only through its job, its conditions and Events, and whether its component still runs is not told',
      relevant: onlyOn('K3s', 'RKE2'),
      bodiesFor: (m) => m.labels?.['helmcharts.helm.cattle.io/chart'] !== undefined || /^helm-(install|delete)-/.test(m.name),
    },
    {
      ...R.argoApplications,
      fields: [
        'spec.destination.namespace',
        'spec.syncPolicy.automated',
        'spec.syncPolicy.retry.limit',
        'status.conditions',
        'status.operationState.finishedAt',
        'status.operationState.message',
        'status.operationState.operation.retry.limit',
        'status.operationState.phase',
        'status.operationState.retryCount',
        'status.operationState.startedAt',
        'status.operationState.syncResult.resources[].group',
        'status.operationState.syncResult.resources[].kind',
        'status.operationState.syncResult.resources[].message',
        'status.operationState.syncResult.resources[].name',
        'status.operationState.syncResult.resources[].namespace',
        'status.operationState.syncResult.resources[].version',
        'status.sync.status',
      ],
      role: 'subject',
      lost: 'Argo CD sync status cannot be read: rejections are seen through Events only',
    },
    {
      ...R.fluxKustomizations,
      fields: ['spec.interval', 'spec.retryInterval', 'spec.suspend', 'spec.targetNamespace', 'status.conditions'],
      role: 'subject',
      lost: 'Flux Kustomization status cannot be read: rejections are seen through Events only',
    },
    {
      ...R.fluxHelmReleases,
      fields: ['spec.interval', 'spec.retryInterval', 'spec.suspend', 'spec.targetNamespace', 'status.conditions'],
      role: 'subject',
      lost: 'Flux HelmRelease status cannot be read: rejections are seen through Events only',
    },
  ],
  deep: [KUBELET_DNS],
  docs: {
    summary:
      "changes the API server rejects because a field is immutable (Service clusterIP, selectors, Job template, StatefulSet spec, PVC spec), one finding per owner + object + field from every source (Events, Argo CD, Flux, K3s addons and HelmCharts), with liveness (retrying, stalled, one-off), the whole error, and scoped fixes that name their cost; `--deep` compares each kubelet's clusterDNS with the kube-dns Service",
    what: 'Changes the API server rejects because a field is immutable — a Service clusterIP ("may not change once set", formerly "field is immutable"; "primary clusterIP can not be unset"), a Deployment/DaemonSet/ReplicaSet selector, a Job\'s spec.template, a StatefulSet spec ("updates to statefulset spec for fields other than ... are forbidden"), a PVC spec ("is immutable after creation", with its Go diff) — and whether the loop that sends them still wants them. Every source that shows the same rejection — Warning Events (core/v1 and events.k8s.io/v1), Argo CD Application conditions (SyncError, ComparisonError), operationState and per-resource sync results, Flux Kustomization/HelmRelease conditions, the K3s addon deployer (ApplyManifestFailed on Addon objects, tied to the live Service and ConfigMap kube-system/cluster-dns), K3s HelmCharts — becomes one finding per owner + object + field, with each source listed as evidence. With --deep, each kubelet\'s clusterDNS (nodes/proxy/configz) is compared with the kube-dns Service.\n\nLIVENESS: retrying = the owner is re-applying it now (Argo CD operation Running with a retry, Flux Ready=False, K3s/Event attempts within the last 10 minutes); stalled = the owner gave up or waits for a new revision but still wants the change (Argo CD sync failed / OutOfSync / comparison Unknown, Flux suspended or Stalled); one-off = rejected, then superseded by a later successful apply (or not repeated since).\n\nSEVERITY: a declaration that can never apply is an error as long as its owner still wants it (retrying or stalled); a superseded one-off is info. A K3s addon or HelmChart that fails for another reason is a warning.',
    why: 'In a declarative system an impossible declaration does not fail once and stop. The owning controller re-applies it forever — K3s every 15 s, Argo CD per its retry policy (limit -1 = forever) or on every commit, Flux every retryInterval — and nothing looks broken in `kubectl get pods`. Our field notes lost six hours to K3s `cluster-dns: 169.254.20.10` re-applying the CoreDNS Service with a new clusterIP.',
    fix: 'First make the declaration match what can exist: revert the immutable field in its source (Git, K3s config), or for a bound PVC put the values the cluster set (volumeName, storageClassName) into the manifest. Only if the new value is really wanted, recreate the one object at fault — never the whole app — and know the cost first: a Job runs again, a Service gets a new clusterIP, a Deployment\'s pods restart, a StatefulSet is deleted with --cascade=orphan so its pods stay, a bound PVC is never forced (its data goes with it when the PV\'s reclaimPolicy is Delete). Object-level forms: Argo CD `argocd.argoproj.io/sync-options: Force=true,Replace=true` on that object or `argocd app sync APP --resource GROUP:KIND:NS/NAME`; Flux `kustomize.toolkit.fluxcd.io/force: enabled` on that object (not spec.force on the Kustomization). A rejection "when replacing" or "primary clusterIP can not be unset" means Replace is already in use: stop replacing that object instead. When Argo CD manages itself, recreating its objects replaces the controller doing the sync. For K3s, restore the original cluster-dns (ConfigMap kube-system/cluster-dns keeps it); to use NodeLocal DNSCache, set kubelet-arg cluster-dns instead.',
    limits: `${EVIDENCE_LIMITS} Argo CD keeps only its last operation: a rejection older than a successful sync is seen only through Events. Flux\'s newer HelmRelease reconciler may keep the immutable error only in Events once it is Stalled. Helm CLI releases keep their history in Secrets, which are never read: a failing helm upgrade shows only through Events. K3s Addons have no status: without events the addon deployer\'s state is invisible. When Argo CD or Flux CRDs are absent or forbidden, that source is reported as not visible. The --deep DNS comparison needs get on nodes/proxy, a powerful grant, and is off by default.`,
  },

  run(ctx) {
    const { snap } = ctx;
    const notes: string[] = [];
    const events = normaliseEvents(snap.of(R.events), snap.of(R.eventsV1));
    const apps = snap.of(R.argoApplications);
    // rejected objects are few: index a kind only when one of its objects is looked up
    const byKind = new Map<string, Map<string, KObject>>();
    const lookup = (kind: string, ns: string | undefined, name: string): KObject | undefined => {
      let m = byKind.get(kind);
      if (!m) {
        m = new Map();
        for (const [key, items] of snap.lists())
          if (key === kind || key.startsWith(`${kind}.`))
            for (const o of items) m.set(`${o.metadata.namespace ?? ''}/${o.metadata.name}`, o);
        byKind.set(kind, m);
      }
      return m.get(`${ns ?? ''}/${name}`);
    };
    const loops = findLoops({
      events,
      apps,
      flux: [...snap.of(R.fluxKustomizations), ...snap.of(R.fluxHelmReleases)],
      lookup,
      now: ctx.now,
    });
    const pvs = new Map(snap.of(R.persistentvolumes).map((p) => [p.metadata.name, p] as const));
    const advice: AdviceContext = {
      volumeOf: (pvc) => {
        const claim = lookup('PersistentVolumeClaim', pvc.namespace, pvc.name);
        return claim?.spec?.volumeName ? pvs.get(claim.spec.volumeName) : undefined;
      },
      argoNamespace: apps[0]?.metadata.namespace,
    };
    const findings = [
      ...k3sAddonFindings(events, ctx),
      ...loops.map((l) => loopFinding(l, advice)),
      ...helmChartFindings(ctx, events),
      ...dnsDriftFindings(ctx, notes),
    ];
    // Helm CLI releases keep their state in Secrets, which are never read: say what that hides
    const helmManaged = [...snap.all()].filter(
      (o) => o.metadata.labels?.['app.kubernetes.io/managed-by'] === 'Helm' && !o.metadata.labels?.['helm.toolkit.fluxcd.io/name'],
    ).length;
    if (helmManaged)
      notes.push(
        `${helmManaged} object${helmManaged === 1 ? ' is' : 's are'} managed by Helm: a Helm CLI release keeps its history in Secrets, which kubectl-arch never reads, so a failing helm upgrade on an immutable field shows here only through Events`,
      );
    const looked = [`${events.length} events`];
    if (!snap.visibility(R.addons)) looked.push(`${snap.of(R.addons).length} K3s addons`);
    if (!snap.visibility(R.argoApplications)) looked.push(`${snap.of(R.argoApplications).length} Argo CD apps`);
    if (!snap.visibility(R.fluxKustomizations)) looked.push(`${snap.of(R.fluxKustomizations).length} Flux Kustomizations`);
    return { findings, notes, passed: `no immutable-field rejection in ${looked.join(', ')}` };
  },
});
