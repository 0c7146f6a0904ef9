// The pages in a real browser (npm run test:browser): `map -o html` and `doctor -o html` on the example and on a
// hostile cluster, and `map -o mermaid` parsed and drawn by Mermaid itself, all in headless Chromium with the
// network blocked. No console error, no request but the page, every part with its status, a part's findings and
// blast radius on click and on Enter, dark and print styles, and no payload ever running. Every page at a desktop and
// a phone width: nothing wider than the screen, and axe-core finds no violation, light and dark.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { browser, open, type Opened } from './helpers/browser.js';
import { EXAMPLE, twoContexts } from './helpers/fixtures.js';
import { HOSTILE_NODE, PAYLOADS, writeHostileNodeSnapshot, writeHostileSnapshot } from './helpers/hostile.js';
import { arch } from './helpers/run.js';
import { renderReportHtml } from '../src/render/html/report.js';
import { quote } from '../src/lib/shell.js';
import type { Report } from '../src/render/report.js';
import { tempDir } from './helpers/tmp.js';

const dir = tempDir('kubectl-arch-pages-');
const files: Record<string, string> = {};
let exampleReport: Report;
let exampleMap: { sections: Array<{ lines: Array<{ name: string; checks: Array<{ status: string; worst?: string }> }> }> };

async function write(name: string, args: string[]): Promise<void> {
  const r = await arch(args);
  expect([name, r.stderr]).toEqual([name, '']);
  files[name] = join(dir, name);
  writeFileSync(files[name]!, r.stdout);
}

beforeAll(async () => {
  const hostile = writeHostileSnapshot(tempDir());
  await write('map.html', ['map', '--snapshot', EXAMPLE, '-o', 'html']);
  await write('report.html', ['doctor', '--snapshot', EXAMPLE, '-o', 'html', '--no-config']);
  await write('hostile-map.html', ['map', '--snapshot', hostile, '-o', 'html']);
  await write('hostile-report.html', ['doctor', '--snapshot', hostile, '-o', 'html', '--no-config']);
  await write('what-if.html', ['what-if', 'ilwon', '--snapshot', EXAMPLE, '-o', 'html', '--fail-on', 'none']);
  // the hostile cluster with one of its nodes named by a payload: the name is in the hypothesis, the parts and the predictions
  await write('hostile-what-if.html', [
    'what-if',
    HOSTILE_NODE,
    '--snapshot',
    writeHostileNodeSnapshot(tempDir()),
    '-o',
    'html',
    '--fail-on',
    'none',
  ]);
  await write('map.mmd', ['map', '--snapshot', EXAMPLE, '-o', 'mermaid']);
  await write('hostile.mmd', ['map', '--snapshot', hostile, '-o', 'mermaid']);
  exampleMap = JSON.parse((await arch(['map', '--snapshot', EXAMPLE, '-o', 'json'])).stdout);
  exampleReport = JSON.parse((await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'json', '--no-config'])).stdout);
  writeFleet(exampleReport);
});

/** `doctor --contexts -o html` (rendered here, no cluster): the example reached, a context named by a payload not. */
function writeFleet(report: Report): void {
  const file = join(dir, 'fleet.html');
  files['fleet.html'] = file;
  writeFileSync(file, renderReportHtml(twoContexts(report, PAYLOADS.img, { message: `cannot connect: ${PAYLOADS.script}` }), 'test'));
}

/** Nothing but the page itself was requested, and nothing complained. */
function clean(o: Opened, file: string): void {
  expect(o.requests).toEqual([pathToFileURL(file).href]);
  expect(o.problems).toEqual([]);
}

const pwned = (page: Page): Promise<unknown> => page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned);
const openDetail = (page: Page): Promise<string[]> =>
  page
    .locator('article.detail')
    .evaluateAll((els) => els.filter((e) => (globalThis as any).getComputedStyle(e).display !== 'none').map((e) => e.id));

const WORD: Record<string, string> = { critical: 'CRITICAL', error: 'ERROR', warning: 'WARNING', info: 'INFO' };
/** The status word a part must show, from the map's own data. */
function wordOf(checks: Array<{ status: string; worst?: string }>): string {
  const f = checks.filter((c) => c.status === 'findings');
  if (f.length) {
    const order = ['critical', 'error', 'warning', 'info'];
    return WORD[order.find((s) => f.some((c) => (c.worst ?? 'info') === s))!]!;
  }
  if (checks.some((c) => c.status === 'partial')) return 'partial';
  if (checks.some((c) => c.status === 'passed')) return 'ok';
  if (checks.some((c) => c.status === 'skipped')) return 'skipped';
  return 'no check';
}

