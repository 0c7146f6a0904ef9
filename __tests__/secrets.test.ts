// Nothing secret leaves in a snapshot (#38, #43): a snapshot keeps only the fields the checks declare (the allowlist
// test holds them to it), and every kept string passes one credential redactor. Planted here: credentials in the
// places known to carry them, and — because an allowlist is only as good as what it keeps — a credential in every
// shape people write one, in every string position of every kept type. None may appear in a saved snapshot, any -o
// format, an HTML page, a diff or an MCP answer, whether the objects were listed from an API server or loaded from a
// `kubectl get -o yaml` dump.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import type { KObject, ResourceType } from '../src/model.js';
import { CONFIGMAPS, PV_SOURCES, R } from '../src/resources.js';
import { ingest, keptFields } from '../src/snapshot/scrub.js';
import { cannotHold, redactShapes, redactText } from '../src/snapshot/redact.js';
import { parsePath } from '../src/snapshot/fields.js';
import { snapshotDocuments } from '../src/snapshot/save.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { SEED } from './helpers/seed.js';
import { call, startMcp } from './helpers/mcp.js';
import { arch, BIN } from './helpers/run.js';
import { startTestApiServer, type TestApiServer } from './helpers/testApiServer.js';
import { tempDir } from './helpers/tmp.js';

type Plant = (o: KObject, s: string) => void;
/** Where a value goes, creating the objects on the way; a number is an index into an array. */
function put(o: Record<string, unknown>, path: Array<string | number>, v: unknown): void {
  let cur: Record<string | number, unknown> = o;
  path.forEach((k, i) => {
    if (i === path.length - 1) {
      cur[k] = v;
      return;
    }
    if (cur[k] === undefined || cur[k] === null) cur[k] = typeof path[i + 1] === 'number' ? [] : {};
    cur = cur[k] as Record<string | number, unknown>;
  });
}
const at =
  (...path: Array<string | number>): ((v: (s: string) => unknown) => Plant) =>
  (v) =>
  (o, s) =>
    put(o as unknown as Record<string, unknown>, path, v(s));

/** Every object may carry these: a copy of what was applied, credentials in URLs, a token in an annotation. */
const ANY: Plant[] = [
  // an apiVersion a release removes for PodDisruptionBudgets: of those the door keeps the apiVersion (what-if --upgrade)
  at(
    'metadata',
    'annotations',
    'kubectl.kubernetes.io/last-applied-configuration',
  )((s) => JSON.stringify({ apiVersion: 'policy/v1beta1', data: { password: s } })),
  at('metadata', 'annotations', 'example.com/database-url')((s) => `postgres://app:${s}@db.internal:5432/app`),
  at('metadata', 'annotations', 'example.com/git')((s) => `https://${s}@git.example.com/org/repo.git`),
  at('metadata', 'annotations', 'example.com/api-token')((s) => s),
];

/** A pod's containers: env values, and flags whose name says what they hold. */
const containers = (...base: Array<string | number>): Plant[] => [
  at(
    ...base,
    'containers',
    0,
    'env',
  )((s) => [
    { name: 'DB_PASSWORD', value: s },
    { name: 'FROM_REF', valueFrom: { secretKeyRef: { name: 'db', key: 'pw' } } },
  ]),
  at(...base, 'containers', 1, 'args')((s) => ['--listen=:8080', '--password', s, `--api-token=${s}x`]),
  at(...base, 'containers', 2, 'command')((s) => ['/manager', `--client-secret=${s}`, '--access-key', s]),
  at(...base, 'initContainers', 0, 'env')((s) => [{ name: 'TOKEN', value: s }]),
];
const TEMPLATE = containers('spec', 'template', 'spec');

