// The machine formats, validated against the real thing: SARIF against the official SARIF 2.1.0 JSON schema
// (ajv), JUnit XML with a common XML parser (fast-xml-parser) as CI systems read it, Prometheus text with
// Prometheus's own parser and linter (Go: expfmt, promlint), PolicyReports against the wgpolicyk8s.io v1alpha2
// schema with unknown fields rejected (the real-cluster suite applies them to kube-apiserver too).
import { CHECKS } from '../src/checks/registry.js';
import { describe, expect, test } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import AjvDraft04 from 'ajv-draft-04';
import formats from 'ajv-formats';
import { multitoolErrors } from './helpers/sarif-multitool.js';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { validateXML } from 'xmllint-wasm';
import { loadAll } from 'js-yaml';
import type { FormatRun } from '../src/render/formats/model.js';
import { renderSarif, SARIF_SCHEMA } from '../src/render/formats/sarif.js';
import { renderJunit } from '../src/render/formats/junit.js';
import { renderPrometheus } from '../src/render/formats/prometheus.js';
import { policyReportObjects, renderPolicyReports } from '../src/render/formats/policyreport.js';
import { EXAMPLE } from './helpers/fixtures.js';
import { promcheck } from './helpers/promcheck.js';
import { arch, ROOT } from './helpers/run.js';
import { tempDir } from './helpers/tmp.js';
import type { SuppressedFinding } from '../src/config/accepted.js';

const fixture = (f: string): string => readFileSync(join(ROOT, '__tests__/fixtures', f), 'utf8');

// Every string a cluster controls carries control characters, quotes and markup.
const EVIL = 'bad\x1b]0;owned\x07 "q" <x>&\\ \x00\nnext';
/** EVIL as SARIF and policy reports write it: escapes and NUL shown as text, the line break kept. */
const SHOWN = 'bad\\x1b]0;owned\\x07 "q" <x>&\\ \\x00\nnext';
const START = new Date('2026-08-13T09:00:00Z');

function hostileRun(): FormatRun {
  const suppressed: SuppressedFinding = {
    code: 'ARCH-OR03',
    checkId: 'gitops-orphans',
    severity: 'warning',
    title: `idle leftovers ${EVIL}`,
    message: EVIL,
    objects: [{ kind: 'ConfigMap', apiVersion: 'v1', namespace: 'old', name: 'cfg' }],
    evidence: {},
    suppressedBy: { code: 'ARCH-OR03', reason: `kept for the audit ${EVIL}`, file: '/etc/ka.yaml', index: 1, expires: '2027-01-31' },
  };
  return {
    command: 'doctor',
    context: `ctx ${EVIL}`,
    source: { type: 'cluster', context: `ctx ${EVIL}`, server: 'https://127.0.0.1:6443' },
    distribution: 'K3s',
    serverVersion: 'v1.35.4+k3s1',
    startedAt: START,
    durationMs: 1234,
    exitCode: 1,
    suppressed: [suppressed],
    checks: [
      { id: 'apiserver-readiness', title: 'API server readiness', status: 'passed', reason: 'all pass', findings: [], notes: [] },
      {
        id: 'immutable-retry-loop',
        title: 'retry loops',
        status: 'findings',
        findings: [
          {
            code: 'ARCH-RL03',
            checkId: 'immutable-retry-loop',
            severity: 'error',
            title: `loop ${EVIL}`,
            message: EVIL,
            objects: [
              { kind: 'Service', apiVersion: 'v1', namespace: `kube-system`, name: `kube-dns ${EVIL}` },
              { kind: 'Addon', apiVersion: 'k3s.cattle.io/v1', namespace: 'kube-system', name: 'coredns' },
            ],
            evidence: {},
            fix: [`kubectl delete ${EVIL}`],
          },
          {
            code: 'ARCH-RL07',
            checkId: 'immutable-retry-loop',
            severity: 'info',
            title: 'kubelet drift',
            message: 'm',
            objects: [{ kind: 'Node', name: 'n1' }],
            evidence: {},
          },
        ],
        notes: [`events: not visible ${EVIL}`],
      },
      { id: 'gitops-orphans', title: 'orphans', status: 'passed', reason: 'none', findings: [], notes: [] },
      { id: 'etcd-quorum', title: 'etcd quorum', status: 'skipped', reason: `cannot decide ${EVIL}`, findings: [], notes: [] },
    ],
  };
}

