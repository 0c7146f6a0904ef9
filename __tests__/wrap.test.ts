// Text that fits the terminal (#37): prose wrapped to the width (COLUMNS, or the TTY's columns) with a hanging indent,
// commands never broken, nothing wrapped for a pipe without COLUMNS or for the MCP server; and the text fixes that
// came with it (the map's counts by severity, "no Addons", `<node>` in explain).
import { describe, expect, test } from '@jest/globals';
import stringWidth from 'string-width';
import { CHECKS } from '../src/checks/registry.js';
import { evidenceTime, runChecks } from '../src/checks/run.js';
import { explainText } from '../src/checks/docs.js';
import { retryLoops as immutableRetryLoop } from '../src/checks/immutable-retry-loop/check.js';
import { buildMap, type CountedCheck } from '../src/map/build.js';
import { checkText, renderMap } from '../src/render/map.js';
import { makeStyle, terminalWidth, toTerminal } from '../src/render/style.js';
import { columns } from '../src/render/table.js';
import { hang, hangItems, wrapLines } from '../src/lib/wrap.js';
import { R } from '../src/resources.js';
import { quorumView } from '../src/etcd/quorum.js';
import { renderQuorum } from '../src/render/quorum.js';
import { EXAMPLE, node, obj, snapshotOf } from './helpers/fixtures.js';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './helpers/tmp.js';
import { corpusCases } from './helpers/corpus.js';
import { arch } from './helpers/run.js';
import { Command } from '../src/lib/shell.js';
import { loadSnapshot } from '../src/snapshot/load.js';
import { whatIf } from '../src/whatif/predict.js';

const strip = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '');
const cellsOf = (line: string): number => stringWidth(strip(line));
const words = (s: string): string[] => strip(s).split(/\s+/).filter(Boolean);
const over = (text: string, width: number): string[] => text.split('\n').filter((l) => cellsOf(l) > width);
/** What wrapping did to the words of `plain` that is not allowed: nothing is lost, added or moved (the text without its
 *  white space is the same), and a word is broken only after one of its separators (its head ends with one). */
function brokenOnlyAtSeparators(out: string, plain: string): string[] {
  const bare = (t: string): string => strip(t).replace(/\s+/g, '');
  if (bare(out) !== bare(plain)) return ['the text changed'];
  const known = new Set(words(plain));
  const all = words(out);
  return all.filter((w, i) => !known.has(w) && !/[/|,:=.-]$/.test(w) && !/[/|,:=.-]$/.test(all[i - 1] ?? ''));
}