/** Every place Argo CD writes a source: the spec and the copies in its status and operation. */
const ARGO_SOURCES: Array<Array<string | number>> = [
  ['spec', 'source'],
  ['spec', 'sources', 1],
  ['status', 'sync', 'comparedTo', 'source'],
  ['status', 'sync', 'comparedTo', 'sources', 0],
  ['status', 'operationState', 'syncResult', 'source'],
  ['status', 'operationState', 'syncResult', 'sources', 0],
  ['status', 'operationState', 'operation', 'sync', 'source'],
  ['status', 'operationState', 'operation', 'sync', 'sources', 0],
  ['operation', 'sync', 'source'],
  ['operation', 'sync', 'sources', 0],
  ['status', 'history', 0, 'source'],
];
const ARGO: Plant[] = ARGO_SOURCES.flatMap((p) => [
  at(...p, 'repoURL')((s) => `https://user:${s}@git.example.com/org/deploy.git`),
  at(...p, 'helm', 'values')((s) => `db:\n  password: ${s}\n`),
  at(...p, 'helm', 'valuesObject')((s) => ({ db: { anything: s } })),
  at(...p, 'helm', 'parameters')((s) => [{ name: 'db.anything', value: s }]),
  at(...p, 'helm', 'fileParameters')((s) => [{ name: 'x', path: s }]),
  at(...p, 'plugin', 'env')((s) => [{ name: 'ANY', value: s }]),
  at(...p, 'plugin', 'parameters')((s) => [{ name: 'any', string: s, map: { k: s }, array: [s] }]),
  at(...p, 'directory', 'jsonnet', 'extVars')((s) => [{ name: 'any', value: s }]),
  at(...p, 'kustomize', 'patches')((s) => [{ patch: `- op: add\n  value: ${s}` }]),
]);

const NODE_ARGS = (s: string): string =>
  JSON.stringify([
    'server',
    '--token',
    s,
    `--agent-token=${s}`,
    `--kube-apiserver-arg=oidc-client-secret=${s}`,
    `--kube-apiserver-arg=oidc-issuer-url=https://issuer.example.com`,
    '--etcd-s3-secret-key',
    s,
    '--etcd-s3-access-key',
    s,
    `--datastore-endpoint=postgres://k3s:${s}@db:5432/k3s`,
  ]);

