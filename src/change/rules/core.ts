// The core group's update rules (kube-apiserver pkg/apis/core/validation, the registries' strategies and the Service
// REST allocator, the PersistentVolumeClaimResize admission plugin), v1.24–v1.36, each with the release it holds from.
import { DETAILS } from '../../checks/immutable-retry-loop/immutable.js';
import type { KObject } from '../../model.js';
import { podFixedPart, POD_UPDATABLE } from '../../resources.js';
import { digestMatches, isDigest } from '../../snapshot/digest.js';

/** Where a snapshot keeps a Pod spec's fixed part, as one digest. */
const FIXED = 'kubectl-arch.io/fixed';
import { quantity, pathText, same, shortJson, valueAt, type Difference } from './diff.js';
import { shortValue, type Rule, type Update } from './update.js';

const json = (v: unknown): string => JSON.stringify(v ?? null);
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export { DETAILS };

// ---- Service

const needsIP = (s: Record<string, unknown>): boolean => s.type !== 'ExternalName';
const ipsOf = (s: Record<string, unknown>): string[] =>
  Array.isArray(s.clusterIPs) && s.clusterIPs.length
    ? (s.clusterIPs as string[])
    : typeof s.clusterIP === 'string' && s.clusterIP
      ? [s.clusterIP]
      : [];

/**
 * The Service as the API server validates it after its REST layer: an address left out (or "") keeps the live one
 * (patchAllocatedValues); a type that no longer needs node ports, a health check port or an address drops those it
 * did not change (dropTypeDependentFields, v1.20+).
 */
function serviceReceived(old: Record<string, unknown>, s: Record<string, unknown>, minor: number | undefined): Record<string, unknown> {
  const out = JSON.parse(JSON.stringify(s)) as Record<string, unknown>;
  // before v1.20 an address left out was a change to "" (field is immutable): nothing was kept on the client's behalf
  if (minor !== undefined && minor < 20) return out;
  if (needsIP(old) && needsIP(out)) {
    if (!out.clusterIP) out.clusterIP = old.clusterIP;
    if (!Array.isArray(out.clusterIPs) || !out.clusterIPs.length) out.clusterIPs = old.clusterIPs;
    else if (
      out.clusterIP !== (out.clusterIPs as string[])[0] &&
      (old.clusterIPs as string[] | undefined)?.[0] === (out.clusterIPs as string[])[0]
    )
      // clusterIP changed alone: the server makes clusterIPs follow it (normalizeClusterIPs)
      out.clusterIPs = [out.clusterIP, ...(out.clusterIPs as string[]).slice(1)];
    if (!Array.isArray(out.ipFamilies) || !out.ipFamilies.length) out.ipFamilies = old.ipFamilies;
    if (out.ipFamilyPolicy === undefined) out.ipFamilyPolicy = old.ipFamilyPolicy;
  }
  if (needsIP(old) && !needsIP(out)) {
    // to ExternalName: the address is released when the manifest did not change it
    if (same(out.clusterIP, old.clusterIP) === true || !out.clusterIP) delete out.clusterIP;
    if (same(out.clusterIPs, old.clusterIPs) === true || !out.clusterIPs) delete out.clusterIPs;
    if (same(out.ipFamilies, old.ipFamilies) === true) delete out.ipFamilies;
    if (same(out.ipFamilyPolicy, old.ipFamilyPolicy) === true) delete out.ipFamilyPolicy;
  }
  const nodePorts = (t: unknown): boolean => t === 'NodePort' || t === 'LoadBalancer';
  if (nodePorts(old.type) && !nodePorts(out.type) && Array.isArray(out.ports)) {
    const oldPorts = (old.ports ?? []) as Array<Record<string, unknown>>;
    out.ports = (out.ports as Array<Record<string, unknown>>).map((p, i) =>
      p.nodePort !== undefined && p.nodePort === oldPorts[i]?.nodePort
        ? Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'nodePort'))
        : p,
    );
  }
  // what the new type has no use for, unchanged by the manifest, is dropped (dropTypeDependentFields)
  if (
    nodePorts(old.type) &&
    !nodePorts(out.type) &&
    out.externalTrafficPolicy !== undefined &&
    out.externalTrafficPolicy === old.externalTrafficPolicy
  )
    delete out.externalTrafficPolicy;
  if (old.type === 'LoadBalancer' && out.type !== 'LoadBalancer' && out.allocateLoadBalancerNodePorts === old.allocateLoadBalancerNodePorts)
    delete out.allocateLoadBalancerNodePorts;
  if (out.healthCheckNodePort !== undefined && out.healthCheckNodePort === old.healthCheckNodePort) {
    const needsHC = out.type === 'LoadBalancer' && out.externalTrafficPolicy === 'Local';
    if (!needsHC) delete out.healthCheckNodePort;
  }
  return out;
}

