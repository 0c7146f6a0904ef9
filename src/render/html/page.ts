// One self-contained page: inline CSS and JS, no request of any kind. The Content-Security-Policy meta allows
// nothing by default and only the page's own <style> and <script>, by their SHA-256 computed here when the page is
// rendered (no 'unsafe-inline', no nonce to guess); it opens from file:// and works offline. Light and dark follow
import type { Step } from '../../lib/shell.js';
// prefers-color-scheme; every status is a word and an icon next to its colour; @media print makes the printed page
// the PDF report (everything expanded, no buttons).
import type { Finding, Severity } from '../../model.js';
import { refText } from '../../model.js';
import { attrs, cspHash, esc, jsonBlock } from './escape.js';

export type Status = Severity | 'ok' | 'partial' | 'skipped' | 'none';

export const STATUS: Record<Status, { icon: string; word: string }> = {
  critical: { icon: '✖', word: 'CRITICAL' },
  error: { icon: '✖', word: 'ERROR' },
  warning: { icon: '▲', word: 'WARNING' },
  info: { icon: 'ℹ', word: 'INFO' },
  ok: { icon: '✔', word: 'ok' },
  partial: { icon: '◐', word: 'partial' },
  skipped: { icon: '○', word: 'skipped' },
  none: { icon: '·', word: 'no check' },
};

/** A status as an icon and a word on its colour (the word alone says it). */
export const badge = (s: Status, extra = ''): string =>
  `<span class="badge s-${s}"><span aria-hidden="true">${STATUS[s].icon}</span> ${STATUS[s].word}${esc(extra)}</span>`;

const BASE_CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#59636e;--line:#d0d7de;--panel:#f6f8fa;--box:#fff;
--critical:#8b0000;--error:#c62828;--warning:#9a6700;--info:#0b5cad;--ok:#1a7f37;--partial:#8250df;--skipped:#59636e;--none:#59636e;
--accent:#0969da;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--panel:#151b23;--box:#0d1117;
--critical:#ff7b72;--error:#f85149;--warning:#d29922;--info:#58a6ff;--ok:#3fb950;--partial:#bc8cff;--skipped:#9198a1;--none:#9198a1;--accent:#4493f8}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);overflow-wrap:break-word}
header,main,footer{padding:0 24px}
header{padding-top:16px;border-bottom:1px solid var(--line)}
h1{font-size:1.35rem;margin:0 0 4px}
h2{font-size:1.1rem;margin:0 0 8px}
h3{font-size:1.05rem;margin:0 0 6px}
h4{font-size:.95rem;margin:14px 0 4px}
h5,.subhead{font-size:.85rem;margin:10px 0 2px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
p{margin:4px 0}
.muted{color:var(--muted)}
code,pre{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
pre{white-space:pre-wrap;word-break:break-word;margin:0}
.badge{display:inline-block;border:1px solid currentColor;border-radius:4px;padding:0 5px;font-size:.78rem;font-weight:600;white-space:nowrap;color:var(--c)}
.s-critical{--c:var(--critical)}.s-error{--c:var(--error)}.s-warning{--c:var(--warning)}.s-info{--c:var(--info)}
.s-ok{--c:var(--ok)}.s-partial{--c:var(--partial)}.s-skipped{--c:var(--skipped)}.s-none{--c:var(--none)}
.finding{border-left:4px solid var(--c);background:var(--panel);padding:8px 10px;margin:8px 0;border-radius:0 6px 6px 0}
.finding .title{font-weight:600}
.finding .code{font:12px ui-monospace,monospace;color:var(--muted)}
.message{white-space:pre-wrap;word-break:break-word}
.fix{list-style:none;padding:0;margin:4px 0}
.fix li{display:flex;gap:6px;align-items:flex-start;margin:3px 0}
.fix pre{flex:1;background:var(--bg);border:1px solid var(--line);border-radius:4px;padding:4px 6px}
button{font:inherit;color:inherit}
.copy{font-size:.75rem;padding:2px 6px;border:1px solid var(--line);border-radius:4px;background:var(--bg);cursor:pointer}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
ul.tree{margin:2px 0;padding-left:18px}
ul.tree ul{padding-left:16px}
footer{color:var(--muted);font-size:.8rem;padding-bottom:16px;padding-top:12px;border-top:1px solid var(--line);margin-top:16px}
@media print{:root{color-scheme:light;--bg:#fff;--fg:#000;--panel:#f6f8fa;--box:#fff}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
.copy,.noprint{display:none!important}
.finding,.detail section,.check{break-inside:avoid}
header,main,footer{padding:0}}
`;

/** A heading level below the page's h1. */
export type Level = 2 | 3 | 4 | 5 | 6;

/** Fix steps: commands ready to copy (each its own block; the page's script adds a copy button). Their heading is
 *  at `level`, one below the heading the finding sits under, so the levels go down one at a time. */
export function fixHtml(fix: readonly Step[] | undefined, level: Level): string {
  if (!fix?.length) return '';
  return `<h${level} class="subhead">fix</h${level}><ol class="fix">${fix.map((f) => `<li><pre class="cmd"><code>${esc(String(f))}</code></pre></li>`).join('')}</ol>`;
}

/** A finding; `level` is the level of the headings inside it (see fixHtml). */
export function findingHtml(f: Pick<Finding, 'severity' | 'code' | 'title' | 'message' | 'objects' | 'why' | 'fix'>, level: Level): string {
  return `<div class="finding s-${f.severity}">
<p>${badge(f.severity)} <span class="code">${esc(f.code)}</span> <span class="title">${esc(f.title)}</span></p>
<p class="message">${esc(f.message)}</p>
${f.objects.length ? `<p><span class="muted">objects:</span> ${f.objects.map((o) => `<code>${esc(refText(o))}</code>`).join(', ')}</p>` : ''}
${f.why ? `<p><span class="muted">why:</span> ${esc(f.why)}</p>` : ''}
${fixHtml(f.fix, level)}
</div>`;
}

/** Copy buttons next to every command, for both pages. */
export const COPY_JS = `
for(const pre of document.querySelectorAll('pre.cmd')){const b=document.createElement('button');b.type='button';b.className='copy';
b.textContent='copy';b.setAttribute('aria-label','copy this command');b.addEventListener('click',()=>{const t=pre.textContent;
const done=()=>{b.textContent='copied';setTimeout(()=>{b.textContent='copy'},1500)};
const fallback=()=>{const r=document.createRange();r.selectNodeContents(pre);const s=getSelection();s.removeAllRanges();s.addRange(r);
try{document.execCommand('copy');done()}catch(e){b.textContent='select and copy'}};
if(navigator.clipboard&&navigator.clipboard.writeText)navigator.clipboard.writeText(t).then(done,fallback);else fallback()});pre.after(b)}
`;

export interface PageInput {
  title: string;
  css: string;
  script: string;
  body: string;
  /** Data the script reads, embedded as JSON. */
  data?: { id: string; value: unknown };
}

export function page(p: PageInput): string {
  const css = BASE_CSS + p.css;
  const script = `(()=>{'use strict';document.documentElement.classList.add('js');${p.script}${COPY_JS}})();`;
  const csp = [
    "default-src 'none'",
    `style-src ${cspHash(css)}`,
    `script-src ${cspHash(script)}`,
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"${attrs({ content: csp })}>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>${esc(p.title)}</title>
<style>${css}</style>
</head>
<body>
${p.body}
${p.data ? `<script type="application/json"${attrs({ id: p.data.id })}>${jsonBlock(p.data.value)}</script>\n` : ''}<script>${script}</script>
</body>
</html>
`;
}