/** Each type a snapshot captures, how an object of it is made, and the fields of it known to carry values. */
interface Carrier {
  type: ResourceType;
  base: (n: number) => KObject;
  plants: Plant[];
}
const obj = (t: ResourceType, name: string, extra: Partial<KObject> = {}): KObject => ({
  apiVersion: t.group ? `${t.group}/${t.version}` : t.version,
  kind: t.kind,
  ...extra,
  metadata: { name, ...(t.namespaced ? { namespace: 'kube-system' } : {}), uid: `uid-${t.kind}-${name}`, ...(extra.metadata ?? {}) },
});
const SECRET_TYPE: ResourceType = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
const WIDGET_TYPE: ResourceType = { group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true };
const SPECIFIC: Partial<Record<string, Plant[]>> = {
  Node: [
    at('metadata', 'annotations', 'k3s.io/node-args')(NODE_ARGS),
    at('metadata', 'annotations', 'rke2.io/node-args')(NODE_ARGS),
    at('metadata', 'annotations', 'k3s.io/node-env')((s) => JSON.stringify({ K3S_TOKEN: s })),
  ],
  Pod: containers('spec'),
  // managedFields of a removed version are kept (apiVersion, manager, operation, time), never what they list
  PodDisruptionBudget: [
    at(
      'metadata',
      'managedFields',
    )((s) => [
      {
        manager: `deploy.sh --password ${s}`,
        operation: 'Update',
        apiVersion: 'policy/v1beta1',
        time: '2025-11-01T10:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:annotations': { [`f:${s}x`]: {} } } },
      },
    ]),
  ],
  Deployment: TEMPLATE,
  StatefulSet: TEMPLATE,
  DaemonSet: TEMPLATE,
  ReplicaSet: TEMPLATE,
  // what-if -f keeps a Job's whole spec: its template's env values and arguments only as digests (#45)
  Job: [
    ...TEMPLATE,
    at('spec', 'template', 'spec', 'containers', 3, 'livenessProbe', 'exec', 'command')((s) => ['sh', '-c', `check --token ${s}`]),
  ],
  ControllerRevision: [at('data', 'spec', 'template', 'spec', 'containers', 0, 'env')((s) => [{ name: 'ANY', value: s }])],
  VolumeAttachment: [at('spec', 'source', 'inlineVolumeSpec', 'csi', 'volumeAttributes', 'anything')((s) => s)],
  Application: ARGO,
  HelmRelease: [
    at('spec', 'values')((s) => ({ anything: s })),
    at('spec', 'postRenderers')((s) => [{ kustomize: { patches: [{ patch: `- op: add\n  value: ${s}` }] } }]),
  ],
  Kustomization: [
    at('spec', 'postBuild', 'substitute')((s) => ({ ANY: s })),
    at('spec', 'patches')((s) => [{ patch: `- op: add\n  value: ${s}` }]),
    at('spec', 'patchesStrategicMerge')((s) => [{ data: { any: s } }]),
  ],
  HelmChart: [
    at('spec', 'valuesContent')((s) => `any: ${s}\n`),
    at('spec', 'set')((s) => ({ any: s })),
    at('spec', 'chartContent')((s) => Buffer.from(s).toString('base64')),
    at('spec', 'repo')((s) => `https://charts:${s}@charts.example.com`),
  ],
  ConfigMap: [at('data', 'any')((s) => s), at('data', 'oidc.config')((s) => `clientSecret: ${s}\n`)],
  Secret: [at('data', 'password')((s) => Buffer.from(s).toString('base64')), at('stringData', 'password')((s) => s)],
  StorageClass: [
    at('parameters', 'restuserkey')((s) => s),
    at('parameters', 'storageAccountKey')((s) => s),
    at('parameters', 'anything')((s) => s),
  ],
  PersistentVolume: [
    at('spec', 'csi', 'volumeAttributes', 'password')((s) => s),
    at('spec', 'csi', 'volumeAttributes', 'anything')((s) => s),
    at('spec', 'flexVolume', 'options', 'anything')((s) => s),
  ],
  Event: [at('message')((s) => `Applying manifest failed: fetching https://x-access-token:${s}@github.com/org/repo`)],
};
/** Names of objects whose bodies are read (ConfigMaps) or that the checks look at more closely. */
const NAMES: Partial<Record<string, string[]>> = {
  ConfigMap: ['argocd-cm', 'kubeadm-config', 'cluster-dns', 'k3s-etcd-snapshots', 'app-settings'],
};
const CARRIERS: Carrier[] = [
  ...new Map([...Object.values(R), CONFIGMAPS, SECRET_TYPE, WIDGET_TYPE].map((t) => [t.kind + t.group, t])).values(),
].map((t) => ({
  type: { group: t.group, version: t.version, resource: t.resource, kind: t.kind, namespaced: t.namespaced },
  base: (n) => obj(t, NAMES[t.kind]?.[n % (NAMES[t.kind]!.length || 1)] ?? `planted-${n}`),
  plants: [...ANY, ...(SPECIFIC[t.kind] ?? [])],
}));

/** One object of a type with every carrier holding a credential of its own; returns them. */
function planted(c: Carrier, n: number, secret: (i: number) => string): { o: KObject; secrets: string[] } {
  const o = c.base(n);
  const secrets = c.plants.map((p, i) => {
    const s = secret(i);
    p(o, s);
    return s;
  });
  if (c.type.kind === 'ConfigMap' && o.metadata.name === 'kubeadm-config')
    o.data = {
      ClusterConfiguration: `apiServer:\n  extraArgs:\n    oidc-client-secret: ${secret(99)}\netcd:\n  local:\n    dataDir: /var/lib/etcd\n`,
    };
  if (c.type.kind === 'ConfigMap' && o.metadata.name === 'kubeadm-config') secrets.push(secret(99));
  return { o, secrets };
}

/** A credential as planted, or base64-encoded as Secret data and chart tarballs carry it. */
const forms = (s: string): string[] => [s, Buffer.from(s).toString('base64')];
const holds = (text: string, s: string): boolean => forms(s).some((f) => text.includes(f));

const saved = (objects: KObject[]): string => {
  const snap = new Snapshot({ capturedAt: '2026-08-13T09:00:00Z' });
  for (const o of objects) snap.addObject(o);
  return [...snapshotDocuments(snap, 'yaml'), ...snapshotDocuments(snap, 'json')].join('');
};

