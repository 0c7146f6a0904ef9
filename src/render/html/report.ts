// `kubectl arch doctor -o html`: the report as a page to open, share and print (the browser's print is the PDF
// report). The fingerprint, a summary by severity, each check with its findings (why, fix commands ready to copy)
// and what was not visible; suppressed findings with their rule. With --contexts, the summary table of the contexts
// first, then one section per context (a context that could not be reached shows its error).
import type { CheckResult } from '../../model.js';
import { refText, SEVERITY_RANK } from '../../model.js';
import { expiredText } from '../../config/accepted.js';
import { orderChecks, type ContextRow, type Report, type ReportList } from '../report.js';
import { attrs, esc } from './escape.js';
import { badge, findingHtml, page, type Level, type Status } from './page.js';
import { sourceLine } from './map.js';
import { argvText } from '../../lib/shell.js';

const SEVS = ['critical', 'error', 'warning', 'info'] as const;

function checkStatus(c: CheckResult): Status {
  if (c.status === 'findings')
    return [...c.findings].sort((a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity])[0]?.severity ?? 'info';
  return c.status === 'passed' ? 'ok' : c.status;
}

/** A check, its heading at `level` (2 on a page of one report, 3 under a context's h2). */
function checkHtml(c: CheckResult & { suppressed?: number }, prefix: string, level: 2 | 3): string {
  const st = checkStatus(c);
  const sorted = [...c.findings].sort((a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity]);
  const head =
    c.status === 'findings'
      ? `${c.findings.length} finding${c.findings.length === 1 ? '' : 's'}`
      : `${c.status === 'passed' ? '' : `${c.status}: `}${c.reason ?? ''}`;
  return `<section${attrs({ class: `check s-${st}`, id: `${prefix}check-${c.id}` })}>
<h${level}>${badge(st)} ${esc(c.title)} <code class="muted">[${esc(c.id)}]</code></h${level}>
<p>${esc(head)}${c.suppressed ? ` <span class="muted">(${c.suppressed} suppressed)</span>` : ''}</p>
${sorted.map((f) => findingHtml(f, (level + 1) as Level)).join('')}
${c.notes.length ? `<ul class="notes">${c.notes.map((n) => `<li><span class="muted">not visible:</span> ${esc(n)}</li>`).join('')}</ul>` : ''}
</section>`;
}

function summaryHtml(r: Report, label: string): string {
  const s = r.summary;
  const sev = SEVS.map((k) => `<li>${badge(k)} <strong>${s.findings[k]}</strong></li>`).join('');
  return `<section${attrs({ class: 'summary', 'aria-label': label })}><ul class="sev">${sev}</ul>
<p>${s.checks} checks: ${s.withFindings} with findings, ${s.passed} passed, ${s.partial} partial, ${s.skipped} skipped${s.suppressed ? `, ${s.suppressed} finding${s.suppressed === 1 ? '' : 's'} suppressed` : ''}</p></section>`;
}

function fingerprintHtml(r: Report): string {
  const fp = r.fingerprint;
  const row = (k: string, v: string): string => `<dt>${esc(k)}</dt><dd>${v}</dd>`;
  return `<dl class="fp">
${row('distribution', `${esc(fp.distribution)}${fp.evidence.length ? ` <span class="muted">(${esc(fp.evidence.join('; '))})</span>` : ''}`)}
${row('version', esc(fp.serverVersion))}
${row('nodes', `${esc(fp.nodes.summary)}${fp.nodes.notReady.length ? `<br>${badge('error')} not Ready: ${esc(fp.nodes.notReady.join(', '))}` : ''}${fp.nodes.cordoned.length ? `<br>${badge('warning')} cordoned: ${esc(fp.nodes.cordoned.join(', '))}` : ''}`)}
${fp.runtimes.length ? row('runtime', esc(fp.runtimes.map((x) => `${x.runtime} ×${x.count}`).join(', '))) : ''}
${row('control plane', esc(fp.controlPlane))}
${row('network', esc(fp.cni))}
${fp.namespaces !== null ? row('namespaces', esc(fp.namespaces)) : ''}
${fp.gaps.map((g) => row('not visible', esc(g))).join('')}
</dl>`;
}

