// Recognise the API server's "this field can never change" rejections and pull them apart, whole.
// Wordings (kubernetes pkg/apis/core/validation and pkg/apis/apps/validation; proven against a live
// kube-apiserver by the e2e suite; older forms from real threads in its cases/):
//   Service "kube-dns" is invalid: spec.clusterIPs[0]: Invalid value: ["169.254.20.10"]: may not change once set
//   Service "x" is invalid: spec.clusterIPs[0]: Invalid value: []string(nil): primary clusterIP can not be unset
//   Deployment.apps "web" is invalid: spec.selector: Invalid value: v1.LabelSelector{...}: field is immutable
//   StatefulSet.apps "db" is invalid: spec: Forbidden: updates to statefulset spec for fields other than ... are forbidden
//   PersistentVolumeClaim "data" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests ...
//     followed by a Go diff: core.PersistentVolumeClaimSpec{ ... - VolumeName: "pvc-…", + VolumeName: "", ... }
//   Job.batch "migrate" is invalid: spec.template: Invalid value: core.PodTemplateSpec{...}: field is immutable
// Several rejected objects in one message are joined with ", " or a bare "," (Argo CD), or " && " (Helm);
// Flux shortens to `Job/ns/name dry-run failed (Invalid): spec.template: field is immutable`.
// Flux's own "immutable field detected" is NOT a rejection text (it also follows plain validation errors).
import { goLiteralText } from './golit.js';
import { IMMUTABLE_WORDS } from './immutable.js';

/** The API server's words for "can never change", from the one table of them (./immutable.ts). */
const DETAIL = IMMUTABLE_WORDS.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
export const IMMUTABLE_RE = new RegExp(DETAIL, 'i');

export interface Change {
  field: string;
  /** The live value (the diff's "-" side), when shown. */
  old?: string;
  /** The value that was sent (the diff's "+" side). */
  new?: string;
}

export interface Rejection {
  kind?: string;
  name?: string;
  namespace?: string;
  field?: string;
  /** The rejected value, as plain text (Go literals rendered as YAML). */
  value?: string;
  /** The API server's reason, e.g. "may not change once set". */
  detail: string;
  /** Field-level changes from a Go diff (PVC and some others), old → new. */
  changes?: Change[];
}

export const isImmutableRejection = (msg: string | undefined): boolean => typeof msg === 'string' && IMMUTABLE_RE.test(msg);

/** `Kind.group "name" is invalid: ` — where each rejected object's part of a message starts. */
const OBJECT_RE = /([A-Z][A-Za-z0-9]+)(?:\.[a-z0-9][a-z0-9.-]*)? "([^"]+)" is invalid: /g;
/** Flux's short form: `Kind/namespace/name dry-run failed (Invalid): <cause>` and variants. */
const FLUX_RE =
  /([A-Z][A-Za-z0-9]+)\/([a-z0-9][a-z0-9.-]*)\/([a-z0-9][a-z0-9.-]*) dry-run failed(?: \(Invalid\):|, reason: Invalid(?:, error)?:)\s*/g;
/** Helm: `cannot patch "loki" with kind StatefulSet: StatefulSet.apps is invalid: …` (the name may be missing after it). */
const HELM_RE =
  /cannot (?:patch|replace|create) "([^"]+)" with kind ([A-Z][A-Za-z0-9]+): (?:[A-Z][A-Za-z0-9]+(?:\.[a-z0-9][a-z0-9.-]*)?(?: "[^"]+")? is invalid: )?/g;
/** Namespace named before the object: "failed to update kube-system/kube-dns", "patching ns/name". */
const NS_HINT = /(?:update|apply|patch|patching|create|replace|replacing)\s+([a-z0-9-]+)\/([a-z0-9.-]+)/gi;

interface Segment {
  kind?: string;
  name?: string;
  namespace?: string;
  text: string;
}

function segments(msg: string): Segment[] {
  const starts: Array<{ at: number; end: number; kind: string; name: string; namespace?: string }> = [];
  for (const re of [OBJECT_RE, FLUX_RE, HELM_RE]) {
    re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(msg))) {
      if (re === FLUX_RE) starts.push({ at: m.index, end: m.index + m[0].length, kind: m[1]!, namespace: m[2], name: m[3]! });
      else if (re === HELM_RE) starts.push({ at: m.index, end: m.index + m[0].length, kind: m[2]!, name: m[1]! });
      else starts.push({ at: m.index, end: m.index + m[0].length, kind: m[1]!, name: m[2]! });
      if (m[0].length === 0) re.lastIndex++;
    }
  }
  starts.sort((a, b) => a.at - b.at);
  // a Flux prefix is usually followed by the full API error for the same object: merge them
  const merged: typeof starts = [];
  for (const s of starts) {
    const prev = merged[merged.length - 1];
    if (
      prev &&
      prev.name === s.name &&
      prev.kind === s.kind &&
      s.at - prev.end < 200 &&
      !/ is invalid: /.test(msg.slice(prev.end, Math.max(prev.end, s.at)))
    ) {
      prev.end = Math.max(prev.end, s.end);
      continue;
    }
    merged.push({ ...s });
  }
  if (merged.length === 0) return [{ text: msg }];
  return merged.map((s, i) => ({
    kind: s.kind,
    name: s.name,
    namespace: s.namespace,
    text: msg.slice(s.end, merged[i + 1]?.at ?? msg.length),
  }));
}