describe('map -o html on the example', () => {
  test('opens from file:// with no request and no console error; every part is there with its status in words', async () => {
    const ctx = await browser();
    const o = await open(ctx, files['map.html']!);
    clean(o, files['map.html']!);
    const parts = await o.page
      .locator('button.part')
      .evaluateAll((bs) => bs.map((b) => ({ name: b.querySelector('.name')!.textContent, badge: b.querySelector('.badge')!.textContent })));
    const want = exampleMap.sections.flatMap((s) => s.lines.map((l) => ({ name: l.name, word: wordOf(l.checks) })));
    expect(parts.map((p) => p.name).sort()).toEqual(want.map((w) => w.name).sort());
    for (const w of want) {
      const p = parts.find((x) => x.name === w.name)!;
      expect([w.name, p.badge!.replace(/^\S+\s/, '').replace(/ ×\d+$/, '')]).toEqual([w.name, w.word]);
    }
    // the four contracts and the distribution's real layout are drawn
    for (const z of ['LOOPS', 'DOOR', 'STATE', 'INTERFACES'])
      await expect(o.page.locator('.zone h2', { hasText: z }).count()).resolves.toBe(1);
    expect(await o.page.locator('.cp .layout').textContent()).toMatch(
      /^K3s: one `k3s server` process on each server \(lemuel, ilwon, solomon\)/,
    );
    await o.page.close();
  });

  test('clicking a part with a finding shows the finding, why, fix and its blast radius; the parts that depend on it are marked', async () => {
    const ctx = await browser();
    const { page } = await open(ctx, files['map.html']!);
    expect(await openDetail(page)).toEqual([]);
    await page.locator('button.part', { hasText: 'K3s deploy controller' }).click();
    const [id] = await openDetail(page);
    expect(id).toBeDefined();
    const d = page.locator(`#${id}`);
    const text = (await d.textContent())!;
    expect(text).toContain('ARCH-RL03');
    expect(text).toContain('K3s keeps re-applying the kube-dns Service with clusterIP 169.254.20.10');
    expect(text).toMatch(/why: The desired state can never be reached/);
    expect(await d.locator('h4', { hasText: 'Blast radius' }).count()).toBe(1);
    expect(text).toContain('Broken now: the objects of 6 Addons');
    expect(text).toContain('named in its findings');
    expect(text).toContain('Service kube-system/kube-dns');
    expect(await d.locator('button.copy').count()).toBe(await d.locator('pre.cmd').count());
    expect(await page.locator('#hint').isVisible()).toBe(false);
    // etcd: the door and the loops depend on it
    await page.locator('button.part', { hasText: /^.*etcd3 voters/ }).click();
    const affected = await page.locator('button.part.affected .name').allTextContents();
    expect(affected).toEqual(expect.arrayContaining(['API servers', 'Argo CD', 'kube-scheduler']));
    expect(await page.locator('button.part.selected .name').allTextContents()).toEqual(['etcd']);
    // the same button again closes it
    await page.locator('button.part.selected').click();
    expect(await openDetail(page)).toEqual([]);
    await page.close();
  });

  test('keyboard: Tab reaches the parts (buttons), Enter opens one, Esc closes it and gives focus back', async () => {
    const ctx = await browser();
    const { page } = await open(ctx, files['map.html']!);
    let focused = '';
    for (let i = 0; i < 5 && !focused.startsWith('b-'); i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => (globalThis as any).document.activeElement?.id ?? '');
    }
    expect(focused).toMatch(/^b-p\d+-\d+$/);
    await page.keyboard.press('Enter');
    expect(await openDetail(page)).toEqual([`d-${focused.slice(2)}`]);
    expect(await page.locator(`#${focused}`).getAttribute('aria-expanded')).toBe('true');
    // on to the deploy controller by keyboard
    const target = await page.locator('button.part', { hasText: 'K3s deploy controller' }).getAttribute('id');
    await page.locator(`#${target}`).focus();
    await page.keyboard.press('Enter');
    expect(await openDetail(page)).toEqual([`d-${target!.slice(2)}`]);
    await page.keyboard.press('Escape');
    expect(await openDetail(page)).toEqual([]);
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe(target);
    await page.close();
  });

  test('dark by prefers-color-scheme; printed, everything is expanded and no button shows; the PDF prints', async () => {
    const dark = await browser({ colorScheme: 'dark' });
    const d = await open(dark, files['map.html']!);
    clean(d, files['map.html']!);
    expect(await d.page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).backgroundColor)).toBe(
      'rgb(13, 17, 23)',
    );
    const ctx = await browser();
    const { page } = await open(ctx, files['map.html']!);
    await page.emulateMedia({ media: 'print' });
    expect((await openDetail(page)).length).toBe(await page.locator('button.part').count());
    expect(await page.locator('button.copy').first().isVisible()).toBe(false);
    const pdf = await page.pdf({ format: 'A4', printBackground: true });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    await page.close();
  });
});

