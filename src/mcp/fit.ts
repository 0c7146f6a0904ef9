// Results an assistant can take in: the JSON of a tool's answer is cut to a stated size (--max-result-bytes), never
// silently. Counts stay whole (a report's summary is of the whole run). Detail goes before findings: each finding
// (or what-if prediction) first loses its evidence, then its fix, why and message, the least severe first, keeping
// its code, severity, title and objects; only then do whole findings go, the least severe first, and then the
// largest lists. The cut says which fields went from how many, which lists lost how many items (and which finding
// codes went with them), and what to ask for instead: doctor's checks and codes, orphans' owners, one node at a time.
// Without a filter and under the size, the answer is exactly the CLI's -o json.

export interface Cut {
  /** Where the list is, e.g. checks[5].findings. */
  path: string;
  shown: number;
  total: number;
  /** Finding codes of the items left out, when they are findings. */
  codes?: Record<string, number>;
  /** Ids of the items left out, when they have one (checks). */
  ids?: string[];
}

export interface Truncated {
  limitBytes: number;
  /** The size of the whole answer. */
  fullBytes: number;
  /** Detail taken from findings and predictions (which stay): how many lost each field. */
  detail?: Partial<Record<(typeof DETAIL)[number], number>>;
  cut: Cut[];
  /** Cuts not listed (more than MAX_CUTS). */
  moreCuts?: number;
  hint: string;
}

const MAX_CUTS = 50;
/** What a finding can do without, in the order it goes: it keeps its code, severity, title, objects and fingerprint. */
const DETAIL = ['evidence', 'fix', 'why', 'message'] as const;
const FINDING_LISTS = /(^|\.)(findings|predictions)$/;
const bytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v) ?? '');

interface Found {
  path: string;
  arr: unknown[];
  size: number;
}

function arrays(v: unknown, path: string, out: Found[]): void {
  if (Array.isArray(v)) {
    out.push({ path, arr: v, size: bytes(v) });
    v.forEach((x, i) => arrays(x, `${path}[${i}]`, out));
  } else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) arrays(x, path ? `${path}.${k}` : k, out);
  }
}

const within = (inner: string, outer: string): boolean =>
  inner.length > outer.length && inner.startsWith(outer) && (inner[outer.length] === '[' || inner[outer.length] === '.');

/**
 * The list to cut: from the largest, down into a list inside it while that one holds more than half of its bytes,
 * so that a report loses findings rather than whole checks, and an orphan group objects rather than groups.
 */
function choose(all: Found[]): Found | undefined {
  const live = all.filter((f) => f.arr.length > 0);
  let cur = live.reduce<Found | undefined>((a, b) => (!a || b.size > a.size ? b : a), undefined);
  for (;;) {
    if (!cur) return undefined;
    const c = cur;
    const next = live.filter((f) => within(f.path, c.path)).reduce<Found | undefined>((a, b) => (!a || b.size > a.size ? b : a), undefined);
    if (!next || next.size * 2 <= cur.size) return cur;
    cur = next;
  }
}

function resolves(root: unknown, path: string): boolean {
  let v: unknown = root;
  for (const part of path.match(/[^.[\]]+/g) ?? []) {
    if (v === null || typeof v !== 'object') return false;
    v = (v as Record<string, unknown>)[part];
  }
  return Array.isArray(v);
}

const RANK: Record<string, number> = { info: 0, warning: 1, error: 2, critical: 3 };

/** The cut of one list so far (made on first use), noting the codes and ids of the items it leaves out. */
function cutOf(cuts: Map<string, Cut>, f: Found): Cut {
  let c = cuts.get(f.path);
  if (!c) {
    c = { path: f.path, shown: f.arr.length, total: f.arr.length };
    cuts.set(f.path, c);
  }
  return c;
}

function note(cut: Cut, item: unknown): void {
  const o = item && typeof item === 'object' ? (item as { code?: unknown; id?: unknown; findings?: unknown }) : {};
  if (typeof o.code === 'string') (cut.codes ??= {})[o.code] = (cut.codes[o.code] ?? 0) + 1;
  else if (typeof o.id === 'string') {
    (cut.ids ??= []).unshift(o.id);
    // a whole check left out: its findings' codes are named too, so every code that went is reachable by filter
    for (const f of Array.isArray(o.findings) ? o.findings : [])
      if (typeof (f as { code?: unknown })?.code === 'string')
        (cut.codes ??= {})[(f as { code: string }).code] = (cut.codes[(f as { code: string }).code] ?? 0) + 1;
  }
}

/** The value if its JSON fits in limit bytes; else a copy with lists cut from their ends and a `truncated` note.
 *  Findings go first, the least severe first (a report keeps its checks and its worst findings); then, from the
 *  largest list down, whatever is left. */
