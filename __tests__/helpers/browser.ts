// Debian's chromium, headless, driven by playwright-core (no browser is downloaded): a fresh profile per launch, and
// every page opened with the network blocked — each request is recorded and every one but the page itself failed, so
// a test can assert that the page was the only one. Console messages and page errors are recorded too. bypassCSP lets
// a test inject a script of its own as inline content (axe-core): the pages' CSP allows only their own script.
import { afterAll } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.KUBECTL_ARCH_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface Opened {
  page: Page;
  /** Every request the page made (URLs), blocked or not. */
  requests: string[];
  /** Console messages of type error or warning, and uncaught page errors. */
  problems: string[];
}

const contexts: Array<{ ctx: BrowserContext; dir: string }> = [];
afterAll(async () => {
  for (const { ctx, dir } of contexts.splice(0)) {
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

export async function browser(
  opts: { colorScheme?: 'light' | 'dark'; width?: number; height?: number; bypassCSP?: boolean } = {},
): Promise<BrowserContext> {
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-arch-chromium-'));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: opts.width ?? 1400, height: opts.height ?? 1000 },
    colorScheme: opts.colorScheme ?? 'light',
    offline: true,
    bypassCSP: opts.bypassCSP ?? false,
  });
  contexts.push({ ctx, dir });
  return ctx;
}

/** Opens a file (a page we wrote) in a new tab of ctx, the network blocked. */
export async function open(ctx: BrowserContext, file: string): Promise<Opened> {
  const page = await ctx.newPage();
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  const url = pathToFileURL(file).href;
  // the page itself is the one thing let through
  await page.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort('blockedbyclient')));
  await page.goto(url);
  return { page, requests, problems };
}