const downRun: FormatRun = {
  command: 'doctor',
  context: 'down',
  startedAt: START,
  durationMs: 12,
  exitCode: 3,
  checks: [],
  suppressed: [],
  error: { message: 'cannot connect to https://127.0.0.1:1: connection refused', exitCode: 3 },
};

const opts = { failOn: 'error' as const, version: '1.2.3' };
/** The full record: accepted risks (and fixed findings) written too. */
const all = { ...opts, sarifAll: true };

describe('SARIF 2.1.0', () => {
  // the approved schema (errata01, the one the output's $schema names and GitHub validates uploads with) is draft-04;
  // its language pattern is not valid with the u flag (an errata typo): compile patterns without it
  const Draft04 = ((AjvDraft04 as unknown as { default?: unknown }).default ?? AjvDraft04) as unknown as typeof Ajv;
  const ajv = new Draft04({ strict: false, allErrors: true, unicodeRegExp: false });
  // CommonJS default export: the plugin is both module.exports and its .default
  const addFormats = ((formats as unknown as { default?: unknown }).default ?? formats) as unknown as (a: Ajv) => void;
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(fixture('sarif-schema-2.1.0.json')));

  test('the fixture is the approved schema the output names', () => {
    const schema = JSON.parse(fixture('sarif-schema-2.1.0.json'));
    expect(schema.id).toBe(SARIF_SCHEMA);
    expect(schema.definitions.suppression.properties.status.enum).toEqual(['accepted', 'underReview', 'rejected']);
  });

  test("the SARIF Multitool (an independent validator, with GitHub code scanning's rules) finds no error", async () => {
    const r = await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'sarif', '--no-config']);
    for (const text of [r.stdout, renderSarif([hostileRun(), downRun], opts), renderSarif([hostileRun(), downRun], all)])
      expect(multitoolErrors(text)).toEqual([]);
    // and it does find what GitHub rejects: the draft's suppression state
    const bad = JSON.parse(renderSarif([hostileRun()], all));
    const s = bad.runs[0].results.find((x: { suppressions?: unknown[] }) => x.suppressions?.length).suppressions[0];
    s.state = s.status;
    delete s.status;
    expect(multitoolErrors(JSON.stringify(bad)).join('\n')).toMatch(/state/);
  }, 120_000);

  test('the example and a hostile run with an unreachable context are valid against the official schema', async () => {
    const r = await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'sarif', '--no-config']);
    expect(r.code).toBe(1); // the exit code does not depend on the format
    for (const text of [r.stdout, renderSarif([hostileRun(), downRun], opts), renderSarif([hostileRun(), downRun], all)]) {
      const doc = JSON.parse(text);
      const ok = validate(doc);
      expect(validate.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
      expect(doc.version).toBe('2.1.0');
    }
    const doc = JSON.parse(r.stdout);
    const run = doc.runs[0];
    expect(run.tool.driver.name).toBe('kubectl-arch');
    expect(run.results.map((x: { ruleId: string }) => x.ruleId).sort()).toEqual(['ARCH-BK04', 'ARCH-OR01', 'ARCH-OR04', 'ARCH-RL03']);
    // every result names a rule the driver declares, and carries a location code scanning accepts (a relative path)
    for (const res of run.results) {
      expect(run.tool.driver.rules[res.ruleIndex].id).toBe(res.ruleId);
      expect(res.locations.length).toBeGreaterThan(0);
      for (const l of res.locations) expect(l.physicalLocation.artifactLocation.uri).toMatch(/^k8s\/[^:]+$/);
    }
    expect(run.results.find((x: { ruleId: string }) => x.ruleId === 'ARCH-OR04').level).toBe('note');
    expect(run.automationDetails.id).toBe('kubectl-arch/doctor/home-k3s/');
  });

  test('the tool and each rule link to their documentation; the first location of a result is the object at fault', () => {
    const doc = JSON.parse(renderSarif([hostileRun()], opts));
    const driver = doc.runs[0].tool.driver;
    expect(driver.informationUri).toBe('https://github.com/kubectl-arch/kubectl-arch');
    for (const r of driver.rules) {
      expect(r.helpUri).toBe(
        `https://github.com/kubectl-arch/kubectl-arch/blob/main/docs/explain/${r.properties.checkId}.md#${r.id.toLowerCase()}`,
      );
      expect(r.help.markdown).toContain(`kubectl arch explain ${r.id}`);
      // the page exists and has the code's anchor
      expect(readFileSync(join(ROOT, 'docs/explain', `${r.properties.checkId}.md`), 'utf8')).toContain(`### ${r.id}`);
    }
    // the K3s addon loop: the owner (the Addon) comes before the Service it keeps re-applying
    const loop = doc.runs[0].results.find((x: { ruleId: string }) => x.ruleId === 'ARCH-RL03');
    expect(loop.locations[0].logicalLocations[0].fullyQualifiedName).toMatch(/kube-system\/Addon\/coredns$/);
  });

  test('with --sarif-all, suppressed findings carry an external suppression with the reason; an unreachable context is an unsuccessful invocation', () => {
    const doc = JSON.parse(renderSarif([hostileRun(), downRun], all));
    // one result with suppressions: every result of the run has the property (SARIF §3.27.23)
    for (const r of doc.runs[0].results) expect(Array.isArray(r.suppressions)).toBe(true);
    const sup = doc.runs[0].results.find((x: { ruleId: string }) => x.ruleId === 'ARCH-OR03');
    // text a code-scanning UI shows: what no reader may be shown raw is written as text there too (#43)
    expect(sup.suppressions[0]).toMatchObject({ kind: 'external', status: 'accepted', justification: `kept for the audit ${SHOWN}` });
    expect(doc.runs[0].invocations[0].executionSuccessful).toBe(true);
    const skipped = doc.runs[0].invocations[0].toolExecutionNotifications.find(
      (n: { descriptor?: { id: string } }) => n.descriptor?.id === 'etcd-quorum',
    );
    expect(skipped.message.text).toMatch(/^etcd-quorum skipped: cannot decide/);
    expect(doc.runs[1].invocations[0]).toMatchObject({ executionSuccessful: false, exitCode: 3 });
    expect(doc.runs[1].results).toEqual([]);
  });

  test('by default only what is open is written: no accepted risk, no fixed finding (GitHub would show them as open alerts)', async () => {
    const doc = JSON.parse(renderSarif([hostileRun()], opts));
    const run = doc.runs[0];
    expect(run.results.map((r: { ruleId: string }) => r.ruleId)).not.toContain('ARCH-OR03');
    for (const r of run.results) expect(r).not.toHaveProperty('suppressions');
    expect(run.properties.notWritten).toEqual({ suppressed: 1, fixed: 0 });
    expect(run.invocations[0].toolExecutionNotifications.map((n: { message: { text: string } }) => n.message.text)).toContain(
      'not written as results, as code scanning would show them as open alerts: 1 accepted risk (--sarif-all writes them)',
    );
    // through the CLI, with a baseline that had a finding gone since: not written, counted; --sarif-all writes it
    const dir = tempDir();
    const base = JSON.parse((await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'json', '--fail-on', 'none', '--no-config'])).stdout);
    const gone = { code: 'ARCH-DEL01', severity: 'error', title: 'gone', objects: [{ kind: 'Namespace', name: 'old' }] };
    base.checks[0].findings.push(gone);
    writeFileSync(join(dir, 'base.json'), JSON.stringify(base));
    const args = ['doctor', '--snapshot', EXAMPLE, '--baseline', join(dir, 'base.json'), '--no-config', '-o', 'sarif'];
    const open = JSON.parse((await arch(args)).stdout).runs[0];
    expect(open.results.map((r: { baselineState: string }) => r.baselineState)).not.toContain('absent');
    expect(open.properties.notWritten).toEqual({ suppressed: 0, fixed: 1 });
    const full = await arch([...args, '--sarif-all']);
    const absent = JSON.parse(full.stdout).runs[0].results.filter((r: { baselineState: string }) => r.baselineState === 'absent');
    expect(absent.map((r: { ruleId: string }) => r.ruleId)).toEqual(['ARCH-DEL01']);
    expect(multitoolErrors(full.stdout)).toEqual([]);
    // --sarif-all means nothing for another format: said so
    const r = await arch(['doctor', '--snapshot', EXAMPLE, '--no-config', '--sarif-all']);
    expect([r.code, r.stderr]).toEqual([2, 'error: --sarif-all is for -o sarif\n  hint: add -o sarif, or leave out --sarif-all\n']);
  }, 120_000);
  test('fingerprints follow the finding (code and objects), not its wording', () => {
    const a = hostileRun();
    const b = hostileRun();
    b.checks[1]!.findings[0]!.message = 'reworded';
    const fp = (r: FormatRun) => JSON.parse(renderSarif([r], opts)).runs[0].results[0].partialFingerprints;
    expect(fp(a)).toEqual(fp(b));
    b.checks[1]!.findings[0]!.objects[0]!.name = 'other';
    expect(fp(a)).not.toEqual(fp(b));
  });
});

