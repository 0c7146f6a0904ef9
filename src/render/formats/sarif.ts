// SARIF 2.1.0 (OASIS), for code-scanning UIs: one run per context, one rule per finding code, one result per
// finding (suppressed ones carry an external suppression with the rule's reason), skipped checks and
// unreachable contexts as tool execution notifications. Validated against the official JSON schema in the tests.
//
// A finding is about cluster objects, not source lines. Code scanning (GitHub) requires a physical location with a
// repository-relative path on every result, so each object becomes the path `k8s/<context>/<namespace|_cluster>/<Kind>/<name>`
// (also given as a logical location); partialFingerprints keep an alert the same across runs. With --baseline, each
// result has its baselineState (new, unchanged).
//
// What is not open is not written by default: GitHub code scanning uses only a subset of SARIF (ruleId, level,
// message, locations, partialFingerprints, codeFlows, relatedLocations; "the rest ... are ignored", docs.github.com
// "SARIF support for code scanning"), so it ignores `suppressions` and `baselineState`: an accepted risk, or a
// finding fixed since the baseline written as a result 'absent', would be an open alert. It closes an alert when an
// upload of the same category no longer holds it. So by default the results are what is open, and the run's
// properties and a notification count what was left out; --sarif-all writes them too (suppressions with status
// accepted, baselineState absent), the full record for tools that read them — then every result has a
// `suppressions` array, as SARIF §3.27.23 asks (all results of a run have one, or none does).
import { CATALOGUE, codesBy } from '../../catalogue.js';
import { fileRisksText } from '../../config/accepted.js';
import { fingerprintOf, type Finding, type Severity } from '../../model.js';
import { shownDeep, wellFormedDeep } from '../../lib/safe.js';
import { atFaultFirst, objectPath, type FormatOptions, type FormatRun } from './model.js';
import { explainUrl, PROJECT_URL } from '../../checks/docs.js';
import { argvText } from '../../lib/shell.js';

const explainCommand = (code: string): string => argvText(['kubectl', 'arch', 'explain', code]);

export const SARIF_SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { critical: 'error', error: 'error', warning: 'warning', info: 'note' };

/**
 * One path segment of a URI reference, percent-encoded. A segment of dots ("." or "..", also "%2E%2E" once a
 * reader decodes it) would lead out of k8s/ (a context named ".." put results on files of the repository), so a
 * segment of underscores then dots gets one underscore more: "..", "_..", "__.." stay three different names.
 */
const seg = (s: string): string => encodeURIComponent(/^_*\.+$/.test(s) ? `_${s}` : s);
const artifactUri = (context: string, path?: string): string =>
  ['k8s', seg(context || '_'), ...(path ? path.split('/').map(seg) : [])].join('/');

/** what-if's predictions as rules: the codes it predicted, each with its explain page. */
function whatIfRules(run: FormatRun): Array<Record<string, unknown>> {
  const codes = [...new Set(run.checks.filter((c) => c.id === 'what-if').flatMap((c) => c.findings.map((f) => f.code)))].sort();
  return codes.map((code) => {
    const meaning = CATALOGUE.get(code)?.meaning ?? code;
    return {
      id: code,
      name: code.replace(/[^A-Za-z0-9]/g, ''),
      shortDescription: { text: String(meaning) },
      fullDescription: { text: `kubectl arch what-if predicts it: ${String(meaning)}.` },
      helpUri: explainUrl('what-if', code),
      help: {
        text: `More: ${explainCommand(code)}`,
        markdown: `More: \`${explainCommand(code)}\` ([what-if](${explainUrl('what-if', code)}))`,
      },
      properties: { checkId: 'what-if', tags: ['kubernetes', 'what-if'] },
    };
  });
}

/** A manifest as a SARIF artifact: its path as given (relative to the repository in a pipeline), or a file: URI. */
const fileUri = (file: string): string => {
  const f = file.replace(/\\/g, '/');
  return f.startsWith('/') ? `file://${f.split('/').map(encodeURIComponent).join('/')}` : f.split('/').map(encodeURIComponent).join('/');
};