function suppressedHtml(r: Report, level: 2 | 3): string {
  const list = r.suppressed ?? [];
  const expired = r.acceptedRisks?.expired ?? [];
  if (!list.length && !expired.length) return '';
  return `<section class="suppressed"><h${level}>Suppressed (accepted risks): ${list.length}</h${level}>
${list
  .map(
    (
      f,
    ) => `<div class="finding s-${f.severity}"><p>${badge(f.severity)} <span class="code">${esc(f.code)}</span> <span class="title">${esc(f.title)}</span></p>
${f.objects.length ? `<p><span class="muted">objects:</span> ${esc(f.objects.map(refText).join(', '))}</p>` : ''}
<p><span class="muted">accepted:</span> ${esc(f.suppressedBy.reason)} <span class="muted">(${esc(f.suppressedBy.file)}, ignore #${esc(f.suppressedBy.index)}${f.suppressedBy.expires ? `, until ${esc(f.suppressedBy.expires)}` : ''})</span></p></div>`,
  )
  .join('')}
${expired.map((e) => `<p>${badge('warning')} ${esc(expiredText(e))}</p>`).join('')}</section>`;
}

/** One report: what `doctor` prints, as sections. With several contexts on the page, prefix keeps its ids unique,
 *  its landmarks are named by its context, and its headings sit one level below the context's h2. */
function reportHtml(r: Report, prefix: string, context?: string): string {
  const checks = orderChecks(r.checks) as Report['checks'];
  const level = context === undefined ? 2 : 3;
  const of = context === undefined ? '' : ` of context ${context}`;
  return `<p class="muted">${esc(sourceLine(r.source))}${r.source.namespace ? `, namespace ${esc(r.source.namespace)}` : ''}</p>
