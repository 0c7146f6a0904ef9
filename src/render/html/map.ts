// `kubectl arch map -o html`: the cluster drawn by its four contracts, the way the field notes draw it - clients
// and the loops go through the door (the API servers, the webhooks and aggregated APIs in the request path) to the
// state behind it (etcd); the loops reconcile around it; the interfaces sit at the node boundary. A fixed
// arrangement (CSS grid), so no layout library. Every part is a button labelled with the status of the checks that
// concern it (a word and an icon next to the colour); selecting one shows its findings (why, fix) and its blast
// radius, and marks the parts that depend on it. The distribution's real layout frames the door and the state.
import type { ArchMap, CountedCheck, LineCheck, MapLine, MapSection } from '../../map/build.js';
import type { BlastNode, BlastRadius, ControlPlaneLayout } from '../../map/blast.js';
import { partKey } from '../../map/blast.js';
import { faultKey, SEVERITY_RANK, type CheckResult, type Severity } from '../../model.js';
import type { Report } from '../report.js';
import { groupMany, hypothesisLine, oneAtATimeLine, restLine, verdictLine, whatIfCommand, type Pred, type WhatIfDoc } from '../whatif.js';
import { attrs, esc } from './escape.js';
import { badge, findingHtml, page, type Status } from './page.js';

export interface MapPageInput {
  map: ArchMap;
  source: Report['source'];
  results: CheckResult[];
  /** By part key (src/map/blast.ts). */
  blast: Record<string, BlastRadius>;
  layout: ControlPlaneLayout;
  version: string;
  /** `what-if -o html`: the map is of the cluster as it would be, and these predictions are drawn on it. */
  whatIf?: WhatIfOverlay;
}

export interface WhatIfOverlay {
  doc: WhatIfDoc;
  /** By part key: the predictions drawn on that part. */
  parts: Record<string, Pred[]>;
  /** What no part of the map draws. */
  undrawn: Pred[];
}

/** The worst of a part's checks: a finding's severity, then partial, ok, skipped; no check at all is 'none'. */
export function partStatus(checks: LineCheck[]): { status: Status; findings: number; worstCount?: number } {
  const findings = checks.reduce((n, c) => n + c.findings, 0);
  const sevs = checks.filter((c) => c.status === 'findings').map((c) => c.worst ?? 'info');
  if (sevs.length) {
    const worst = sevs.sort((a, b) => SEVERITY_RANK[b] - SEVERITY_RANK[a])[0]!;
    return { status: worst, findings, worstCount: checks.reduce((n, c) => n + severityCount(c, worst), 0) };
  }
  if (checks.some((c) => c.status === 'partial')) return { status: 'partial', findings };
  if (checks.some((c) => c.status === 'passed')) return { status: 'ok', findings };
  if (checks.some((c) => c.status === 'skipped')) return { status: 'skipped', findings };
  return { status: 'none', findings };
}

/** How many findings of this severity a check has on the line (its bySeverity; without it, all of them at its worst). */
const severityCount = (c: LineCheck, sev: Severity): number => {
  const by = (c as CountedCheck).bySeverity;
  return by ? (by[sev] ?? 0) : c.worst === sev ? c.findings : 0;
};
/** The badge counts the worst severity only: one error and one info is "ERROR", never "ERROR ×2". */
const statusText = (s: { worstCount?: number }): string => ((s.worstCount ?? 0) > 1 ? ` ×${s.worstCount}` : '');

const TITLES: Record<MapSection['contract'], string> = {
  state: 'STATE',
  door: 'DOOR',
  loops: 'LOOPS',
  interfaces: 'INTERFACES',
};

const WOULD_BREAK = '<span class="wb"><span aria-hidden="true">⚡</span> would break</span>';

