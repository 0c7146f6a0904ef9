// One update as the API server validates it: the live object (old), the object it would receive (new), what differs
// between them, and the cluster's minor version. A kind's rule (./core.ts, ./workloads.ts, ./others.ts) covers each
// difference it has a rule for — allowed, refused, or not visible — and a difference no rule covers leaves the update
// "not judged", never "accepted".
import type { KObject } from '../../model.js';
import { POD_FIXED } from '../../resources.js';
import { keeps, type FieldTree } from '../../snapshot/fields.js';
import { differences, pathText, under, type Difference, type Path } from './diff.js';

/** One refusal the API server would answer. */
export interface Refusal {
  /** The field path as the API server names it (spec.clusterIPs[0], spec, volumeMode…). */
  field: string;
  /** Where the manifest writes the change, for a line number (e.g. ['spec', 'volumeClaimTemplates']). */
  at: ReadonlyArray<string | number>;
  /** The error as the API server words it, after `<Kind> "<name>" is invalid: ` (or `is forbidden: `). */
  error: string;
  /** 422 Invalid (validation) or 403 Forbidden (admission). */
  status: 422 | 403;
  /** The value now and the value received, in words, and where they differ when that is deeper than the field. */
  live?: string;
  desired?: string;
  path?: string;
}

/** A field that could not be judged: its live value is not visible in full, or no rule covers it. */
export interface Unseen {
  at: ReadonlyArray<string | number>;
  why: string;
}

/** What else a rule reads. */
export interface UpdateContext {
  /** The API server's minor version (e.g. 36), when known: rules and words changed between releases. */
  minor?: number;
  /** A StorageClass by name: undefined when StorageClasses are not visible, null when there is none of that name. */
  storageClass(name: string): KObject | null | undefined;
  /** The IP families the cluster's Services are given (from the Services visible), when known. */
  serviceFamilies?: string[];
  /** The live object is a snapshot's copy that keeps only these fields (what the snapshot's door keeps of its type:
   *  src/resources.ts, CHANGE_FIELDS for what-if -f): a field outside them that the snapshot does not hold is not
   *  visible, not a change. Undefined: the object was read whole. */
  kept?: FieldTree;
}

/** The fields every kind may change: the object's labels, annotations and finalizers (ValidateObjectMetaUpdate). */
const META_MUTABLE = ['metadata.labels', 'metadata.annotations', 'metadata.finalizers'];
/** What the server sets itself, or what a PUT cannot change: never a difference of the change. */
const IGNORED = [
  'status',
  'metadata.resourceVersion',
  'metadata.generation',
  'metadata.uid',
  'metadata.creationTimestamp',
  'metadata.managedFields',
  'metadata.selfLink',
  'metadata.deletionTimestamp',
  'metadata.deletionGracePeriodSeconds',
  'metadata.ownerReferences',
  'apiVersion',
  'kind',
];

export class Update {
  readonly diffs: Difference[];
  private readonly covered = new Set<Difference>();
  readonly refusals: Refusal[] = [];
  readonly unseen: Unseen[] = [];
  constructor(
    readonly old: KObject,
    readonly next: KObject,
    readonly ctx: UpdateContext,
  ) {
    this.diffs = differences(old, next)
      .filter((d) => !IGNORED.some((p) => under(d.path, p)) && !d.path.includes(POD_FIXED))
      .map((d) => (ctx.kept && d.old === undefined && !keeps(ctx.kept, d.path) ? { ...d, masked: true } : d));
    this.allow(...META_MUTABLE);
  }

  get minor(): number | undefined {
    return this.ctx.minor;
  }
  /** The minor version is at least this (an unknown version counts as the newest). */
  since(minor: number): boolean {
    return this.ctx.minor === undefined || this.ctx.minor >= minor;
  }

  /** The differences under these patterns (whether covered or not). */
  changed(...patterns: string[]): Difference[] {
    return this.diffs.filter((d) => patterns.some((p) => under(d.path, p)));
  }
  /** Cover the differences under these patterns; returns those no rule had covered before. */
  cover(...patterns: string[]): Difference[] {
    const ds = this.changed(...patterns).filter((d) => !this.covered.has(d));
    for (const d of ds) this.covered.add(d);
    return ds;
  }
  /** These fields may change freely. */
  allow(...patterns: string[]): void {
    this.cover(...patterns);
  }
  /** Every difference not yet covered (after the rule ran: what no rule covers). */
  uncovered(): Difference[] {
    return this.diffs.filter((d) => !this.covered.has(d));
  }
  /** Cover every remaining difference (a rule that judges the whole of what is left, e.g. a Pod's spec). */
  coverRest(prefix = ''): Difference[] {
    const rest = this.uncovered().filter((d) => !prefix || under(d.path, prefix));
    for (const d of rest) this.covered.add(d);
    return rest;
  }
  refuse(r: Refusal): void {
    if (!this.refusals.some((x) => x.field === r.field && x.error === r.error)) this.refusals.push(r);
  }
  /** Differences whose live value is masked: whether they change is not known. */
  masked(ds: Difference[]): Difference[] {
    return ds.filter((d) => d.masked);
  }
  /** The known differences (masked ones reported as not visible). Returns the known ones. */
  known(ds: Difference[], what: string): Difference[] {
    for (const d of ds.filter((x) => x.masked))
      this.unseen.push({ at: d.path, why: `${pathText(d.path)}: the live value is masked (${what})` });
    return ds.filter((x) => !x.masked);
  }
  /** Refuse a field that may not change at all once set ("field is immutable"), if it changed. */
  immutable(pattern: string, field = pattern, error = 'field is immutable', kind: 'Invalid' | 'Forbidden' = 'Invalid'): boolean {
    const ds = this.known(this.cover(pattern), 'an immutable field');
    if (!ds.length) return false;
    const d = ds[0]!;
    this.refuse({
      field,
      at: d.path,
      error: kind === 'Invalid' ? `${field}: Invalid value: …: ${error}` : `${field}: Forbidden: ${error}`,
      status: 422,
      path: pathText(d.path),
      live: shortValue(d.old),
      desired: shortValue(d.new),
    });
    return true;
  }
}

export function shortValue(v: unknown): string {
  if (v === undefined) return '(not set)';
  const t = typeof v === 'string' ? v : JSON.stringify(v);
  return t.length > 120 ? `${t.slice(0, 117)}…` : t;
}

/** A kind's rule: covers what it judges, refuses what the server refuses. */
export type Rule = (u: Update) => void;

export type { Difference, Path };