describe('hang: prose after a lead, wrapped with a hanging indent', () => {
  const lead = '  - ERROR ARCH-RL03  ';
  const text =
    'K3s keeps re-applying the kube-dns Service with clusterIP 169.254.20.10 (live: 10.43.0.10): it can never apply, and the loop that owns it retries forever';

  test('without a width, or when it fits, the text is as it was given', () => {
    expect(hang(lead, text, undefined)).toBe(lead + text);
    expect(hang(lead, text, 1000)).toBe(lead + text);
    expect(hang('  ', 'a\nb', undefined)).toBe('  a\nb');
  });

  test('continuation lines start under the text, every line fits, no word is lost or split', () => {
    const out = hang(lead, text, 60);
    const lines = out.split('\n');
    expect(lines.length).toBeGreaterThan(2);
    expect(lines[0]!.startsWith(lead)).toBe(true);
    for (const l of lines.slice(1)) expect(l).toMatch(new RegExp(`^ {${lead.length}}\\S`));
    expect(over(out, 60)).toEqual([]);
    expect(words(out)).toEqual(words(lead + text));
  });

  test("a text's own leading spaces and its lines are kept: each line hangs under its own start", () => {
    const out = hang(
      '      ',
      '  - first item of a list that is long enough to wrap here\nsecond line that is long enough to wrap too',
      40,
    );
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/^ {8}- first/);
    expect(lines[1]).toMatch(/^ {8}\S/);
    expect(lines.find((l) => l.includes('second'))).toMatch(/^ {6}second/);
    expect(over(out, 40)).toEqual([]);
  });

  test('ANSI styles take no cells, and a style open at a break is closed and opened again after the indent', () => {
    const s = makeStyle(true);
    const out = hang(`  ${s.dim('why:')} `, s.dim('the desired state can never be reached: the API server rejects it every time'), 40);
    const lines = out.split('\n');
    expect(lines.length).toBeGreaterThan(1);
    expect(over(out, 40)).toEqual([]);
    expect(lines[0]!.endsWith('\x1b[0m')).toBe(true);
    expect(lines[1]).toMatch(/^ {7}\x1b\[2m\S/); // the indent is not dimmed; the text is
    expect(strip(out).replace(/\n +/g, ' ')).toBe(
      strip(`  why: ${'the desired state can never be reached: the API server rejects it every time'}`),
    );
  });

  test('wide characters (Korean, CJK, emoji) count two cells', () => {
    const korean = '일원 노드는 재부팅 중입니다 그리고 서버 세 대 중 하나가 내려가면 쿼럼이 남습니다';
    const out = hang('  node ', korean, 30);
    expect(out.split('\n').length).toBeGreaterThan(2);
    expect(over(out, 30)).toEqual([]);
    expect(words(out)).toEqual(words(`node ${korean}`));
    const emoji = '🚀 launch 🚀 again 日本語のテキスト and 中文 text 🚀🚀 wraps by cells not by code units';
    const e = hang('', emoji, 20);
    expect(over(e, 20)).toEqual([]);
    expect(words(e)).toEqual(words(emoji));
    // by code units the first line would have taken more: it is the cells that count
    expect(Math.max(...e.split('\n').map(cellsOf))).toBeLessThanOrEqual(20);
  });

  test('long names keep the hanging indent: broken after a separator of their own, never pulled left', () => {
    const name = 'certificaterequests.cert-manager.io|acme.cert-manager.io'; // 56 cells: more than the room at the indent
    const out = hang('      ', `it blocks CREATE ${name} in the namespaces its selector matches`, 60);
    expect(over(out, 60)).toEqual([]);
    for (const l of out.split('\n')) expect(l).toMatch(/^ {6}\S/);
    // broken where a reader would: after the |, each part whole
    expect(out.split('\n').map((l) => l.trim())).toEqual(expect.arrayContaining(['certificaterequests.cert-manager.io|']));
    const lead = '  - ERROR ARCH-OR01  ';
    const title = 'Argo CD Application argocd/a-very-long-application-name-for-the-blog-platform-x (gone): 5 objects still serving';
    const t = hang(lead, title, 60);
    expect(over(t, 60)).toEqual([]);
    for (const l of t.split('\n').slice(1)) expect(l).toMatch(new RegExp(`^ {${lead.length}}\\S`));
    // the text is all there, broken only after separators
    expect(brokenOnlyAtSeparators(t, lead + title)).toEqual([]);
    // a word with no separator is never split: it runs past the width, at the indent
    const huge = 'x'.repeat(90);
    const h = hang('  note: ', `before ${huge} after`, 60);
    expect(h.split('\n')).toContain(`${' '.repeat(8)}${huge}`);
    expect(words(h)).toEqual(words(`note: before ${huge} after`));
  });

  test('a list item longer than the room breaks at its space, then after a separator, at the indent', () => {
    const items = ['Addon kube-system/coredns-addon-managed-by-k3s-deploy-controller', 'Service kube-system/kube-dns'];
    const out = hangItems('      objects: ', items, 60);
    expect(over(out, 60)).toEqual([]);
    const lines = out.split('\n');
    expect(lines[0]).toBe('      objects: Addon');
    for (const l of lines.slice(1)) expect(l).toMatch(/^ {15}\S/);
    expect(lines.at(-1)).toBe(`${' '.repeat(15)}Service kube-system/kube-dns`);
  });

  test('a command in prose is never broken: kubectl up to the end of its clause, a backtick span', () => {
    const text =
      'findings in full: kubectl arch doctor --snapshot example:field-notes-k3s; set `cluster-dns: 10.43.0.10` in the config and restart';
    for (const width of [30, 40, 50, 60]) {
      const out = hang('', text, width);
      const lines = out.split('\n');
      expect(lines.some((l) => l.includes('kubectl arch doctor --snapshot example:field-notes-k3s;'))).toBe(true);
      expect(lines.some((l) => l.includes('`cluster-dns: 10.43.0.10`'))).toBe(true);
      expect(words(out)).toEqual(words(text));
    }
    // "kubectl:" is not a command, and a command ends before a parenthesis or a comment
    const p = hang('', 'every client (kubectl: "unable to retrieve the complete list") fails', 20);
    expect(p.split('\n')[0]).toBe('every client');
    const q = hang('', 'run kubectl -n kube-system get pods (is the backend ready?) then look again', 40);
    expect(q.split('\n')[0]).toBe('run kubectl -n kube-system get pods (is');
    // a word ending in ':' or '.' ends it too: the prose after it wraps (it ran past the width, kept whole)
    const r = hang(
      '',
      'run kubectl arch orphans there too: deleted Applications whose destination is this cluster leave exactly these',
      40,
    );
    expect(r.split('\n')[0]).toBe('run kubectl arch orphans there too:');
    expect(over(r, 40)).toEqual([]);
  });

  test('hangItems breaks a list only between its items', () => {
    const items = ['Deployment blog/blog-web', 'PersistentVolume pvc-3f6b1c2e-blog-data', 'Service blog/blog-web', 'Ingress blog/blog'];
    expect(hangItems('objects: ', items, undefined)).toBe(`objects: ${items.join(', ')}`);
    const out = hangItems('      objects: ', items, 60);
    expect(over(out, 60)).toEqual([]);
    for (const i of items) expect(out.split('\n').some((l) => l.includes(i))).toBe(true);
    expect(out.split('\n')[1]).toMatch(/^ {15}\S/);
  });

  test('wrapLines wraps each line under its own leading spaces', () => {
    const text =
      'TITLE\n  a paragraph two spaces in that is long enough to need wrapping at forty\n\n    deeper one, also long enough to wrap';
    expect(wrapLines(text, undefined)).toBe(text);
    const out = wrapLines(text, 40);
    expect(over(out, 40)).toEqual([]);
    expect(out).toMatch(/\n {2}a paragraph[^\n]*\n {2}\S/);
    expect(words(out)).toEqual(words(text));
  });
});

