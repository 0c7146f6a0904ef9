// Declarations that can never apply: an immutable-field rejection makes the owning reconcile loop
// retry forever, quietly. Sources: Events (core and events.k8s.io), the K3s addon deployer,
// K3s HelmCharts, Argo CD Applications, Flux Kustomizations/HelmReleases, and (--deep) kubelet DNS.
import type { Finding, KObject, ObjectRef } from '../model.js';
import { CONFIGMAPS, R } from '../resources.js';
import { cadence, human, normaliseEvents, type Cadence, type NormEvent } from './lib/events.js';
import { isImmutableRejection, parseRejections, type Rejection } from './lib/immutable.js';
import type { Check, CheckContext } from './types.js';

const ID = 'immutable-retry-loop';

const CONTRACT = 'The desired state can never be reached (the API server rejects the change on every attempt), so the reconcile loop that owns it will never stop retrying.';

function describeRejection(r: Rejection & { liveValue?: string }): string {
  const obj = r.kind && r.name ? `${r.kind} ${r.namespace ? r.namespace + '/' : ''}${r.name}` : 'the object';
  const change = r.value !== undefined ? ` ${r.liveValue !== undefined ? `${r.liveValue} → ` : '→ '}${r.value}` : '';
  return `${obj}: ${r.field ?? 'a field'}${change} rejected (${r.detail})`;
}

