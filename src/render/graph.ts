// `kubectl arch map -o mermaid|dot`: the map as a graph for Markdown, issues and docs (GitHub renders Mermaid;
// Graphviz renders dot). One cluster per contract, a node per part labelled with its name and the status of the
// checks that concern it (a word: readable without colour), and the flows of the contracts: clients and the loops
// -> the API servers -> etcd; the API servers -> the webhooks and aggregated APIs they call; the kubelets -> the API
// servers and the interfaces at the node boundary. Node ids are ours (n<section>_<line>); every label from the
// cluster is escaped for the target: Mermaid entity codes (#123;) for anything but letters, digits and plain
// punctuation, dot's quoted strings with \\ and \" (and control characters shown as text).
import type { ArchMap, MapLine, MapSection } from '../map/build.js';
import { SEVERITY_RANK, type Severity } from '../model.js';
import { visible } from '../lib/safe.js';

type Status = Severity | 'ok' | 'partial' | 'skipped' | 'none';
const WORD: Record<Status, string> = {
  critical: 'CRITICAL',
  error: 'ERROR',
  warning: 'WARNING',
  info: 'INFO',
  ok: 'ok',
  partial: 'partial',
  skipped: 'skipped',
  none: '',
};
const FILL: Record<Status, { fill: string; stroke: string }> = {
  critical: { fill: '#f8d0d0', stroke: '#8b0000' },
  error: { fill: '#fde2e1', stroke: '#c62828' },
  warning: { fill: '#fff3c4', stroke: '#9a6700' },
  info: { fill: '#ddf4ff', stroke: '#0b5cad' },
  ok: { fill: '#dafbe1', stroke: '#1a7f37' },
  partial: { fill: '#efe2ff', stroke: '#8250df' },
  skipped: { fill: '#eaeef2', stroke: '#6e7781' },
  none: { fill: '#ffffff', stroke: '#6e7781' },
};

function lineStatus(l: MapLine): { status: Status; text: string } {
  const sevs = l.checks.filter((c) => c.status === 'findings').map((c) => c.worst ?? 'info');
  const n = l.checks.reduce((k, c) => k + c.findings, 0);
  const status: Status = sevs.length
    ? sevs.sort((a, b) => SEVERITY_RANK[b] - SEVERITY_RANK[a])[0]!
    : l.checks.some((c) => c.status === 'partial')
      ? 'partial'
      : l.checks.some((c) => c.status === 'passed')
        ? 'ok'
        : l.checks.some((c) => c.status === 'skipped')
          ? 'skipped'
          : 'none';
  return { status, text: status === 'none' ? '' : `${WORD[status]}${n > 1 ? ` ×${n}` : ''}` };
}

interface Graph {
  clusters: Array<{ id: string; title: string; nodes: Array<{ id: string; name: string; status: Status; statusText: string }> }>;
  extra: Array<{ id: string; name: string }>;
  edges: Array<{ from: string; to: string; label?: string; dashed?: boolean }>;
}

