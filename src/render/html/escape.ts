// Every string from the cluster is untrusted. In a page it is escaped for where it lands: HTML text and (always
// double-quoted) attribute values get &, <, >, " and ' as character references - which also covers inline SVG,
// parsed by the same HTML parser; JSON inside <script type="application/json"> gets <, >, & and the JavaScript line
// separators as \u escapes, so no "</script>" or "<!--" can end or change the block. Control characters and the
// bidirectional overrides that could make a name read as another ("Trojan Source") are shown as \x.. / \u.... text.
import { createHash } from 'node:crypto';

const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
const shown = (c: string): string => {
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};
const REFS: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML (and inline SVG) text content and double-quoted attribute values. */
export const esc = (s: unknown): string =>
  String(s ?? '')
    .replace(INVISIBLE, shown)
    .replace(/[&<>"']/g, (c) => REFS[c]!);

/** A JSON value for a <script type="application/json"> block: parsed back by JSON.parse(textContent), exact. */
export const jsonBlock = (v: unknown): string =>
  JSON.stringify(v).replace(
    /[<>&\u2028\u2029\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/** The CSP source of an inline <script> or <style>: its exact text, hashed. */
export const cspHash = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** A tag builder's attribute list, every value escaped (undefined and false leave the attribute out). */
export const attrs = (a: Record<string, string | number | boolean | undefined>): string =>
  Object.entries(a)
    .filter(([, v]) => v !== undefined && v !== false)
    .map(([k, v]) => (v === true ? ` ${k}` : ` ${k}="${esc(v)}"`))
    .join('');