// A part's name is the words it shows (its status, would break, its name and what it is), so what a screen reader
// says and what a voice command names are the words on the screen; how many findings and predictions are its
// description, in a hidden element next to it.
function partButton(line: MapLine, key: string, predicted: number): string {
  const st = partStatus(line.checks);
  const desc = `${st.status === 'none' ? 'no check concerns it' : `${st.findings ? `${st.findings} finding${st.findings === 1 ? '' : 's'}, worst ` : ''}${st.status}`}${predicted ? `; would break (${predicted} predicted)` : ''}`;
  return `<button${attrs({
    type: 'button',
    class: `part s-${st.status}${line.indent ? ' sub' : ''}${predicted ? ' predicted' : ''}`,
    id: `b-${key}`,
    'data-part': key,
    'aria-controls': `d-${key}`,
    'aria-expanded': 'false',
    'aria-describedby': `s-${key}`,
    title: `${line.name} — ${line.detail}`,
  })}>${badge(st.status, statusText(st))}${predicted ? WOULD_BREAK : ''}<span class="name">${esc(line.name)}</span><span class="pdetail">${esc(line.detail)}</span></button><span${attrs({ id: `s-${key}`, class: 'pdesc', hidden: true })}>${esc(desc)}</span>`;
}

function zone(map: ArchMap, contract: MapSection['contract'], cls: string, w?: WhatIfOverlay): string {
  const si = map.sections.findIndex((s) => s.contract === contract);
  const sec = map.sections[si];
  if (!sec) return `<section class="zone ${cls}"><h2>${TITLES[contract]}</h2><p class="muted">not drawn</p></section>`;
  const [head, ...rest] = sec.title.split(' — ');
  return `<section${attrs({ class: `zone ${cls}`, 'aria-label': sec.title })}><h2>${esc(head)}${rest.length ? ` <span class="muted">— ${esc(rest.join(' — '))}</span>` : ''}</h2>
<div class="parts">${sec.lines.map((l, li) => partButton(l, partKey(si, li), w?.parts[partKey(si, li)]?.length ?? 0)).join('')}</div></section>`;
}

const tree = (nodes: BlastNode[]): string =>
  nodes.length
    ? `<ul class="tree">${nodes.map((n) => `<li>${esc(n.text)}${n.children?.length ? tree(n.children) : ''}</li>`).join('')}</ul>`
    : '';

function checkLine(c: LineCheck): string {
  const s: Status =
    c.status === 'findings' ? (c.worst ?? 'info') : c.status === 'passed' ? 'ok' : c.status === 'partial' ? 'partial' : 'skipped';
  const n = c.status === 'findings' ? severityCount(c, c.worst ?? 'info') : 0;
  const by = (c as CountedCheck).bySeverity ?? {};
  const words = (['critical', 'error', 'warning', 'info'] as Severity[]).filter((x) => by[x]).map((x) => `${by[x]} ${x}`);
  return `<li>${badge(s, n > 1 ? ` ×${n}` : '')} <code>${esc(c.id)}</code>${c.findings ? ` — ${c.findings} finding${c.findings === 1 ? '' : 's'} on this part${words.length > 1 ? ` (${words.join(', ')})` : ''}` : ''}</li>`;
}

function detail(map: ArchMap, si: number, li: number, input: MapPageInput): string {
  const sec = map.sections[si]!;
  const line = sec.lines[li]!;
  const key = partKey(si, li);
  const st = partStatus(line.checks);
  const b = input.blast[key];
  const predicted = input.whatIf?.parts[key] ?? [];
  // what-if: a finding shown as a prediction is not shown twice; the others were there before (or restate the hypothesis)
  const shown = new Set(predicted.map(faultKey));
  const findings = line.checks.flatMap((c) => {
    const r = input.results.find((x) => x.id === c.id);
    return (c.indexes ?? [])
      .map((i) => r?.findings[i])
      .filter((f) => f !== undefined)
      .filter((f) => !shown.has(faultKey(f)));
  });
  const reasons = line.checks
    .map((c) => input.results.find((x) => x.id === c.id))
    .filter((r) => r && r.status !== 'findings' && r.reason)
    .map((r) => `<li><code>${esc(r!.id)}</code>: ${esc(r!.reason)}</li>`);
  return `<article${attrs({ class: 'detail', id: `d-${key}`, 'data-part': key, tabindex: '-1', 'aria-labelledby': `h-${key}` })}>
<h3${attrs({ id: `h-${key}` })}>${badge(st.status, statusText(st))} ${esc(line.name)}</h3>
<p class="muted">${TITLES[sec.contract]} · ${esc(line.detail)}</p>
${predicted.length ? `<section class="predicted-here"><h4>${WOULD_BREAK} — predicted</h4>${predicted.map((f) => findingHtml(f, 5)).join('')}</section>` : ''}
<section><h4>Checks</h4>${line.checks.length ? `<ul class="checks">${line.checks.map(checkLine).join('')}</ul>` : '<p class="muted">No check concerns this part.</p>'}
${reasons.length ? `<ul class="tree muted">${reasons.join('')}</ul>` : ''}</section>
${findings.length ? `<section><h4>${input.whatIf ? 'Other findings' : 'Findings'}</h4>${findings.map((f) => findingHtml(f, 5)).join('')}</section>` : ''}
<section class="blast"><h4>Blast radius</h4>
${b?.summary ? `<p class="bsum">${b.now ? '<strong>Broken now:</strong> ' : '<strong>If it fails:</strong> '}${esc(b.summary)}</p>` : ''}
${b?.chain.length ? `<h5>works through</h5>${tree(b.chain)}` : ''}
${b?.takes.length ? `<h5>what depends on it</h5>${tree(b.takes)}` : ''}
${!b || (!b.summary && !b.chain.length && !b.takes.length) ? '<p class="muted">Nothing known to depend on it.</p>' : ''}
</section></article>`;
}