const service: Rule = (u) => {
  const old = (u.old.spec ?? {}) as Record<string, unknown>;
  const s = serviceReceived(old, (u.next.spec ?? {}) as Record<string, unknown>, u.minor);
  if (
    u.minor !== undefined &&
    u.minor < 20 &&
    needsIP(old) &&
    needsIP(s) &&
    typeof old.clusterIP === 'string' &&
    s.clusterIP !== old.clusterIP
  ) {
    u.cover('spec.clusterIP', 'spec.clusterIPs');
    u.refuse({
      field: 'spec.clusterIP',
      at: ['spec', 'clusterIP'],
      error: `spec.clusterIP: Invalid value: ${json(s.clusterIP ?? '')}: ${DETAILS.immutable}`,
      status: 422,
      live: String(old.clusterIP),
      desired: String(s.clusterIP ?? '(not set)'),
    });
  }
  const cover = (...p: string[]): Difference[] => u.cover(...p);
  const oldIPs = ipsOf(old);
  const newIPs = ipsOf(s);
  // the addresses: none may change unless the Service goes to or from ExternalName
  cover('spec.clusterIP', 'spec.clusterIPs', 'spec.ipFamilies', 'spec.ipFamilyPolicy');
  if (needsIP(old) && needsIP(s)) {
    const i = newIPs.findIndex((ip, k) => oldIPs[k] !== undefined && ip !== oldIPs[k]);
    if (i >= 0)
      u.refuse({
        field: `spec.clusterIPs[${i}]`,
        at: i === 0 && (u.next.spec ?? {}).clusterIP !== old.clusterIP ? ['spec', 'clusterIP'] : ['spec', 'clusterIPs', i],
        error: `spec.clusterIPs[${i}]: Invalid value: ${json(newIPs)}: ${DETAILS.changeOnce}`,
        status: 422,
        live: oldIPs[i],
        desired: newIPs[i],
      });
    const oldFam = (old.ipFamilies ?? []) as string[];
    const newFam = (s.ipFamilies ?? []) as string[];
    const policy = String(s.ipFamilyPolicy ?? 'SingleStack');
    const families = u.ctx.serviceFamilies;
    const dropsIP = newIPs.length === 1 && oldIPs.length === 2;
    const dropsFamily = newFam.length === 1 && oldFam.length === 2;
    if (i < 0 && policy !== 'SingleStack' && (dropsIP || dropsFamily))
      u.refuse({
        field: 'spec.ipFamilyPolicy',
        at: ['spec', 'ipFamilyPolicy'],
        error: `spec.ipFamilyPolicy: Invalid value: ${json(policy)}: ${DETAILS.releaseSecondary} ${dropsIP ? 'cluster IP' : 'IP family'}`,
        status: 422,
        live: `${oldFam.join(',')} (${String(old.ipFamilyPolicy ?? 'SingleStack')})`,
        desired: `${newFam.join(',')} (${policy})`,
      });
    else if (i < 0 && newFam[0] && oldFam[0] && newFam[0] !== oldFam[0])
      u.refuse({
        field: 'spec.ipFamilies[0]',
        at: ['spec', 'ipFamilies', 0],
        error: `spec.ipFamilies[0]: Invalid value: ${json(newFam)}: ${DETAILS.changeOnce}`,
        status: 422,
        live: oldFam[0],
        desired: newFam[0],
      });
    else if (i < 0 && families && families.length === 1) {
      // a single-stack cluster: dual-stack can be preferred, not required, and the other family is not there
      if (policy === 'RequireDualStack')
        u.refuse({
          field: 'spec.ipFamilyPolicy',
          at: ['spec', 'ipFamilyPolicy'],
          error: `spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services`,
          status: 422,
          live: String(old.ipFamilyPolicy ?? 'SingleStack'),
          desired: policy,
        });
      const other = newFam.findIndex((f) => !families.includes(f));
      if (other >= 0 && policy !== 'RequireDualStack')
        u.refuse({
          field: `spec.ipFamilies[${other}]`,
          at: ['spec', 'ipFamilies'],
          error: `spec.ipFamilies[${other}]: Invalid value: ${json(newFam[other])}: not configured on this cluster`,
          status: 422,
          live: oldFam.join(','),
          desired: newFam.join(','),
        });
    } else if (i < 0 && !families && (policy === 'RequireDualStack' || newFam.length > oldFam.length))
      u.unseen.push({ at: ['spec', 'ipFamilyPolicy'], why: 'whether the cluster serves dual-stack Services (no Service visible says)' });
    // headless to a type that needs an address
    if ((s.type === 'LoadBalancer' || s.type === 'NodePort') && newIPs[0] === 'None')
      u.refuse({
        field: 'spec.clusterIPs[0]',
        at: ['spec', 'type'],
        error: `spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for ${String(s.type)} services`,
        status: 422,
        live: `${String(old.type ?? 'ClusterIP')}, clusterIP None`,
        desired: String(s.type),
      });
  }
  if (s.type === 'ExternalName') {
    if (!s.externalName)
      u.refuse({ field: 'spec.externalName', at: ['spec', 'type'], error: 'spec.externalName: Required value', status: 422 });
    if (s.clusterIP)
      u.refuse({
        field: 'spec.clusterIPs',
        at: ['spec', 'clusterIP'],
        error: 'spec.clusterIPs: Invalid value: …: may not be set for ExternalName services',
        status: 422,
      });
  }
  cover('spec.type', 'spec.externalName');
  // loadBalancerClass: set once, with the type
  const lbc = cover('spec.loadBalancerClass');
  if (s.loadBalancerClass !== undefined && s.type !== 'LoadBalancer')
    u.refuse({
      field: 'spec.loadBalancerClass',
      at: ['spec', 'loadBalancerClass'],
      error: `spec.loadBalancerClass: Invalid value: ${json(s.loadBalancerClass)}: may only be used when \`type\` is 'LoadBalancer'`,
      status: 422,
    });
  else if (lbc.length && old.type === 'LoadBalancer' && s.type === 'LoadBalancer')
    u.refuse({
      field: 'spec.loadBalancerClass',
      at: ['spec', 'loadBalancerClass'],
      error: `spec.loadBalancerClass: Invalid value: ${json(s.loadBalancerClass ?? null)}: ${DETAILS.changeOnce}`,
      status: 422,
      live: String(old.loadBalancerClass ?? '(none)'),
      desired: String(s.loadBalancerClass ?? '(none)'),
    });
  // ports: node ports only where the type has them
  cover('spec.ports');
  const ports = (s.ports ?? []) as Array<Record<string, unknown>>;
  if (s.type !== 'NodePort' && s.type !== 'LoadBalancer')
    ports.forEach((p, i) => {
      if (p.nodePort !== undefined && p.nodePort !== 0)
        u.refuse({
          field: `spec.ports[${i}].nodePort`,
          at: ['spec', 'ports', i, 'nodePort'],
          error: `spec.ports[${i}].nodePort: Forbidden: may not be used when \`type\` is '${String(s.type ?? 'ClusterIP')}'`,
          status: 422,
        });
    });
  // each port once by number and protocol, each name once
  ports.forEach((p, i) => {
    const dup = ports.findIndex((q, j) => j < i && q.port === p.port && (q.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
    if (dup >= 0)
      u.refuse({ field: `spec.ports[${i}]`, at: ['spec', 'ports', i], error: `spec.ports[${i}]: Duplicate value: …`, status: 422 });
    const named = p.name ? ports.findIndex((q, j) => j < i && q.name === p.name) : -1;
    if (named >= 0)
      u.refuse({
        field: `spec.ports[${i}].name`,
        at: ['spec', 'ports', i, 'name'],
        error: `spec.ports[${i}].name: Duplicate value: ${json(p.name)}`,
        status: 422,
      });
  });
  if (s.type !== 'ExternalName' && !ports.length && s.clusterIP !== 'None' && newIPs[0] !== 'None')
    u.refuse({ field: 'spec.ports', at: ['spec', 'ports'], error: 'spec.ports: Required value', status: 422 });
  // traffic policies: external only for node ports and load balancers
  cover('spec.externalTrafficPolicy', 'spec.healthCheckNodePort', 'spec.internalTrafficPolicy', 'spec.allocateLoadBalancerNodePorts');
  const needsHealthCheck = (x: Record<string, unknown>): boolean => x.type === 'LoadBalancer' && x.externalTrafficPolicy === 'Local';
  if (
    needsHealthCheck(old) &&
    needsHealthCheck(s) &&
    s.healthCheckNodePort !== undefined &&
    s.healthCheckNodePort !== old.healthCheckNodePort
  )
    u.refuse({
      field: 'spec.healthCheckNodePort',
      at: ['spec', 'healthCheckNodePort'],
      error: `spec.healthCheckNodePort: Forbidden: ${DETAILS.immutable}`,
      status: 422,
      live: String(old.healthCheckNodePort),
      desired: String(s.healthCheckNodePort),
    });
  if (s.externalTrafficPolicy !== undefined && s.type !== 'NodePort' && s.type !== 'LoadBalancer' && !u.since(27))
    u.refuse({
      field: 'spec.externalTrafficPolicy',
      at: ['spec', 'externalTrafficPolicy'],
      error: `spec.externalTrafficPolicy: Invalid value: ${json(s.externalTrafficPolicy)}: may only be set when \`type\` is 'NodePort' or 'LoadBalancer'`,
      status: 422,
    });
  if (s.allocateLoadBalancerNodePorts !== undefined && s.type !== 'LoadBalancer' && !u.since(27))
    u.refuse({
      field: 'spec.allocateLoadBalancerNodePorts',
      at: ['spec', 'allocateLoadBalancerNodePorts'],
      error: "spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when `type` is 'LoadBalancer'",
      status: 422,
    });
  u.allow(
    'spec.selector',
    'spec.sessionAffinity',
    'spec.sessionAffinityConfig',
    'spec.externalIPs',
    'spec.publishNotReadyAddresses',
    'spec.loadBalancerSourceRanges',
    'spec.loadBalancerIP',
    'spec.trafficDistribution',
  );
};

// ---- Pod

/** The fields a Pod update may change, as the API server lists them (v1.27+: scheduling gates). */
const podUpdatable = (minor: number | undefined): string =>
  minor !== undefined && minor < 27
    ? 'spec.containers[*].image, spec.initContainers[*].image, spec.activeDeadlineSeconds, spec.tolerations (only additions to existing tolerations) or spec.terminationGracePeriodSeconds (allow it to be set to 1 if it was previously negative)'
    : 'spec.containers[*].image,spec.initContainers[*].image,spec.activeDeadlineSeconds,spec.tolerations (only additions to existing tolerations),spec.terminationGracePeriodSeconds (allow it to be set to 1 if it was previously negative)';

const pod: Rule = (u) => {
  const old = (u.old.spec ?? {}) as Record<string, unknown>;
  const s = (u.next.spec ?? {}) as Record<string, unknown>;
  // images may change (never to nothing), in the same containers
  for (const list of ['containers', 'initContainers'] as const) {
    const a = (old[list] ?? []) as Array<Record<string, unknown>>;
    const b = (s[list] ?? []) as Array<Record<string, unknown>>;
    if (a.length === b.length) u.cover(`spec.${list}[*].image`);
  }
  const ads = u.cover('spec.activeDeadlineSeconds');
  if (ads.length) {
    const a = old.activeDeadlineSeconds as number | undefined;
    const b = s.activeDeadlineSeconds as number | undefined;
    if (b === undefined && a !== undefined)
      u.refuse({
        field: 'spec.activeDeadlineSeconds',
        at: ['spec', 'activeDeadlineSeconds'],
        error: 'spec.activeDeadlineSeconds: Invalid value: "null": must not update from a positive integer to nil value',
        status: 422,
      });
    else if (a !== undefined && b !== undefined && b > a)
      u.refuse({
        field: 'spec.activeDeadlineSeconds',
        at: ['spec', 'activeDeadlineSeconds'],
        error: `spec.activeDeadlineSeconds: Invalid value: ${b}: must be less than or equal to previous value`,
        status: 422,
        live: String(a),
        desired: String(b),
      });
  }
  // tolerations: the ones there stay (tolerationSeconds aside); more may be added
  const tol = u.cover('spec.tolerations');
  if (tol.length) {
    const a = (old.tolerations ?? []) as Array<Record<string, unknown>>;
    const b = (s.tolerations ?? []) as Array<Record<string, unknown>>;
    const key = (t: Record<string, unknown>): string => json({ ...t, tolerationSeconds: undefined });
    const kept = a.every((t) => b.some((x) => key(x) === key(t)));
    if (!kept)
      u.refuse({
        field: 'spec.tolerations',
        at: ['spec', 'tolerations'],
        error: 'spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds',
        status: 422,
      });
  }
  // scheduling gates may only be removed; a gated pod may gain node selectors and node affinity (v1.27+)
  const gates = u.cover('spec.schedulingGates');
  if (gates.length) {
    const a = ((old.schedulingGates ?? []) as Array<{ name?: string }>).map((g) => g.name);
    const b = ((s.schedulingGates ?? []) as Array<{ name?: string }>).map((g) => g.name);
    if (b.some((g) => !a.includes(g)))
      u.refuse({
        field: 'spec.schedulingGates',
        at: ['spec', 'schedulingGates'],
        error: 'spec.schedulingGates: Forbidden: only deletion is allowed',
        status: 422,
      });
  }
  if (((old.schedulingGates ?? []) as unknown[]).length && u.since(27)) u.cover('spec.nodeSelector', 'spec.affinity.nodeAffinity');
  // a snapshot keeps the spec's fixed part as one digest (src/resources.ts narrowPod): the same digest, nothing fixed changed
  const fixed = (u.old.spec ?? {})[FIXED];
  if (isDigest(fixed)) {
    const rest = u.uncovered().filter((d) => d.path[0] === 'spec' && !POD_UPDATABLE.includes(String(d.path[1])));
    if (digestMatches(fixed, podFixedPart(s))) for (const d of rest) u.cover(pathText(d.path));
    else if (s.enableServiceLinks !== undefined) {
      // the manifest is a whole Pod as the server holds it (kubectl get -o yaml): something fixed changed
      for (const d of rest) u.cover(pathText(d.path));
      u.refuse({
        field: 'spec',
        at: ['spec'],
        error: `spec: Forbidden: ${DETAILS.podUpdate} ${podUpdatable(u.minor)}`,
        status: 422,
        path: 'spec (a field the snapshot keeps as one digest)',
      });
    }
  }
  const tgps = u.changed('spec.terminationGracePeriodSeconds');
  if (
    tgps.length &&
    typeof old.terminationGracePeriodSeconds === 'number' &&
    old.terminationGracePeriodSeconds < 0 &&
    s.terminationGracePeriodSeconds === 1
  )
    u.cover('spec.terminationGracePeriodSeconds');
  // the rest of the spec is what it was
  const rest = u.known(u.coverRest('spec'), 'a Pod spec');
  if (rest.length)
    u.refuse({
      field: 'spec',
      at: rest[0]!.path,
      error: `spec: Forbidden: ${DETAILS.podUpdate} ${podUpdatable(u.minor)}`,
      status: 422,
      path: pathText(rest[0]!.path),
      live: shortJson(rest[0]!.old),
      desired: shortJson(rest[0]!.new),
    });
};

// ---- PersistentVolumeClaim

const storageOf = (s: Record<string, unknown>): unknown =>
  (s.resources as { requests?: { storage?: unknown } } | undefined)?.requests?.storage;
const BETA_CLASS = 'volume.beta.kubernetes.io/storage-class';
/** A claim's class as the resize admission plugin reads it: the beta annotation first, then the field. */
const claimClass = (o: KObject): string => {
  const a = o.metadata.annotations?.[BETA_CLASS];
  if (a) return a;
  return typeof o.spec?.storageClassName === 'string' ? o.spec.storageClassName : '';
};

const pvc: Rule = (u) => {
  const old = (u.old.spec ?? {}) as Record<string, unknown>;
  const s = (u.next.spec ?? {}) as Record<string, unknown>;
  const bound = (u.old.status as Record<string, unknown> | undefined)?.phase === 'Bound';
  // the beta class annotation is the class: it may not change either
  const ann = u.changed(`metadata.annotations`).filter((d) => d.path[2] === BETA_CLASS);
  if (ann.length && u.old.metadata.annotations?.[BETA_CLASS] !== undefined)
    u.refuse({
      field: `metadata.annotations.${BETA_CLASS}`,
      at: ['metadata', 'annotations'],
      error: `metadata.annotations.${BETA_CLASS}: Invalid value: ${json(u.next.metadata.annotations?.[BETA_CLASS] ?? '')}: ${DETAILS.immutable}`,
      status: 422,
    });
  // what may change: the size of a bound claim, its attributes class, a volumeName or a class set for the first time
  if (bound) u.cover('spec.resources.requests.storage');
  if (bound && u.since(29)) u.cover('spec.volumeAttributesClassName');
  if (!old.volumeName) u.cover('spec.volumeName');
  if (old.storageClassName === undefined || old.storageClassName === null) {
    // set once, to the class the beta annotation already names (or with no annotation)
    const ann2 = u.old.metadata.annotations?.[BETA_CLASS];
    if (!ann2 || ann2 === s.storageClassName) u.cover('spec.storageClassName');
  }
  const mode = u.known(u.cover('spec.volumeMode'), 'volumeMode');
  const rest = u.known(u.coverRest('spec'), 'a claim spec');
  const specWords = u.since(29)
    ? `spec: Forbidden: ${DETAILS.pvcSpec} and volumeAttributesClassName for bound claims`
    : `spec: Forbidden: ${DETAILS.pvcSpec} for bound claims`;
  if (rest.length || mode.length) {
    const d = (rest[0] ?? mode[0])!;
    u.refuse({
      field: 'spec',
      at: d.path,
      error: `${specWords}`,
      status: 422,
      path: pathText(d.path),
      live: shortJson(d.old),
      desired: shortJson(d.new),
    });
  }
  if (mode.length)
    u.refuse({
      field: 'volumeMode',
      at: ['spec', 'volumeMode'],
      error: `volumeMode: Invalid value: ${json(s.volumeMode)}: ${DETAILS.immutable}`,
      status: 422,
      live: String(old.volumeMode),
      desired: String(s.volumeMode),
    });
  // the size: never below what the volume has; growing only where the class allows it (admission)
  const want = quantity(storageOf(s));
  const had = quantity(storageOf(old));
  if (bound && want !== undefined && had !== undefined && want !== had) {
    const at = ['spec', 'resources', 'requests', 'storage'];
    const wantText = String(storageOf(s));
    const hadText = String(storageOf(old));
    if (want < had) {
      // RecoverVolumeExpansionFailure (beta and on from v1.32): down to above what the volume has, not below
      const capacity = quantity((u.old.status as { capacity?: { storage?: unknown } } | undefined)?.capacity?.storage);
      const recover = u.since(32);
      if (!recover || capacity === undefined || want < capacity)
        u.refuse({
          field: 'spec.resources.requests.storage',
          at,
          error: `spec.resources.requests.storage: Forbidden: ${recover ? DETAILS.lessThanCapacity : DETAILS.lessThanPrevious}`,
          status: 422,
          live: hadText,
          desired: wantText,
        });
    } else if (!u.refusals.length) {
      const cls = claimClass(u.old);
      const sc = cls ? u.ctx.storageClass(cls) : null;
      if (sc === undefined)
        u.unseen.push({ at, why: `the size grows, and StorageClasses are not visible to say whether ${cls} allows expansion` });
      else if (!sc || sc.allowVolumeExpansion !== true)
        u.refuse({
          field: 'spec.resources.requests.storage',
          at,
          error: DETAILS.resize,
          status: 403,
          live: hadText,
          desired: `${wantText} (${cls ? (sc ? `StorageClass ${cls} has no allowVolumeExpansion: true` : `no StorageClass ${cls}`) : 'no StorageClass: a statically provisioned volume'})`,
        });
    }
  }
};

// ---- PersistentVolume

export const PV_SOURCES = [
  'awsElasticBlockStore',
  'azureDisk',
  'azureFile',
  'cephfs',
  'cinder',
  'csi',
  'fc',
  'flexVolume',
  'flocker',
  'gcePersistentDisk',
  'glusterfs',
  'hostPath',
  'iscsi',
  'local',
  'nfs',
  'photonPersistentDisk',
  'portworxVolume',
  'quobyte',
  'rbd',
  'scaleIO',
  'storageos',
  'vsphereVolume',
];

const pv: Rule = (u) => {
  const old = (u.old.spec ?? {}) as Record<string, unknown>;
  const s = (u.next.spec ?? {}) as Record<string, unknown>;
  const src = u.known(u.cover(...PV_SOURCES.map((k) => `spec.${k}`)), 'a volume source');
  if (src.length) {
    const k = PV_SOURCES.find((x) => s[x] !== undefined) ?? String(src[0]!.path[1]);
    u.refuse({
      field: 'spec.persistentvolumesource',
      at: src[0]!.path,
      error: `spec.persistentvolumesource: Forbidden: spec.persistentvolumesource ${DETAILS.pvSource}`,
      status: 422,
      live: shortJson(PV_SOURCES.filter((x) => old[x] !== undefined).map((x) => ({ [x]: old[x] }))[0]),
      desired: shortJson({ [k]: s[k] }),
    });
  }
  if (u.known(u.cover('spec.volumeMode'), 'volumeMode').length)
    u.refuse({
      field: 'volumeMode',
      at: ['spec', 'volumeMode'],
      error: `volumeMode: Invalid value: ${json(s.volumeMode)}: ${DETAILS.immutable}`,
      status: 422,
      live: String(old.volumeMode),
      desired: String(s.volumeMode),
    });
  // node affinity: set once (v1.24+ also from nothing)
  const na = u.cover('spec.nodeAffinity');
  if (na.length && old.nodeAffinity !== undefined)
    u.refuse({
      field: 'spec.nodeAffinity',
      at: ['spec', 'nodeAffinity'],
      error: `spec.nodeAffinity: Invalid value: …: ${DETAILS.immutable}`,
      status: 422,
    });
  u.allow(
    'spec.capacity',
    'spec.accessModes',
    'spec.claimRef',
    'spec.persistentVolumeReclaimPolicy',
    'spec.storageClassName',
    'spec.mountOptions',
    'spec.volumeAttributesClassName',
  );
};

// ---- ConfigMap and Secret

const immutableData =
  (fields: string[]): Rule =>
  (u) => {
    const wasImmutable = u.old.immutable === true;
    const body = u.old.data !== undefined || u.old.binaryData !== undefined || u.old.immutable !== undefined || u.old.kind === 'Secret';
    const changed = u.cover(...fields, 'immutable');
    if (!changed.length) return;
    if (!body && u.old.kind === 'ConfigMap') {
      u.unseen.push({ at: ['data'], why: "the live ConfigMap's body was not read (whether it is immutable is not known)" });
      return;
    }
    if (!wasImmutable) return;
    if (u.next.immutable !== true)
      u.refuse({
        field: 'immutable',
        at: ['immutable'],
        error: `immutable: Forbidden: ${DETAILS.immutableSet}`,
        status: 422,
        live: 'true',
        desired: String(u.next.immutable ?? '(not set)'),
      });
    for (const k of fields) {
      const ds = u.known(u.changed(k), 'data');
      if (ds.length) u.refuse({ field: k, at: [k], error: `${k}: Forbidden: ${DETAILS.immutableSet}`, status: 422 });
    }
  };

const secret: Rule = (u) => {
  immutableData(['data', 'stringData'])(u);
  if (u.known(u.cover('type'), 'type').length)
    u.refuse({ field: 'type', at: ['type'], error: `type: Invalid value: ${json(u.next.type)}: ${DETAILS.immutable}`, status: 422 });
};

// ---- the other core kinds

const node: Rule = (u) => {
  const old = (u.old.spec ?? {}) as Record<string, unknown>;
  const s = (u.next.spec ?? {}) as Record<string, unknown>;
  const cidr = u.cover('spec.podCIDR', 'spec.podCIDRs');
  const oldCIDRs = (old.podCIDRs as string[] | undefined) ?? (old.podCIDR ? [old.podCIDR as string] : []);
  const newCIDRs =
    (s.podCIDR ? [s.podCIDR, ...((s.podCIDRs as string[] | undefined) ?? []).slice(1)] : (s.podCIDRs as string[] | undefined)) ?? [];
  if (cidr.length && oldCIDRs.length && same(oldCIDRs, newCIDRs) !== true)
    u.refuse({
      field: 'spec.podCIDRs',
      at: ['spec', 'podCIDRs'],
      error: 'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
      status: 422,
    });
  const pid = u.cover('spec.providerID');
  if (pid.length && old.providerID)
    u.refuse({
      field: 'spec.providerID',
      at: ['spec', 'providerID'],
      error: 'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
      status: 422,
    });
  u.allow('spec.taints', 'spec.unschedulable', 'spec.configSource', 'spec.externalID');
};

const replicationController: Rule = (u) => {
  u.allow('spec.replicas', 'spec.minReadySeconds', 'spec.selector', 'spec.template');
  selectorMatchesTemplate(u, (u.next.spec ?? {}).selector as Record<string, string> | undefined);
};

/** A controller's selector must select its own template (create validation, which every update runs again). */
export function selectorMatchesTemplate(u: Update, labels: Record<string, string> | undefined, expressions: unknown[] = []): void {
  if (!u.changed('spec.selector', 'spec.template.metadata.labels').length) return;
  const tl = ((u.next.spec?.template?.metadata?.labels ?? {}) as Record<string, string>) ?? {};
  const ok = Object.entries(labels ?? {}).every(([k, v]) => tl[k] === v) && !expressions.length;
  if (!ok && !expressions.length)
    u.refuse({
      field: 'spec.template.metadata.labels',
      at: ['spec', 'template', 'metadata', 'labels'],
      error: `spec.template.metadata.labels: Invalid value: ${json(tl)}: \`selector\` does not match template \`labels\``,
      status: 422,
    });
}

const resourceQuota: Rule = (u) => {
  u.immutable('spec.scopes', 'spec.scopes');
  u.immutable('spec.scopeSelector', 'spec.scopeSelector');
  u.allow('spec.hard');
};

const namespace: Rule = (u) => {
  // the server keeps its own finalizers and the name label (PrepareForUpdate)
  u.allow('spec.finalizers');
};

export const CORE_RULES: Record<string, Rule> = {
  Service: service,
  Pod: pod,
  PersistentVolumeClaim: pvc,
  PersistentVolume: pv,
  ConfigMap: immutableData(['data', 'binaryData']),
  Secret: secret,
  Node: node,
  ReplicationController: replicationController,
  ResourceQuota: resourceQuota,
  Namespace: namespace,
  ServiceAccount: (u) => u.allow('secrets', 'imagePullSecrets', 'automountServiceAccountToken'),
  Endpoints: (u) => u.allow('subsets'),
  LimitRange: (u) => u.allow('spec.limits'),
  PodTemplate: (u) => u.allow('template'),
  Event: (u) =>
    u.allow(
      'involvedObject',
      'reason',
      'message',
      'source',
      'firstTimestamp',
      'lastTimestamp',
      'count',
      'type',
      'eventTime',
      'series',
      'action',
      'related',
      'reportingComponent',
      'reportingInstance',
    ),
};

export { isObj, json, valueAt, shortValue };