/** `spec.clusterIPs[0]` → the live object's value, as text (the "old" side of a rejected change). */
function valueAt(o: KObject, path: string): string | undefined {
  let v: unknown = o;
  for (const part of path.split('.').flatMap((p) => p.split(/\[(\d+)\]/).filter((x) => x !== ''))) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Add the live value of each rejected field, when the object is in the snapshot (e.g. Services, Deployments). */
function withLiveValues(snap: CheckContext['snap'], rej: Rejection[], fallbackNs?: string): Array<Rejection & { liveValue?: string }> {
  return rej.map((r) => {
    if (!r.kind || !r.name || !r.field || r.field === 'spec') return r;
    const ns = r.namespace ?? fallbackNs;
    // the message names the kind without its group: look in every captured group of that kind
    const live = snap.lists().filter(([key]) => key === r.kind || key.startsWith(`${r.kind}.`))
      .flatMap(([, items]) => items).find((o) => o.metadata.name === r.name && (!ns || o.metadata.namespace === ns));
    const liveValue = live ? valueAt(live, r.field) : undefined;
    return liveValue === undefined ? r : { ...r, liveValue };
  });
}

function cadenceText(c: Cadence): string {
  if (!c.loop) return `rejected ${c.attempts === 1 ? 'once' : `${c.attempts} times`}, last ${human(c.lastAgoSeconds)} before capture`;
  return `${c.attempts} attempts recorded over ${human(c.spanSeconds)}${c.perHour ? ` (≈${c.perHour}/h recorded)` : ''}, last ${human(c.lastAgoSeconds)} before capture`;
}

const EVIDENCE_LIMITS = 'Event counts are a lower bound: client-go lets a burst of 25 through, then about one event per 5 minutes per source and object. Events expire (1 h after their last update by default), so an absent event proves nothing.';

// ---------------------------------------------------------------- events on ordinary objects

function eventFindings(events: NormEvent[], ctx: CheckContext): Finding[] {
  const out: Finding[] = [];
  // group by object + reason: the same rejection reported by several events is one loop
  const groups = new Map<string, NormEvent[]>();
  for (const e of events) {
    if (e.object.kind === 'Addon' && e.reason === 'ApplyManifestFailed') continue; // handled with the addon
    if (!isImmutableRejection(e.message)) continue;
    const k = `${e.object.kind}/${e.object.namespace ?? ''}/${e.object.name}/${e.reason}`;
    groups.set(k, [...(groups.get(k) ?? []), e]);
  }
  for (const evs of groups.values()) {
    const e0 = evs[0]!;
    const count = evs.reduce((n, e) => n + e.count, 0);
    const first = Math.min(...evs.map((e) => e.first ?? Infinity));
    const last = Math.max(...evs.map((e) => e.last ?? -Infinity));
    const c = cadence(count, Number.isFinite(first) ? first : undefined, Number.isFinite(last) ? last : undefined, ctx.now);
    const rej = withLiveValues(ctx.snap, parseRejections(e0.message), e0.object.namespace);
    const owner: ObjectRef = { kind: e0.object.kind, namespace: e0.object.namespace, name: e0.object.name, apiVersion: e0.object.apiVersion };
    const what = rej.map(describeRejection).join('; ');
    const base = {
      checkId: ID,
      objects: [owner],
      evidence: { source: 'event', reason: e0.reason, reporter: e0.source, message: e0.message, rejections: rej, ...c, owner },
      why: CONTRACT,
    };
    if (c.live) {
      out.push({ ...base, code: 'ARCH-RL01', severity: 'error',
        title: `${e0.source || 'a controller'} keeps retrying a change that can never apply to ${owner.kind} ${owner.namespace ? owner.namespace + '/' : ''}${owner.name}`,
        message: `${what}\n${cadenceText(c)}. The loop is live.`,
        fix: [
          `find what declares ${rej[0]?.field ?? 'the field'} (${e0.source || 'the reporting controller'}) and revert the change to match the live object, or`,
          `recreate the object deliberately (delete, then let the owner create it) if the new value is really wanted — with the outage that implies`,
          `kubectl get events -A --field-selector involvedObject.name=${owner.name},reason=${e0.reason}`,
        ] });
    } else {
      out.push({ ...base, code: 'ARCH-RL02', severity: 'info',
        title: `an immutable-field change to ${owner.kind} ${owner.namespace ? owner.namespace + '/' : ''}${owner.name} was rejected${c.loop ? ' (repeated, but not recently)' : ' once'}`,
        message: `${what}\n${cadenceText(c)}. Not a live loop${c.loop ? ': it stopped, or events are being rate-limited' : ''}.`,
        fix: ['nothing to do if the change was a one-off mistake; check that whatever sent it will not send it again'] });
    }
  }
  return out;
}

// ---------------------------------------------------------------- K3s addon deployer

function k3sAddonFindings(events: NormEvent[], ctx: CheckContext): Finding[] {
  const { snap } = ctx;
  const out: Finding[] = [];
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
    const evidence: Record<string, unknown> = { source: 'k3s-addon', addon: key, manifest: /at "([^"]+)"/.exec(msg)?.[1], message: msg, rejections: rej, ...c };
    let title = `K3s addon ${name} fails to apply${c.live ? ' on every 15 s re-scan' : ''}`;
    let detail = immutable ? rej.map(describeRejection).join('; ') : msg;
    let fix: string[] = [
      `read the manifest the addon applies (${(evidence.manifest as string | undefined) ?? `/var/lib/rancher/k3s/server/manifests/${name}.yaml`}) on a server and fix it, or`,
      `kubectl -n ${ns} get events --field-selector involvedObject.kind=Addon,involvedObject.name=${name}`,
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
      } catch { /* gzip+base64 in newer K3s: not decoded here */ }
      Object.assign(evidence, { service: `${svcNs}/${svcRej.name}`, field: svcRej.field, liveClusterIP: liveIP, rejectedClusterIP: svcRej.value,
        originalClusterDNS: original, appliedAnnotationClusterIP: applied, objectsetOwner: owner });
      if (svc) objects.push({ kind: 'Service', apiVersion: 'v1', namespace: svcNs, name: svcRej.name! });
      title = `K3s keeps re-applying the ${svcRej.name} Service with clusterIP ${svcRej.value ?? '?'} (live: ${liveIP ?? '?'}): it can never apply`;
      detail = `The ${name} addon's manifest sets ${svcNs}/${svcRej.name} ${svcRej.field} to ${svcRej.value ?? '?'}, but the live Service has ${liveIP ?? '?'} and clusterIP ${svcRej.detail}.` +
        (original ? ` K3s was first started with cluster-dns ${original} (ConfigMap kube-system/cluster-dns keeps the original).` : '') +
        (owner ? ` The Service is owned by wrangler objectset of Addon ${owner}.` : '');
      fix = [
        `restore the original cluster DNS address on every K3s server: in /etc/rancher/k3s/config.yaml set \`cluster-dns: ${original ?? liveIP ?? '<original>'}\` (or remove the cluster-dns line/--cluster-dns flag), then restart k3s one server at a time (systemctl restart k3s)`,
        `if the goal was NodeLocal DNSCache on ${svcRej.value ?? '169.254.20.10'}: point the kubelets there instead and leave the Service alone — kubelet-arg: ["cluster-dns=${svcRej.value ?? '169.254.20.10'}"]`,
        `only if the new IP is really wanted: kubectl -n ${svcNs} delete service ${svcRej.name} (K3s recreates it with ${svcRej.value ?? 'the new IP'} within 15 s) — cluster DNS is down for every pod until it is recreated, and pods keep the old nameserver in /etc/resolv.conf until they restart`,
      ];
    }
    const sev = c.live ? 'error' : c.loop ? 'warning' : 'info';
    out.push({ code: 'ARCH-RL03', checkId: ID, severity: immutable ? sev : c.live ? 'warning' : 'info', title,
      message: `${detail}\n${cadenceText(c)}.${c.live ? ` The K3s deploy controller re-scans every 15 s and records the checksum only on success, so it will retry forever.` : ''}`,
      objects, evidence, why: CONTRACT, fix });
  }
  return out;
}

