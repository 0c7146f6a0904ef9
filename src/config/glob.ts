// Globs of accepted-risk rules (context, cluster, namespace, name): `*` and `?` only.

/** A rule's glob: `test(value)` is true when the whole value matches. */
export interface Glob {
  test(value: string): boolean;
}

const globCache = new Map<string, Glob>();
/** `*` any run of characters (line breaks too), `?` one character (a code point); everything else literal; the
 *  whole string must match. */
export function glob(pattern: string): Glob {
  let g = globCache.get(pattern);
  if (!g) {
    const p = Array.from(pattern);
    g = { test: (value) => globMatch(p, Array.from(value)) };
    globCache.set(pattern, g);
  }
  return g;
}

/**
 * The classic two-pointer wildcard matcher, not a regular expression: a RegExp of `.*` runs backtracks
 * exponentially (`****************#` against a long context name ran for minutes and, holding the event loop,
 * ignored SIGTERM). Here a mismatch only ever goes back to the latest `*`, which is enough for `*` and `?` alone:
 * at most len(pattern) x len(value) steps, no allocation while matching.
 */
function globMatch(p: readonly string[], s: readonly string[]): boolean {
  let i = 0; // in s
  let j = 0; // in p
  let star = -1; // the latest * seen in p
  let from = 0; // where in s that * started matching
  while (i < s.length) {
    if (j < p.length && p[j] !== '*' && (p[j] === '?' || p[j] === s[i])) {
      i++;
      j++;
    } else if (j < p.length && p[j] === '*') {
      star = j++;
      from = i;
    } else if (star >= 0) {
      // let the latest * take one character more, and try the rest of the pattern again from there
      j = star + 1;
      i = ++from;
    } else return false;
  }
  while (j < p.length && p[j] === '*') j++;
  return j === p.length;
}
