// Human report: fingerprint header, then one section per check.
import { refText, type CheckResult, type Finding, SEVERITY_RANK } from '../model.js';
import type { Fingerprint } from '../fingerprint.js';
import { orderChecks, type Report } from './report.js';
import type { Style } from './style.js';
import { termSafe, termSafeDeep } from '../lib/safe.js';
import type { SuppressedFinding } from '../config/accepted.js';
import { expiredText, findingCount } from '../config/accepted.js';
import type { AcceptedRisksInfo } from './report.js';
import { hang, hangItems, stepLines } from '../lib/wrap.js';
import { argvText } from '../lib/shell.js';

const SEV_LABEL = { critical: 'CRITICAL', error: 'ERROR', warning: 'WARNING', info: 'INFO' } as const;

export function renderFingerprint(fp: Fingerprint, s: Style): string[] {
  const row = (k: string, v: string): string => hang(`  ${s.dim(k.padEnd(14))}`, v, s.width);
  const lines = [
    row('distribution', `${fp.distribution}${fp.evidence.length ? s.dim(`  (${fp.evidence.join('; ')})`) : ''}`),
    row('version', fp.serverVersion),
    row('nodes', fp.nodes.summary),
  ];
  if (fp.nodes.notReady.length) lines.push(row('', s.sev('error', `not Ready: ${fp.nodes.notReady.join(', ')}`)));
  if (fp.nodes.cordoned.length) lines.push(row('', s.yellow(`cordoned: ${fp.nodes.cordoned.join(', ')}`)));
  if (fp.runtimes.length) lines.push(row('runtime', fp.runtimes.map((r) => `${r.runtime} ×${r.count}`).join(', ')));
  lines.push(row('control plane', fp.controlPlane));
  lines.push(row('network', fp.cni));
  if (fp.namespaces !== null) lines.push(row('namespaces', String(fp.namespaces)));
  for (const g of fp.gaps) lines.push(row('not visible', g));
  return lines;
}

/** Everything below comes from the cluster or a file: escaped, one line per string except messages. With a width,
 *  prose wraps under its own start; fix steps are commands to copy and stay whole. */
function renderFinding(f: Finding, s: Style): string[] {
  const mark = s.color ? { critical: '✖', error: '✖', warning: '▲', info: 'ℹ' }[f.severity] : '-';
  const w = s.width;
  const out = [
    hang(
      `  ${mark} ${s.sev(f.severity, SEV_LABEL[f.severity])} ${s.dim(f.code)}  `,
      `${s.bold(f.title)}${f.baseline ? s.dim(` (${f.baseline === 'new' ? 'new since the baseline' : 'unchanged since the baseline'})`) : ''}`,
      w,
    ),
  ];
  const indent = '      ';
  for (const line of f.message.split('\n')) out.push(hang(indent, line, w));
  if (f.objects.length) out.push(hangItems(`${indent}${s.dim('objects:')} `, f.objects.map(refText), w));
  if (f.why) out.push(hang(`${indent}${s.dim('why:')} `, f.why, w));
  if (f.fix?.length) {
    out.push(`${indent}${s.dim('fix:')}`);
    for (const step of f.fix) out.push(...stepLines(`${indent}  `, step, w));
  }
  return out;
}

function renderCheck(c: CheckResult, s: Style): string[] {
  const out: string[] = [];
  // the check's line wraps under its title
  const head = (mark: string, rest: string): string => hang(`${mark} `, `${s.bold(c.title)} ${s.dim(`[${c.id}]`)}: ${rest}`, s.width);
  if (c.status === 'passed') {
    out.push(head(s.green(s.color ? '✔' : 'PASS'), c.reason ?? ''));
  } else if (c.status === 'partial') {
    out.push(head(s.yellow(s.color ? '◐' : 'PART'), `partial: ${c.reason ?? ''}`));
  } else if (c.status === 'skipped') {
    out.push(head(s.dim(s.color ? '○' : 'SKIP'), `skipped: ${c.reason ?? ''}`));
  } else {
    const sorted = [...c.findings].sort((a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity]);
    const worstSev = sorted[0]!.severity;
    out.push(head(s.sev(worstSev, s.color ? '✖' : 'FAIL'), `${c.findings.length} finding${c.findings.length === 1 ? '' : 's'}`));
    for (const f of sorted) out.push(...renderFinding(f, s));
  }
  for (const n of c.notes) out.push(hang(`    ${s.dim('not visible:')} `, n, s.width));
  return out;
}