describe('JUnit XML', () => {
  test('valid against the JUnit XSD the Jenkins xUnit plugin validates with (junit-10.xsd, xmllint)', async () => {
    const r = await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'junit', '--no-config']);
    for (const xml of [r.stdout, renderJunit([hostileRun(), downRun], opts), renderJunit([downRun], opts)]) {
      const v = await validateXML({
        xml: [{ fileName: 'report.xml', contents: xml }],
        schema: [{ fileName: 'junit-10.xsd', contents: fixture('junit-10.xsd') }],
      });
      expect(v.errors.map((e) => e.rawMessage)).toEqual([]);
      expect(v.valid).toBe(true);
    }
    // and it rejects what xUnit dropped: skipped= on <testsuites>
    const bad = r.stdout.replace(/<testsuites /, '<testsuites skipped="1" ');
    const v = await validateXML({
      xml: [{ fileName: 'report.xml', contents: bad }],
      schema: [{ fileName: 'junit-10.xsd', contents: fixture('junit-10.xsd') }],
    });
    expect(v.valid).toBe(false);
  });

  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (n) => ['testsuite', 'testcase'].includes(n) });

  test('well-formed; one test case per check, findings at or above --fail-on as failures, counts that add up', async () => {
    const r = await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'junit', '--no-config']);
    expect(XMLValidator.validate(r.stdout)).toBe(true);
    const doc = parser.parse(r.stdout);
    const suite = doc.testsuites.testsuite[0];
    // one test case per registered check, in the registry's order
    expect(suite.testcase.map((c: { name: string }) => c.name.split(':')[0])).toEqual(CHECKS.map((c) => c.id));
    const failed = suite.testcase.filter((c: { failure?: unknown }) => c.failure);
    expect(failed.map((c: { failure: { type: string } }) => c.failure.type).sort()).toEqual(['ARCH-OR01', 'ARCH-RL03']);
    expect(Number(suite.failures)).toBe(failed.length);
    expect(Number(doc.testsuites.tests)).toBe(CHECKS.length);
    // the info finding (an Application without a cascading finalizer) is below --fail-on error: reported, not failed
    expect(failed.map((c: { failure: { '#text': string } }) => c.failure['#text']).join()).not.toMatch(/ARCH-OR04/);
    expect(suite.testcase.find((c: { name: string }) => c.name.startsWith('gitops-orphans'))['system-out']).toMatch(
      /^INFO ARCH-OR04 Argo CD Application uptime-kuma has no cascading finalizer/,
    );
    const none = parser.parse((await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'junit', '--fail-on', 'none', '--no-config'])).stdout);
    expect(Number(none.testsuites.failures)).toBe(0);
  });

  test('hostile text stays text: control characters escaped, markup escaped; skipped checks and unreachable contexts', () => {
    const xml = renderJunit([hostileRun(), downRun], opts);
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).not.toMatch(/[\x00-\x08\x0b\x0c\x0e-\x1f]/);
    const doc = parser.parse(xml);
    const [s1, s2] = doc.testsuites.testsuite;
    expect(s1.testcase[1].failure.message).toContain('\\x1b]0;owned\\x07 "q" <x>&\\ \\x00');
    expect(s1.testcase[3].skipped.message).toMatch(/^cannot decide bad\\x1b/);
    expect(s1.testcase[2]['system-out']).toMatch(/suppressed as accepted risk: kept for the audit/);
    expect(s2).toMatchObject({ errors: '1', tests: '1' });
    expect(s2.testcase[0].error.message).toMatch(/connection refused/);
    expect(doc.testsuites).toMatchObject({ tests: '5', failures: '1', errors: '1' });
    expect(doc.testsuites.skipped).toBeUndefined(); // on each testsuite only (junit-10.xsd)
  });
});