const ARROW_R = `<svg viewBox="0 0 40 20" width="40" height="20" aria-hidden="true" focusable="false"><path d="M2 10h30" stroke="currentColor" stroke-width="2" fill="none"/><path d="M30 4l8 6-8 6z" fill="currentColor"/></svg>`;
const ARROWS_UD = `<svg viewBox="0 0 40 36" width="40" height="36" aria-hidden="true" focusable="false"><path d="M12 2v26" stroke="currentColor" stroke-width="2"/><path d="M6 26l6 8 6-8z" fill="currentColor"/><path d="M28 34V8" stroke="currentColor" stroke-width="2"/><path d="M22 10l6-8 6 8z" fill="currentColor"/></svg>`;

const MAP_CSS = `
.wrap{display:grid;grid-template-columns:minmax(0,1fr) minmax(300px,420px);gap:20px;padding-top:16px;align-items:start}
@media (max-width:1100px){.wrap{grid-template-columns:minmax(0,1fr)}}
.picture{display:grid;grid-template-columns:minmax(120px,170px) 48px minmax(0,1fr);grid-template-areas:"loops loops loops" ". . cycle" "users a1 cp" "iface iface iface" "nodes nodes nodes";gap:6px 0}
.zone{border:2px solid var(--line);border-radius:10px;padding:10px;background:var(--box)}
.zone h2{font-size:.95rem;letter-spacing:.03em}
.zone h2 .muted{font-weight:400;letter-spacing:0}
.loops{grid-area:loops;border-style:solid;border-color:var(--partial)}
.loops .parts{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:6px}
.cycle{grid-area:cycle;display:flex;align-items:center;gap:8px;color:var(--muted);font-size:.85rem;padding-left:30%}
.users{grid-area:users;align-self:center;border-style:dashed}
.users ul{margin:0;padding-left:16px;font-size:.85rem}
.a1{grid-area:a1;align-self:center;justify-self:center;color:var(--muted);text-align:center;font-size:.7rem}
.cp{grid-area:cp;border:2px dashed var(--muted);border-radius:12px;padding:8px;position:relative}
.cp>.layout{font-size:.82rem;color:var(--muted);margin:0 0 6px}
.cp>.row{display:grid;grid-template-columns:minmax(0,1.5fr) 48px minmax(0,1fr);align-items:start}
.door{border-color:var(--accent)}
.state{border-color:var(--warning)}
.a2{align-self:center;justify-self:center;color:var(--muted);text-align:center;font-size:.7rem}
.door .parts,.state .parts{display:flex;flex-direction:column;gap:5px}
.iface{grid-area:iface;margin-top:14px;border-top:3px dashed var(--muted);border-radius:0;border-left:0;border-right:0;border-bottom:0;background:transparent;padding:8px 0 0}
.iface .parts{display:grid;grid-template-columns:repeat(auto-fit,minmax(130px,1fr));gap:6px}
.nodes{grid-area:nodes;border:1px solid var(--line);border-radius:8px;padding:6px 10px;font-size:.85rem;background:var(--panel)}
.part{display:flex;flex-direction:column;align-items:flex-start;gap:2px;text-align:left;width:100%;border:1px solid var(--line);border-left:6px solid var(--c);border-radius:6px;background:var(--bg);padding:5px 8px;cursor:pointer;min-width:0}
.part.sub{margin-left:16px;width:calc(100% - 16px)}
.part .name{font-weight:600;overflow-wrap:anywhere}
.part .pdetail{font-size:.75rem;color:var(--muted);display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden;overflow-wrap:anywhere}
.part:hover{background:var(--panel)}
.part.predicted{border-style:dashed;border-left-style:solid;background:var(--panel)}
.wb{font-size:.72rem;font-weight:700;color:var(--error);white-space:nowrap}
.undrawn{margin:6px 0}.undrawn summary{cursor:pointer}
.part.selected{outline:3px solid var(--accent);outline-offset:1px}
.part.affected{box-shadow:0 0 0 3px var(--warning)}
.part.affected::after{content:"↳ depends on the selected part";font-size:.7rem;color:var(--warning)}
aside{font-size:.9rem;position:sticky;top:8px;max-height:calc(100vh - 16px);overflow:auto;border:1px solid var(--line);border-radius:10px;padding:12px;background:var(--panel)}
.js .detail{display:none}.js .detail.open{display:block}
.detail{border-bottom:1px solid var(--line);padding-bottom:8px;margin-bottom:8px}
.detail .finding{background:var(--bg)}
.checks{list-style:none;padding:0;margin:0}.checks li{margin:2px 0}
.legend{display:flex;flex-wrap:wrap;gap:6px;margin:6px 0 10px}
.bsum{margin:4px 0}
@media (max-width:720px){header,main,footer{padding-left:12px;padding-right:12px}
.picture{grid-template-columns:minmax(0,1fr);grid-template-areas:"loops" "cycle" "users" "a1" "cp" "iface" "nodes"}
.cycle{padding-left:0}
.cp>.row{grid-template-columns:minmax(0,1fr)}
.a1 svg,.a2 svg{transform:rotate(90deg);margin:10px 0}
aside{position:static;max-height:none;overflow:visible}}
@media print{.undrawn>*{display:block}.wrap{display:block}aside{position:static;max-height:none;overflow:visible;border:0;padding:0;background:none;break-before:page}
.js .detail{display:block}#hint{display:none}.picture{break-inside:avoid}.part{break-inside:avoid}.part .pdetail{-webkit-line-clamp:unset;display:block}}
`;

