// Text from the cluster (event messages, annotations, server errors, names in files) must never
// drive the terminal: escape sequences could retitle the window, clear the screen, forge links
// (OSC 8) or hide text. Human output escapes every control character it did not write itself;
// JSON and YAML stay exact.

// C0 controls except \n (kept or escaped by the caller's choice), DEL, C1 controls, and the
// Unicode bidirectional overrides that can reorder what a reader sees ("Trojan Source").
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_WITH_NL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const escapeChar = (c: string): string => {
  const code = c.charCodeAt(0);
  if (c === '\n') return '\\n';
  if (c === '\t') return '\\t';
  if (c === '\r') return '\\r';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** Escape control characters. keepNewlines: let \n through (the caller indents each line). */
export function termSafe(s: string, keepNewlines = false): string {
  return s.replace(keepNewlines ? UNSAFE : UNSAFE_WITH_NL, escapeChar);
}

/** Deep copy of a value with every string made terminal-safe (for human renderers only). */
export function termSafeDeep<T>(v: T, keepNewlines = true): T {
  if (typeof v === 'string') return termSafe(v, keepNewlines) as T;
  if (Array.isArray(v)) return v.map((x) => termSafeDeep(x, keepNewlines)) as T;
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = termSafeDeep(x, keepNewlines);
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