describe('what-if -o html on the example', () => {
  test('the parts that would break are marked in words; selecting one shows its predictions first; none is shown twice', async () => {
    const ctx = await browser();
    const o = await open(ctx, files['what-if.html']!);
    clean(o, files['what-if.html']!);
    const { page } = o;
    const j = JSON.parse((await arch(['what-if', 'ilwon', '--snapshot', EXAMPLE, '-o', 'json'])).stdout);
    expect(await page.locator('h1').textContent()).toMatch(/^kubectl arch what-if ilwon/);
    expect(await page.locator('.verdict').textContent()).toBe('no gate (--fail-on none): 6 error, 11 warning predicted');
    const marked = await page.locator('button.part.predicted .name').allTextContents();
    expect(marked.sort()).toEqual(
      [
        'DNS',
        'admission webhooks',
        'aggregated APIs',
        'etcd',
        'ilwon',
        'mutating cert-manager-webhook',
        'v1beta1.metrics.k8s.io',
        'validating cert-manager-webhook',
      ].sort(),
    );
    // in words, for a reader without colour and for a screen reader
    for (const b of await page.locator('button.part.predicted').all()) {
      expect(await b.locator('.wb').textContent()).toBe('⚡ would break');
      // its name is what it shows; the count is its description
      expect(await b.getAttribute('aria-label')).toBeNull();
      expect(await page.locator(`#${await b.getAttribute('aria-describedby')}`).textContent()).toMatch(/; would break \(\d+ predicted\)$/);
    }
    expect(await page.locator('button.part:not(.predicted) .wb').count()).toBe(0);
    // the member of the node that would be down
    await page.locator('button.part.predicted', { hasText: 'ilwon' }).click();
    const [id] = await openDetail(page);
    const d = page.locator(`#${id}`);
    expect(await d.locator('section.predicted-here .finding .code').allTextContents()).toEqual(['ARCH-EQ02']);
    expect(await d.locator('section.predicted-here').textContent()).toContain('while ilwon is down, take no other server down');
    expect(await d.locator('h4', { hasText: 'Other findings' }).count()).toBe(0);
    expect(await d.textContent()).toContain('quorum: the member is already down');
    // the webhooks: each prediction once, under "predicted"
    await page.locator('button.part.predicted', { hasText: 'admission webhooks' }).click();
    const [wid] = await openDetail(page);
    expect(await page.locator(`#${wid} .finding .code`).allTextContents()).toEqual(['ARCH-WH01', 'ARCH-WH01']);
    // what no part draws is listed, not lost: every prediction is on the page
    await page.locator('details.undrawn summary').click();
    const undrawn = await page.locator('details.undrawn .finding .code, details.undrawn p .code').allTextContents();
    expect(undrawn.filter((c) => c === 'ARCH-WI01').length).toBeGreaterThan(0);
    const data = JSON.parse((await page.locator('#arch-data').textContent())!);
    expect([data.kind, data.whatIf.predictions.length]).toEqual(['WhatIfMap', j.predictions.length]);
    // printed, every part's detail and the list are there
    await page.emulateMedia({ media: 'print' });
    expect((await openDetail(page)).length).toBe(await page.locator('button.part').count());
    expect(await page.locator('details.undrawn .finding').first().isVisible()).toBe(true);
    await page.close();
  });
});

