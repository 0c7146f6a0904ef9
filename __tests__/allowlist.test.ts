// A snapshot holds what the checks declare, and nothing else (#43). Every check, what-if prediction and command
// declares the field paths it reads, per type (its needs' `fields`, and `reads` for types it reads without needing
// them); src/resources.ts says what the one door keeps of each type. Held here:
// - each reader, run over the whole corpus (every check's cases, what-if's cases, what-if -f's, the example) with
//   objects that record every path read, reads nothing it did not declare;
// - what the door keeps is exactly what the readers declare: every declared path is kept, every kept path declared.
import { describe, expect, test } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { CHECKS } from '../src/checks/registry.js';
import { evidenceTime, runChecks } from '../src/checks/run.js';
import { readManifests } from '../src/change/manifests.js';
import { CHANGE_READS, predictChange } from '../src/change/predict.js';
import { fingerprint, FINGERPRINT_NEEDS } from '../src/fingerprint.js';
import { blastRadii, controlPlaneLayout } from '../src/map/blast.js';
import { buildMap, MAP_READS } from '../src/map/build.js';
import { gkKey } from '../src/model.js';
import { ANY_TYPE_FIELDS, CONFIGMAPS, METADATA_FIELDS, R } from '../src/resources.js';
import { covered, fieldTree, parsePath, type FieldTree } from '../src/snapshot/fields.js';
import { loadSnapshot } from '../src/snapshot/load.js';
import { Cluster, WHATIF_READS } from '../src/whatif/cluster.js';
import { whatIf } from '../src/whatif/predict.js';
import { UNITS, UPGRADE_UNITS } from '../src/whatif/predictions/registry.js';
import { whatIfUpgrade } from '../src/whatif/upgrade/predict.js';
import { UPGRADE_READS } from '../src/whatif/upgrade/rollout.js';
import { currentVersion, parseTarget, type UpgradeHypothesis } from '../src/whatif/upgrade/version.js';
import type { Hypothesis } from '../src/whatif/hypothesis.js';
import type { Snapshot } from '../src/snapshot/snapshot.js';
import { corpusCases } from './helpers/corpus.js';
import { EXAMPLE } from './helpers/fixtures.js';
import { recording, type Reads } from './helpers/reads.js';
import { ROOT } from './helpers/run.js';

type Decl = { group: string; kind: string; fields?: readonly string[] };

/** A reader's declared paths per type: its own, every object's metadata, and what distribution detection reads (every
 *  check's onlyOn runs it). */
function declared(decls: readonly Decl[]): { byType: Map<string, FieldTree>; any: FieldTree } {
  const by = new Map<string, string[]>();
  // a declaration for every type (kind '*') holds for each
  const every = decls.filter((d) => d.kind === '*').flatMap((d) => d.fields ?? []);
  for (const d of [...decls, ...FINGERPRINT_NEEDS]) {
    if (d.kind === '*') continue;
    const k = gkKey(d.group, d.kind);
    by.set(k, [...(by.get(k) ?? []), ...(d.fields ?? [])]);
  }
  return {
    byType: new Map([...by].map(([k, ps]) => [k, fieldTree([...METADATA_FIELDS, ...every, ...ps])])),
    any: fieldTree([...METADATA_FIELDS, ...every]),
  };
}

/** The reads no declaration covers, as `Kind.group path`. */
function undeclared(reads: Reads, decls: readonly Decl[]): string[] {
  const { byType: trees, any } = declared(decls);
  const out: string[] = [];
  for (const [gk, paths] of reads)
    for (const p of paths) {
      if (p === '*' || p === 'apiVersion' || p === 'kind' || p === 'metadata.name' || p === 'metadata.namespace') continue;
      if (!covered(p, trees.get(gk) ?? any)) out.push(`${gk} ${p}`);
    }
  return out.sort();
}

