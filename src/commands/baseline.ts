// --baseline FILE: a previous `-o json` of the same command. Each finding of this run is marked new or unchanged by
// its fingerprint (code and objects: the same across runs, captures and machines), what the baseline had that is gone
// is listed as fixed, and --fail-on counts the new ones only — a pipeline fails on what a change adds, not on what
// the cluster already had. `kubectl arch diff OLD NEW` compares two such files the same way.
import { closeSync } from 'node:fs';
import { load } from 'js-yaml';
import { InputError } from '../errors.js';
import { openRegular, readFull } from '../lib/files.js';
import { fingerprintOf, type BaselineResult, type KnownFinding, type ObjectRef, type Severity } from '../model.js';
export type { BaselineResult, KnownFinding } from '../model.js';

const MAX_BYTES = 256 * 1024 * 1024;
const SEVERITIES = new Set(['critical', 'error', 'warning', 'info']);

/** A report file's findings, by context ('' for a one-context document). */
export type FindingsByContext = Map<string, KnownFinding[]>;

/** Reads a report file (-o json or yaml of doctor, orphans, quorum or what-if; a ReportList of several contexts). */
export function readReport(file: string, what = '--baseline'): FindingsByContext {
  const { fd, size } = openRegular(file, `${what} ${file}`, MAX_BYTES, 'a report written by -o json (or yaml)');
  let text: string;
  try {
    const buf = Buffer.alloc(size);
    text = buf.subarray(0, readFull(fd, buf, size)).toString('utf8');
  } finally {
    closeSync(fd);
  }
  let doc: unknown;
  try {
    doc = load(text, { json: true });
  } catch (e) {
    throw new InputError(`${what} ${file}: not JSON or YAML (${(e as Error).message.split('\n')[0]})`);
  }
  const d = doc as { apiVersion?: unknown; kind?: unknown; items?: unknown[] };
  if (!d || typeof d !== 'object' || d.apiVersion !== 'kubectl-arch/v1' || typeof d.kind !== 'string')
    throw new InputError(`${what} ${file}: not a kubectl-arch report (apiVersion kubectl-arch/v1)`, 'write one with -o json');
  const out: FindingsByContext = new Map();
  if (d.kind === 'ReportList')
    for (const item of Array.isArray(d.items) ? d.items : []) {
      const ctx = (item as { source?: { context?: unknown } })?.source?.context;
      out.set(typeof ctx === 'string' ? ctx : '', findingsIn(item));
    }
  else out.set('', findingsIn(doc));
  return out;
}

/** Every finding (or what-if prediction) a document reports — not the ones accepted as risks, not a baseline's fixed. */
function findingsIn(doc: unknown): KnownFinding[] {
  const out: KnownFinding[] = [];
  const walk = (v: unknown, key: string): void => {
    if (key === 'suppressed' || key === 'baseline') return;
    if (Array.isArray(v)) return v.forEach((x) => walk(x, key));
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (typeof o.code === 'string' && /^ARCH-[A-Z]+\d+$/.test(o.code) && Array.isArray(o.objects) && SEVERITIES.has(String(o.severity))) {
      const objects = (o.objects as ObjectRef[]).filter((x) => x && typeof x.kind === 'string' && typeof x.name === 'string');
      out.push({
        code: o.code,
        severity: o.severity as Severity,
        title: typeof o.title === 'string' ? o.title : o.code,
        objects,
        fingerprint: typeof o.fingerprint === 'string' ? o.fingerprint : fingerprintOf({ code: o.code, objects }),
      });
      return;
    }
    for (const [k, x] of Object.entries(o)) walk(x, k);
  };
  walk(doc, '');
  return out;
}

/** Marks each finding new or unchanged against the baseline's findings for this context; what is gone is fixed. */
export function markAgainst(
  findings: Array<{ code: string; objects: ObjectRef[]; fingerprint?: string; baseline?: 'new' | 'unchanged' }>,
  base: KnownFinding[],
  file: string,
): BaselineResult {
  const before = new Set(base.map((b) => b.fingerprint));
  const now = new Set<string>();
  let added = 0;
  for (const f of findings) {
    const fp = (f.fingerprint ??= fingerprintOf(f));
    now.add(fp);
    f.baseline = before.has(fp) ? 'unchanged' : 'new';
    if (f.baseline === 'new') added++;
  }
  return { file, new: added, unchanged: findings.length - added, fixed: base.filter((b) => !now.has(b.fingerprint)) };
}

/** The baseline findings for one context of this run: by its name, or the file's only one. */
export function baselineFor(base: FindingsByContext, context: string): KnownFinding[] {
  return base.get(context) ?? (base.size === 1 ? [...base.values()][0]! : []);
}
