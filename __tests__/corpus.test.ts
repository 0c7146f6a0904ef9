// The real-world corpus: one directory per case from a public issue thread (CASE.md cites owner/repo#N),
// holding the snapshot a user could have captured and the findings that must (and must not) appear.
// Every check is held to it; see __tests__/corpus/README.md for the format.
import { describe, expect, test } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { CHECKS } from '../src/checks/registry.js';
import { runChecks } from '../src/checks/run.js';
import type { Finding } from '../src/model.js';
import { loadSnapshot } from '../src/snapshot/load.js';

const CORPUS = new URL('./corpus', import.meta.url).pathname;

interface Expected {
  check: string;
  status?: 'findings' | 'passed' | 'partial' | 'skipped';
  findings?: Array<{
    code: string;
    severity?: string;
    /** The finding's severity is this or worse. */
    severityAtLeast?: string;
    objects?: string[];
    state?: string;
    text?: string[];
  }>;
  /** How many findings of a code must appear (one fault, one finding). */
  count?: Record<string, number>;
  /** Input types the check must name as not visible (in a note, or in its skipped/partial reason). */
  notVisible?: string[];
  /** Phrases its skipped or partial reason must hold. */
  reasonContains?: string[];
  mustNot?: Array<{ code?: string; phrase?: string }>;
}

const cases = readdirSync(CORPUS, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
const objText = (o: { kind: string; namespace?: string; name: string }): string =>
  `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
const words = (f: Finding): string => [f.title, f.message, f.why ?? '', ...(f.fix ?? [])].join('\n');
const RANK: Record<string, number> = { info: 0, warning: 1, error: 2, critical: 3 };

test('the corpus holds the real cases each check is held to', () => {
  const byPrefix = new Map<string, number>();
  for (const c of cases) byPrefix.set(c.split('-')[0]!, (byPrefix.get(c.split('-')[0]!) ?? 0) + 1);
  expect(byPrefix.get('rl') ?? 0).toBeGreaterThanOrEqual(12);
  expect(byPrefix.get('or') ?? 0).toBeGreaterThanOrEqual(10);
  expect(byPrefix.get('eq') ?? 0).toBeGreaterThanOrEqual(10);
  for (const prefix of ['dns', 'wh', 'api', 'del', 'csi', 'cert'])
    expect([prefix, (byPrefix.get(prefix) ?? 0) >= 3]).toEqual([prefix, true]);
  // true negatives: cases where a check must stay quiet (no finding at warning or above is expected)
  for (const prefix of ['rl', 'or', 'eq']) {
    const negatives = cases
      .filter((c) => c.startsWith(`${prefix}-`))
      .filter((c) => {
        const exp = load(readFileSync(join(CORPUS, c, 'expected.yaml'), 'utf8')) as Expected;
        return (exp.findings ?? []).every((f) => f.severity === 'info');
      });
    expect([prefix, negatives.length >= 4]).toEqual([prefix, true]);
  }
});

describe.each(cases)('%s', (name) => {
  const dir = join(CORPUS, name);
  test('CASE.md cites a real thread as owner/repo#N', () => {
    expect(existsSync(join(dir, 'CASE.md'))).toBe(true);
    expect(readFileSync(join(dir, 'CASE.md'), 'utf8')).toMatch(/^Source: [\w.-]+\/[\w.-]+#\d+/m);
  });

  test('findings as expected', () => {
    const exp = load(readFileSync(join(dir, 'expected.yaml'), 'utf8')) as Expected;
    const snap = loadSnapshot(join(dir, 'snapshot.yaml'));
    const result = runChecks(CHECKS, snap).find((c) => c.id === exp.check);
    expect(result).toBeDefined();
    const r = result!;
    if (exp.status) expect([r.status, r.reason]).toEqual([exp.status, r.reason]);
    for (const want of exp.findings ?? []) {
      const match = r.findings.find(
        (f) =>
          f.code === want.code &&
          (!want.severity || f.severity === want.severity) &&
          (!want.severityAtLeast || RANK[f.severity]! >= RANK[want.severityAtLeast]!) &&
          (!want.state || f.evidence.state === want.state) &&
          (want.objects ?? []).every((o) => f.objects.map(objText).includes(o)) &&
          (want.text ?? []).every((t) => words(f).includes(t)),
      );
      if (!match) {
        const seen = r.findings.map(
          (f) => `${f.code} ${f.severity} ${String(f.evidence.state ?? '')} [${f.objects.map(objText).join(', ')}] ${f.title}`,
        );
        throw new Error(
          `missing ${JSON.stringify(want)}\nfound:\n  ${seen.join('\n  ') || '(none)'}\nstatus: ${r.status} ${r.reason ?? ''}`,
        );
      }
    }
    for (const [code, n] of Object.entries(exp.count ?? {}))
      expect([code, r.findings.filter((f) => f.code === code).length]).toEqual([code, n]);
    for (const t of exp.notVisible ?? []) {
      const said = [...r.notes, r.reason ?? ''].some((n) => n.startsWith(`${t}:`) || n.includes(`without ${t}`) || n.includes(` ${t},`));
      expect([t, said, r.notes]).toEqual([t, true, r.notes]);
    }
    for (const t of exp.reasonContains ?? []) expect(r.reason ?? '').toContain(t);
    for (const no of exp.mustNot ?? []) {
      if (no.code) expect(r.findings.map((f) => f.code)).not.toContain(no.code);
      if (no.phrase) for (const f of r.findings) expect(words(f)).not.toContain(no.phrase);
    }
  });
});