const SNAPSHOTS = [...corpusCases().map((c) => join(c.dir, 'snapshot.yaml')), EXAMPLE];
const UNITS_DIR = join(ROOT, 'src/whatif/predictions');
const WHATIF_CASES: Array<{ file: string; nodes: string[]; remove: boolean; upgrade?: string }> = [
  ...readdirSync(UNITS_DIR, { withFileTypes: true })
    .filter((u) => u.isDirectory() && existsSync(join(UNITS_DIR, u.name, 'cases')))
    .flatMap((u) =>
      readdirSync(join(UNITS_DIR, u.name, 'cases')).map((c) => {
        const exp = load(readFileSync(join(UNITS_DIR, u.name, 'cases', c, 'expected.yaml'), 'utf8')) as {
          nodes: string[];
          remove?: boolean;
          upgrade?: string;
        };
        return {
          file: join(UNITS_DIR, u.name, 'cases', c, 'snapshot.yaml'),
          nodes: exp.nodes,
          remove: Boolean(exp.remove),
          ...(exp.upgrade ? { upgrade: exp.upgrade } : {}),
        };
      }),
    ),
  { file: EXAMPLE, nodes: ['ilwon'], remove: false },
  { file: EXAMPLE, nodes: ['lemuel', 'ilwon'], remove: true },
];
/** what-if --upgrade's hypothesis for a case: the target it names, the cluster's own version as the command reads it. */
const upgradeOf = (w: { upgrade?: string }, snap: Snapshot): UpgradeHypothesis | undefined => {
  if (!w.upgrade) return undefined;
  const current = currentVersion(snap);
  return { target: parseTarget(w.upgrade), ...(current ? { current } : {}) };
};
const hypothesisOf = (w: (typeof WHATIF_CASES)[number], snap: Snapshot): Hypothesis => {
  const upgrade = upgradeOf(w, snap);
  return { nodes: w.nodes, remove: w.remove, ...(upgrade ? { upgrade } : {}) };
};
const ALL_SNAPSHOTS = [...SNAPSHOTS, ...WHATIF_CASES.map((w) => w.file)];
const CHANGE_DIR = join(ROOT, 'src/change/cases');

const checkDecls = (c: (typeof CHECKS)[number]): Decl[] => [...c.needs, ...(c.reads ?? [])];
const unitDecls = (u: (typeof UNITS)[number]): Decl[] => [...u.needs, ...(u.reads ?? [])];
const ENGINES: Record<string, readonly Decl[]> = {
  fingerprint: FINGERPRINT_NEEDS,
  map: MAP_READS,
  'what-if': WHATIF_READS,
  'what-if -f': CHANGE_READS,
  'what-if --upgrade': UPGRADE_READS,
};
const ALL_UNITS = [...UNITS, ...UPGRADE_UNITS];
const EVERY: Decl[] = [...CHECKS.flatMap(checkDecls), ...ALL_UNITS.flatMap(unitDecls), ...Object.values(ENGINES).flat()];