describe('tables fit the width, nothing cut', () => {
  const rows = [
    ['KIND', 'NAMESPACE', 'NAME', 'SIGNAL', 'AGE'],
    ['PersistentVolumeClaim', 'blog', 'blog-data', 'annotation+label', '400d'],
    ['PersistentVolume', '(cluster)', 'pvc-3f6b1c2e-blog-data', 'annotation+label', '400d'],
  ];
  test('unchanged without a width', () => {
    expect(columns(rows, { indent: '    ' })).toEqual(columns(rows, { indent: '    ', width: undefined }));
    expect(columns(rows, { indent: '    ' })[1]).toBe(
      '    PersistentVolumeClaim  blog       blog-data               annotation+label  400d',
    );
  });
  test.each([80, 60, 40])('at %i columns every line fits and every cell is there', (width) => {
    const out = columns(rows, { indent: '    ', width }).join('\n');
    expect(over(out, width)).toEqual([]);
    expect(words(out)).toEqual(words(rows.map((r) => r.join(' ')).join(' ')));
  });
  test('the last column wraps under its own start when it has room', () => {
    const t = [
      ['NAME', 'ROLE', 'EVIDENCE'],
      ['lemuel', 'voter', 'EtcdIsVoter=True/MemberNotLearner, heartbeat 2 min ago, node NotReady (its kubelet)'],
    ];
    const out = columns(t, { width: 60 });
    expect(out[1]).toBe(
      'lemuel  voter  EtcdIsVoter=True/MemberNotLearner, heartbeat\n               2 min ago, node NotReady (its kubelet)',
    );
  });
});