function helmChartFindings(charts: KObject[]): Finding[] {
  const out: Finding[] = [];
  for (const hc of charts) {
    const failed = (hc.status?.conditions ?? []).find((c: { type: string; status: string }) => c.type === 'Failed' && c.status === 'True');
    if (!failed) continue;
    const msg: string = failed.message ?? failed.reason ?? '';
    const ref: ObjectRef = { kind: 'HelmChart', apiVersion: 'helm.cattle.io/v1', namespace: hc.metadata.namespace, name: hc.metadata.name };
    out.push({ code: 'ARCH-RL04', checkId: ID, severity: isImmutableRejection(msg) ? 'error' : 'warning',
      title: `K3s HelmChart ${hc.metadata.namespace}/${hc.metadata.name} fails${isImmutableRejection(msg) ? ' on an immutable field' : ''}`,
      message: `${msg || 'condition Failed=True'}${hc.status?.jobName ? ` (job ${hc.status.jobName})` : ''}. The helm-controller re-runs the install job after each failure.`,
      objects: [ref], evidence: { source: 'k3s-helmchart', condition: failed, jobName: hc.status?.jobName },
      why: CONTRACT,
      fix: [`kubectl -n ${hc.metadata.namespace} logs job/${hc.status?.jobName ?? `helm-install-${hc.metadata.name}`}`, 'fix the chart values (spec.valuesContent / HelmChartConfig) that change an immutable field, or uninstall and reinstall the release deliberately'] });
  }
  return out;
}

// ---------------------------------------------------------------- Argo CD