describe('doctor -o html on the example', () => {
  test('every check with its status; findings with why and fix commands to copy; prints', async () => {
    const ctx = await browser();
    const o = await open(ctx, files['report.html']!);
    clean(o, files['report.html']!);
    const report = JSON.parse((await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'json', '--no-config'])).stdout);
    const shown = await o.page.locator('section.check > h2').allTextContents();
    expect(shown).toHaveLength(report.checks.length);
    for (const c of report.checks) expect(shown.some((t) => t.includes(`[${c.id}]`))).toBe(true);
    expect(shown.filter((t) => /^✔ ok /.test(t))).toHaveLength(report.summary.passed);
    expect(shown.filter((t) => /^✖ ERROR /.test(t))).toHaveLength(2);
    const findings = await o.page.locator('.finding').count();
    expect(findings).toBe(report.checks.reduce((n: number, c: { findings: unknown[] }) => n + c.findings.length, 0));
    expect(await o.page.locator('button.copy').count()).toBe(await o.page.locator('pre.cmd').count());
    expect(await o.page.locator('.fp dt', { hasText: 'distribution' }).count()).toBe(1);
    await o.page.emulateMedia({ media: 'print' });
    expect(await o.page.locator('button.copy').first().isVisible()).toBe(false);
    expect((await o.page.pdf({ format: 'A4' })).length).toBeGreaterThan(10_000);
    await o.page.close();
  });
});

describe('doctor -o html for several contexts', () => {
  test('the contexts table links to a section per context; an unreachable one (a hostile name) shows its error', async () => {
    const report = exampleReport;
    const file = files['fleet.html']!;
    const ctx = await browser();
    const o = await open(ctx, file);
    clean(o, file);
    expect(await o.page.locator('table.contexts tbody tr').count()).toBe(2);
    expect(await o.page.locator('section.context h2').allTextContents()).toEqual(['context prod-eu', `context ${PAYLOADS.img}`]);
    await o.page.locator('table.contexts a', { hasText: PAYLOADS.img }).click();
    expect(await o.page.locator('#ctx-1 .error-box').textContent()).toContain(`cannot connect: ${PAYLOADS.script}`);
    expect(await o.page.locator('#ctx-0 section.check').count()).toBe(report.checks.length);
    expect(await pwned(o.page)).toBeUndefined();
    expect(await o.page.locator('img').count()).toBe(0);
    await o.page.close();
  });
});

describe('hostile names', () => {
  for (const name of ['hostile-map.html', 'hostile-report.html', 'hostile-what-if.html']) {
    test(`${name}: every payload is shown as text and none runs`, async () => {
      const ctx = await browser();
      const o = await open(ctx, files[name]!);
      const { page } = o;
      // the payloads are there, as text
      const body = (await page.locator('body').textContent())!;
      expect(body).toContain(PAYLOADS.img);
      expect(body).toContain(PAYLOADS.attr);
      expect(body).toContain(PAYLOADS.script.replace('</script>', '</script>'));
      expect(body).toContain(PAYLOADS.comment);
      expect(body).toContain(PAYLOADS.svg);
      expect(body).toContain('gpj.\\u202eexe');
      // and nothing they would have made exists
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.locator('svg[onload], [onerror], [onfocus], [autofocus]').count()).toBe(0);
      expect(await page.locator('script').count()).toBe(name === 'hostile-report.html' ? 1 : 2);
      // open every part (the map) and focus every button: still nothing ran
      for (const b of await page.locator('button').all()) {
        await b.focus();
        if (name !== 'hostile-report.html' && (await b.getAttribute('class'))?.includes('part')) await b.click();
      }
      expect(await pwned(page)).toBeUndefined();
      // the embedded data still holds the exact names
      if (name === 'hostile-what-if.html') {
        // the heading is the command that made the page: the name one shell argument (#43), shown as text
        expect(await page.locator('h1').textContent()).toContain(`what-if ${quote(HOSTILE_NODE)}`);
        expect(await page.locator('button.part.predicted .name', { hasText: HOSTILE_NODE }).count()).toBeGreaterThan(0);
        const data = JSON.parse((await page.locator('#arch-data').textContent())!);
        expect(data.whatIf.hypothesis.nodes).toEqual([HOSTILE_NODE]);
      }
      if (name === 'hostile-map.html') {
        const data = JSON.parse((await page.locator('#arch-data').textContent())!);
        const names = data.sections.flatMap((s: { lines: Array<{ name: string }> }) => s.lines.map((l) => l.name));
        expect(names).toContain(`validating ${PAYLOADS.img}${PAYLOADS.attr}`);
      }
      clean(o, files[name]!);
      await page.close();
    });
  }
});

