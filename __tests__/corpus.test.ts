// The real-world corpus: one directory per case from a public issue thread (CASE.md cites owner/repo#N),
// holding the snapshot a user could have captured and the findings that must (and must not) appear. Each check
// keeps its cases in its own folder (src/checks/<id>/cases/<slug>/); every registered check is held to them. The
// format: docs/corpus.md.
import { describe, expect, test } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHECKS } from '../src/checks/registry.js';
import { runChecks } from '../src/checks/run.js';
import type { Finding } from '../src/model.js';
import { loadSnapshot } from '../src/snapshot/load.js';

import { corpusCases } from './helpers/corpus.js';

/** What the checks declare they read: the door keeps it, as a command's run does. */
const READS = CHECKS.flatMap((c) => [...c.needs, ...(c.reads ?? [])]);

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

const cases = corpusCases();
const objText = (o: { kind: string; namespace?: string; name: string }): string =>
  `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
const words = (f: Finding): string => [f.title, f.message, f.why ?? '', ...(f.fix ?? [])].join('\n');
const RANK: Record<string, number> = { info: 0, warning: 1, error: 2, critical: 3 };

test('every registered check is held to real cases, true negatives among them', () => {
  for (const c of CHECKS) {
    const mine = cases.filter((x) => x.check === c.id);
    const negatives = mine.filter((x) => (x.expected.findings ?? []).every((f) => f.severity === 'info'));
    expect([c.id, mine.length >= 3, negatives.length >= 1]).toEqual([c.id, true, true]);
  }
  // a folder under src/checks/ with cases is a registered check
  expect(cases.filter((x) => !CHECKS.some((c) => c.id === x.check)).map((x) => x.dir)).toEqual([]);
});

describe.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  const dir = c.dir;
  test('CASE.md cites a real thread as owner/repo#N', () => {
    expect(existsSync(join(dir, 'CASE.md'))).toBe(true);
    expect(readFileSync(join(dir, 'CASE.md'), 'utf8')).toMatch(/^Source: [\w.-]+\/[\w.-]+#\d+/m);
  });

  test('findings as expected', () => {
    const exp = c.expected as Expected;
    expect(exp.check).toBe(c.check);
    const snap = loadSnapshot(join(dir, 'snapshot.yaml'), READS);
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