const MAP_JS = `
const data=JSON.parse(document.getElementById('arch-data').textContent);
const parts=[...document.querySelectorAll('button.part')];
const hint=document.getElementById('hint');
let current=null;
function select(key){current=key;const affected=key?(data.affected[key]||[]):[];
for(const b of parts){const on=b.dataset.part===key;b.setAttribute('aria-expanded',on?'true':'false');b.classList.toggle('selected',on);b.classList.toggle('affected',affected.includes(b.dataset.part))}
for(const d of document.querySelectorAll('article.detail')){d.classList.toggle('open',d.dataset.part===key)}
hint.hidden=!!key;
if(key){const d=document.getElementById('d-'+key);if(d&&d.scrollIntoView)d.scrollIntoView({block:'nearest'})}}
for(const b of parts)b.addEventListener('click',()=>select(current===b.dataset.part?null:b.dataset.part));
document.addEventListener('keydown',e=>{if(e.key==='Escape'&&current){const b=document.getElementById('b-'+current);select(null);if(b)b.focus()}});
`;

/** what-if: the hypothesis, the verdict, what was not visible, and the predictions no part of the map draws. */
function whatIfHeader(w: WhatIfOverlay): string {
  const v = verdictLine(w.doc);
  const once = oneAtATimeLine(w.doc);
  const { full, tails } = groupMany(w.undrawn);
  return `<p><strong>hypothesis:</strong> ${esc(hypothesisLine(w.doc.hypothesis))}. ${w.doc.hypothesis.upgrade ? 'The map is the cluster as it is' : 'The map is the cluster as it would be'}; a part
marked ${WOULD_BREAK} carries a prediction (select it to see which).</p>
<p class="verdict">${v.tone === 'plain' ? '' : `${badge(v.tone)} `}${esc(v.text)}</p>
${once ? `<p>${esc(once)}</p>` : ''}
${w.doc.notes.map((n) => `<p class="muted">not visible: ${esc(n)}</p>`).join('')}
${
  w.undrawn.length
    ? `<details class="undrawn"><summary>${w.undrawn.length} predicted that no part of the map draws (workloads, volumes, capacity)</summary>
${full.map((f) => findingHtml(f, 2)).join('')}${tails.map((t) => `<p>${badge(t.severity)} <span class="code">${esc(t.code)}</span> ${esc(restLine(t.rest))}</p>`).join('')}</details>`
    : ''
}`;
}