function rules(run: FormatRun): Array<Record<string, unknown>> {
  if (run.checks.some((c) => c.id === 'what-if')) return whatIfRules(run);
  const out: Array<Record<string, unknown>> = [];
  // the checks that ran, in the catalogue's order (the registry's)
  const ids = [...new Set([...CATALOGUE.values()].map((e) => e.by))].filter((id) => run.checks.some((c) => c.id === id));
  for (const id of ids) {
    for (const { code, meaning, docs, severity } of codesBy(id)) {
      if (!docs || !severity) continue;
      out.push({
        id: code,
        name: code.replace(/[^A-Za-z0-9]/g, ''),
        shortDescription: { text: String(meaning) },
        fullDescription: { text: docs.what },
        helpUri: explainUrl(id, code),
        help: {
          text: `${docs.why}\n\nHow to fix: ${docs.fix}\n\nMore: ${explainCommand(code)}`,
          markdown: `**${code}**: ${String(meaning)}\n\n${docs.why}\n\n**How to fix.** ${docs.fix}\n\nMore: \`${explainCommand(code)}\` ([${id}](${explainUrl(id, code)}))`,
        },
        defaultConfiguration: { level: LEVEL[severity] },
        properties: { checkId: id, tags: ['kubernetes', id] },
      });
    }
  }
  return out;
}

function result(run: FormatRun, f: Finding & { suppressedBy?: { reason: string; file: string; expires?: string } }, ruleIndex: number) {
  // the first location is the object at fault (the owner, the Service), not the first of its objects by name
  const objects = f.objects.length ? atFaultFirst(f.objects) : [undefined];
  return {
    ruleId: f.code,
    ...(ruleIndex >= 0 ? { ruleIndex } : {}),
    level: LEVEL[f.severity],
    message: { text: `${f.title}\n${f.message}` },
    locations: [
      // what-if -f: the manifest line first (code scanning annotates it), then the objects
      ...(f.location && f.location.file !== '-'
        ? [
            {
              physicalLocation: {
                artifactLocation: { uri: fileUri(f.location.file) },
                region: { startLine: Math.max(1, f.location.line) },
              },
            },
          ]
        : []),
      ...objects.map((o) => ({
        physicalLocation: { artifactLocation: { uri: artifactUri(run.context, o ? objectPath(o) : undefined) } },
        ...(o
          ? {
              logicalLocations: [
                {
                  name: o.name,
                  fullyQualifiedName: `${run.context}/${objectPath(o)}`,
                  kind: 'resource',
                },
              ],
            }
          : {}),
      })),
    ],
    // the fault's own fingerprint (code and objects): the same across runs, captures, contexts and machines
    partialFingerprints: { 'kubectlArchFinding/v2': f.fingerprint ?? fingerprintOf(f) },
    ...(f.baseline ? { baselineState: f.baseline } : {}),
    properties: {
      severity: f.severity,
      checkId: f.checkId,
      ...(f.why ? { why: f.why } : {}),
      ...(f.fix?.length ? { fix: f.fix } : {}),
    },
    ...(f.suppressedBy
      ? {
          suppressions: [
            {
              kind: 'external',
              status: 'accepted',
              justification: f.suppressedBy.reason,
              location: { physicalLocation: { artifactLocation: { uri: f.suppressedBy.file.replace(/\\/g, '/') } } },
              ...(f.suppressedBy.expires ? { properties: { expires: f.suppressedBy.expires } } : {}),
            },
          ],
        }
      : {}),
  };
}

/** What is not open and not written (unless --sarif-all): accepted risks, and findings fixed since the baseline. */
const leftOut = (run: FormatRun, opts: FormatOptions): { suppressed: number; fixed: number } =>
  opts.sarifAll ? { suppressed: 0, fixed: 0 } : { suppressed: run.suppressed.length, fixed: run.baseline?.fixed.length ?? 0 };

