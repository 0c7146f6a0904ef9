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