/** Where the map's evidence came from, in one line. */
export const sourceLine = (source: Report['source']): string =>
  source.type === 'snapshot'
    ? `snapshot ${source.path ?? '?'}${source.capturedAt ? `, captured ${source.capturedAt}` : ''}`
    : `context ${source.context ?? '?'} (${source.server ?? '?'})`;

export function renderMapHtml(input: MapPageInput): string {
  const { map } = input;
  const w = input.whatIf;
  const door = zone(map, 'door', 'door', w);
  const state = zone(map, 'state', 'state', w);
  const affected: Record<string, string[]> = {};
  for (const [k, b] of Object.entries(input.blast)) if (b.parts.length) affected[k] = b.parts;
  const details = map.sections.flatMap((s, si) => s.lines.map((_, li) => detail(map, si, li, input))).join('\n');
  const all = map.sections.flatMap((s) => s.lines.map((l) => partStatus(l.checks)));
  const count = (st: Status): number => all.filter((x) => x.status === st).length;
  const legend = (['critical', 'error', 'warning', 'info', 'partial', 'ok', 'skipped', 'none'] as Status[])
    .filter((s) => count(s))
    .map((s) => `${badge(s)} <span class="muted">${count(s)}</span>`)
    .join(' ');
  const command = w ? whatIfCommand(w.doc.hypothesis) : 'kubectl arch map';
  const body = `<header>
<h1>${esc(command)} <span class="muted">— ${esc(map.distribution)} ${esc(map.serverVersion)}</span></h1>
${w ? whatIfHeader(w) : ''}
<p class="muted">${esc(sourceLine(input.source))}${input.source.namespace ? `, namespace ${esc(input.source.namespace)}` : ''} · ${esc(map.nodes)}</p>
<p class="legend" aria-label="parts by status">${legend}${w ? ` ${WOULD_BREAK} <span class="muted">${Object.keys(w.parts).length}</span>` : ''}</p>
</header>
<main class="wrap">
<div class="picture" role="group" aria-label="The cluster by contract: clients and loops go through the door to the state; the interfaces sit at the node boundary">
${zone(map, 'loops', 'loops', w)}
<div class="cycle" aria-hidden="true">${ARROWS_UD}<span>loops watch and write through the door; the door tells them what changed</span></div>
<section class="zone users" aria-label="clients"><h2>CLIENTS</h2><ul><li>users, kubectl, CI</li><li>the loops above</li><li>kubelets below</li></ul></section>
<div class="a1" aria-hidden="true">${ARROW_R}<br>requests</div>
<div class="cp"><p class="layout">${esc(input.layout.text)}</p><div class="row">${door}<div class="a2" aria-hidden="true">${ARROW_R}<br>reads, writes</div>${state}</div></div>
${zone(map, 'interfaces', 'iface', w)}
<div class="nodes"><strong>nodes</strong> — ${esc(map.nodes)}: each runs a kubelet, which talks only to the door, and the interfaces above</div>
</div>
<aside aria-label="details of the selected part" aria-live="polite">
<p id="hint" class="muted noprint">Select a part (click, or Tab then Enter) to see its findings with why and fix, and its blast radius: what it works through and what depends on it. Esc closes.</p>
${details}
</aside>
</main>
<footer>kubectl-arch ${esc(input.version)} · read-only: nothing was changed to draw this page · findings in full: <code>kubectl arch doctor -o html</code></footer>`;
  return page({
    title: `${command} — ${map.distribution} ${map.serverVersion}`,
    css: MAP_CSS,
    script: MAP_JS,
    body,
    data: {
      id: 'arch-data',
      value: {
        apiVersion: 'kubectl-arch/v1',
        kind: w ? 'WhatIfMap' : 'ArchMap',
        source: input.source,
        ...map,
        affected,
        ...(w ? { whatIf: { hypothesis: w.doc.hypothesis, predictions: w.doc.predictions, verdict: w.doc.verdict } } : {}),
      },
    },
  });
}