describe('the width: COLUMNS, else the TTY; never for a pipe without COLUMNS, nor for the MCP server', () => {
  test('terminalWidth', () => {
    expect(terminalWidth({ isTTY: true, columns: 100 }, {})).toBe(100);
    expect(terminalWidth({ isTTY: false, columns: 100 }, {})).toBeUndefined(); // a pipe
    expect(terminalWidth({}, {})).toBeUndefined();
    expect(terminalWidth({}, { COLUMNS: '72' })).toBe(72); // COLUMNS asks for it, even on a pipe
    expect(terminalWidth({ isTTY: true, columns: 100 }, { COLUMNS: '60' })).toBe(60);
    expect(terminalWidth({ isTTY: true, columns: 100 }, { COLUMNS: 'wide' })).toBe(100);
    expect(terminalWidth({}, { COLUMNS: '0' })).toBeUndefined();
    expect(terminalWidth({ isTTY: true, columns: 0 }, {})).toBeUndefined(); // a 0-column terminal
    expect(terminalWidth({}, { COLUMNS: '12' })).toBeUndefined(); // too narrow to lay out
  });
  test('the style the MCP server renders with carries no width; a command on a terminal does', () => {
    expect(makeStyle(false).width).toBeUndefined();
    expect(toTerminal(makeStyle(false), 80).width).toBe(80);
    expect(toTerminal(makeStyle(false), undefined).width).toBeUndefined();
  });
});

/** The unwrapped output's command lines: fix steps (doctor's `fix:` block, what-if's `fix:` lines). */
/** The command lines a command's fix steps print (lib/shell.ts Commands), from the same example through the library. */
async function commandLines(name: string, dir = EXAMPLE, node = 'ilwon'): Promise<string[]> {
  const snap = loadSnapshot(dir);
  const steps =
    name === 'doctor'
      ? runChecks(CHECKS, snap).flatMap((r) => r.findings.flatMap((f) => f.fix ?? []))
      : name.startsWith('what-if')
        ? (await whatIf(snap, { nodes: [node], remove: false }, evidenceTime(snap), CHECKS)).predictions.flatMap((p) => p.fix ?? [])
        : [];
  return steps.filter((x): x is Command => x instanceof Command).map((c) => c.line);
}

const COMMANDS: Array<[string, string[]]> = [
  ['doctor', ['doctor', '--snapshot', EXAMPLE, '--fail-on', 'none']],
  ['what-if ilwon', ['what-if', 'ilwon', '--snapshot', EXAMPLE, '--fail-on', 'none']],
  ['map', ['map', '--snapshot', EXAMPLE]],
  ['explain immutable-retry-loop', ['explain', 'immutable-retry-loop']],
  ['explain (the list of checks)', ['explain']],
  ['orphans', ['orphans', '--snapshot', EXAMPLE, '--fail-on', 'none']],
  ['quorum', ['quorum', '--snapshot', EXAMPLE]],
];