function argoFindings(apps: KObject[], snap: CheckContext['snap']): Finding[] {
  const out: Finding[] = [];
  for (const app of apps) {
    const op = app.status?.operationState ?? {};
    const msgs: Array<{ where: string; text: string; resource?: ObjectRef }> = [];
    for (const c of app.status?.conditions ?? []) if (c.type === 'SyncError' && isImmutableRejection(c.message)) msgs.push({ where: 'condition SyncError', text: c.message });
    if (isImmutableRejection(op.message)) msgs.push({ where: 'operationState', text: op.message });
    for (const r of op.syncResult?.resources ?? []) {
      if (isImmutableRejection(r.message)) msgs.push({ where: 'syncResult', text: r.message, resource: { kind: r.kind, apiVersion: r.group ? `${r.group}/${r.version}` : r.version, namespace: r.namespace, name: r.name } });
    }
    if (msgs.length === 0) continue;
    const retry = app.spec?.syncPolicy?.retry;
    const limit: number | undefined = retry?.limit;
    const automated = Boolean(app.spec?.syncPolicy?.automated);
    const forever = typeof limit === 'number' && limit < 0;
    const running = op.phase === 'Running';
    const rej = withLiveValues(snap, msgs.flatMap((m) => parseRejections(m.text).map((r) => ({ ...r, namespace: r.namespace ?? m.resource?.namespace }))), app.spec?.destination?.namespace);
    const ref: ObjectRef = { kind: 'Application', apiVersion: 'argoproj.io/v1alpha1', namespace: app.metadata.namespace, name: app.metadata.name };
    const mode = running && forever ? 'retries forever (syncPolicy.retry.limit: -1) and is retrying now'
      : running ? `is retrying now (attempt ${op.retryCount ?? '?'}${typeof limit === 'number' ? ` of ${limit}` : ''})`
        : automated ? 'has stopped retrying this revision, and fails again on every commit that touches the app'
          : 'failed; a manual sync will fail the same way';
    out.push({ code: 'ARCH-RL05', checkId: ID, severity: running || forever ? 'error' : 'warning',
      title: `Argo CD Application ${app.metadata.name} can never sync: ${rej[0] ? `${rej[0].field ?? 'a field'} of ${rej[0].kind ?? 'an object'} ${rej[0].name ?? ''} is immutable` : 'immutable field'}`,
      message: `${rej.map(describeRejection).join('; ') || msgs[0]!.text}\nThe Application ${mode}.${forever ? ' Retry limit -1 means the controller never gives up.' : ''}`,
      objects: [ref, ...msgs.flatMap((m) => (m.resource ? [m.resource] : []))],
      evidence: { source: 'argocd', phase: op.phase, retryCount: op.retryCount, retryLimit: limit, retriesForever: forever, automated, startedAt: op.startedAt, finishedAt: op.finishedAt, messages: msgs, rejections: rej },
      why: CONTRACT,
      fix: [
        'revert the manifest change to the immutable field in Git (the live value is what the API server will keep)',
        `or let Argo CD recreate the object: sync with Replace=true / Force (argocd app sync ${app.metadata.name} --force --replace) — this deletes and recreates it, with downtime, and for a Service a new clusterIP`,
        ...(forever ? ['set syncPolicy.retry.limit to a finite number so a broken revision stops retrying'] : []),
      ] });
  }
  return out;
}

// ---------------------------------------------------------------- Flux