describe('map -o mermaid, read by Mermaid itself', () => {
  test('the example and the hostile cluster parse and draw; hostile labels are text, nothing runs', async () => {
    const mermaidJs = readFileSync(createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js'), 'utf8');
    const blank = join(dir, 'blank.html');
    writeFileSync(blank, '<!doctype html><html><head><meta charset="utf-8"></head><body><div id="out"></div></body></html>');
    const ctx = await browser();
    const o = await open(ctx, blank);
    await o.page.addScriptTag({ content: mermaidJs });
    for (const f of ['map.mmd', 'hostile.mmd']) {
      const text = readFileSync(files[f]!, 'utf8');
      const r = await o.page.evaluate(async (t) => {
        const m = (globalThis as any).mermaid;
        m.initialize({ startOnLoad: false, securityLevel: 'strict' });
        const parsed = await m.parse(t);
        const { svg } = await m.render(`g${Math.random().toString(36).slice(2)}`, t);
        const out = (globalThis as any).document.getElementById('out');
        out.innerHTML = svg;
        return { type: parsed.diagramType, text: out.textContent as string, imgs: out.querySelectorAll('img').length };
      }, text);
      expect(r.type).toBe('flowchart-v2');
      expect(r.imgs).toBe(0);
      if (f === 'map.mmd') {
        expect(r.text).toContain('K3s deploy controller');
        expect(r.text).toContain('DOOR — the API server is the only way in');
      } else expect(r.text).toContain(`validating ${PAYLOADS.img}`);
    }
    expect(await pwned(o.page)).toBeUndefined();
    expect(o.requests).toEqual([pathToFileURL(blank).href]);
    expect(o.problems).toEqual([]);
  });
});

/** axe-core's own build, injected as script content: the network stays blocked. */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core on the whole document as it is shown now: each violation as its id, impact and the nodes it found. */
async function axe(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.addScriptTag({ content: AXE });
  return page.evaluate(async () => {
    const g = globalThis as any;
    const r = await g.axe.run(g.document);
    return r.violations.map(
      (v: { id: string; impact: string; nodes: Array<{ target: string[] }> }) =>
        `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`,
    );
  });
}

/** What is wider than the screen: the document's own scroll width, and every rendered element or text whose box
 *  leaves the layout viewport (in page coordinates) and is not inside a horizontally scrollable container. */
function overflow(page: Page): Promise<{ scrollWidth: number; innerWidth: number; outside: string[] }> {
  return page.evaluate(() => {
    const g = globalThis as any;
    const doc = g.document;
    const width: number = doc.documentElement.clientWidth;
    const scrolls = (e: any): boolean => ['auto', 'scroll'].includes(g.getComputedStyle(e).overflowX);
    const inScroller = (e: any): boolean => {
      for (let p = e.parentElement; p && p !== doc.documentElement; p = p.parentElement) if (scrolls(p)) return true;
      return false;
    };
    const name = (e: any): string =>
      `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.classList.length ? `.${[...e.classList].join('.')}` : ''}`;
    const outside: string[] = [];
    const check = (r: { left: number; right: number; width: number; height: number }, what: () => string, e: any): void => {
      if (!r.width && !r.height) return; // not rendered
      const left = r.left + g.scrollX;
      const right = r.right + g.scrollX;
      if (left >= -0.5 && right <= width + 0.5) return;
      if (inScroller(e)) return;
      outside.push(`${what()} [${Math.round(left)}, ${Math.round(right)}] of ${width}`);
    };
    for (const e of doc.body.querySelectorAll('*')) check(e.getBoundingClientRect(), () => name(e), e);
    const walker = doc.createTreeWalker(doc.body, 4 /* NodeFilter.SHOW_TEXT */);
    const range = doc.createRange();
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      if (!t.textContent.trim() || !t.parentElement || ['SCRIPT', 'STYLE'].includes(t.parentElement.tagName)) continue;
      range.selectNodeContents(t);
      check(
        range.getBoundingClientRect(),
        () => `text ${JSON.stringify(t.textContent.trim().slice(0, 40))} in ${name(t.parentElement)}`,
        t.parentElement,
      );
    }
    return { scrollWidth: doc.documentElement.scrollWidth, innerWidth: g.innerWidth, outside };
  });
}