describe(`property: no planted credential survives the way into a snapshot [seed ${SEED}]`, () => {
  // credentials as people write them: letters, digits and the punctuation of generated passwords
  const credential = fc.stringMatching(/^[A-Za-z0-9+/=_.~!%-]{10,24}$/).map((s) => `Pl4nt${s}`);
  test('every captured type, every carrier, any credential: the saved snapshot holds none of them', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CARRIERS), fc.nat(10), fc.array(credential, { minLength: 100, maxLength: 100 }), (c, n, creds) => {
        const { o, secrets } = planted(c, n, (i) => creds[i % creds.length]! + i);
        const text = saved([ingest(structuredClone(o))]);
        for (const s of secrets) expect([c.type.kind, s, holds(text, s)]).toEqual([c.type.kind, s, false]);
      }),
      { numRuns: 400 },
    );
  });

  test('every carrier is tried on every type (the table above is not dead)', () => {
    for (const c of CARRIERS) {
      const { o, secrets } = planted(c, 0, (i) => `Pl4ntTable${c.type.kind}${i}`);
      const raw = JSON.stringify(o);
      for (const s of secrets) expect([s, holds(raw, s)]).toEqual([s, true]);
      const text = saved([ingest(o)]);
      for (const s of secrets) expect([c.type.kind, s, holds(text, s)]).toEqual([c.type.kind, s, false]);
    }
  });

  test('what the checks read stays: names, labels, selectors, the flags checks read and where a source is', () => {
    const { o: node } = planted(
      CARRIERS.find((c) => c.type.kind === 'Node')!,
      0,
      (i) => `Pl4nt${i}`,
    );
    node.metadata.labels = { 'node-role.kubernetes.io/etcd': 'true', token: 'label-values-are-names' };
    const n = ingest(node);
    expect(n.metadata.labels).toEqual({ 'node-role.kubernetes.io/etcd': 'true', token: 'label-values-are-names' });
    const args = JSON.parse(n.metadata.annotations!['k3s.io/node-args']!) as string[];
    expect(args).toContain('--kube-apiserver-arg=oidc-issuer-url=https://issuer.example.com');
    expect(args).toContain('--kube-apiserver-arg=oidc-client-secret=********');
    expect(args).toContain('--datastore-endpoint=********');
    const app = ingest(
      obj(R.argoApplications, 'web', {
        spec: {
          destination: { namespace: 'web' },
          source: { repoURL: 'https://u:p@git.example.com/r.git', path: 'apps/web', targetRevision: 'main', helm: { values: 'x' } },
        },
        status: { resources: [{ kind: 'Service', namespace: 'web', name: 'web', status: 'Synced' }] },
      }),
    );
    // no check reads where an Argo CD source is: it is not kept at all (nor Helm values, parameters, plugin env)
    expect(app.spec).toEqual({ destination: { namespace: 'web' } });
    expect(app.status.resources).toEqual([{ kind: 'Service', namespace: 'web', name: 'web', status: 'Synced' }]);
  });
});

// ---- every shape, every kept string position

/** A credential as people write it, in the shapes the redactor knows; `s` is the secret part. */
const SHAPES: Array<(s: string) => string> = [
  (s) => `https://deploy:${s}@git.example.com/org/repo.git`,
  (s) => `fetching https://hooks.example.com/validate?token=${s}&x=1 failed`,
  (s) => `https://api.example.com/v1?access_token=${s}`,
  (s) => `mount failed: mount -t cifs -o username=app,password=${s} //srv/share`,
  (s) => `DB_PASSWORD: ${s}`,
  (s) => `{"clientSecret": "${s}", "issuer": "https://idp"}`,
  (s) => `exec /app --password ${s} --listen :8080`,
  (s) => `k3s server --db-pass=${s}`,
  (s) => `--vpn-auth=name=tailscale,joinKey=${s}`,
  (s) => `sh -c "mysql -u root -p${s} app; curl -u admin:${s}x https://x"`,
  (s) => `Authorization: Bearer ${s}`,
  (s) => `--auth=Basic ${Buffer.from(`admin:${s}`).toString('base64')}`,
  (s) =>
    `Job.batch "migrate" is invalid: spec.template: Invalid value: core.PodTemplateSpec{Spec:core.PodSpec{Containers:[]core.Container{core.Container{Name:"m", Args:[]string{"--password=${s}"}, Env:[]core.EnvVar{core.EnvVar{Name:"DB_PASSWORD", Value:"${s}", ValueFrom:(*core.EnvVarSource)(nil)}}}}}}: field is immutable`,
  // the same rejection as a v1.36 API server writes it (a Go struct as JSON with its Go names), from e2e/secrets.e2e.test.ts
  (s) =>
    `Job.batch "migrate" is invalid: spec.template: Invalid value: {"labels":{"job-name":"migrate"},"Spec":{"Volumes":null,"Containers":[{"Name":"m","Image":"migrate:2","Command":["sh","-c","mysql -p${s}"],"Args":["--pw", "${s}"],"Env":[{"Name":"DB_PASSWORD","Value":"${s}","ValueFrom":null}]}]}}: field is immutable`,
  (s) => `-----BEGIN RSA PRIVATE KEY-----\nMIIE${s}\n-----END RSA PRIVATE KEY-----`,
  (s) => `eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ${s}.c2lnbmF0dXJl`,
  (s) => `K10${'ab12'.repeat(8)}::server:${s}`,
  (s) => `user:${s}@tcp(db.internal:3306)/app`,
  (s) => `{"name":"API_TOKEN","value":"${s}"}`,
];