describe('Prometheus text exposition', () => {
  test("Prometheus's parser reads it and its linter has nothing to say; hostile label values come back exact", () => {
    const text = renderPrometheus([hostileRun(), downRun], opts);
    const { families, lint } = promcheck(text);
    expect(lint).toEqual([]);
    const fam = (n: string) => families.find((f) => f.name === n)!;
    expect(families.map((f) => f.name)).toEqual(
      expect.arrayContaining([
        'kubectl_arch_up',
        'kubectl_arch_findings',
        'kubectl_arch_check_findings',
        'kubectl_arch_check_status',
        'kubectl_arch_suppressed_findings',
        'kubectl_arch_run_duration_seconds',
      ]),
    );
    for (const f of families) expect([f.name, f.type]).toEqual([f.name, 'GAUGE']);
    const ctx = `ctx ${EVIL}`;
    expect(fam('kubectl_arch_up').metrics).toEqual([
      { labels: { command: 'doctor', context: ctx }, value: 1 },
      { labels: { command: 'doctor', context: 'down' }, value: 0 },
    ]);
    expect(fam('kubectl_arch_findings').metrics).toEqual([
      { labels: { command: 'doctor', context: ctx, check: 'immutable-retry-loop', code: 'ARCH-RL03', severity: 'error' }, value: 1 },
      { labels: { command: 'doctor', context: ctx, check: 'immutable-retry-loop', code: 'ARCH-RL07', severity: 'info' }, value: 1 },
    ]);
    expect(fam('kubectl_arch_suppressed_findings').metrics).toEqual([
      { labels: { command: 'doctor', context: ctx, check: 'gitops-orphans', code: 'ARCH-OR03', severity: 'warning' }, value: 1 },
    ]);
    const status = fam('kubectl_arch_check_status').metrics.filter((m) => m.labels.check === 'etcd-quorum');
    expect(status.map((m) => [m.labels.status, m.value])).toEqual([
      ['passed', 0],
      ['findings', 0],
      ['partial', 0],
      ['skipped', 1],
    ]);
    expect(fam('kubectl_arch_run_duration_seconds').metrics[0]!.value).toBeCloseTo(1.234);
  });

  test('the CLI output on the example parses too', async () => {
    const r = await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'prometheus', '--no-config']);
    const { families, lint } = promcheck(r.stdout);
    expect(lint).toEqual([]);
    const sev = families.find((f) => f.name === 'kubectl_arch_check_findings')!.metrics;
    expect(sev.filter((m) => m.value > 0).map((m) => `${m.labels.check}/${m.labels.severity}`)).toEqual([
      'immutable-retry-loop/error',
      'gitops-orphans/error',
      'gitops-orphans/info',
      'etcd-backups/warning',
    ]);
  });
});