export function renderText(report: Report, s: Style): string {
  // messages keep their line breaks (each line is indented below its finding); every other string is one line
  const r: Report = {
    ...termSafeDeep(report, false),
    checks: report.checks.map((c) => ({
      ...termSafeDeep(c, false),
      findings: c.findings.map((f) => ({ ...termSafeDeep(f, false), message: termSafe(f.message, true) })),
    })),
  };
  const src =
    r.source.type === 'snapshot'
      ? `snapshot ${r.source.path}${r.source.capturedAt ? `, captured ${r.source.capturedAt}` : ''}`
      : `context ${r.source.context ?? '?'} (${r.source.server ?? '?'})`;
  const lines = [
    hang(
      '',
      s.bold(argvText(['kubectl', 'arch', r.command])) + s.dim(` — ${src}${r.source.namespace ? `, namespace ${r.source.namespace}` : ''}`),
      s.width,
    ),
    ...risksHeader(report.acceptedRisks, s.width),
    '',
  ];
  lines.push(...renderFingerprint(r.fingerprint, s), '');
  for (const c of orderChecks(r.checks)) lines.push(...renderCheck(c, s), '');
  lines.push(...renderSuppressed(report.suppressed ?? [], report.acceptedRisks, s));
  const f = r.summary.findings;
  const counts = (['critical', 'error', 'warning', 'info'] as const).filter((k) => f[k] > 0).map((k) => `${f[k]} ${k}`);
  const sup = r.summary.suppressed ? `, ${r.summary.suppressed} suppressed` : '';
  lines.push(
    hang(
      '',
      `${r.summary.checks} checks: ${r.summary.withFindings} with findings${counts.length ? ` (${counts.join(', ')})` : ''}, ${r.summary.passed} passed, ${r.summary.partial ? `${r.summary.partial} partial, ` : ''}${r.summary.skipped} skipped${sup}`,
      s.width,
    ),
  );
  return lines.join('\n') + '\n';
}

/** The "suppressed" section: every finding an accepted-risk rule silenced, with the rule's reason; then expired rules. */
export function renderSuppressed(list: SuppressedFinding[], info: AcceptedRisksInfo | undefined, s: Style): string[] {
  const out: string[] = [];
  if (list.length) {
    out.push(hang('', s.bold(`Suppressed (accepted risks): ${list.length}`), s.width));
    for (const f0 of list) {
      const f = termSafeDeep(f0, false);
      const rule = f.suppressedBy;
      out.push(hang(`  ${s.dim('-')} ${SEV_LABEL[f.severity]} ${s.dim(f.code)}  `, f.title, s.width));
      if (f.objects.length) out.push(hangItems(`      ${s.dim('objects:')} `, f.objects.map(refText), s.width));
      out.push(
        hang(
          `      ${s.dim('accepted:')} `,
          `${rule.reason} ${s.dim(`(${rule.file}, ignore #${rule.index}${rule.expires ? `, until ${rule.expires}` : ''})`)}`,
          s.width,
        ),
      );
    }
    out.push('');
  }
  for (const r of info?.expired ?? []) out.push(hang('', s.yellow(`warning: ${termSafe(expiredText(r))}`), s.width));
  if (info?.expired.length) out.push('');
  return out;
}

/** For the header of a report: which config files were read and what they suppressed, and any left unread. */
export function risksHeader(info: AcceptedRisksInfo | undefined, width?: number): string[] {
  if (!info) return [];
  const out: string[] = [];
  const files = info.byFile ?? [];
  if (files.length) {
    const n = files.reduce((a, f) => a + f.suppressed, 0);
    const which = files.length === 1 ? files[0]!.file : files.map((f) => `${f.file} (${f.suppressed})`).join(', ');
    out.push(hang('', termSafe(`accepted risks: ${findingCount(n)} suppressed by ${which}`), width));
  }
  for (const f of info.untrusted ?? []) out.push(hang('', termSafe(`accepted risks: ${f} not read (its directory is not trusted)`), width));
  return out;
}

/** text with lines inserted after its first line (the title), for the reports whose renderers write their own title. */
export const afterTitle = (text: string, lines: string[]): string => {
  if (!lines.length) return text;
  const i = text.indexOf('\n');
  return i < 0 ? `${text}\n${lines.join('\n')}\n` : `${text.slice(0, i + 1)}${lines.join('\n')}\n${text.slice(i + 1)}`;
};
