// `map -o html|mermaid|dot` and `doctor -o html`: what the pages hold, their escaping and CSP, the blast radius,
// and the graphs parsed by the real Graphviz. The pages in a real browser: __tests__/pages.browser.test.ts.
import { describe, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { Graphviz } from '@hpcc-js/wasm-graphviz';
import { CHECKS } from '../src/checks/registry.js';
import { evidenceTime, runChecks } from '../src/checks/run.js';
import { scenarios as webhookScenarios } from '../src/checks/admission-webhooks/scenario.js';
import { scenarios as apiScenarios } from '../src/checks/aggregated-apis/scenario.js';
import { blastRadii, controlPlaneLayout, partKey, type BlastNode, type BlastRadius } from '../src/map/blast.js';
import { buildMap, type ArchMap } from '../src/map/build.js';
import { esc, jsonBlock } from '../src/render/html/escape.js';
import { renderMapHtml } from '../src/render/html/map.js';
import { renderReportHtml } from '../src/render/html/report.js';
import { mermaidText, renderDot, renderMermaid } from '../src/render/graph.js';
import { picturesBlock, recordedShots, sha256, withPictures } from '../scenarios/pictures.js';
import { build, type Built } from '../scenarios/index.js';
import { loadSnapshot } from '../src/snapshot/load.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { EXAMPLE, twoContexts } from './helpers/fixtures.js';
import { hostileCluster, PAYLOADS, writeHostileSnapshot } from './helpers/hostile.js';
import { arch, ROOT } from './helpers/run.js';
import { tempDir } from './helpers/tmp.js';

const snapOf = (b: Built): Snapshot => {
  const snap = new Snapshot(b.header);
  for (const o of b.objects) snap.addObject(o);
  return snap;
};

function mapOf(snap: Snapshot): { map: ArchMap; blast: Record<string, BlastRadius>; html: string } {
  const results = runChecks(CHECKS, snap);
  const now = evidenceTime(snap);
  const map = buildMap(snap, results, now, CHECKS);
  const blast = blastRadii(snap, results, map, now);
  const html = renderMapHtml({
    map,
    source: { type: 'snapshot', path: 'x' },
    results,
    blast,
    layout: controlPlaneLayout(snap, now),
    version: 'test',
  });
  return { map, blast, html };
}

const keyOf = (m: ArchMap, name: string): string => {
  for (const [si, s] of m.sections.entries()) {
    const li = s.lines.findIndex((l) => l.name === name);
    if (li >= 0) return partKey(si, li);
  }
  throw new Error(`no part ${name}`);
};
const flat = (nodes: BlastNode[]): string[] => nodes.flatMap((n) => [n.text, ...flat(n.children ?? [])]);

/** The text of the page's inline <style> and <script>, and its CSP. */
function pageParts(html: string): { csp: string; style: string; script: string; json: string } {
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)![1]!.replace(/&#39;/g, "'");
  const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
  const scripts = [...html.matchAll(/<script(?: [^>]*)?>([\s\S]*?)<\/script>/g)];
  const json = scripts.find((m) => m[0].startsWith('<script type="application/json"'))?.[1] ?? '';
  const script = scripts.find((m) => m[0].startsWith('<script>'))![1]!;
  return { csp, style, script, json };
}
/** Every tag is one of ours: a name and double-quoted values with no quote or angle bracket inside; no comment, no
 *  img; the only svg elements are the page's own arrows. */
function wellFormed(html: string): void {
  const body = html.replace(/<(style|script)( [^>]*)?>[\s\S]*?<\/\1>/g, '');
  const tags = body.match(/<[^>]*>/g) ?? [];
  for (const t of tags) expect(t).toMatch(/^(<!doctype html>|<\/?[a-z][a-z0-9]*(\s[a-zA-Z-]+(="[^"<>]*")?)*\s?\/?>)$/);
  expect(body).not.toMatch(/<!--|<img|<svg(?! viewBox="0 0 40 )/);
  expect(body.replace(/<[^>]*>/g, '')).not.toMatch(/[<>]/);
}
const sha = (s: string): string => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;

describe('escaping', () => {
  test('HTML text and attributes: markup, quotes, controls and bidi overrides become text', () => {
    expect(esc(`<img src=x onerror="a('b')">&`)).toBe('&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;');
    expect(esc('a\u0000b\u001bc\u202ed\u2028e')).toBe('a\\x00b\\x1bc\\u202ed\\u2028e');
    expect(esc('line\nnext\ttab')).toBe('line\nnext\ttab');
  });

  test('embedded JSON: no </script>, <!-- or line separator survives, and it parses back exactly', () => {
    const v = { s: `</script><!--<script>\u2028\u2029&'"` };
    const text = jsonBlock(v);
    expect(text).not.toMatch(/<|>|&|\u2028|\u2029/);
    expect(JSON.parse(text)).toEqual(v);
  });

  test('Mermaid labels: anything but letters, digits and plain punctuation is an entity code', () => {
    expect(mermaidText('a"b<c>]|`#%\n')).toBe('a#34;b#60;c#62;#93;#124;#96;#35;#37;#92;n');
    expect(mermaidText('Ünïcode 3 — ok → ×2')).toBe('Ünïcode 3 — ok → ×2');
  });
});

describe('map -o html on the example', () => {
  const snap = loadSnapshot(EXAMPLE);
  const { map, blast, html } = mapOf(snap);

  test('a CSP meta that allows no request, and only this style and this script by their hashes', () => {
    const { csp, style, script } = pageParts(html);
    expect(csp).toBe(
      `default-src 'none'; style-src ${sha(style)}; script-src ${sha(script)}; img-src 'none'; base-uri 'none'; form-action 'none'`,
    );
    expect(csp).not.toMatch(/unsafe|https?:|data:|\*/);
    // nothing that would fetch: no src, href to elsewhere, @import or url()
    expect(html).not.toMatch(/\ssrc=|<link|@import|url\(|https?:\/\/(?!192\.168\.219\.101)/);
    expect(html).not.toMatch(/style="/);
  });

  test('every part is a button with its status in words, and its details', () => {
    const parts = map.sections.flatMap((s) => s.lines);
    // a part's name is the words it shows; how many findings is its description, in a hidden element next to it
    const buttons = [
      ...html.matchAll(
        /<button type="button" class="part s-([a-z]+)[^"]*"[^>]*aria-describedby="([^"]*)"[^>]*>.*?<span class="name">([^<]*)<\/span>.*?<\/button><span id="\2" class="pdesc" hidden>([^<]*)<\/span>/g,
      ),
    ];
    expect(buttons).toHaveLength(parts.length);
    expect(buttons.map((b) => b[3]).sort()).toEqual(parts.map((p) => esc(p.name)).sort());
    expect(html).not.toMatch(/<button[^>]*class="part[^>]*aria-label=/);
    const desc = (name: string): string | undefined => buttons.find((b) => b[3] === name)?.[4];
    expect(desc('K3s deploy controller')).toBe('1 finding, worst error');
    expect(desc('Argo CD')).toBe('2 findings, worst error');
    // one error and one info: the badge counts the errors, the words name the rest (never "ERROR ×2")
    expect(html).toContain('ERROR</span> <code>gitops-orphans</code> — 2 findings on this part (1 error, 1 info)');
    expect(html).not.toMatch(/ERROR ×2<\/span> <code>gitops-orphans/);
    expect(desc('CNI')).toBe('no check concerns it');
    expect((html.match(/<article class="detail"/g) ?? []).length).toBe(parts.length);
    // the distribution's real layout frames the door and the state
    expect(html).toContain('K3s: one `k3s server` process on each server (lemuel, ilwon, solomon) holds the door');
  });

  test('the embedded data is the map (as -o json) and which parts depend on which', () => {
    const data = JSON.parse(pageParts(html).json);
    expect(data).toMatchObject({ apiVersion: 'kubectl-arch/v1', kind: 'ArchMap', distribution: 'K3s', sections: map.sections });
    expect(data.affected[keyOf(map, 'etcd')]).toEqual(expect.arrayContaining([keyOf(map, 'API servers'), keyOf(map, 'Argo CD')]));
  });

  test('blast radius: DNS takes every pod, an etcd member takes quorum, the deploy controller names its finding objects', () => {
    const dns = blast[keyOf(map, 'DNS')]!;
    expect(dns.now).toBe(false);
    expect(dns.summary).toMatch(/^every pod that resolves names through it: \d+ pods in \d+ namespaces on 6 nodes$/);
    expect(flat(dns.chain)[0]).toMatch(/^cluster DNS Service kube-system\/kube-dns → (\d+) pods?, \1 ready$/);
    const member = blast[keyOf(map, 'lemuel')]!;
    expect(flat(member.takes)).toEqual(['quorum — without it: 2 of 3 voters healthy, quorum 2 holds — no further failure tolerated']);
    expect(flat(member.chain)[0]).toMatch(/^runs on node lemuel, in the `k3s server` process/);
    const k3s = blast[keyOf(map, 'K3s deploy controller')]!;
    expect(k3s.now).toBe(true);
    expect(flat(k3s.takes)).toEqual(
      expect.arrayContaining(['named in its findings', 'Service kube-system/kube-dns', 'Addon kube-system/coredns']),
    );
    expect(flat(k3s.takes)).toContain('Addon coredns: 3 objects in the snapshot');
    expect(html).toContain('<strong>Broken now:</strong> the objects of 6 Addons');
  });

  test('size budget: the example page is under 100 kB', () => {
    expect(Buffer.byteLength(html)).toBeLessThan(100_000);
  });
});

describe('blast radius of a failing webhook and of an APIService down', () => {
  test('a fail-closed webhook → its Service → no pod; the requests it rejects, in how many namespaces', () => {
    const { map, blast } = mapOf(snapOf(build(webhookScenarios)));
    const b = blast[keyOf(map, 'validating cert-manager-webhook')]!;
    expect(b.now).toBe(true);
    expect(b.summary).toBe('every request its 1 fail-closed webhook matches is rejected while the backend is down');
    expect(flat(b.chain)).toEqual([
      'webhook webhook.cert-manager.io (fails closed)',
      'Service cert-manager/cert-manager-webhook → no pod behind it',
    ]);
    expect(flat(b.takes)[0]).toBe(
      'rejects, while its backend cannot answer: CREATE/UPDATE */* of cert-manager.io, acme.cert-manager.io in 45 of 45 namespaces, kube-system included (and cluster-scoped objects)',
    );
  });

  test('with its backend up, the chain goes down to the pods and their nodes', () => {
    const { map, blast } = mapOf(loadSnapshot(EXAMPLE) as Snapshot);
    const chain = flat(blast[keyOf(map, 'validating cert-manager-webhook')]!.chain);
    expect(chain[1]).toMatch(/^Service cert-manager\/cert-manager-webhook → 1 pod, 1 ready$/);
    expect(chain[2]).toMatch(/^pod cert-manager-webhook-[a-z0-9-]+ — ready$/);
    expect(chain[3]).toMatch(/^node [a-z]+ \(Ready(, cordoned)?\)$/);
  });

  test('an APIService: the discovery it breaks', () => {
    const s = apiScenarios.find((x) => x.expect.findings.some((f) => f.code === 'ARCH-API01'))!;
    const { map, blast } = mapOf(snapOf(build([s])));
    const b = blast[keyOf(map, 'v1beta1.metrics.k8s.io')]!;
    expect(b.now).toBe(true);
    expect(flat(b.takes).join('\n')).toMatch(/discovery of metrics\.k8s\.io\/v1beta1: kubectl api-resources/);
    expect(flat(b.takes).join('\n')).toMatch(/HorizontalPodAutoscalers on CPU or memory and kubectl top have no metrics/);
  });
});

describe('hostile names', () => {
  const { html } = mapOf(snapOf(hostileCluster()));

  test('no payload is markup anywhere in the page: text, attributes and the JSON block', () => {
    for (const p of Object.values(PAYLOADS)) expect(html).not.toContain(p);
    // one <script> block for data and one for the page, nothing more; no element a payload would make
    expect(html.match(/<script/g)).toHaveLength(2);
    wellFormed(html);
    const { json } = pageParts(html);
    expect(json).not.toMatch(/[<>\u2028\u2029]/);
    expect(JSON.stringify(JSON.parse(json))).toContain(JSON.stringify(PAYLOADS.img).slice(1, -1));
    // the bidi override is shown, not obeyed
    expect(html).toContain('gpj.\\u202eexe');
  });

  test('the report page too', async () => {
    const dir = writeHostileSnapshot(tempDir());
    const r = await arch(['doctor', '--snapshot', dir, '-o', 'html', '--no-config']);
    expect(r.code).toBe(1);
    expect(r.stdout.match(/<script/g)).toHaveLength(1);
    wellFormed(r.stdout);
    expect(r.stdout).toContain('&lt;img src=x onerror=&quot;globalThis.__pwned=&#39;img&#39;&quot;&gt;');
  });

  test('Mermaid and dot: payloads are label text', async () => {
    const dir = writeHostileSnapshot(tempDir());
    const mm = await arch(['map', '--snapshot', dir, '-o', 'mermaid']);
    expect(mm.code).toBe(0);
    for (const l of mm.stdout.split('\n').filter((x) => x.includes('["'))) {
      expect(l.replace(/<br\/>/g, '')).not.toMatch(/[<>]/);
      expect(l).toMatch(/^ +(subgraph )?[a-z0-9_]+\["[^"]*"\](:::s_[a-z]+)?$/);
    }
    expect(mm.stdout).not.toMatch(/[\u2028\u2029\u202e]/);
    const dot = await arch(['map', '--snapshot', dir, '-o', 'dot']);
    const labels = graphvizLabels(await layout(dot.stdout));
    expect(labels).toContain(`validating ${PAYLOADS.img}${PAYLOADS.attr}\nERROR`);
    expect(labels.some((l) => l.includes('\\u202e'))).toBe(true);
  });
});

let gv: Awaited<ReturnType<typeof Graphviz.load>> | undefined;
async function layout(dot: string): Promise<{ objects?: Array<{ name: string; label?: string; nodes?: number[] }>; edges?: unknown[] }> {
  gv ??= await Graphviz.load();
  return JSON.parse(gv.layout(dot, 'json', 'dot'));
}
/** Node labels as Graphviz reads them (its own escapes, \n, turned back into text). */
const graphvizLabels = (g: Awaited<ReturnType<typeof layout>>): string[] =>
  (g.objects ?? []).filter((o) => !o.nodes).map((o) => (o.label ?? '').replace(/\\n/g, '\n').replace(/\\\\/g, '\\'));

describe('map -o mermaid and -o dot', () => {
  const { map } = mapOf(loadSnapshot(EXAMPLE));

  test('dot: the real Graphviz parses and lays it out, a cluster per contract, every part a node with its status', async () => {
    const g = await layout(renderDot(map));
    const clusters = (g.objects ?? []).filter((o) => o.name.startsWith('cluster_')).map((o) => [o.name, o.label]);
    expect(clusters).toEqual(map.sections.map((s) => [`cluster_${s.contract}`, s.title]));
    const labels = graphvizLabels(g);
    expect(labels).toEqual(expect.arrayContaining(['K3s deploy controller\nERROR', 'Argo CD\nERROR ×2', 'etcd\nok', 'CNI']));
    expect(labels).toHaveLength(map.sections.reduce((n, s) => n + s.lines.length, 0) + 2);
    expect((g.edges ?? []).length).toBeGreaterThan(20);
  });

  test('dot: a syntax error is an error (the parser is really checking)', async () => {
    await expect(layout('digraph { a -> }')).rejects.toThrow(/syntax error/);
  });

  test('mermaid: a flowchart with one subgraph per contract, every part, status classes and the contracts’ flows', () => {
    const text = renderMermaid(map);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('flowchart TB');
    expect(lines.filter((l) => /^ {2}subgraph (state|door|loops|interfaces)\["/.test(l))).toHaveLength(4);
    expect(lines.filter((l) => l === '  end')).toHaveLength(4);
    // every node line: an id of ours, a quoted label with no raw quote inside, a status class
    const nodes = lines.filter((l) => /^ {4}n\d+_\d+\[/.test(l));
    expect(nodes).toHaveLength(map.sections.reduce((n, s) => n + s.lines.length, 0));
    for (const l of nodes) expect(l).toMatch(/^ {4}n\d+_\d+\["[^"]*"\]:::s_(critical|error|warning|info|ok|partial|skipped|none)$/);
    expect(text).toContain('["K3s deploy controller<br/>ERROR"]:::s_error');
    expect(text).toContain('clients -->|"requests"| n1_0');
    expect(text).toContain('n1_0 -->|"reads, writes"| n0_0');
    for (const l of lines.filter((x) => x.includes('-->') || x.includes('-.->')))
      expect(l).toMatch(/^ {2}(clients|kubelets|n\d+_\d+) (-->|-\.->)(\|"[^"]*"\|)? n\d+_\d+$/);
  });
});

describe('the CLI', () => {
  test('map -o html|mermaid|dot exit 0; doctor -o html exits by its findings', async () => {
    for (const o of ['html', 'mermaid', 'dot']) {
      const r = await arch(['map', '--snapshot', EXAMPLE, '-o', o]);
      expect([o, r.code, r.stderr]).toEqual([o, 0, '']);
    }
    const d = await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'html', '--no-config']);
    expect([d.code, d.stderr]).toEqual([1, '']);
    expect(d.stdout).toMatch(/^<!doctype html>\n/);
    expect(d.stdout).toContain('ARCH-RL03');
  });

  test('where a page or picture does not fit: a usage error before any request', async () => {
    for (const [args, msg] of [
      [['orphans', '-o', 'html'], '-o html is for doctor, map and what-if, not orphans'],
      [['quorum', '-o', 'mermaid'], '-o mermaid is for map, not quorum'],
      [['doctor', '-o', 'dot'], '-o dot is for map, not doctor'],
      [['snapshot', '-o', 'html'], '-o html is for doctor, map and what-if, not snapshot'],
      [['map', '-o', 'sarif'], '-o sarif is for doctor, what-if, orphans and quorum, not map'],
    ] as const) {
      // the kubeconfig points nowhere: reaching it would be exit 2 for another reason or 3
      const r = await arch([...args, '--kubeconfig', '/nonexistent']);
      expect([args.join(' '), r.code, r.stderr.split('\n')[0]]).toEqual([args.join(' '), 2, `error: ${msg}`]);
    }
  });
});

describe('doctor -o html for several contexts', () => {
  test('a summary table, then a section per context; an unreachable one shows its error', async () => {
    const report = JSON.parse((await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'json', '--no-config'])).stdout);
    const html = renderReportHtml(
      twoContexts(report, `stag<b>ing</b>`, {
        message: 'cannot connect to https://10.0.0.9:6443: connection refused',
        hint: 'is the VPN up?',
      }),
      'test',
    );
    expect(html).toContain('<h1>kubectl arch doctor <span class="muted">— 2 contexts: 1 reached, 1 failed</span></h1>');
    expect(html.match(/<section class="context"/g)).toHaveLength(2);
    expect(html).toContain('<h2>context stag&lt;b&gt;ing&lt;/b&gt;</h2>');
    expect(html).toContain('cannot connect to https://10.0.0.9:6443: connection refused');
    expect(html).toContain('hint: is the VPN up?');
    // ids stay unique with one report per context
    const ids = [...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(html).toContain('id="c0-check-immutable-retry-loop"');
  });
});

test('docs/pictures.md: the sizes, the graph and the screenshots are of the pages the CLI prints now (npm run gen)', async () => {
  const doc = readFileSync(`${ROOT}docs/pictures.md`, 'utf8');
  const ex = ['--snapshot', 'example:field-notes-k3s'];
  const mapHtml = (await arch(['map', ...ex, '-o', 'html'])).stdout;
  const reportHtml = (await arch(['doctor', ...ex, '-o', 'html', '--fail-on', 'none', '--no-config'])).stdout;
  const mermaid = (await arch(['map', ...ex, '-o', 'mermaid'])).stdout;
  const whatIfHtml = (await arch(['what-if', 'ilwon', ...ex, '-o', 'html'])).stdout;
  // a screenshot is not reproducible byte for byte; the page it was taken of is
  expect(recordedShots(doc)).toEqual({ map: sha256(mapHtml), report: sha256(reportHtml), whatIf: sha256(whatIfHtml) });
  expect(withPictures(doc, picturesBlock({ mapHtml, reportHtml, whatIfHtml, mermaid, shots: recordedShots(doc)! }))).toBe(doc);
  for (const f of ['map.png', 'report.png', 'what-if.png']) expect([f, existsSync(`${ROOT}docs/pictures/${f}`)]).toEqual([f, true]);
  expect(readFileSync(`${ROOT}README.md`, 'utf8')).toContain('](docs/pictures/map.png)');
});