describe('PolicyReport (wgpolicyk8s.io/v1alpha2)', () => {
  const crds: any[] = [];
  loadAll(fixture('wgpolicyk8s.io-v1alpha2-crds.yaml'), (d) => {
    if (d) crds.push(d);
  });
  // the API server with fieldValidation=Strict rejects unknown fields: so does this copy of the schema
  const strict = (s: any): any => {
    if (Array.isArray(s)) return s.map(strict);
    if (!s || typeof s !== 'object') return s;
    const out: any = Object.fromEntries(Object.entries(s).map(([k, v]) => [k, strict(v)]));
    if (out.type === 'object' && out.properties && out.additionalProperties === undefined && out !== s.metadata)
      out.additionalProperties = false;
    return out;
  };
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  const schemaFor = (kind: string) => {
    const crd = crds.find((c) => c.spec.names.kind === kind);
    const s = strict(crd.spec.versions[0].schema.openAPIV3Schema);
    s.properties.metadata = { type: 'object' };
    return ajv.compile(s);
  };
  const validators: Record<string, ReturnType<typeof ajv.compile>> = {
    PolicyReport: schemaFor('PolicyReport'),
    ClusterPolicyReport: schemaFor('ClusterPolicyReport'),
  };

  test('every object is valid against the v1alpha2 schema; namespaced objects go to their namespace, summaries add up', async () => {
    const r = await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'policyreport', '--no-config']);
    const docs: any[] = [];
    loadAll(r.stdout, (d) => {
      if (d) docs.push(d);
    });
    for (const text of [r.stdout, renderPolicyReports([hostileRun()], opts)]) {
      const objs: any[] = [];
      loadAll(text, (d) => {
        if (d) objs.push(d);
      });
      for (const o of objs) {
        const v = validators[o.kind]!;
        expect([o.kind, v(o), v.errors ?? []]).toEqual([o.kind, true, []]);
        const sum = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 } as Record<string, number>;
        for (const res of o.results) sum[res.result]!++;
        expect(o.summary).toEqual(sum);
        expect(o.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
        for (const res of o.results) for (const x of res.resources ?? []) expect(x.namespace).toBe(o.metadata.namespace);
      }
    }
    expect(docs.map((d) => `${d.kind}/${d.metadata.namespace ?? ''}`)).toEqual([
      'ClusterPolicyReport/',
      'PolicyReport/argocd',
      'PolicyReport/blog',
      'PolicyReport/kube-system',
    ]);
    const blog = docs[2].results[0];
    expect(blog).toMatchObject({ policy: 'gitops-orphans', rule: 'ARCH-OR01', result: 'fail', severity: 'high', source: 'kubectl-arch' });
    expect(blog.resources.map((x: any) => x.kind).sort()).toEqual([
      'ConfigMap',
      'Deployment',
      'Ingress',
      'PersistentVolumeClaim',
      'Service',
    ]);
  });

  test('names: one set per context, told apart when their names differ only in what a DNS name cannot hold', () => {
    const names = (ctx: string) => policyReportObjects({ ...hostileRun(), context: ctx }).map((o: any) => o.metadata.name);
    const all = ['prod-eu', 'prod_eu', 'PROD-EU', '..', '', 'x'.repeat(300)].map(names);
    for (const n of all.flat()) {
      expect(n).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
      expect(n.length).toBeLessThanOrEqual(253);
    }
    expect(new Set(all.map((n) => n[0])).size).toBe(all.length);
    expect(names('prod-eu')).toEqual(names('prod-eu'));
  });

  test('suppressed findings are skip results with the reason; passed and skipped checks are pass/skip in the ClusterPolicyReport', () => {
    const [cluster, ...ns] = policyReportObjects(hostileRun()) as any[];
    const old = ns.find((o) => o.metadata.namespace === 'old');
    expect(old.results[0]).toMatchObject({
      result: 'skip',
      rule: 'ARCH-OR03',
      properties: { suppressedBy: `kept for the audit ${SHOWN}` },
    });
    expect(cluster.results.map((x: any) => `${x.policy}:${x.result}`)).toEqual([
      'apiserver-readiness:pass',
      'immutable-retry-loop:warn', // the Node finding (cluster-scoped, info)
      'gitops-orphans:pass',
      'etcd-quorum:skip',
    ]);
  });
});