describe.each(COMMANDS)('%s on the example, through the CLI', (_name, args) => {
  let plain = '';
  const got = async (env: NodeJS.ProcessEnv): Promise<string> => {
    const r = await arch(args, env);
    expect([r.code, r.stderr]).toEqual([0, '']);
    return r.stdout;
  };

  test('a pipe without COLUMNS is not wrapped: as wide as it ever was', async () => {
    plain = await got({ COLUMNS: undefined });
    expect(await got({ COLUMNS: '100000' })).toBe(plain);
    expect(await got({ COLUMNS: 'none' })).toBe(plain);
    expect(Math.max(...plain.split('\n').map(cellsOf))).toBeGreaterThan(80);
  });

  test.each([80, 60])(
    'COLUMNS=%i: every line fits but commands, which stay whole; nothing lost, a name broken only after a separator',
    async (width) => {
      if (!plain) plain = await got({ COLUMNS: undefined });
      const out = await got({ COLUMNS: String(width) });
      // the commands this output prints (a long list is cut: "and 3 more … (-o json lists each)")
      const commands = (await commandLines(_name)).filter((c) => plain.includes(c));
      if (_name === 'doctor' || _name === 'what-if ilwon') expect(commands.length).toBeGreaterThanOrEqual(2);
      const lines = out.split('\n').map(strip);
      // a command is whole on a line of its own (after the prose that says what it does), so it copies and pastes
      for (const c of commands) expect([c, lines.some((l) => l.trimStart().startsWith(c) || l.includes(`: ${c}`))]).toEqual([c, true]);
      expect(lines.filter((l) => cellsOf(l) > width && !commands.some((c) => l.includes(c)))).toEqual([]);
      expect(brokenOnlyAtSeparators(out, plain)).toEqual([]);
      // every kubectl command of the unwrapped output is on one line
      for (const m of plain.matchAll(/kubectl arch [a-z-]+(?: [<a-z-]+>?)*/g)) expect(out.replace(/\n +/g, '\n')).toContain(m[0]);
    },
  );
});

/** The example with long names (a 43-character node, a 38-character addon, a 41-character Deployment), as 60 columns
 *  show them: every continuation line starts at its hanging indent — under a finding's title, under `objects:`,
 *  `concerns:` and `why:` — never pulled back to the left. */
describe('long names at 60 columns keep the hanging indent (#46)', () => {
  const dir = tempDir('kubectl-arch-long-');
  const LONG: Array<[string, string]> = [
    ['"ilwon"', '"ilwon-server-rack-b-unit-12-example-internal"'],
    ['"coredns"', '"coredns-addon-managed-by-k3s-deploy-controller"'],
    ['"blog-web"', '"blog-web-frontend-for-the-platform-team-production"'],
  ];
  const snap = join(dir, 'long');
  mkdirSync(snap);
  for (const f of readdirSync(EXAMPLE))
    writeFileSync(
      join(snap, f),
      LONG.reduce((t, [a, b]) => t.split(a).join(b), readFileSync(join(EXAMPLE, f), 'utf8')),
    );

  /** Lines not at the hanging indent of the block they continue (a title, objects:, concerns:, why:). */
  function offIndent(text: string): string[] {
    const bad: string[] = [];
    let indent = -1;
    for (const l of text.split('\n')) {
      const ind = /^ */.exec(l)![0].length;
      const lead = /^( {2}- [A-Z]+ ARCH-[A-Z]+\d+ {2}| {6}(?:objects|concerns|why): )/.exec(l);
      if (lead) indent = lead[1]!.length;
      else if (indent >= 0 && l.trim() && ind > 6) {
        if (ind !== indent) bad.push(l);
      } else indent = -1;
    }
    return bad;
  }

  test.each([
    ['doctor', ['doctor', '--snapshot', snap, '--fail-on', 'none', '--no-config']],
    ['what-if', ['what-if', 'ilwon-server-rack-b-unit-12-example-internal', '--snapshot', snap, '--fail-on', 'none']],
    ['orphans', ['orphans', '--snapshot', snap, '--fail-on', 'none', '--no-config']],
  ])('%s', async (_name, args) => {
    const plain = (await arch(args)).stdout;
    const out = (await arch(args, { COLUMNS: '60' })).stdout;
    // the long names are there (broken after a separator at 60 columns), so the test is about them
    if (_name !== 'orphans') expect(plain).toMatch(/coredns-addon-managed-by-k3s-deploy-controller|ilwon-server-rack-b-unit-12/);
    expect(offIndent(out)).toEqual([]);
    // what may run past: fix steps, and a heading that is the command itself (`kubectl arch what-if NODE`), kept whole
    const commands = (await commandLines(_name, snap, 'ilwon-server-rack-b-unit-12-example-internal')).filter((c) => plain.includes(c));
    const lines = out.split('\n').map(strip);
    expect(lines.filter((l) => cellsOf(l) > 60 && !commands.some((c) => l.includes(c)) && !/^kubectl arch \S+ \S+$/.test(l))).toEqual([]);
    expect(brokenOnlyAtSeparators(out, plain)).toEqual([]);
  });
});