describe('each reader reads only what it declares, over the whole corpus', () => {
  test.each(CHECKS.map((c) => [c.id, c] as const))('check %s', (_id, c) => {
    const reads: Reads = new Map();
    for (const f of ALL_SNAPSHOTS) runChecks([c], recording(loadSnapshot(f), reads));
    expect(reads.size).toBeGreaterThan(0);
    expect(undeclared(reads, checkDecls(c))).toEqual([]);
  });

  test.each(ALL_UNITS.map((u) => [u.id, u] as const))('what-if prediction %s', (_id, u) => {
    const reads: Reads = new Map();
    for (const w of WHATIF_CASES) {
      const snap = loadSnapshot(w.file);
      const h = hypothesisOf(w, snap);
      if (u.applies && !u.applies(h)) continue;
      u.predict(new Cluster(recording(snap, reads), h, evidenceTime(snap), CHECKS));
    }
    expect(reads.size).toBeGreaterThan(0);
    expect(undeclared(reads, [...unitDecls(u), ...WHATIF_READS])).toEqual([]);
  });

  test('the fingerprint', () => {
    const reads: Reads = new Map();
    for (const f of ALL_SNAPSHOTS) fingerprint(recording(loadSnapshot(f), reads));
    expect(undeclared(reads, FINGERPRINT_NEEDS)).toEqual([]);
  });

  test('the map and its blast radii', () => {
    const reads: Reads = new Map();
    for (const f of SNAPSHOTS) {
      const snap = loadSnapshot(f);
      const now = evidenceTime(snap);
      const results = runChecks(CHECKS, snap);
      const rec = recording(snap, reads);
      blastRadii(rec, results, buildMap(rec, results, now, CHECKS), now);
      controlPlaneLayout(rec, now);
    }
    expect(undeclared(reads, [...CHECKS.flatMap(checkDecls), ...MAP_READS])).toEqual([]);
  });

  test('what-if as a whole: the cluster as it would be, every check and prediction on it', async () => {
    const reads: Reads = new Map();
    for (const w of WHATIF_CASES) {
      const snap = loadSnapshot(w.file);
      const upgrade = upgradeOf(w, snap);
      if (upgrade) await whatIfUpgrade(recording(snap, reads), upgrade, evidenceTime(snap), CHECKS);
      else await whatIf(recording(snap, reads), { nodes: w.nodes, remove: w.remove }, evidenceTime(snap), CHECKS);
    }
    expect(undeclared(reads, [...CHECKS.flatMap(checkDecls), ...ALL_UNITS.flatMap(unitDecls), ...WHATIF_READS, ...UPGRADE_READS])).toEqual(
      [],
    );
  });

  test('what-if -f, on the lists it reads (the objects it changes are read whole by their own GET)', () => {
    const reads: Reads = new Map();
    for (const c of readdirSync(CHANGE_DIR).filter((c) => existsSync(join(CHANGE_DIR, c, 'live.yaml')))) {
      const snap = recording(loadSnapshot(join(CHANGE_DIR, c, 'live.yaml')), reads);
      predictChange(
        readManifests([join(CHANGE_DIR, c, 'new.yaml')], () => ''),
        snap,
        new Date('2026-12-01T00:00:00Z'),
        {
          defaultNamespace: 'default',
        },
      );
    }
    expect(undeclared(reads, [...CHECKS.flatMap(checkDecls), ...ALL_UNITS.flatMap(unitDecls), ...CHANGE_READS])).toEqual([]);
  });
});

describe('the door keeps exactly what is declared', () => {
  const TYPES = [...new Map([...Object.values(R), CONFIGMAPS].map((n) => [gkKey(n.group, n.kind), n])).values()];
  const kept = (gk: string): string[] =>
    [...new Set([...Object.values(R), CONFIGMAPS].filter((n) => gkKey(n.group, n.kind) === gk).flatMap((n) => n.fields ?? []))].sort();
  /** A path covered by the tree: under a path in it (not merely on the way to one). */
  const under = (p: string, t: FieldTree): boolean => {
    const segs = parsePath(p);
    let at: FieldTree | undefined = t;
    for (const s of segs) {
      if (!at || at.all) break;
      at = at.children.get(s) ?? at.patterns.find((x) => x.match.test(s))?.tree;
    }
    return Boolean(at?.all);
  };

  test('every declared path is kept', () => {
    const missing: string[] = [];
    for (const d of EVERY) {
      const gk = gkKey(d.group, d.kind);
      const tree = fieldTree([...METADATA_FIELDS, ...(d.kind === '*' ? ANY_TYPE_FIELDS : kept(gk))]);
      for (const p of d.fields ?? []) if (!under(p, tree)) missing.push(`${gk} ${p}`);
    }
    expect([...new Set(missing)].sort()).toEqual([]);
  });

  test('every kept path is declared by some reader', () => {
    const { byType, any } = declared(EVERY);
    const extra: string[] = [];
    for (const n of TYPES) {
      const gk = gkKey(n.group, n.kind);
      for (const p of kept(gk)) if (!under(p, byType.get(gk) ?? any)) extra.push(`${gk} ${p}`);
    }
    for (const p of ANY_TYPE_FIELDS) if (!under(p, any)) extra.push(`* ${p}`);
    expect(extra).toEqual([]);
  });
});