export function fit(value: Record<string, unknown>, limit: number, hint: string): Record<string, unknown> {
  const fullBytes = bytes(value);
  if (fullBytes <= limit) return value;
  const v = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  // room for the note itself
  const budget = limit - Math.min(4096, Math.floor(limit / 4));
  const cuts = new Map<string, Cut>();
  let size = fullBytes;
  // findings, wherever they are (a Report's checks, each Report of a ReportList, a Quorum, what-if's predictions),
  // least severe first
  const all: Found[] = [];
  arrays(v, '', all);
  const pool = all
    .filter((f) => FINDING_LISTS.test(f.path))
    .flatMap((f) => f.arr.map((item, i) => ({ f, item, i, rank: RANK[String((item as { severity?: unknown })?.severity)] ?? 0 })))
    .sort((a, b) => a.rank - b.rank || b.i - a.i);
  // 1. their detail, field by field
  const detail: NonNullable<Truncated['detail']> = {};
  for (const field of DETAIL)
    for (const p of pool) {
      if (size <= budget) break;
      const o = p.item as Record<string, unknown> | null;
      if (!o || typeof o !== 'object' || !(field in o)) continue;
      const before = bytes(o);
      delete o[field];
      size -= before - bytes(o);
      detail[field] = (detail[field] ?? 0) + 1;
    }
  // 2. then whole findings
  const gone = new Set<unknown>();
  for (const p of pool) {
    if (size <= budget) break;
    gone.add(p.item);
    note(cutOf(cuts, p.f), p.item);
    size -= bytes(p.item) + 1;
  }
  for (const f of all) {
    if (!cuts.has(f.path)) continue;
    const keep = f.arr.filter((x) => !gone.has(x));
    f.arr.splice(0, f.arr.length, ...keep);
    cuts.get(f.path)!.shown = keep.length;
  }
  size = bytes(v);
  // 3. then the largest lists
  for (let guard = 0; size > budget && guard < 10_000; guard++) {
    const found: Found[] = [];
    arrays(v, '', found);
    const f = choose(found);
    if (!f) break;
    const cut = cutOf(cuts, f);
    let freed = 0;
    while (f.arr.length > 0 && freed < size - budget) {
      const item = f.arr.pop();
      freed += bytes(item) + 1;
      note(cut, item);
    }
    cut.shown = f.arr.length;
    size = bytes(v);
  }
  // a list cut inside an item that was then cut away is counted with that item: its codes go to the cut of the list
  // that held the item, so every code that went stays named
  const all2 = [...cuts.values()];
  for (const c of all2.filter((x) => !resolves(v, x.path) && x.codes)) {
    const outer = all2.filter((o) => resolves(v, o.path) && within(c.path, o.path)).sort((a, b) => b.path.length - a.path.length)[0];
    if (outer) for (const [code, n] of Object.entries(c.codes!)) (outer.codes ??= {})[code] = (outer.codes[code] ?? 0) + n;
  }
  const list = all2.filter((c) => resolves(v, c.path));
  const truncated: Truncated = {
    limitBytes: limit,
    fullBytes,
    ...(Object.keys(detail).length ? { detail } : {}),
    cut: list.slice(0, MAX_CUTS),
    ...(list.length > MAX_CUTS ? { moreCuts: list.length - MAX_CUTS } : {}),
    hint,
  };
  const out = { ...v, truncated };
  if (bytes(out) <= limit) return out;
  // what is left is not lists (one enormous string): only the kind and the note
  return {
    apiVersion: v.apiVersion,
    kind: v.kind,
    truncated: { ...truncated, cut: [], hint: [hint, 'the answer holds no list to cut'].filter(Boolean).join('; ') },
  };
}

type Obj = Record<string, unknown>;
const objs = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

/** A doctor Report (or each Report of a ReportList) restricted to these checks and finding codes; the summary stays
 *  the whole run's, and `filter` says what was asked. */
export function filterDoctor(value: Obj, checks?: readonly string[], codes?: readonly string[]): Obj {
  if (!checks?.length && !codes?.length) return value;
  const ids = checks?.length ? new Set(checks) : undefined;
  const cs = codes?.length ? new Set(codes.map((c) => c.toUpperCase())) : undefined;
  const one = (r: Obj): Obj => {
    let list = objs(r.checks).filter((c) => !ids || ids.has(String(c.id)));
    if (cs)
      list = list
        .map((c) => ({ ...c, findings: objs(c.findings).filter((f) => cs.has(String(f.code))) }))
        .filter((c) => c.findings.length > 0);
    const suppressed = objs(r.suppressed).filter((f) => (!ids || ids.has(String(f.checkId))) && (!cs || cs.has(String(f.code))));
    return { ...r, checks: list, ...(r.suppressed !== undefined ? { suppressed } : {}) };
  };
  const filter = { ...(checks?.length ? { checks } : {}), ...(codes?.length ? { codes } : {}), summary: 'of the whole run' };
  if (value.kind === 'ReportList') return { ...value, items: objs(value.items).map(one), filter };
  return { ...one(value), filter };
}

/** An OrphanReport (or each of a ReportList) restricted to these former owners (a name, or namespace/name). */
export function filterOrphans(value: Obj, owners?: readonly string[]): Obj {
  if (!owners?.length) return value;
  const want = new Set(owners);
  const is = (o: unknown): boolean => {
    const r = (o ?? {}) as Obj;
    return want.has(String(r.name)) || (r.namespace !== undefined && want.has(`${String(r.namespace)}/${String(r.name)}`));
  };
  // owners named in text: "Application argocd/blog"
  const named = (t: unknown): boolean => {
    const rest = String(t).replace(/^\S+ /, '');
    return want.has(String(t)) || want.has(rest) || want.has(rest.slice(rest.lastIndexOf('/') + 1));
  };
  const one = (r: Obj): Obj => ({
    ...r,
    groups: objs(r.groups).filter((g) => is(g.owner)),
    elsewhere: objs(r.elsewhere).filter((g) => (Array.isArray(g.owners) ? g.owners : []).some(named)),
    deleting: objs(r.deleting).filter((d) => is(d.app)),
    risks: objs(r.risks).filter((d) => is(d.app)),
    kept: objs(r.kept).filter((k) => named(k.owner)),
  });
  if (value.kind === 'ReportList') return { ...value, items: objs(value.items).map(one), filter: { owners } };
  return { ...one(value), filter: { owners } };
}
