// The rules of judgement (#26), held over the whole corpus and the example, for every check:
// - judge from what is visible: drop any one input type a check declares, and it never turns into "passed", names
//   what it lost, and keeps every finding the remaining types still prove;
// - one fault, one finding: no two findings of a check name the same object and field;
// - no sentence contradicts the evidence: no text claims endless retrying unless the finding's liveness is retrying.
import { describe, expect, test } from '@jest/globals';
import { join } from 'node:path';
import { CHECKS } from '../src/checks/registry.js';
import { gapsOf, runChecks } from '../src/checks/run.js';
import type { Check, CheckNeed } from '../src/checks/types.js';
import { gkKey, groupOf, type Finding } from '../src/model.js';
import { loadSnapshot } from '../src/snapshot/load.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { corpusCases } from './helpers/corpus.js';
import { EXAMPLE } from './helpers/fixtures.js';

/** What the checks declare they read: the door keeps it, as a command's run does. */
const READS = CHECKS.flatMap((c) => [...c.needs, ...(c.reads ?? [])]);

const corpus = corpusCases();
const cases = corpus.map((c) => c.name);
const caseOf = new Map(corpus.map((c) => [c.name, c] as const));

interface Expected {
  check: string;
  findings?: Array<{ code: string; objects?: string[]; dependsOn?: string[] }>;
}

const objText = (o: { kind: string; namespace?: string; name: string }): string =>
  `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
const typeName = (n: Pick<CheckNeed, 'group' | 'kind'>): string => gkKey(n.group, n.kind);

/** The same snapshot as if one type could not be read (RBAC, or left out of a dump). */
function without(snap: Snapshot, n: Pick<CheckNeed, 'group' | 'kind' | 'resource'>): Snapshot {
  const key = typeName(n);
  const h = snap.finalHeader();
  const out = new Snapshot({
    ...h,
    captured: h.captured.filter((k) => k !== key),
    unavailable: [
      ...h.unavailable.filter((u) => gkKey(u.group, u.kind) !== key),
      {
        group: n.group,
        kind: n.kind,
        resource: n.resource,
        status: 403,
        reason: `forbidden: cannot list ${n.resource} (dropped by the test)`,
      },
    ],
  });
  out.headerless = snap.headerless;
  for (const [k, items] of snap.lists()) {
    if (k === key || !items[0]) continue;
    out.addList(groupOf(items[0].apiVersion), items[0].kind ?? '', items);
  }
  return out;
}

const run = (c: Check, snap: Snapshot) => runChecks([c], snap)[0]!;
const distinctNeeds = (c: Check): CheckNeed[] => c.needs.filter((n, i, a) => a.findIndex((x) => typeName(x) === typeName(n)) === i);

describe('judge from what is visible: every case, every input dropped in turn', () => {
  test.each(cases)('%s', (name) => {
    const exp = caseOf.get(name)!.expected as Expected;
    const check = CHECKS.find((c) => c.id === exp.check)!;
    const snap = loadSnapshot(join(caseOf.get(name)!.dir, 'snapshot.yaml'), READS);
    const before = run(check, snap);
    const problems: string[] = [];
    for (const need of distinctNeeds(check)) {
      const t = typeName(need);
      if (snap.visibility(need) && !snap.absent(need)) continue; // not in this case: nothing to drop
      const dropped = without(snap, need);
      const after = run(check, dropped);
      const gap = gapsOf(check, dropped).find((g) => typeName(g.need) === t);
      // it says what it lost, never turns a non-pass into a pass, and never passes without what it judges by
      if (gap && ![...after.notes, after.reason ?? ''].some((x) => x.includes(t))) problems.push(`without ${t}: not named`);
      if (before.status !== 'passed' && after.status === 'passed') problems.push(`without ${t}: ${before.status} turned into passed`);
      if (gap && gap.role !== 'context' && after.status === 'passed') problems.push(`without ${t} (${gap.role}): passed`);
      // each expected finding the remaining types still prove is still there (named objects of the dropped kind aside)
      for (const want of exp.findings ?? []) {
        const deps = new Set([
          ...(want.objects ?? []).map((o) => o.split(' ')[0]!),
          ...(want.dependsOn ?? []),
          ...((check.proofs as Record<string, string[] | undefined> | undefined)?.[want.code] ?? []),
        ]);
        if (deps.has(need.kind) || deps.has(t)) continue;
        const objs = (want.objects ?? []).filter((o) => !o.startsWith(`${need.kind} `));
        if (!after.findings.some((f) => f.code === want.code && objs.every((o) => f.objects.map(objText).includes(o))))
          problems.push(
            `without ${t}: lost ${want.code} [${objs.join(', ')}] (got ${after.status}: ${after.findings.map((f) => f.code).join(', ')})`,
          );
      }
    }
    expect(problems).toEqual([]);
  });
});

/** The object a finding is about and the field at fault: two findings with both equal are twins. */
const faultKey = (f: Finding): string => {
  const field = typeof f.evidence.field === 'string' ? f.evidence.field : undefined;
  const obj = (f.evidence.object as Finding['objects'][number] | undefined) ?? f.objects[f.objects.length - 1];
  return field ? `${obj ? objText(obj) : '?'}|${field}` : `${f.code}|${f.objects.map(objText).join(',')}`;
};

const ENDLESS = /never stop|retr(?:y|ies) forever|forever retr|endless(?:ly)? retr/i;

describe('one fault, one finding; no sentence contradicts the evidence', () => {
  const snaps: Array<[string, () => Snapshot]> = [
    ['the example', () => loadSnapshot(EXAMPLE, READS)],
    ...corpus.map((c): [string, () => Snapshot] => [c.name, () => loadSnapshot(join(c.dir, 'snapshot.yaml'), READS)]),
  ];
  test.each(snaps)('%s', (_name, snapOf) => {
    for (const r of runChecks(CHECKS, snapOf())) {
      const keys = r.findings.map(faultKey);
      expect([r.id, keys.filter((k, i) => keys.indexOf(k) !== i)]).toEqual([r.id, []]);
      for (const f of r.findings) {
        const words = [f.title, f.message, f.why ?? '', ...(f.fix ?? [])].join('\n');
        if (ENDLESS.test(words)) expect([f.code, f.evidence.state]).toEqual([f.code, 'retrying']);
      }
    }
  });
});
