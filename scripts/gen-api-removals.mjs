#!/usr/bin/env node
// Writes src/lib/api-removals.ts, the one table of API versions each Kubernetes release stops serving, from the
// source the API server itself decides by: the prerelease-lifecycle tags of every beta and alpha type
// (zz_generated.prerelease-lifecycle.go: APILifecycleIntroduced/Deprecated/Removed/Replacement), which the
// kube-apiserver of a release reads to leave out every type whose removed release it has reached
// (k8s.io/apiserver pkg/server/deleted_kinds.go). Types are deleted from k8s.io/api some releases after they stop
// being served, so several releases of the modules are read and their union kept (the newest says it first).
// Run by hand when a release is added (`node scripts/gen-api-removals.mjs`); it downloads the modules with
// `go mod download` (the Go module proxy). The real-cluster suite holds the table to real API servers by difference
// (e2e/upgrade.e2e.test.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Newest first: the newest module is the one whose tags win, and its minor is the newest release the table knows. */
const MODULES = [
  'k8s.io/api@v0.37.2',
  'k8s.io/api@v0.34.6',
  'k8s.io/api@v0.31.14',
  'k8s.io/api@v0.28.15',
  'k8s.io/api@v0.25.16',
  'k8s.io/api@v0.24.17',
  'k8s.io/apiextensions-apiserver@v0.37.2',
  'k8s.io/apiextensions-apiserver@v0.24.17',
  'k8s.io/kube-aggregator@v0.37.2',
  'k8s.io/kube-aggregator@v0.24.17',
];
/** Types with lifecycle tags that are no REST resource of the API server: review bodies it sends to webhooks (every
 *  release up to the newest still sends v1 and v1beta1 AdmissionReview and ConversionReview: k8s.io/apiserver
 *  pkg/admission/plugin/webhook/request/admissionreview.go, k8s.io/apiextensions-apiserver
 *  pkg/apiserver/conversion/webhook_converter.go), discovery documents, a template embedded in CronJob. */
const NOT_RESOURCES = new Set([
  'admission.k8s.io/AdmissionReview',
  'apiextensions.k8s.io/ConversionReview',
  'apidiscovery.k8s.io/APIGroupDiscovery',
  'batch/JobTemplate',
]);
/** Kinds that are requests, not stored objects: no object records who sent them. */
const NOT_STORED = new Set([
  'TokenReview',
  'TokenRequest',
  'SubjectAccessReview',
  'SelfSubjectAccessReview',
  'LocalSubjectAccessReview',
  'SelfSubjectRulesReview',
  'SelfSubjectReview',
  'Eviction',
  'Scale',
  'DeploymentRollback',
  'AdmissionReview',
  'ConversionReview',
]);

const dirOf = (mod) => JSON.parse(execFileSync('go', ['mod', 'download', '-json', mod], { encoding: 'utf8' })).Dir;
const walkNamed = (d, name) =>
  readdirSync(d).flatMap((n) => {
    const p = join(d, n);
    return statSync(p).isDirectory() ? walkNamed(p, name) : n === name ? [p] : [];
  });
const walk = (d) =>
  readdirSync(d).flatMap((n) => {
    const p = join(d, n);
    return statSync(p).isDirectory() ? walk(p) : n === 'zz_generated.prerelease-lifecycle.go' ? [p] : [];
  });

function groupOf(dir) {
  for (const f of ['register.go', 'doc.go']) {
    const p = join(dir, f);
    if (!existsSync(p)) continue;
    const t = readFileSync(p, 'utf8');
    const m = /GroupName\s*=\s*"([^"]*)"/.exec(t) ?? /\+groupName=([\w.-]*)/.exec(t);
    if (m) return m[1] === 'core' ? '' : m[1];
  }
  throw new Error(`no group name in ${dir}`);
}