${summaryHtml(r, `summary${of}`)}
${fingerprintHtml(r)}
<nav${attrs({ class: 'toc noprint', 'aria-label': `checks${of}` })}><ul>${checks.map((c) => `<li><a${attrs({ href: `#${prefix}check-${c.id}` })}>${badge(checkStatus(c))} ${esc(c.id)}</a></li>`).join('')}</ul></nav>
${checks.map((c) => checkHtml(c, prefix, level)).join('\n')}
${suppressedHtml(r, level)}`;
}

function contextsTable(rows: ContextRow[]): string {
  const n = (r: ContextRow, k: (typeof SEVS)[number]): string => (r.findings ? String(r.findings[k]) : '-');
  return `<div class="scroll"><table class="contexts"><thead><tr><th scope="col">context</th><th scope="col">distribution</th><th scope="col">version</th>${SEVS.map((k) => `<th scope="col">${k}</th>`).join('')}<th scope="col">suppressed</th><th scope="col">time</th><th scope="col">worst</th></tr></thead><tbody>
${rows
  .map((r, i) => {
    const worst: Status = r.status === 'failed' ? 'error' : r.worst === 'none' ? 'ok' : (r.worst as Status);
    return `<tr><th scope="row"><a${attrs({ href: `#ctx-${i}` })}>${esc(r.context)}</a></th><td>${esc(r.distribution ?? '-')}</td><td>${esc(r.serverVersion ?? '-')}</td>${SEVS.map((k) => `<td>${n(r, k)}</td>`).join('')}<td>${r.suppressed ?? '-'}</td><td>${(r.durationMs / 1000).toFixed(1)}s</td><td>${r.status === 'failed' ? `${badge('error', '')} ${esc(r.worst)}: ${esc(r.error?.message ?? '')}` : badge(worst)}</td></tr>`;
  })
  .join('\n')}</tbody></table></div>`;
}

const REPORT_CSS = `
main{padding-top:12px;max-width:1100px}
.summary .sev{list-style:none;display:flex;flex-wrap:wrap;gap:14px;padding:0;margin:6px 0}
.fp{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 14px;margin:10px 0;font-size:.9rem}
.fp dt{color:var(--muted)}.fp dd{margin:0}
.toc ul{list-style:none;display:flex;flex-wrap:wrap;gap:6px;padding:0;margin:8px 0 12px}
.toc a{text-decoration:none;color:inherit;border:1px solid var(--line);border-radius:6px;padding:2px 6px;display:inline-block}
.check{border:1px solid var(--line);border-left:6px solid var(--c);border-radius:8px;padding:10px 12px;margin:10px 0}
.check>h2,.suppressed>h2{font-size:1.05rem;margin:0 0 6px}
.notes{margin:6px 0 0;padding-left:18px;font-size:.9rem}
.scroll{overflow-x:auto}
.contexts{border-collapse:collapse;font-size:.88rem;margin:10px 0}
.contexts th,.contexts td{border:1px solid var(--line);padding:3px 8px;text-align:left}
.context{border-top:3px double var(--line);margin-top:18px;padding-top:8px}
.error-box{border-left:4px solid var(--error);background:var(--panel);padding:8px 10px}
a{color:var(--accent)}
@media print{.check{break-inside:auto}.context{break-before:page}.context:first-of-type{break-before:auto}}
`;

/** A Report (one context or snapshot), or a ReportList (--contexts) whose items are doctor Reports. */
export function renderReportHtml(doc: Report | ReportList, version: string): string {
  let body: string;
  let title: string;
  if (doc.kind === 'Report') {
    title = `${argvText(['kubectl', 'arch', doc.command])} — ${doc.fingerprint.distribution} ${doc.fingerprint.serverVersion}`;
    body = `<header><h1>${esc(argvText(['kubectl', 'arch', doc.command]))} <span class="muted">— ${esc(doc.fingerprint.distribution)} ${esc(doc.fingerprint.serverVersion)}</span></h1></header>
<main>${reportHtml(doc, '')}</main>`;
  } else {
    const items = doc.items as Report[];
    let next = 0;
    const sections = doc.contexts.map((row, i) => {
      const head = `<h2>context ${esc(row.context)}</h2>`;
      if (row.status === 'failed')
        return `<section class="context" id="ctx-${i}">${head}<div class="error-box"><p>${badge('error')} ${esc(row.error?.message ?? 'failed')}</p>${row.error?.hint ? `<p class="muted">hint: ${esc(row.error.hint)}</p>` : ''}</div></section>`;
      const r = items[next++];
      return `<section class="context" id="ctx-${i}">${head}${r ? reportHtml(r, `c${i}-`, row.context) : ''}</section>`;
    });
    const s = doc.summary;
    title = `${argvText(['kubectl', 'arch', doc.command])} — ${s.contexts} contexts`;
    body = `<header><h1>${esc(argvText(['kubectl', 'arch', doc.command]))} <span class="muted">— ${s.contexts} context${s.contexts === 1 ? '' : 's'}: ${s.reached} reached, ${s.failed} failed</span></h1></header>
<main><section class="summary" aria-label="summary of all contexts"><ul class="sev">${SEVS.map((k) => `<li>${badge(k)} <strong>${s.findings[k]}</strong></li>`).join('')}</ul>
${s.suppressed ? `<p>${s.suppressed} suppressed</p>` : ''}</section>
${contextsTable(doc.contexts)}
${sections.join('\n')}</main>`;
  }
  return page({
    title,
    css: REPORT_CSS,
    script: '',
    body: `${body}\n<footer>kubectl-arch ${esc(version)} · read-only: nothing was changed to write this report · print this page for a PDF</footer>`,
  });
}
