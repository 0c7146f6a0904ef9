// Text from the cluster (event messages, annotations, server errors, names in files) must never drive the terminal
// or hide from its reader: escape sequences could retitle the window, clear the screen, forge links (OSC 8) or hide
// text; zero-width and other invisible characters make different names print alike ("n1", "n1\u200b" and
// "n1\ufeff" all read n1); bidirectional overrides reorder what a reader sees ("Trojan Source"). One rule for every
// writer — terminal text, HTML and SVG, Mermaid, dot: such a character is shown as \xNN or \uNNNN text. Each writer
// says which plain whitespace it lets through. JSON and YAML stay exact.

/** What no reader may be shown raw: C0 and C1 controls and DEL; soft hyphen, combining grapheme joiner, Arabic letter
 *  mark, Hangul fillers, Khmer and Mongolian invisible vowels and selectors; zero-width spaces, joiners and marks
 *  (U+200B–U+200F); line and paragraph separators, bidirectional embeddings and overrides (U+2028–U+202E); word
 *  joiner, invisible operators and bidirectional isolates (U+2060–U+206F); variation selectors; the byte-order mark;
 *  interlinear annotation marks; the noncharacters U+FFFE and U+FFFF; tag characters (U+E0000–U+E007F); and a lone
 *  half of a surrogate pair (never valid text). */
export const UNSEEN =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\ufffe\uffff]|\udb40[\udc00-\udc7f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** One character as text: \n, \t and \r by name, others as \xNN, \uNNNN or \u{NNNNN}. */
const shown = (c: string): string => {
  if (c === '\n') return '\\n';
  if (c === '\t') return '\\t';
  if (c === '\r') return '\\r';
  const code = c.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
};

/** The text with every character of UNSEEN shown as text, but for the plain whitespace in `keep` (e.g. '\n'). */
export const visible = (s: string, keep = ''): string => s.replace(UNSEEN, (c) => (keep.includes(c) ? c : shown(c)));

/** Escape what no terminal may be sent raw. keepNewlines: let \n through (the caller indents each line). */
export function termSafe(s: string, keepNewlines = false): string {
  return visible(s, keepNewlines ? '\n' : '');
}

/** A value whose text is its own to escape (a Command of lib/shell.ts: its prose is text, its arguments are quoted
 *  for the shell, which already shows every such character as text): copied with its prose escaped. */
const ownText = (v: unknown): v is { withText(f: (s: string) => string): unknown } =>
  !!v && typeof v === 'object' && typeof (v as { withText?: unknown }).withText === 'function';

/** Deep copy of a value with every string made terminal-safe (for human renderers only). */
export function termSafeDeep<T>(v: T, keepNewlines = true): T {
  if (typeof v === 'string') return termSafe(v, keepNewlines) as T;
  if (ownText(v)) return v.withText((t) => termSafe(t, keepNewlines)) as T;
  if (Array.isArray(v)) return v.map((x) => termSafeDeep(x, keepNewlines)) as T;
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = termSafeDeep(x, keepNewlines);
    return out as T;
  }
  return v;
}

/** A document for a reader that is not a terminal but shows text (code scanning, a policy UI): every string with what
 *  no reader may be shown raw written as text, line breaks and tabs kept (SARIF, PolicyReport, OpenReports). */
export function shownDeep<T>(v: T): T {
  if (typeof v === 'string') return visible(v, '\n\t\r') as T;
  if (ownText(v)) return v.withText((t) => visible(t, '\n\t\r')) as T;
  if (Array.isArray(v)) return v.map(shownDeep) as T;
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = shownDeep(x);
    return out as T;
  }
  return v;
}

/** A document for a terminal: every string made safe and one line (a newline in a title or a name from the cluster is
 *  shown as \n and cannot start a look-alike `fix:` or `FIXED:` line), but for the `message` fields, whose lines the
 *  renderers indent one by one. */
export function oneLine<T>(v: T): T {
  if (typeof v === 'string') return termSafe(v) as T;
  if (ownText(v)) return v.withText((t) => termSafe(t)) as T;
  if (Array.isArray(v)) return v.map(oneLine) as T;
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = k === 'message' && typeof x === 'string' ? termSafe(x, true) : oneLine(x);
    return out as T;
  }
  return v;
}

// A lone UTF-16 surrogate (half of a pair: a name that was never valid text) has no UTF-8 form: written out it
// becomes U+FFFD, so two different names would print alike (two Prometheus series in one), and some encoders
// throw (encodeURIComponent: "URI malformed"). The machine formats write it as the text \udXXX instead: distinct
// surrogates stay distinct.
const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const hex4 = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** The string with every lone surrogate written as \uXXXX text: well-formed, so it has a UTF-8 form. */
export const wellFormed = (s: string): string => s.replace(LONE, hex4);

/** Deep copy of a value with every string well-formed (see wellFormed); other values as they are. */
export function wellFormedDeep<T>(v: T): T {
  if (typeof v === 'string') return wellFormed(v) as T;
  if (ownText(v)) return v.withText(wellFormed) as T;
  if (Array.isArray(v)) return v.map(wellFormedDeep) as T;
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[wellFormed(k)] = wellFormedDeep(x);
    return out as T;
  }
  return v;
}

/** Only characters XML 1.0 allows (#x9 #xA #xD #x20-#xD7FF #xE000-#xFFFD #x10000-#x10FFFF); others as \uXXXX text. */
export const xmlChars = (s: string): string => wellFormed(s).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, hex4);
