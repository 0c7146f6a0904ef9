// The real-world corpus, found through the registry: each check's cases live in its folder
// (src/checks/<id>/cases/<slug>/: CASE.md, snapshot.yaml, expected.yaml — docs/corpus.md).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { CHECKS } from '../../src/checks/registry.js';
import { ROOT } from './run.js';

export interface CorpusCase {
  name: string;
  check: string;
  dir: string;
  expected: { check: string; findings?: Array<Record<string, any> & { code: string }>; [k: string]: unknown };
}

export function corpusCases(): CorpusCase[] {
  const out: CorpusCase[] = [];
  const base = join(ROOT, 'src/checks');
  // every folder that holds cases, registered or not (the corpus test says when one is not)
  for (const d of readdirSync(base, { withFileTypes: true })) {
    const dir = join(base, d.name, 'cases');
    if (!d.isDirectory() || !existsSync(dir)) continue;
    for (const c of readdirSync(dir, { withFileTypes: true })) {
      if (!c.isDirectory()) continue;
      const expected = load(readFileSync(join(dir, c.name, 'expected.yaml'), 'utf8')) as CorpusCase['expected'];
      out.push({ name: c.name, check: d.name, dir: join(dir, c.name), expected });
    }
  }
  const order = new Map(CHECKS.map((c, i) => [c.id, i] as const));
  return out.sort((a, b) => (order.get(a.check) ?? 99) - (order.get(b.check) ?? 99) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