/** What a snapshot may hold as it is: names (metadata.name, namespace, uid, labels, owners, finalizers). */
const IDENTITY = /^metadata\.(name|namespace|uid|labels|ownerReferences|finalizers|creationTimestamp|deletionTimestamp)\b/;

/** An object of a type with a string at every kept path (a list gets one element, a pattern key a key it matches). */
function everywhere(t: ResourceType, name: string, value: (path: string) => string): KObject {
  const o = obj(t, name);
  const { own, metadata } = keptFields(t.group, t.kind);
  for (const p of [...metadata, ...own]) {
    if (IDENTITY.test(p)) continue;
    const segs = parsePath(p).map((x) => x.replace(/\*/g, 'x'));
    const path: Array<string | number> = [];
    for (const x of segs) path.push(x === '[]' ? 0 : x);
    // a whole subtree kept: a string in it, under a key that names nothing
    put(
      o as unknown as Record<string, unknown>,
      [
        ...path,
        ...(/(conditions|selector|rules|addresses|state|template\.metadata\.\w+|names|data|binaryData|capacity|ports|targetRef|nodeAffinity|syncOptions|retry|automated|resources|series|notReadyAddresses|conditions)$/.test(
          p,
        ) || PV_SOURCES.some((v) => p.endsWith(v))
          ? ['note']
          : []),
      ],
      value(p),
    );
  }
  return o;
}

describe(`property: a credential in any shape, in any kept string position, is masked [seed ${SEED}]`, () => {
  const secret = fc.stringMatching(/^[A-Za-z0-9]{12,20}$/).map((x) => `Pl4nt${x}`);
  const types = [...new Map([...Object.values(R), CONFIGMAPS].map((t) => [t.kind + t.group, t])).values()];
  test('every kept type, every kept path, every shape', () => {
    fc.assert(
      fc.property(fc.constantFrom(...types), fc.integer({ min: 0, max: SHAPES.length - 1 }), secret, (t, shape, sec) => {
        const name = t.kind === 'ConfigMap' ? 'kubeadm-config' : 'planted';
        const o = everywhere(t, name, (p) => SHAPES[shape]!(`${sec}${p.length}`));
        const text = saved([ingest(structuredClone(o))]);
        expect([t.kind, shape, text.includes(sec)]).toEqual([t.kind, shape, false]);
        // the credentials were kept somewhere (every type keeps some annotations) and masked there: not vacuous
        expect(text).toContain('********');
      }),
      { numRuns: 300 },
    );
  });

  test('each shape, in a free-text field kept as it is (an Event message): masked, and the words around it kept', () => {
    for (const [i, shape] of SHAPES.entries()) {
      const sec = `Pl4ntShape${i}z`;
      const e = ingest({ ...obj(R.events, `e${i}`), type: 'Warning', reason: 'Failed', message: shape(sec) });
      expect([i, e.message.includes(sec), e.message.includes('********')]).toEqual([i, false, true]);
    }
  });

  test('what is not secret stays: a certificate, a port, a name that says token, a reference to a Secret', () => {
    const keep = [
      '-----BEGIN CERTIFICATE-----\nMIIBdz\n-----END CERTIFICATE-----',
      'listen on :8443, timeout 30s',
      'Service "token-service" is invalid: spec.clusterIP: Invalid value: "10.43.0.11": may not change once set',
      'passwordSecretRef: db-credentials',
      'the server has asked for the client to provide credentials',
    ];
    for (const m of keep) expect(ingest({ ...obj(R.events, 'k'), type: 'Warning', message: m }).message).toBe(m);
  });
});