const VIEWPORTS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
];
const PAGES = ['map.html', 'what-if.html', 'report.html', 'fleet.html', 'hostile-map.html', 'hostile-what-if.html', 'hostile-report.html'];

for (const vp of VIEWPORTS) {
  describe(`every page at ${vp.width}×${vp.height}: nothing wider than the screen, and no accessibility violation`, () => {
    let ctx: BrowserContext;
    beforeAll(async () => {
      ctx = await browser({ ...vp, bypassCSP: true });
    });
    afterAll(async () => {
      await ctx.close();
    });

    for (const name of PAGES) {
      test(name, async () => {
        const file = files[name]!;
        const o = await open(ctx, file);
        const { page } = o;
        const at = (state: string): string => `${name} at ${vp.width}×${vp.height}, ${state}`;
        const fits = async (state: string): Promise<void> => {
          const r = await overflow(page);
          expect(r.innerWidth).toBe(vp.width);
          // the document scrolls no wider than the window, and nothing sticks out of it
          expect({ at: at(state), scrollWidth: r.scrollWidth, outside: r.outside }).toEqual({
            at: at(state),
            scrollWidth: r.scrollWidth <= r.innerWidth ? r.scrollWidth : `at most ${r.innerWidth}`,
            outside: [],
          });
        };
        const accessible = async (state: string): Promise<void> => {
          for (const colorScheme of ['light', 'dark'] as const) {
            await page.emulateMedia({ colorScheme });
            const bg = await page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).backgroundColor);
            expect([colorScheme, bg]).toEqual([colorScheme, colorScheme === 'dark' ? 'rgb(13, 17, 23)' : 'rgb(255, 255, 255)']);
            expect({ at: at(`${state}, ${colorScheme}`), violations: await axe(page) }).toEqual({
              at: at(`${state}, ${colorScheme}`),
              violations: [],
            });
          }
          await page.emulateMedia({ colorScheme: 'light' });
        };
        await fits('as opened');
        await accessible('as opened');
        const parts = await page.locator('button.part').all();
        if (parts.length) {
          // every part's details, one at a time
          for (const b of parts) {
            await b.click();
            expect(await b.getAttribute('aria-expanded')).toBe('true');
            await fits(`part ${await b.getAttribute('id')} selected`);
          }
          // the part with the most findings selected, and what no part draws (what-if) unfolded
          const most = await page
            .locator('article.detail')
            .evaluateAll(
              (ds) => ds.map((d) => [d.querySelectorAll('.finding').length, d.id.slice(2)] as const).sort((a, b) => b[0] - a[0])[0]![1],
            );
          if ((await page.locator(`#b-${most}`).getAttribute('aria-expanded')) !== 'true') await page.locator(`#b-${most}`).click();
          expect(await page.locator(`#d-${most}`).isVisible()).toBe(true);
          const undrawn = page.locator('details.undrawn');
          if (await undrawn.count()) {
            await undrawn.locator('summary').click();
            expect(await undrawn.getAttribute('open')).toBe('');
            await fits('what no part draws unfolded');
          }
          await accessible(`part ${most} selected`);
          // axe after each kind of selection too: a part of every status the page draws, its details in the side
          // panel (their badges sit on the panel's background, not the page's: "· no check" was 4.27:1 there)
          const statuses = [
            ...new Set(await page.locator('button.part').evaluateAll((bs) => bs.map((b) => /\bs-([a-z]+)\b/.exec(b.className)?.[1] ?? ''))),
          ];
          expect(statuses.length).toBeGreaterThan(0);
          for (const st of statuses) {
            const b = page.locator(`button.part.s-${st}`).first();
            if ((await b.getAttribute('aria-expanded')) !== 'true') await b.click();
            await accessible(`a part "${st}" selected`);
          }
        }
        clean(o, file);
        await page.close();
      });
    }
  });
}