describe('--report-label: the labels the CronJob marks its runs with', () => {
  test('every report carries them besides ours; a bad label, ours, or another format is a usage error', async () => {
    for (const o of ['policyreport', 'openreports']) {
      const r = await arch([
        'doctor',
        '--snapshot',
        EXAMPLE,
        '--no-config',
        '-o',
        o,
        '--report-label',
        'kubectl-arch/cronjob=kubectl-arch',
        '--report-label',
        'kubectl-arch/run=kubectl-arch-29012345',
      ]);
      const docs = loadAll(r.stdout).filter(Boolean) as Array<{ metadata: { labels: Record<string, string> } }>;
      expect(docs.length).toBeGreaterThan(1);
      for (const d of docs)
        expect(d.metadata.labels).toEqual({
          'kubectl-arch/cronjob': 'kubectl-arch',
          'kubectl-arch/run': 'kubectl-arch-29012345',
          'app.kubernetes.io/managed-by': 'kubectl-arch',
          'app.kubernetes.io/name': 'kubectl-arch',
        });
    }
    const refused = async (args: string[], message: RegExp): Promise<void> => {
      const r = await arch(['doctor', '--snapshot', EXAMPLE, '--no-config', ...args]);
      expect([r.code, r.stdout, r.stderr]).toEqual([2, '', expect.stringMatching(message)]);
    };
    await refused(['-o', 'policyreport', '--report-label', 'run'], /--report-label "run" is not a Kubernetes label KEY=VALUE/);
    await refused(['-o', 'policyreport', '--report-label', 'a b=c'], /is not a Kubernetes label/);
    await refused(['-o', 'policyreport', '--report-label', `x=${'y'.repeat(64)}`], /is not a Kubernetes label/);
    await refused(['-o', 'policyreport', '--report-label', 'app.kubernetes.io/name=x'], /set app\.kubernetes\.io\/ labels themselves/);
    await refused(['-o', 'json', '--report-label', 'a=b'], /^error: --report-label is for -o policyreport or -o openreports/);
  });
});