// The redactor returns most kept strings (names, times, addresses) at once, without its passes: that shortcut may
// only skip a text no pass would change. Texts are drawn from the pieces the passes look for, so many are near misses.
describe(`property: the redactor's shortcut skips only what its passes leave as it is [seed ${SEED}]`, () => {
  const piece = fc.constantFrom(
    ...['a', 'Z', '0', '9', '.', '-', '_', '/', ':', '::', '//', '@', '=', ' ', '\n', '"', "'", '{', '}', '[', ']', '(', ')'],
    ...['eyJ', 'eyJhbGciOi', 'K10', 'Bearer', 'Basic', 'https', 'tcp', 'Value', 'Args', 'Command', 'mysql', '-p', '-u'],
    ...['password', 'Passwd', 'token', 'SECRET', 'apiKey', 'access_key', 'credentials', 'pass', 'pwd', 'joinKey'],
    ...['-----BEGIN ', 'PRIVATE KEY', '?', '&', ';', 'Ref', 'Name', '10.42.0.1', '2026-12-06T10:00:22Z'],
  );
  test('a text the shortcut skips is one every pass leaves unchanged', () => {
    let skipped = 0;
    fc.assert(
      fc.property(fc.array(piece, { minLength: 2, maxLength: 14 }), (ps) => {
        const s = ps.join('');
        if (!cannotHold(s)) return;
        skipped++;
        expect(redactShapes(s)).toBe(s);
      }),
      { numRuns: 20_000 },
    );
    // not vacuous: a good share of the drawn texts took the shortcut
    expect(skipped).toBeGreaterThan(1000);
  });
  test('names, times and addresses take it; a credential of any shape does not', () => {
    for (const s of ['node.kubernetes.io/not-ready', '2026-12-06T10:00:22Z', '6b2a48cf-cc02-4ca9-880b-5e64d3815d13', '10.42.0.10'])
      expect(cannotHold(s)).toBe(true);
    for (const [i, shape] of SHAPES.entries()) expect([i, cannotHold(shape('Pl4ntSecret0123'))]).toEqual([i, false]);
  });
});

// A kept text is the attacker's to shape: each shape that made one of the redactor's expressions quadratic (8 MB of
// it never finished), a mebibyte long, then a credential at its end, which is masked all the same.
describe('hostile long texts are redacted to the end', () => {
  const MB = 1 << 20;
  const shapes: Record<string, string> = {
    'a long word': 'x',
    'a secret word repeated': 'password',
    'a flag of it': '--password',
    'a query of it': '?password',
    'user:host': 'a:',
    'URL schemes': 'http://',
    'unclosed JSON args lists': '"args":[',
    'unclosed Go string lists': 'Args:[]string{',
    'unclosed quotes after a key': 'password="',
    'Value: quotes': 'Value:"',
    'mysql -p': 'mysql -p',
    'curl -u': ' -u a:',
  };
  test.each(Object.entries(shapes))('%s', (_name, unit) => {
    const secret = 'TailSecret0123456789';
    const text = `${unit.repeat(Math.ceil(MB / unit.length))} password=${secret} Authorization: Bearer ${secret}`;
    const out = redactText(text);
    expect(out.includes(secret)).toBe(false);
    expect(out.length).toBeGreaterThan(MB / 2);
  });
});