const rows = new Map();
/** group → kind → the stable versions (v1, v2…) that define it, in any module read. */
const stable = new Map();
let newest = 0;
for (const mod of MODULES) {
  const root = dirOf(mod);
  const minor = Number(/@v0\.(\d+)\./.exec(mod)[1]);
  newest = Math.max(newest, minor);
  // every stable group version's kinds (types.go), for the rows whose tags name no replacement
  for (const types of walkNamed(root, 'types.go')) {
    const dir = types.slice(0, types.lastIndexOf('/'));
    const version = dir.slice(dir.lastIndexOf('/') + 1);
    if (!/^v\d+$/.test(version) || !existsSync(join(dir, 'register.go'))) continue;
    const group = groupOf(dir);
    const kinds = stable.get(group) ?? new Map();
    for (const m of readFileSync(types, 'utf8').matchAll(/^type (\w+) struct/gm))
      kinds.set(m[1], new Set([...(kinds.get(m[1]) ?? []), version]));
    stable.set(group, kinds);
  }
  for (const file of walk(root)) {
    const dir = file.slice(0, file.lastIndexOf('/'));
    const version = dir.slice(dir.lastIndexOf('/') + 1);
    const group = groupOf(dir);
    const text = readFileSync(file, 'utf8');
    const fn = /func \(in \*(\w+)\) APILifecycle(\w+)\(\)[^{]*\{\s*return ([^\n]*)\n/g;
    const byKind = new Map();
    for (const m of text.matchAll(fn)) {
      const [, kind, what, ret] = m;
      if (kind.endsWith('List')) continue;
      const r = byKind.get(kind) ?? {};
      if (what === 'Replacement') {
        const g = /Group: "([^"]*)", Version: "([^"]*)", Kind: "([^"]*)"/.exec(ret);
        if (g) r.replacement = `${g[1] ? `${g[1]}/` : ''}${g[2]}`;
      } else {
        const v = /^(\d+), (\d+)/.exec(ret);
        if (v) r[what.toLowerCase()] = Number(v[2]);
      }
      byKind.set(kind, r);
    }
    for (const [kind, r] of byKind) {
      if (r.removed === undefined || NOT_RESOURCES.has(`${group}/${kind}`)) continue;
      const key = `${group}/${version}/${kind}`;
      if (rows.has(key)) continue;
      rows.set(key, {
        group,
        version,
        kind,
        resource: plural(kind),
        ...(r.introduced !== undefined ? { introduced: r.introduced } : {}),
        ...(r.deprecated !== undefined ? { deprecated: r.deprecated } : {}),
        removed: r.removed,
        ...(r.replacement ? { replacement: r.replacement } : {}),
        ...(NOT_STORED.has(kind) ? { stored: false } : {}),
        source: `${mod.replace(/@.*/, '')}@${mod.split('@')[1]} ${relative(root, dir)}`,
      });
    }
  }
}
/** The resource a kind is served as (the API server's own rule for built-in kinds: lower case, then -ies, -es or -s). */
function plural(kind) {
  const k = kind.toLowerCase();
  if (/[^aeiou]y$/.test(k)) return `${k.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(k)) return `${k}es`;
  return `${k}s`;
}
function relative(root, dir) {
  return dir.slice(root.length + 1);
}

// a type whose tags name no replacement (events.k8s.io/v1beta1 Event, node.k8s.io/v1beta1 RuntimeClass) is replaced by
// the newest stable version of its group that defines the same kind, when there is one
for (const r of rows.values()) {
  if (r.replacement) continue;
  const versions = [...(stable.get(r.group)?.get(r.kind) ?? [])].sort((a, b) => Number(b.slice(1)) - Number(a.slice(1)));
  if (versions.length) r.replacement = r.group ? `${r.group}/${versions[0]}` : versions[0];
}
const list = [...rows.values()].sort(
  (a, b) => a.removed - b.removed || `${a.group}/${a.version}/${a.kind}`.localeCompare(`${b.group}/${b.version}/${b.kind}`),
);
const out = `// Generated by scripts/gen-api-removals.mjs from the prerelease-lifecycle tags of ${MODULES.join(', ')}: do not edit.
// Each row: an API version of a kind and the release that stops serving it (kube-apiserver leaves out every type whose
// removed release it has reached: k8s.io/apiserver pkg/server/deleted_kinds.go), with the version that replaces it.
// Rows removed after v1.${newest} are the tags' schedule as v1.${newest} declares it, not yet a release's decision.
export interface ApiRemoval {
  group: string;
  version: string;
  kind: string;
  /** Its resource name (plural). */
  resource: string;
  introduced?: number;
  deprecated?: number;
  /** The minor release (1.x) that no longer serves it. */
  removed: number;
  /** group/version serving the same kind instead, when there is one. */
  replacement?: string;
  /** false: a request, not a stored object (TokenReview, Eviction…): no object records who sends it. */
  stored?: false;
  /** The module and package its tags were read from. */
  source: string;
}

/** The newest release whose removals are decided (the newest k8s.io/api read). */
export const REMOVALS_KNOWN_TO = ${newest};

export const API_REMOVALS: readonly ApiRemoval[] = ${JSON.stringify(list, null, 2)
  .replace(/"(\w+)":/g, '$1:')
  .replace(/"/g, "'")};
`;
writeFileSync(new URL('../src/lib/api-removals.ts', import.meta.url), out);
console.log(`${list.length} removals, releases up to v1.${newest}`);