describe('one cluster that cannot be reached: every machine format still writes its document (a CI step uploads it)', () => {
  const kubeconfig = (): string => {
    const f = join(tempDir(), 'kubeconfig');
    writeFileSync(
      f,
      'apiVersion: v1\nkind: Config\ncurrent-context: down\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: down, context: {cluster: c, user: u}}]\n',
    );
    return f;
  };
  test.each(['sarif', 'junit', 'prometheus', 'policyreport'])(
    '-o %s: exit 3 as before, the error on stderr, and a valid document saying so',
    async (fmt) => {
      const r = await arch(['doctor', '--kubeconfig', kubeconfig(), '-o', fmt, '--no-config', '--request-timeout', '5s']);
      expect([r.code, r.stderr]).toEqual([3, expect.stringMatching(/^error: cannot connect to https:\/\/127\.0\.0\.1:1/)]);
      expect(r.stdout.length).toBeGreaterThan(50);
      if (fmt === 'sarif') {
        const doc = JSON.parse(r.stdout);
        const inv = doc.runs[0].invocations[0];
        expect([inv.executionSuccessful, inv.exitCode, inv.toolExecutionNotifications[0].message.text]).toEqual([
          false,
          3,
          expect.stringMatching(/cannot connect/),
        ]);
        expect(multitoolErrors(r.stdout)).toEqual([]);
      } else if (fmt === 'junit') {
        const v = await validateXML({
          xml: [{ fileName: 'r.xml', contents: r.stdout }],
          schema: [{ fileName: 'junit-10.xsd', contents: fixture('junit-10.xsd') }],
        });
        expect(v.valid).toBe(true);
        expect(r.stdout).toMatch(/<error message="cannot connect/);
      } else if (fmt === 'prometheus') {
        const { families, lint } = promcheck(r.stdout);
        expect(lint).toEqual([]);
        expect(families.find((f) => f.name === 'kubectl_arch_up')!.metrics).toEqual([
          { labels: { command: 'doctor', context: 'down' }, value: 0 },
        ]);
      } else {
        const docs = loadAll(r.stdout) as Array<{ kind: string; summary?: { error?: number } }>;
        expect(docs.length).toBeGreaterThan(0);
        expect(JSON.stringify(docs)).toMatch(/cannot connect/);
      }
    },
    60_000,
  );
});

describe('OpenReports (openreports.io/v1alpha1)', () => {
  test("the PolicyReports as Report and ClusterReport, with the report's own source (applied to a real API server in e2e)", async () => {
    const t0 = Math.floor(Date.now() / 1000);
    const r = await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'openreports', '--no-config']);
    const t1 = Math.floor(Date.now() / 1000);
    expect(r.code).toBe(1);
    const docs = loadAll(r.stdout) as Array<Record<string, any>>;
    const wg = loadAll((await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'policyreport', '--no-config'])).stdout) as Array<
      Record<string, any>
    >;
    expect(docs.map((d) => d.kind)).toEqual(wg.map((d) => (d.kind === 'ClusterPolicyReport' ? 'ClusterReport' : 'Report')));
    // each result is stamped with its own run's start: the two runs can straddle a second, so compare the rest
    const unstamped = (rs: Array<Record<string, any>>) => rs.map(({ timestamp, ...rest }) => rest);
    for (const [i, d] of docs.entries()) {
      expect([d.apiVersion, d.source]).toEqual(['openreports.io/v1alpha1', 'kubectl-arch']);
      expect(unstamped(d.results)).toEqual(unstamped(wg[i]!.results));
      for (const x of d.results) {
        expect(x.timestamp.nanos).toBe(0);
        expect(x.timestamp.seconds).toBeGreaterThanOrEqual(t0);
        expect(x.timestamp.seconds).toBeLessThanOrEqual(t1);
      }
    }
  });
});

