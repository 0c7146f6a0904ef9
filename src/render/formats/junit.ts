// JUnit XML as CI systems read it (Jenkins, GitLab, Azure DevOps, the junit-10 schema): <testsuites>, one
// <testsuite> per context, one <testcase> per check. A check fails when it has a finding at or above --fail-on
// (so the test report agrees with the exit code); its findings are the failure's text, and findings below the
// threshold and suppressed ones are in <system-out>. A skipped check is <skipped>; an unreachable context is a
// suite with one <error> test case. Text from the cluster has its control characters escaped, and whatever else
// XML 1.0 cannot carry (lone surrogates, U+FFFE, U+FFFF: strict parsers reject the file), and is XML-escaped.
import { fileRisksText } from '../../config/accepted.js';
import { refText, type Finding } from '../../model.js';
import { termSafe, xmlChars } from '../../lib/safe.js';
import { failing, type FormatOptions, type FormatRun } from './model.js';

const xml = (s: string): string =>
  xmlChars(termSafe(s, true))
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
const attr = (s: string): string => xml(s).replace(/\n/g, '&#10;');
const secs = (ms: number): string => (ms / 1000).toFixed(3);

const findingText = (f: Finding & { suppressedBy?: { reason: string } }): string =>
  [
    `${f.severity.toUpperCase()} ${f.code} ${f.title}`,
    ...f.message.split('\n').map((l) => `  ${l}`),
    ...(f.objects.length ? [`  objects: ${f.objects.map(refText).join(', ')}`] : []),
    ...(f.fix?.length ? ['  fix:', ...f.fix.map((x) => `    ${x}`)] : []),
    ...(f.suppressedBy ? [`  suppressed as accepted risk: ${f.suppressedBy.reason}`] : []),
  ].join('\n');

export function renderJunit(runs: FormatRun[], opts: FormatOptions): string {
  const L: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  let tests = 0,
    failures = 0,
    errors = 0,
    total = 0;
  const suites: string[][] = [];
  for (const run of runs) {
    const S: string[] = [];
    const name = `kubectl-arch ${run.command} ${run.context}`;
    const classname = `kubectl-arch.${run.command}.${run.context}`;
    if (run.error) {
      tests++;
      errors++;
      total += run.durationMs;
      S.push(
        `  <testsuite name="${attr(name)}" tests="1" failures="0" errors="1" skipped="0" time="${secs(run.durationMs)}" timestamp="${run.startedAt.toISOString().slice(0, 19)}">`,
        `    <testcase classname="${attr(classname)}" name="connect" time="${secs(run.durationMs)}">`,
        `      <error message="${attr(run.error.message)}" type="exit ${run.error.exitCode}">${xml(run.error.message)}</error>`,
        `    </testcase>`,
        `  </testsuite>`,
      );
      suites.push(S);
      continue;
    }
    let f = 0,
      s = 0;
    const cases: string[] = [];
    for (const c of run.checks) {
      const sup = run.suppressed.filter((x) => x.checkId === c.id);
      const bad = c.findings.filter((x) => failing(x, opts.failOn));
      const low = c.findings.filter((x) => !failing(x, opts.failOn));
      cases.push(`    <testcase classname="${attr(classname)}" name="${attr(`${c.id}: ${c.title}`)}" time="0">`);
      if (c.status === 'skipped' || c.status === 'partial') {
        // a partial result is not a pass: the check could not see all it judges
        s++;
        cases.push(`      <skipped message="${attr(`${c.status === 'partial' ? 'partial: ' : ''}${c.reason ?? 'skipped'}`)}"/>`);
      } else if (bad.length) {
        f++;
        const worst = bad[0]!;
        cases.push(
          `      <failure message="${attr(`${bad.length} finding${bad.length === 1 ? '' : 's'} at or above ${opts.failOn}: ${worst.code} ${worst.title}`)}" type="${attr(worst.code)}">${xml(bad.map(findingText).join('\n\n'))}</failure>`,
        );
      }
      const out = [
        ...(c.status === 'passed' && c.reason ? [`passed: ${c.reason}`] : []),
        ...low.map((x) => `${findingText(x)}${x.baseline === 'unchanged' ? '\n  (unchanged since the baseline: not a failure)' : ''}`),
        ...sup.map(findingText),
        ...c.notes.map((n) => `not visible: ${n}`),
      ];
      if (out.length) cases.push(`      <system-out>${xml(out.join('\n\n'))}</system-out>`);
      cases.push('    </testcase>');
    }
    tests += run.checks.length;
    failures += f;
    total += run.durationMs;
    S.push(
      `  <testsuite name="${attr(name)}" tests="${run.checks.length}" failures="${f}" errors="0" skipped="${s}" time="${secs(run.durationMs)}" timestamp="${run.startedAt.toISOString().slice(0, 19)}">`,
      `    <properties>`,
      `      <property name="context" value="${attr(run.context)}"/>`,
      ...(run.source?.server ? [`      <property name="server" value="${attr(run.source.server)}"/>`] : []),
      ...(run.distribution ? [`      <property name="distribution" value="${attr(run.distribution)}"/>`] : []),
      ...(run.serverVersion ? [`      <property name="serverVersion" value="${attr(run.serverVersion)}"/>`] : []),
      `      <property name="failOn" value="${opts.failOn}"/>`,
      `      <property name="suppressed" value="${run.suppressed.length}"/>`,
      ...(run.baseline
        ? [
            `      <property name="baseline" value="${attr(run.baseline.file)}"/>`,
            `      <property name="baselineNew" value="${run.baseline.new}"/>`,
            `      <property name="baselineUnchanged" value="${run.baseline.unchanged}"/>`,
            `      <property name="baselineFixed" value="${run.baseline.fixed.length}"/>`,
          ]
        : []),
      ...(run.acceptedRisks?.byFile ?? []).map((f) => `      <property name="acceptedRisks" value="${attr(fileRisksText(f))}"/>`),
      `    </properties>`,
      ...cases,
      ...(run.baseline?.fixed.length
        ? [
            `    <system-out>${xml(run.baseline.fixed.map((k) => `fixed since the baseline: ${k.severity.toUpperCase()} ${k.code} ${k.title}`).join('\n'))}</system-out>`,
          ]
        : []),
      '  </testsuite>',
    );
    suites.push(S);
  }
  const cmd = runs[0]?.command ?? 'doctor';
  L.push(
    // no skipped= here: the JUnit XSD the Jenkins xUnit plugin validates with (junit-10.xsd) allows it on testsuite only
    `<testsuites name="kubectl-arch ${cmd}" tests="${tests}" failures="${failures}" errors="${errors}" time="${secs(total)}">`,
  );
  for (const s of suites) L.push(...s);
  L.push('</testsuites>');
  return L.join('\n') + '\n';
}
