// What-if -f against the API server's recorded answers (#45): each change of the difference test predicted the way a
// live run reads the cluster (the object by its own GET, scrubbed with digests) or from the cluster's snapshot
// (`kubectl arch snapshot`), and held to what the real kube-apiserver of that version answered. Shared by the offline
// replay (__tests__/difference.test.ts) and the e2e suite that records the answers (e2e/difference.e2e.test.ts).
import type { Manifest } from '../../src/change/manifests.js';
import { predictChange } from '../../src/change/predict.js';
import { gkKey, groupOf, type KObject } from '../../src/model.js';
import { R } from '../../src/resources.js';
import { ingest, scrubWhole } from '../../src/snapshot/scrub.js';
import { Snapshot } from '../../src/snapshot/snapshot.js';
import { applyChange, objectText, type Answer, type Change } from './difference.js';

export interface Fixture {
  /** The kube-apiserver the answers came from (e.g. v1.36.3). */
  version: string;
  seed: number;
  /** The objects as the API server held them (a GET each; managedFields and Secret data left out). */
  objects: KObject[];
  changes: Array<Change & { answer: Answer }>;
}

export type Verdict = { verdict: 'accept' | 'refuse' | 'not judged' | 'error'; fields: string[]; why?: string };

/** The server's answer as a verdict: accepted (200), refused (422 with the fields its causes name, 403 by admission). */
export function serverVerdict(a: Answer): Verdict {
  if (a.status === 200 || a.status === 201) return { verdict: 'accept', fields: [] };
  if (a.status === 422) return { verdict: 'refuse', fields: [...new Set(a.fields)].sort() };
  if (a.status === 403) return { verdict: 'refuse', fields: ['(admission)'] };
  return { verdict: 'error', fields: [], why: `${a.status} ${a.message ?? ''}` };
}

const CONTEXT = [R.storageclasses, R.services, R.namespaces, R.validatingWebhooks, R.mutatingWebhooks, R.endpoints, R.crds];
const EMPTY = [R.argoApplications, R.fluxKustomizations, R.fluxHelmReleases, R.helmcharts, R.addons, R.endpointslices];

/** A snapshot as a live run fills it for what-if -f: the context lists, and the object read by its own GET. */
function liveSnapshot(version: string, objects: KObject[]): Snapshot {
  const minor = /^v?1\.(\d+)/.exec(version)?.[1];
  const snap = new Snapshot({ serverVersion: { gitVersion: version, major: '1', minor }, captured: [] });
  for (const t of CONTEXT)
    snap.addList(
      t.group,
      t.kind,
      objects
        .filter((o) => o.kind === t.kind && groupOf(o.apiVersion) === t.group)
        .map((o) => ingest(JSON.parse(JSON.stringify(o)) as KObject)),
    );
  for (const t of EMPTY) snap.addList(t.group, t.kind, []);
  return snap;
}

function manifestOf(o: KObject): Manifest {
  return { object: o, file: 'change.yaml', line: 1, lineOf: () => 1 };
}

/** What what-if -f predicts for one change, from a live read (snap undefined) or a snapshot. */
export function predictOne(fx: Fixture, c: Change, snap: Snapshot, live: boolean): Verdict {
  const base = fx.objects.find((o) => objectText(o) === c.object);
  if (!base) return { verdict: 'error', fields: [], why: `no object ${c.object}` };
  const next = applyChange(base, c.ops);
  if (live) {
    snap.named.clear();
    const key = `${gkKey(groupOf(base.apiVersion), base.kind!)}\u0000${base.metadata.namespace ?? ''}\u0000${base.metadata.name}`;
    snap.named.set(
      key,
      base.kind === 'Secret' ? { unseen: 'Secrets are never read' } : { object: scrubWhole(JSON.parse(JSON.stringify(base)) as KObject) },
    );
  }
  const r = predictChange([manifestOf(next)], snap, new Date('2026-12-01T00:00:00Z'), {
    defaultNamespace: 'default',
    applyMode: 'replace',
    applyModeWins: true,
  });
  const o = r.objects[0];
  if (!o) return { verdict: 'error', fields: [], why: 'no outcome' };
  if (o.state === 'refused') {
    const admission = r.predictions.some((p) => p.code === 'ARCH-WI21');
    return {
      verdict: 'refuse',
      fields: admission && (o.fields ?? []).length === 1 ? ['(admission)'] : [...new Set(o.fields ?? [])].sort(),
    };
  }
  if (o.state === 'update' || o.state === 'unchanged') return { verdict: 'accept', fields: [] };
  if (o.state === 'create') return { verdict: 'error', fields: [], why: 'predicted a create' };
  return { verdict: 'not judged', fields: [], why: o.why };
}

/**
 * The same answer: the same verdict and, for a refusal, the field the API server names first among those predicted,
 * and no field predicted that the server does not name (it may name more: one change can break several rules).
 */
export function agrees(want: Verdict, got: Verdict, order: string[]): boolean {
  if (want.verdict !== got.verdict) return false;
  if (want.verdict !== 'refuse') return true;
  const first = want.fields[0] === '(admission)' ? '(admission)' : order[0];
  return got.fields.includes(first!) && got.fields.every((f) => want.fields.includes(f));
}

export interface Agreement {
  total: number;
  agree: number;
  rate: number;
  /** Changes of Secrets: never read, so never judged (by design, not a disagreement). */
  secrets: number;
  disagreements: string[];
}

/** Every change of a fixture predicted and compared with the server's answer: same verdict and the same fields. */
export function agreement(fx: Fixture, from: { snapshot?: Snapshot } = {}): Agreement {
  const live = !from.snapshot;
  const snap = from.snapshot ?? liveSnapshot(fx.version, fx.objects);
  let agree = 0;
  let total = 0;
  let secrets = 0;
  const disagreements: string[] = [];
  for (const c of fx.changes) {
    if (c.object.startsWith('Secret ')) {
      secrets++;
      continue;
    }
    total++;
    const want = serverVerdict(c.answer);
    const got = predictOne(fx, c, snap, live);
    if (agrees(want, got, c.answer.fields)) agree++;
    else
      disagreements.push(
        `${c.id} (${c.label}): server ${want.verdict}${want.fields.length ? ` [${want.fields.join(', ')}]` : ''}${want.why ? ` ${want.why}` : ''}${c.answer.message && want.verdict !== 'accept' ? ` — ${c.answer.message.slice(0, 300)}` : ''}; what-if -f ${got.verdict}${got.fields.length ? ` [${got.fields.join(', ')}]` : ''}${got.why ? ` (${got.why})` : ''}`,
      );
  }
  return { total, agree, rate: total ? agree / total : 0, secrets, disagreements };
}