describe('text fixes (#37)', () => {
  test('the map counts a check’s findings by severity: one error and one info are not "ERROR ×2"', async () => {
    const s = makeStyle(false);
    const c = (bySeverity: CountedCheck['bySeverity'], worst: CountedCheck['worst'], findings: number): string =>
      checkText({ id: 'gitops-orphans', status: 'findings', worst, findings, bySeverity }, s);
    expect(c({ error: 1, info: 1 }, 'error', 2)).toBe('gitops-orphans ERROR (+1 info)');
    expect(c({ error: 2 }, 'error', 2)).toBe('gitops-orphans ERROR ×2');
    expect(c({ critical: 1, warning: 2, info: 1 }, 'critical', 4)).toBe('gitops-orphans CRITICAL (+2 warning, +1 info)');
    const t = await arch(['map', '--snapshot', EXAMPLE]);
    expect(t.stdout).toContain('checks: gitops-orphans ERROR (+1 info), immutable-retry-loop ok');
    expect(t.stdout).not.toMatch(/ERROR ×2/);
    const j = JSON.parse((await arch(['map', '--snapshot', EXAMPLE, '-o', 'json'])).stdout);
    const argo = j.sections.flatMap((x: { lines: unknown[] }) => x.lines).find((l: { name: string }) => l.name === 'Argo CD');
    expect(argo.checks[0]).toMatchObject({ id: 'gitops-orphans', worst: 'error', findings: 2, bySeverity: { error: 1, info: 1 } });
  });

  test('no Addons, no HelmCharts: a count of zero is said, never "0 Addons ()"', () => {
    const snap = snapshotOf([node('n1', { roles: ['control-plane'] })], {
      captured: [
        { group: 'k3s.cattle.io', kind: 'Addon' },
        { group: 'helm.cattle.io', kind: 'HelmChart' },
        { group: '', kind: 'Service' },
      ],
    });
    expect(snap.of(R.addons)).toEqual([]);
    const m = buildMap(snap, runChecks(CHECKS, snap), evidenceTime(snap), CHECKS);
    const text = renderMap(m, { type: 'snapshot', path: 'x' }, makeStyle(false));
    expect(text).toMatch(/K3s deploy controller +no Addons\n/);
    expect(text).toMatch(/K3s helm controller +no HelmCharts\n/);
    expect(text).toMatch(/load balancers +no Services of type LoadBalancer/);
    expect(text).not.toMatch(/\b0 [A-Z]\w+ \(\)|\(\)/);
    const one = snapshotOf([node('n1'), obj('k3s.cattle.io/v1', 'Addon', 'coredns', 'kube-system')]);
    const m1 = buildMap(one, runChecks(CHECKS, one), evidenceTime(one), CHECKS);
    expect(renderMap(m1, { type: 'snapshot', path: 'x' }, makeStyle(false))).toMatch(/K3s deploy controller +1 Addon \(coredns\)\n/);
  });

  test('explain prints <node> where --deep puts the node, not %3Cnode%3E (text and JSON)', async () => {
    expect(explainText(immutableRetryLoop)).toContain('with --deep: /api/v1/nodes/<node>/proxy/configz');
    const t = await arch(['explain', 'immutable-retry-loop']);
    expect(t.stdout).toContain('/api/v1/nodes/<node>/proxy/configz');
    expect(t.stdout).not.toMatch(/%3C|%3E/i);
    const j = await arch(['explain', 'immutable-retry-loop', '-o', 'json']);
    expect(j.stdout).not.toMatch(/%3C|%3E/i);
    // the path --deep requests is still encoded: a node name is never sent raw
    expect(immutableRetryLoop.deep![0]!.path('a/b')).toBe('/api/v1/nodes/a%2Fb/proxy/configz');
  });

  test('what-if: a node down by hypothesis is said to be down, not by its last heartbeat; its pods stop, not "Running"', async () => {
    const t = await arch(['what-if', 'ilwon', '--snapshot', EXAMPLE, '--fail-on', 'none']);
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/Not healthy: ilwon \(down by hypothesis: its server goes down with the node\)/);
    expect(t.stdout).not.toMatch(/heartbeat \d+ min ago/);
    expect(t.stdout).toMatch(/coredns-\S+ \(stopping: its node ilwon is down by hypothesis\)/);
    expect(t.stdout).toMatch(/node-local-dns-\S+ \(stopping: its node ilwon is down by hypothesis\)/);
    expect(t.stdout).not.toMatch(/\(Running, not Ready\)/);
    const j = JSON.parse((await arch(['what-if', 'ilwon', '--snapshot', EXAMPLE, '--fail-on', 'none', '-o', 'json'])).stdout);
    const said = JSON.stringify(j.predictions);
    expect(said).not.toMatch(/heartbeat \d+ min ago|Running, not Ready/);
    // the cluster as it is still reads as it was captured
    const d = await arch(['doctor', '--snapshot', EXAMPLE, '--fail-on', 'none']);
    expect(d.stdout).not.toMatch(/down by hypothesis/);
  });

  test('readyz etcd is said once: "readyz etcd: ok (readyz etcd: ok)" nowhere', () => {
    const snap = snapshotOf([node('n1')], {
      readyz: '[+]ping ok\n[+]etcd ok\nreadyz check passed\n',
      captured: [{ group: '', kind: 'Pod' }],
    });
    const results = runChecks(CHECKS, snap);
    const q = results.find((r) => r.id === 'etcd-quorum')!;
    expect(q.status).toBe('skipped');
    expect(q.reason!.match(/readyz etcd/g)).toHaveLength(1);
    const m = buildMap(snap, results, evidenceTime(snap), CHECKS);
    const etcd = m.sections[0]!.lines.find((l) => l.name === 'etcd')!;
    expect(etcd.detail.match(/readyz etcd: ok/g)).toHaveLength(1);
    const v = quorumView(snap, evidenceTime(snap));
    expect(renderQuorum(v, []).match(/readyz etcd: ok/g)).toHaveLength(1);
  });
});