function fluxFindings(objs: KObject[], snap: CheckContext['snap']): Finding[] {
  const out: Finding[] = [];
  for (const o of objs) {
    const ready = (o.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Ready');
    if (!ready || ready.status !== 'False' || !isImmutableRejection(ready.message)) continue;
    const nsHint = /^[A-Za-z]+\/([a-z0-9-]+)\//.exec(ready.message)?.[1];
    const rej = withLiveValues(snap, parseRejections(ready.message), nsHint);
    const ref: ObjectRef = { kind: o.kind ?? 'Kustomization', apiVersion: o.apiVersion, namespace: o.metadata.namespace, name: o.metadata.name };
    const every = o.spec?.retryInterval ?? o.spec?.interval;
    out.push({ code: 'ARCH-RL06', checkId: ID, severity: o.spec?.suspend ? 'warning' : 'error',
      title: `Flux ${ref.kind} ${ref.namespace}/${ref.name} fails on an immutable field${every && !o.spec?.suspend ? ` every ${every}` : ''}`,
      message: `${rej.map(describeRejection).join('; ') || ready.message}\nReady=False (${ready.reason ?? 'ReconciliationFailed'}) since ${ready.lastTransitionTime ?? '?'}; Flux retries every ${every ?? 'interval'}${o.spec?.suspend ? ' (suspended now)' : ''}.`,
      objects: [ref],
      evidence: { source: 'flux', reason: ready.reason, message: ready.message, since: ready.lastTransitionTime, retryInterval: every, force: Boolean(o.spec?.force), rejections: rej },
      why: CONTRACT,
      fix: [
        'revert the change to the immutable field in the source repository',
        `or set spec.force: true on ${ref.kind} ${ref.name} so Flux deletes and recreates objects it cannot patch — with the downtime (and, for a Service, the new clusterIP) that implies; unset it afterwards`,
      ] });
  }
  return out;
}

// ---------------------------------------------------------------- kubelet clusterDNS (--deep)

export interface KubeletDNS { node: string; clusterDNS?: string[]; error?: string }

function dnsDriftFindings(ctx: CheckContext, notes: string[]): Finding[] {
  const configs = ctx.snap.header.kubeletDNS as KubeletDNS[] | undefined;
  if (!ctx.deep && !configs) return [];
  if (!configs) {
    notes.push('kubelet clusterDNS (--deep): not captured in this snapshot');
    return [];
  }
  const services = ctx.snap.of(R.services);
  const kubeDns = services.find((s) => s.metadata.namespace === 'kube-system' && s.metadata.name === 'kube-dns');
  const svcIPs = new Set(services.flatMap((s) => [s.spec?.clusterIP, ...(s.spec?.clusterIPs ?? [])]).filter(Boolean));
  const nodeLocal = ctx.snap.of(R.daemonsets).some((d) => d.metadata.name === 'node-local-dns' || d.metadata.labels?.['k8s-app'] === 'node-local-dns')
    || ctx.snap.of(R.pods).some((p) => p.metadata.labels?.['k8s-app'] === 'node-local-dns');
  const out: Finding[] = [];
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
    out.push({ code: 'ARCH-RL07', checkId: ID, severity: 'warning',
      title: `kubelets on ${nodes.length} node(s) give pods nameserver ${ip}, which no Service owns`,
      message: `clusterDNS ${ip} on ${nodes.join(', ')}; the kube-dns Service is ${kubeDns?.spec?.clusterIP ?? 'missing'}${nodeLocal ? '' : ' and no NodeLocal DNSCache runs'}. Pods on these nodes resolve through an address nothing answers.`,
      objects: nodes.map((n) => ({ kind: 'Node', name: n })),
      evidence: { source: 'kubelet-configz', clusterDNS: ip, nodes, kubeDnsClusterIP: kubeDns?.spec?.clusterIP, nodeLocalDNS: nodeLocal },
      why: 'kubelet writes clusterDNS into every pod\'s /etc/resolv.conf; if no Service (or node-local cache) answers there, DNS fails for those pods.',
      fix: [`set the kubelet clusterDNS back to ${kubeDns?.spec?.clusterIP ?? 'the kube-dns Service IP'} (K3s: cluster-dns / kubelet-arg cluster-dns=...), or deploy NodeLocal DNSCache on ${ip}`] });
  }
  return out;
}

