// The layers only point down: kubeconfig → client → snapshot → checks → findings → renderer. Every import in src/ is
// read and held to the table below (a check's scenario.ts and cases/ are example tooling, not product code).
import { expect, test } from '@jest/globals';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { ROOT } from './helpers/run.js';

const SRC = join(ROOT, 'src');

/** The room of a file: its top directory under src/, or its file name for the top-level files. */
const room = (file: string): string => relative(SRC, file).split('/')[0]!.replace(/\.ts$/, '');

const BASE = ['lib', 'model', 'errors', 'version', 'lifecycle', 'assets.d'];
const DATA = [...BASE, 'snapshot', 'resources'];
const DOMAIN = [...DATA, 'fingerprint', 'etcd', 'orphans', 'checks', 'map'];
/** What each room may import. Rooms not listed (commands, cli, host, fast, complete, …) wire everything together. */
const MAY: Record<string, string[]> = {
  lib: BASE,
  model: BASE,
  errors: BASE,
  version: BASE,
  lifecycle: BASE,
  snapshot: DATA,
  resources: DATA,
  // the client knows no check: it fills a snapshot with what it is asked for
  cluster: [...DATA, 'cluster'],
  // a check knows no screen and does no I/O: no client, no renderer
  fingerprint: DOMAIN,
  etcd: DOMAIN,
  orphans: DOMAIN,
  checks: DOMAIN,
  map: DOMAIN,
  // what-if runs the checks on a changed snapshot: domain, no I/O
  whatif: [...DOMAIN, 'whatif', 'change'],
  // what-if -f: manifests read from files (like a snapshot), then predicted on the domain; no client
  change: [...DOMAIN, 'whatif', 'change'],
  // the one catalogue of codes: checks, what-if's predictions and a change's, below the renderers
  catalogue: [...DOMAIN, 'whatif', 'change'],
  // a renderer knows no command and no client (what-if's codes are data it names rules by)
  render: [...DOMAIN, 'render', 'config', 'whatif', 'change', 'catalogue'],
  config: [...BASE, 'config'],
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return n === 'cases' ? [] : files(p);
    return p.endsWith('.ts') && !p.endsWith('/scenario.ts') ? [p] : [];
  });
}

test('src/cluster, src/checks, src/render (and every lower room) import nothing from a room above them', () => {
  const wrong: string[] = [];
  for (const f of files(SRC)) {
    const allowed = MAY[room(f)];
    if (!allowed) continue;
    for (const m of readFileSync(f, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = normalize(join(dirname(f), m[1]!));
      if (!target.startsWith(SRC)) {
        wrong.push(`${relative(ROOT, f)} imports ${m[1]} (outside src/)`);
        continue;
      }
      const to = room(target.replace(/\.js$/, '.ts'));
      if (!allowed.includes(to)) wrong.push(`${relative(ROOT, f)} (${room(f)}) imports ${m[1]} (${to})`);
    }
  }
  expect(wrong).toEqual([]);
});

/** Every relative import of every file in src/, resolved to a file. */
function importsOf(f: string): string[] {
  return [...readFileSync(f, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) =>
    normalize(join(dirname(f), m[1]!)).replace(/\.js$/, '.ts'),
  );
}

test('one catalogue of codes below the renderers: a renderer reads codes from src/catalogue.ts, and makes no finding', () => {
  const wrong: string[] = [];
  for (const f of files(join(SRC, 'render')))
    for (const t of importsOf(f)) {
      const rel = relative(SRC, t);
      if (/^(checks\/registry|whatif\/codes|change\/codes)\.ts$/.test(rel) || /^checks\/[^/]+\/check\.ts$/.test(rel))
        wrong.push(`${relative(ROOT, f)} imports ${rel}`);
    }
  expect(wrong).toEqual([]);
});

test('no two modules import each other, and a change and what-if share types only through src/model.ts', () => {
  const all = files(SRC);
  const graph = new Map(all.map((f) => [f, new Set(importsOf(f))]));
  const pairs: string[] = [];
  for (const [f, ts] of graph)
    for (const t of ts) if (f < t && graph.get(t)?.has(f)) pairs.push(`${relative(SRC, f)} <-> ${relative(SRC, t)}`);
  expect(pairs).toEqual([]);
  // src/change never imports src/whatif (what-if may read a change's codes and docs: one way)
  const up = all
    .filter((f) => room(f) === 'change')
    .flatMap((f) =>
      importsOf(f)
        .filter((t) => room(t) === 'whatif')
        .map((t) => `${relative(SRC, f)} -> ${relative(SRC, t)}`),
    );
  expect(up).toEqual([]);
});

test('one escaping rule for every writer: no file but src/lib/safe.ts keeps its own list of characters to show as text', () => {
  // completion leaves out candidates (it does not escape them), with its own list of what a shell must not be given
  const own = files(SRC).filter(
    (f) => !/\/lib\/safe\.ts$|\/complete\.ts$/.test(f) && /\\u200[bB]|\\u202[aAeE]|\\u206[6-9]/.test(readFileSync(f, 'utf8')),
  );
  expect(own.map((f) => relative(ROOT, f))).toEqual([]);
});