/** The graph both formats draw. */
export function mapGraph(map: ArchMap): Graph {
  const id = (si: number, li: number): string => `n${si}_${li}`;
  const find = (contract: MapSection['contract'], name?: string): string | undefined => {
    const si = map.sections.findIndex((s) => s.contract === contract);
    if (si < 0) return undefined;
    const li = name ? map.sections[si]!.lines.findIndex((l) => l.name === name) : 0;
    return li < 0 || !map.sections[si]!.lines.length ? undefined : id(si, li);
  };
  const g: Graph = { clusters: [], extra: [{ id: 'clients', name: 'users, kubectl, CI' }], edges: [] };
  map.sections.forEach((s, si) => {
    g.clusters.push({
      id: s.contract,
      title: s.title,
      nodes: s.lines.map((l, li) => {
        const st = lineStatus(l);
        return { id: id(si, li), name: l.name, status: st.status, statusText: st.text };
      }),
    });
  });
  g.extra.push({ id: 'kubelets', name: `kubelets — ${map.nodes}` });
  const api = find('door', 'API servers') ?? find('door');
  const etcd = find('state');
  if (api) {
    g.edges.push({ from: 'clients', to: api, label: 'requests' });
    if (etcd) g.edges.push({ from: api, to: etcd, label: 'reads, writes' });
    g.edges.push({ from: 'kubelets', to: api, label: 'status, watch' });
  }
  map.sections.forEach((s, si) => {
    let parent: string | undefined;
    s.lines.forEach((l, li) => {
      const me = id(si, li);
      if (!l.indent) parent = me;
      else if (parent && parent !== me) g.edges.push({ from: parent, to: me, dashed: true });
      if (s.contract === 'loops' && !l.indent && api) g.edges.push({ from: me, to: api, label: 'watch, write', dashed: true });
      if (s.contract === 'door' && l.indent && api && (l.objects ?? []).some((o) => /WebhookConfiguration$|^APIService$/.test(o.kind)))
        g.edges.push({ from: api, to: me, label: 'calls' });
      if (s.contract === 'interfaces' && ['CRI', 'CNI', 'CSI'].includes(l.name)) g.edges.push({ from: 'kubelets', to: me });
    });
  });
  return g;
}

/** Mermaid label text: letters, digits, space and . , : / _ - + = x -> - kept; everything else as an entity code. */
export const mermaidText = (s: string): string =>
  [...visible(s)].map((c) => (/^[\p{L}\p{N} .,:/_\-+=\u00d7\u2192\u2014]$/u.test(c) ? c : `#${c.codePointAt(0)};`)).join('');

export function renderMermaid(map: ArchMap): string {
  const g = mapGraph(map);
  const out = ['flowchart TB'];
  for (const e of g.extra) out.push(`  ${e.id}["${mermaidText(e.name)}"]`);
  for (const c of g.clusters) {
    out.push(`  subgraph ${c.id}["${mermaidText(c.title)}"]`);
    for (const n of c.nodes)
      out.push(`    ${n.id}["${mermaidText(n.name)}${n.statusText ? `<br/>${mermaidText(n.statusText)}` : ''}"]:::s_${n.status}`);
    out.push('  end');
  }
  for (const e of g.edges) out.push(`  ${e.from} ${e.dashed ? '-.->' : '-->'}${e.label ? `|"${mermaidText(e.label)}"|` : ''} ${e.to}`);
  for (const [s, f] of Object.entries(FILL)) out.push(`  classDef s_${s} fill:${f.fill},stroke:${f.stroke},color:#000`);
  return out.join('\n') + '\n';
}

/** Text inside a dot quoted string: backslash and quote escaped, control characters shown as text. */
const dotText = (s: string): string => visible(s).replace(/\\/g, '\\\\').replace(/"/g, '\\"');
export const dotString = (s: string): string => `"${dotText(s)}"`;

export function renderDot(map: ArchMap): string {
  const g = mapGraph(map);
  const out = [
    'digraph arch {',
    '  graph [rankdir=TB, compound=true, fontname="Helvetica", fontsize=12];',
    '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11];',
    '  edge [fontname="Helvetica", fontsize=9];',
  ];
  for (const e of g.extra) out.push(`  ${e.id} [label=${dotString(e.name)}, fillcolor="#ffffff"];`);
  for (const c of g.clusters) {
    out.push(`  subgraph cluster_${c.id} {`, `    label=${dotString(c.title)};`);
    for (const n of c.nodes) {
      const f = FILL[n.status];
      // name and status on two lines: dot's own \n between the two escaped texts
      out.push(
        `    ${n.id} [label="${dotText(n.name)}${n.statusText ? `\\n${dotText(n.statusText)}` : ''}", fillcolor="${f.fill}", color="${f.stroke}"];`,
      );
    }
    out.push('  }');
  }
  for (const e of g.edges)
    out.push(
      `  ${e.from} -> ${e.to}${e.label || e.dashed ? ` [${[e.label ? `label=${dotString(e.label)}` : '', e.dashed ? 'style=dashed' : ''].filter(Boolean).join(', ')}]` : ''};`,
    );
  out.push('}');
  return out.join('\n') + '\n';
}