describe('nothing planted reaches any output, from a cluster or from a dump', () => {
  let srv: TestApiServer;
  const secrets: string[] = [];
  const objects: KObject[] = [];
  const dumpDir = tempDir();
  beforeAll(async () => {
    let k = 0;
    for (const c of CARRIERS)
      for (let n = 0; n < (NAMES[c.type.kind]?.length ?? 1); n++) {
        const p = planted(c, n, (i) => `Pl4ntE2e${k++}z${i}`);
        objects.push(p.o);
        secrets.push(...p.secrets);
      }
    // one Ready server for what-if, with the credentials in its args
    const server = objects.find((o) => o.kind === 'Node')!;
    server.metadata.labels = { 'node-role.kubernetes.io/control-plane': 'true', 'node-role.kubernetes.io/etcd': 'true' };
    server.status = { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.35.4+k3s1' } };
    srv = await startTestApiServer({ types: CARRIERS.map((c) => c.type), objects: structuredClone(objects) });
    mkdirSync(join(dumpDir, 'dump'));
    writeFileSync(join(dumpDir, 'dump', 'all.yaml'), objects.map((o) => dump(o, { lineWidth: -1 })).join('---\n'));
  });
  afterAll(async () => srv?.close());

  const leaked = (text: string): string[] => secrets.filter((s) => holds(text, s));
  const node = (): string => objects.find((o) => o.kind === 'Node')!.metadata.name;
  const outputs = (source: string[]): string[][] => [
    ['snapshot', ...source],
    ['doctor', ...source, '-o', 'json', '--fail-on', 'none'],
    ['doctor', ...source, '-o', 'html', '--fail-on', 'none'],
    ['doctor', ...source, '-o', 'yaml', '--fail-on', 'none'],
    ['doctor', ...source, '-o', 'sarif', '--fail-on', 'none'],
    ['doctor', ...source, '-o', 'junit', '--fail-on', 'none'],
    ['doctor', ...source, '-o', 'prometheus', '--fail-on', 'none'],
    ['doctor', ...source, '-o', 'policyreport', '--fail-on', 'none'],
    ['map', ...source, '-o', 'mermaid'],
    ['what-if', node(), ...source, '-o', 'html', '--fail-on', 'none'],
    ['map', ...source, '-o', 'html'],
    ['map', ...source, '-o', 'json'],
    ['orphans', ...source, '-o', 'json', '--fail-on', 'none'],
    ['quorum', ...source, '-o', 'json', '--fail-on', 'none'],
    ['what-if', node(), ...source, '-o', 'json', '--fail-on', 'none'],
    ['what-if', '--upgrade', 'v1.36', ...source, '-o', 'json', '--fail-on', 'none'],
    ['what-if', '--upgrade', 'v1.36', ...source, '-o', 'html', '--fail-on', 'none'],
  ];

  test('listed from an API server', async () => {
    for (const args of outputs(['--kubeconfig', srv.kubeconfigPath])) {
      const r = await arch(args, { XDG_CONFIG_HOME: dumpDir }); // no user config: nothing accepted, nothing hidden
      // a report (0, or 1 for findings), never bad input or a crash: an answer that read nothing proves nothing
      expect([args.join(' '), [0, 1].includes(r.code) ? 'report' : r.stderr, leaked(r.stdout + r.stderr)]).toEqual([
        args.join(' '),
        'report',
        [],
      ]);
      expect(r.stdout.length).toBeGreaterThan(100);
    }
  }, 120_000);

  test('loaded from a dump with the credentials in it', async () => {
    for (const args of outputs(['--snapshot', join(dumpDir, 'dump')])) {
      const r = await arch(args, { XDG_CONFIG_HOME: dumpDir }); // no user config: nothing accepted, nothing hidden
      // a report (0, or 1 for findings), never bad input or a crash: an answer that read nothing proves nothing
      expect([args.join(' '), [0, 1].includes(r.code) ? 'report' : r.stderr, leaked(r.stdout + r.stderr)]).toEqual([
        args.join(' '),
        'report',
        [],
      ]);
      expect(r.stdout.length).toBeGreaterThan(100);
    }
  }, 120_000);

  test('an MCP answer', async () => {
    const m = await startMcp(BIN, ['--allow-snapshot-dir', dumpDir, '--no-config']);
    try {
      for (const [tool, args] of [
        ['doctor', {}],
        ['map', {}],
        ['orphans', {}],
        ['quorum', {}],
        ['what-if', { nodes: [node()] }],
        ['what-if', { upgrade: 'v1.36' }],
      ] as const) {
        const r = await call(m, tool, { snapshot: join(dumpDir, 'dump'), ...args });
        expect([tool, r.isError ?? false, leaked(JSON.stringify(r))]).toEqual([tool, false, []]);
      }
    } finally {
      await m.close();
    }
  }, 120_000);
});
