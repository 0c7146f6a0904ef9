// Every string from the cluster is untrusted. In a page it is escaped for where it lands: HTML text and (always
// double-quoted) attribute values get &, <, >, " and ' as character references - which also covers inline SVG,
// parsed by the same HTML parser; JSON inside <script type="application/json"> gets <, >, & and the JavaScript line
// separators as \u escapes, so no "</script>" or "<!--" can end or change the block. Control characters and the
// bidirectional overrides that could make a name read as another ("Trojan Source") are shown as \x.. / \u.... text.
import { createHash } from 'node:crypto';
import { UNSEEN, visible } from '../../lib/safe.js';

const REFS: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML (and inline SVG) text content and double-quoted attribute values. */
export const esc = (s: unknown): string =>
  // the one rule of every writer (lib/safe.ts); HTML's own whitespace stays
  visible(String(s ?? ''), '\t\n\r').replace(/[&<>"']/g, (c) => REFS[c]!);

/** A JSON value for a <script type="application/json"> block: parsed back by JSON.parse(textContent), exact. */
const IN_SCRIPT = new RegExp(`[<>&]|${UNSEEN.source}`, 'g');
export const jsonBlock = (v: unknown): string =>
  JSON.stringify(v).replace(IN_SCRIPT, (c) =>
    c
      .split('')
      .map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .join(''),
  );

/** The CSP source of an inline <script> or <style>: its exact text, hashed. */
export const cspHash = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** A tag builder's attribute list, every value escaped (undefined and false leave the attribute out). */
export const attrs = (a: Record<string, string | number | boolean | undefined>): string =>
  Object.entries(a)
    .filter(([, v]) => v !== undefined && v !== false)
    .map(([k, v]) => (v === true ? ` ${k}` : ` ${k}="${esc(v)}"`))
    .join('');