/** Every prose text of every corpus finding (fix steps, message, why) after a `fix:` lead at 60 columns: what runs past
 *  the width is a command (a `kubectl …` clause or a backtick span) alone on its line, never prose kept with it or taken
 *  into it (#46). */
test('corpus prose at 60 columns: only a command runs past the width, on a line of its own', () => {
  const reads = CHECKS.flatMap((c) => [...c.needs, ...(c.reads ?? [])]);
  const seen = new Set<string>();
  const past: string[] = [];
  let commands = 0;
  for (const c of corpusCases()) {
    const snap = loadSnapshot(join(c.dir, 'snapshot.yaml'), reads);
    for (const r of runChecks(CHECKS, snap))
      for (const f of r.findings)
        for (const s of [...(f.fix ?? []), f.message, f.why ?? '']) {
          if (typeof s !== 'string' || seen.has(s)) continue;
          seen.add(s);
          if (/kubectl /.test(s)) commands++;
          for (const l of hang('      fix: ', s, 60).split('\n')) if (cellsOf(l) > 60) past.push(l.replace(/^ +(fix: )?/, ''));
        }
  }
  expect(commands).toBeGreaterThan(20);
  // a command: it starts the line, and no sentence goes on after it (`kubectl … shows which node …`)
  const prose = (l: string): boolean => /: |\. |[.:]$/.test(l.replace(/`[^`]*`/g, '`…`'));
  expect(past.filter((l) => !/^(kubectl \S|`)/.test(l) || prose(l))).toEqual([]);
});