/** Split a segment's causes: `[a: …, b: …]` or a single cause; field paths start each cause. */
const CAUSE_RE = new RegExp(
  // field path, then either "Invalid value: <v>: <detail>", "Forbidden: <detail>" or directly "<detail>" (Flux short form)
  `([a-zA-Z][\\w.\\[\\]-]*): (?:Invalid value: ([\\s\\S]*?): ((?:${DETAIL}))|Forbidden: ((?:spec )?(?:${DETAIL})[\\s\\S]*?(?:are forbidden|bound claims|$))|((?:${DETAIL})))`,
  'gi',
);

/** The diff newer API servers append (JSON-like lines: `- "StorageClassName": "fast",` / `+ "StorageClassName": null,`). */
function jsonDiff(text: string): Change[] {
  const byField = new Map<string, Change>();
  for (const m of text.matchAll(/^\s*([-+])\s+"(\w+)":\s*(.*?),?\s*(?:\(retried \d+ times\)\.?)?\s*$/gm)) {
    const field = m[2]!.charAt(0).toLowerCase() + m[2]!.slice(1);
    const c = byField.get(field) ?? { field };
    const raw = m[3]!.trim();
    let v: string | undefined;
    try {
      const j: unknown = JSON.parse(raw);
      v = j === null ? undefined : typeof j === 'string' ? j : goLiteralText(raw);
    } catch {
      v = goLiteralText(raw);
    }
    if (m[1] === '-') c.old = v;
    else c.new = v;
    byField.set(field, c);
  }
  return [...byField.values()];
}

/** The Go diff the API server appends to some rejections: `- Field: old, + Field: new` items (or, from newer API
 *  servers, JSON-like lines). */
export function goDiff(text: string): Change[] {
  if (/^\s*[-+]\s+"\w+":/m.test(text)) return jsonDiff(text);
  const open = text.indexOf('{');
  if (open < 0 || !/(^|\s)[-+]\s+\w+:/.test(text)) return [];
  // split the body on commas at depth 0 (outside quotes and nested braces)
  const items: string[] = [];
  let depth = 0;
  let cur = '';
  let quote = false;
  for (let i = open + 1; i < text.length && i < open + 20_000; i++) {
    const c = text[i]!;
    if (quote) {
      cur += c;
      if (c === '\\') cur += text[++i] ?? '';
      else if (c === '"') quote = false;
      continue;
    }
    if (c === '"') {
      quote = true;
      cur += c;
      continue;
    }
    if (c === '{' || c === '(' || c === '[') depth++;
    if (c === '}' || c === ')' || c === ']') {
      if (depth === 0) break;
      depth--;
    }
    if ((c === ',' || c === '\n') && depth === 0) {
      items.push(cur);
      cur = '';
      continue;
    }
    cur += c;
  }
  items.push(cur);
  const byField = new Map<string, Change>();
  for (const raw of items) {
    const m = /^\s*([-+])\s+(\w+):\s*([\s\S]*?)\s*$/.exec(raw);
    if (!m) continue;
    const field = m[2]!.charAt(0).toLowerCase() + m[2]!.slice(1);
    const c = byField.get(field) ?? { field };
    const v = goLiteralText(m[3]!);
    if (m[1] === '-') c.old = v;
    else c.new = v;
    byField.set(field, c);
  }
  return [...byField.values()];
}

/** Pull every rejected object, field, value, reason and changed field out of a message. Never throws. */
export function parseRejections(msg: string): Rejection[] {
  if (typeof msg !== 'string' || !isImmutableRejection(msg)) return [];
  const hints: Array<[string, string]> = [];
  NS_HINT.lastIndex = 0;
  let h: RegExpExecArray | null;
  while ((h = NS_HINT.exec(msg))) hints.push([h[1]!, h[2]!]);
  const out: Rejection[] = [];
  for (const seg of segments(msg)) {
    if (!isImmutableRejection(seg.text)) continue;
    const namespace = seg.namespace ?? hints.find(([, n]) => n === seg.name)?.[0];
    CAUSE_RE.lastIndex = 0;
    let m: RegExpExecArray | null;
    let found = false;
    while ((m = CAUSE_RE.exec(seg.text))) {
      found = true;
      const detail = (m[3] ?? m[4] ?? m[5] ?? '').trim();
      const r: Rejection = { kind: seg.kind, name: seg.name, namespace, field: m[1], detail };
      if (m[2] !== undefined) r.value = goLiteralText(m[2]);
      if (m[4] !== undefined) {
        // a Go diff follows the Forbidden detail in the same segment
        const changes = goDiff(seg.text.slice(m.index + m[0].length));
        if (changes.length) r.changes = changes;
      }
      out.push(r);
      if (m[0].length === 0) CAUSE_RE.lastIndex++;
    }
    if (!found) out.push({ kind: seg.kind, name: seg.name, namespace, detail: (IMMUTABLE_RE.exec(seg.text)?.[0] ?? '').trim() });
  }
  return out;
}