export const retryLoops: Check = {
  id: ID,
  title: 'Declarations that can never apply (immutable-field retry loops)',
  severity: 'error',
  codes: {
    'ARCH-RL01': 'a controller keeps retrying an immutable-field change (live loop, from Events)',
    'ARCH-RL02': 'an immutable-field change was rejected, but is not (or no longer) repeating',
    'ARCH-RL03': 'a K3s addon manifest fails to apply on every re-scan (e.g. CoreDNS clusterIP from --cluster-dns)',
    'ARCH-RL04': 'a K3s HelmChart install job fails',
    'ARCH-RL05': 'an Argo CD Application can never sync because of an immutable field',
    'ARCH-RL06': 'a Flux Kustomization/HelmRelease fails on an immutable field',
    'ARCH-RL07': 'kubelet clusterDNS points at an IP no Service owns (--deep)',
  },
  // core/v1 and events.k8s.io/v1 are two views of the same stored events: listing one is enough
  // (events.k8s.io objects in snapshot files are still read)
  needs: [R.events, { ...R.services, optional: true }, { ...CONFIGMAPS, optional: true }, { ...R.daemonsets, optional: true },
    { ...R.addons, optional: true }, { ...R.helmcharts, optional: true }, { ...R.argoApplications, optional: true },
    { ...R.fluxKustomizations, optional: true }, { ...R.fluxHelmReleases, optional: true }],
  deepNeeds: [R.nodes],
  docs: {
    what: 'Changes the API server rejects because a field is immutable — a Service clusterIP ("may not change once set", formerly "field is immutable"), a Deployment selector, a StatefulSet spec ("updates to statefulset spec for fields other than ... are forbidden"), a PVC spec ("is immutable after creation") — and whether the loop that sends them is still retrying. Sources: Warning Events (core/v1 and events.k8s.io/v1), K3s addon deployer ApplyManifestFailed events on Addon objects tied to the live Service and ConfigMap kube-system/cluster-dns, K3s HelmCharts, Argo CD Application conditions/operationState, Flux Ready=False conditions; with --deep, each kubelet\'s clusterDNS (nodes/proxy/configz) against the kube-dns Service.',
    why: 'In a declarative system an impossible declaration does not fail once and stop. The owning controller re-applies it forever — K3s every 15 s, Argo CD per its retry policy (limit -1 = forever) or on every commit, Flux every retryInterval — and nothing looks broken in `kubectl get pods`. Our field notes lost six hours to K3s `cluster-dns: 169.254.20.10` re-applying the CoreDNS Service with a new clusterIP.',
    fix: 'Make the declaration match what can exist: revert the immutable field in its source (K3s config, Git), or deliberately delete and recreate the object with the outage that implies (Argo CD Replace/Force, Flux spec.force). For K3s, restore the original cluster-dns (ConfigMap kube-system/cluster-dns keeps it); to use NodeLocal DNSCache, set kubelet-arg cluster-dns instead.',
    limits: `${EVIDENCE_LIMITS} A live loop is one whose last recorded attempt is within 10 minutes of the capture time. K3s Addons have no status: without events the addon deployer\'s state is invisible. Argo CD and Flux are read from their custom resources; when the CRDs are absent or forbidden that source is reported as not visible. The --deep DNS comparison needs get on nodes/proxy, a powerful grant, and is off by default.`,
  },
  run(ctx) {
    const { snap } = ctx;
    const notes: string[] = [];
    for (const [n, why] of [[R.services, 'live Service values (e.g. clusterIP) cannot be compared'], [R.configmaps, 'the original K3s cluster-dns cannot be read']] as const) {
      const v = snap.visibility(n);
      if (v) notes.push(`${n.kind}: ${v.reason} — ${why}`);
    }
    const optional = [R.addons, R.helmcharts, R.argoApplications, R.fluxKustomizations, R.fluxHelmReleases];
    for (const n of optional) {
      const v = snap.visibility(n);
      if (v) notes.push(`${n.kind}${n.group ? '.' + n.group : ''}: ${v.reason}`);
    }
    const events = normaliseEvents(snap.of(R.events), snap.of(R.eventsV1));
    const findings = [
      ...k3sAddonFindings(events, ctx),
      ...eventFindings(events, ctx),
      ...helmChartFindings(snap.of(R.helmcharts)),
      ...argoFindings(snap.of(R.argoApplications), snap),
      ...fluxFindings([...snap.of(R.fluxKustomizations), ...snap.of(R.fluxHelmReleases)], snap),
      ...dnsDriftFindings(ctx, notes),
    ];
    const looked = [`${events.length} events`];
    if (!snap.visibility(R.addons)) looked.push(`${snap.of(R.addons).length} K3s addons`);
    if (!snap.visibility(R.argoApplications)) looked.push(`${snap.of(R.argoApplications).length} Argo CD apps`);
    if (!snap.visibility(R.fluxKustomizations)) looked.push(`${snap.of(R.fluxKustomizations).length} Flux Kustomizations`);
    return { findings, notes, passed: `no immutable-field rejection in ${looked.join(', ')}` };
  },
};