describe('text no format can carry', () => {
  // a lone UTF-16 surrogate has no UTF-8 form; U+FFFE and U+FFFF are outside XML 1.0's characters
  const LONE = ['x\ud800', 'x\udc00'];
  const run = (context: string, name = `n\ud800\ufffe\uffff`): FormatRun => {
    const r = hostileRun();
    r.context = context;
    r.checks[1]!.findings[0]!.objects[0]!.name = name;
    r.checks[1]!.findings[0]!.message = `m\ud83d \ufffe\uffff`;
    return r;
  };
  /** Text that encodes to UTF-8 and back unchanged has no lone surrogate. */
  const wellFormed = (s: string): boolean => Buffer.from(s, 'utf8').toString('utf8') === s;
  const strings = (v: unknown): string[] =>
    typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : [];

  test('SARIF: a lone surrogate in a context or object name is escaped, not an exit 4 ("URI malformed")', () => {
    const text = renderSarif([run(LONE[0]!), run(LONE[1]!)], opts);
    const doc = JSON.parse(text);
    for (const s of strings(doc)) expect(wellFormed(s)).toBe(true);
    // the two contexts stay two
    expect(new Set(doc.runs.map((r: any) => r.properties.context)).size).toBe(2);
    expect(doc.runs[0].properties.context).toBe('x\\ud800');
  });

  test('SARIF: a context or object named .. or . stays inside k8s/', () => {
    const doc = JSON.parse(renderSarif([run('..', '..'), run('.', '.'), run('', 'a/../../b'), run('_..', '_..')], opts));
    const uris = doc.runs.flatMap((r: any) =>
      r.results.flatMap((x: any) => x.locations.map((l: any) => l.physicalLocation.artifactLocation.uri)),
    );
    expect(uris.length).toBeGreaterThan(4);
    for (const u of uris) {
      expect(u).toMatch(/^k8s\//);
      expect(u.split('/')).not.toContain('..');
      expect(u.split('/')).not.toContain('.');
      // and it resolves inside k8s/, whatever a reader does with it
      expect(new URL(u, 'file:///repo/').pathname).toMatch(/^\/repo\/k8s\//);
    }
    // names that differ give different paths: "..", ".", "" and "_.." are four contexts
    expect(new Set(doc.runs.map((r: any) => r.results[0].locations[0].physicalLocation.artifactLocation.uri.split('/')[1])).size).toBe(4);
  });

  test('JUnit: only characters XML 1.0 allows (strict parsers rejected U+FFFE, U+FFFF)', () => {
    const xml = renderJunit([run(LONE[0]!), run(`c\ufffe\uffff`)], opts);
    expect(wellFormed(xml)).toBe(true);
    expect(xml).not.toMatch(/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u);
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toContain('c\\ufffe\\uffff');
  });

  test('Prometheus: label values are well-formed UTF-8, and two contexts are never one series', () => {
    const text = renderPrometheus([run(LONE[0]!), run(LONE[1]!)], opts);
    expect(wellFormed(text)).toBe(true);
    const series = text
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.slice(0, l.lastIndexOf(' ')));
    expect(new Set(series).size).toBe(series.length);
    const { families, lint } = promcheck(text);
    expect(lint).toEqual([]);
    expect(families.find((f) => f.name === 'kubectl_arch_up')!.metrics.map((m) => m.labels.context)).toEqual(['x\\ud800', 'x\\udc00']);
    // should two names still be the same once escaped, the second is told apart
    const twins = renderPrometheus([run('x\\ud800'), run(LONE[0]!)], opts);
    const up = twins.split('\n').filter((l) => l.startsWith('kubectl_arch_up{'));
    expect(new Set(up).size).toBe(2);
  });

  test('PolicyReport: well-formed UTF-8, every string', () => {
    const text = renderPolicyReports([run(LONE[0]!)], opts);
    expect(wellFormed(text)).toBe(true);
    const objs: any[] = [];
    loadAll(text, (d) => {
      if (d) objs.push(d);
    });
    for (const s of objs.flatMap(strings)) expect(wellFormed(s)).toBe(true);
  });
});