function resultsOf(run: FormatRun, index: (code: string) => number, checkOf: (code: string) => string, opts: FormatOptions) {
  const open = run.checks.flatMap((c) => c.findings.map((f) => result(run, f, index(f.code))));
  if (!opts.sarifAll) return open;
  const all = [
    ...open,
    ...run.suppressed.map((f) => result(run, f, index(f.code))),
    // what the baseline had that is gone: results whose baselineState is absent
    ...(run.baseline?.fixed ?? []).map((k) => ({
      ...result(run, { ...k, checkId: checkOf(k.code), message: 'fixed since the baseline', evidence: {} }, index(k.code)),
      baselineState: 'absent',
    })),
  ];
  // §3.27.23: once one result of the run has suppressions, every one has the property (empty: not suppressed)
  return run.suppressed.length ? all.map((r) => ({ suppressions: [], ...r })) : all;
}

export function renderSarif(runs0: FormatRun[], opts: FormatOptions): string {
  // every string well-formed first: a lone surrogate has no UTF-8 form (and no URI form: encodeURIComponent throws)
  const runs = runs0.map((r) => ({ ...shownDeep(wellFormedDeep(r)), startedAt: r.startedAt }));
  const sarif = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: runs.map((run) => {
      const rs = rules(run);
      const index = (code: string): number => rs.findIndex((r) => r.id === code);
      const checkOf = (code: string): string => String((rs[index(code)]?.properties as { checkId?: string } | undefined)?.checkId ?? '');
      const left = leftOut(run, opts);
      const notifications = [
        ...(run.error ? [{ level: 'error', message: { text: `context ${run.context}: ${run.error.message}` } }] : []),
        ...(left.suppressed || left.fixed
          ? [
              {
                level: 'note',
                message: {
                  text: `not written as results, as code scanning would show them as open alerts: ${[
                    ...(left.suppressed ? [`${left.suppressed} accepted risk${left.suppressed === 1 ? '' : 's'}`] : []),
                    ...(left.fixed ? [`${left.fixed} fixed since the baseline`] : []),
                  ].join(', ')} (--sarif-all writes them)`,
                },
              },
            ]
          : []),
        ...run.checks
          .filter((c) => c.status === 'skipped' || c.status === 'partial')
          .map((c) => ({ level: 'warning', message: { text: `${c.id} ${c.status}: ${c.reason ?? ''}` }, descriptor: { id: c.id } })),
        ...run.checks.flatMap((c) => c.notes.map((n) => ({ level: 'note', message: { text: `${c.id}: not visible: ${n}` } }))),
        ...(run.acceptedRisks?.byFile ?? []).map((f) => ({
          level: 'note',
          message: { text: `accepted-risk rules from ${fileRisksText(f)}` },
        })),
        ...(run.acceptedRisks?.untrusted ?? []).map((f) => ({
          level: 'note',
          message: { text: `${f} was not read: its directory is not trusted` },
        })),
      ];
      return {
        tool: {
          driver: {
            name: 'kubectl-arch',
            informationUri: PROJECT_URL,
            semanticVersion: opts.version,
            version: opts.version,
            rules: rs,
          },
        },
        automationDetails: { id: `kubectl-arch/${run.command}/${run.context}/` },
        invocations: [
          {
            executionSuccessful: !run.error,
            exitCode: run.exitCode,
            startTimeUtc: run.startedAt.toISOString(),
            endTimeUtc: new Date(run.startedAt.getTime() + run.durationMs).toISOString(),
            ...(notifications.length ? { toolExecutionNotifications: notifications } : {}),
          },
        ],
        results: resultsOf(run, index, checkOf, opts),
        properties: {
          context: run.context,
          ...(run.source?.server ? { server: run.source.server } : {}),
          ...(run.distribution ? { distribution: run.distribution } : {}),
          ...(run.serverVersion ? { serverVersion: run.serverVersion } : {}),
          ...(run.acceptedRisks?.byFile.length ? { acceptedRisks: run.acceptedRisks.byFile } : {}),
          ...(left.suppressed || left.fixed ? { notWritten: left } : {}),
          ...(run.baseline
            ? {
                baseline: {
                  file: run.baseline.file,
                  new: run.baseline.new,
                  unchanged: run.baseline.unchanged,
                  fixed: run.baseline.fixed.length,
                },
              }
            : {}),
          failOn: opts.failOn,
        },
      };
    }),
  };
  return JSON.stringify(sarif, null, 2) + '\n';
}
