// Text that fits the terminal (#37): prose wrapped to a width in terminal cells, each continuation line indented like
// the text it continues (a hanging indent: under a finding's message, under the map's value column). Without a width
// (a pipe or a file, the MCP server) nothing changes: the text is returned as it was given.
//
// What is never broken:
// - the hanging indent: every continuation line starts at it, whatever the names in the text. A word too long for
//   the room left at the indent (a long object name at 60 columns) is broken after one of its own separators (`/`,
//   `-`, `.`, `,`, `|`, `:`, `=`), its rest continuing at the indent; one with no separator that fits runs past the
//   width (the terminal shows it on two rows, a copy takes it whole). Lines otherwise break only at spaces;
// - a command in prose: a backtick-quoted span, and `kubectl …` up to the end of its clause (`;`, `,`, `)`, and a
//   word ending in `:` or `.` end it, `(`, `#` or `—` after it too) — it moves to a line of its own rather than be cut;
// - a command line (a fix step's Command, lib/shell.ts): it goes on a line of its own, whole (stepLines), past the width
//   if it must.
// Widths are measured with string-width: escape sequences take no cell, CJK and most emoji two. Styles (SGR) open at
// a break are closed at the end of the line and opened again after the indent, so no indent is underlined or dimmed.
// Text from the cluster arrives escaped (lib/safe.ts): wrapping splits it at spaces or after a separator, it never
// changes a character.
import stringWidth from 'string-width';
import type { Step } from './shell.js';

const SGR = /\x1b\[[0-9;]*m/g;
const SGR_AT = /\x1b\[[0-9;]*m/y;
const ASCII = /^[\x20-\x7e]*$/;

/** Terminal cells a string takes: escape sequences none, wide characters (CJK, most emoji) two. Printable ASCII is
 *  one cell a character: counted here, without string-width's Unicode tables (most of what is measured). */
export const cells = (s: string): number => {
  const plain = s.replace(SGR, '');
  return ASCII.test(plain) ? plain.length : stringWidth(s);
};

/** Continuation lines keep at least this many cells for their text: a deeper hanging indent is pulled left. */
const MIN_TEXT = 20;

const RESET = '\x1b[0m';

/** The SGR sequences still in force after `s`, given those in force before it. */
function styleAfter(active: string[], s: string): string[] {
  let out = active;
  for (const m of s.match(SGR) ?? []) out = m === RESET || m === '\x1b[m' ? [] : [...out, m];
  return out;
}

interface Atom {
  text: string;
  /** The spaces after it (kept when the next atom stays on the line). */
  sep: string;
  width: number;
  /** A command or a backtick span: never broken. */
  whole?: boolean;
}

/** Where a word too long for its line may break: after a space (which then goes), or after a separator — between a
 *  namespace and a name, list items, a key and its value (strong) before inside a name (weak). */
const STRONG = /[/|,:=]/;
const WEAK = /[-.]/;

/**
 * A word too long for `room` cells, as the longest head that fits and the rest: broken at a space, else after a
 * strong separator that fills at least half the room, else after any separator; when none fits, at the first one
 * (the least that overflows); null when it has none.
 */
function breakWord(text: string, room: number): [string, string] | null {
  const points: Array<{ at: number; width: number; rank: number }> = [];
  let used = 0;
  for (let i = 0; i < text.length;) {
    SGR_AT.lastIndex = i;
    const sgr = SGR_AT.exec(text);
    if (sgr) {
      i += sgr[0].length;
      continue;
    }
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    i += ch.length;
    used += cells(ch);
    if (i >= text.length) break;
    if (ch === ' ') points.push({ at: i, width: used - 1, rank: 2 });
    else if (STRONG.test(ch)) points.push({ at: i, width: used, rank: 1 });
    else if (WEAK.test(ch)) points.push({ at: i, width: used, rank: 0 });
  }
  const fit = points.filter((p) => p.width <= room);
  const last = (rank: number) => fit.filter((p) => p.rank === rank).at(-1);
  const strong = last(1);
  const p =
    last(2) ?? (strong && strong.width * 2 >= room ? strong : undefined) ?? fit.at(-1) ?? [...points].sort((a, b) => a.width - b.width)[0];
  if (!p) return null;
  return [text.slice(0, p.at).trimEnd(), text.slice(p.at).trimStart()];
}

const COMMAND_START = /^[("'`]?kubectl$/;
// a word ending a sentence or introducing what follows (`kubectl arch orphans there too: …`) ends it too
const COMMAND_END = /[;,):.]$/;
const AFTER_COMMAND = /^(?:\(|#|\u2014$)/;

/** The text as atoms: words, with a backtick-quoted span or a `kubectl …` command kept as one. */
function atoms(text: string): Atom[] {
  const parts = text.split(/( +)/);
  const words: Array<{ text: string; sep: string }> = [];
  for (let i = 0; i < parts.length; i += 2) words.push({ text: parts[i]!, sep: parts[i + 1] ?? '' });
  const out: Array<{ text: string; sep: string; whole?: boolean }> = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    let text = w.text;
    let sep = w.sep;
    const ticks = (s: string): number => s.split('`').length - 1;
    if (ticks(text) % 2 === 1) {
      // a backtick span: up to the word that closes it (or the end)
      while (i + 1 < words.length) {
        const n = words[++i]!;
        text += sep + n.text;
        sep = n.sep;
        if (ticks(n.text) % 2 === 1) break;
      }
    } else if (COMMAND_START.test(text)) {
      // a kubectl command: up to the end of its clause
      while (i + 1 < words.length && !COMMAND_END.test(text) && !AFTER_COMMAND.test(words[i + 1]!.text)) {
        const n = words[++i]!;
        text += sep + n.text;
        sep = n.sep;
      }
    }
    out.push({ text, sep, ...(text !== w.text || ticks(text) > 0 ? { whole: true } : {}) });
  }
  return out.filter((a) => a.text !== '').map((a) => ({ ...a, width: cells(a.text) }));
}

/** Atoms after a lead, wrapped: the first line starts with `lead`, the next ones with `indent` spaces. */
function wrapOne(lead: string, list: Atom[], width: number, indent: number): string[] {
  const lines: string[] = [];
  let line = lead;
  let used = cells(lead);
  let empty = true; // nothing but the lead (or the indent) on the line yet
  let active = styleAfter([], lead);
  const hang = Math.max(0, Math.min(indent, width - MIN_TEXT));
  const newLine = (): void => {
    lines.push(line.trimEnd() + (active.length ? RESET : ''));
    line = ' '.repeat(hang) + active.join('');
    used = hang;
    empty = true;
  };
  let sep = '';
  const emit = (a: Atom): void => {
    if (!empty) {
      line += sep;
      used += cells(sep);
    }
    line += a.text;
    used += a.width;
    empty = false;
    active = styleAfter(active, a.text);
    sep = a.sep;
  };
  const place = (a: Atom): void => {
    // a fresh line at the indent for what does not fit on this one
    if (!empty && used + cells(sep) + a.width > width) newLine();
    // still too long where it starts: broken after a separator of its own, the rest at the indent
    const parts = used + a.width > width && !a.whole ? breakWord(a.text, width - used) : null;
    if (!parts) return emit(a);
    emit({ text: parts[0], sep: '', width: cells(parts[0]) });
    newLine();
    place({ text: parts[1], sep: a.sep, width: cells(parts[1]) });
  };
  for (const a of list) place(a);
  lines.push(line.trimEnd());
  return lines;
}

/**
 * Prose after a lead, to fit `width` cells: the first line is `lead` + text, continuation lines start with `indent`
 * spaces (by default as wide as the lead and the text's own leading spaces: the hanging indent). A text of several
 * lines keeps its line breaks, each line wrapped the same way. Without a width, or when it fits, it comes back as
 * `lead + text`, unchanged.
 */
export function hang(lead: string, text: string, width: number | undefined, indent?: number): string {
  if (!width) return lead + text;
  return text
    .split('\n')
    .map((t, i) => {
      const l = i === 0 ? lead : ' '.repeat(indent ?? cells(lead));
      const own = /^ */.exec(t)![0];
      const first = l + own;
      const rest = t.slice(own.length);
      if (cells(first + rest) <= width) return first + rest;
      const at = indent ?? cells(first);
      if (cells(first) <= width - MIN_TEXT) return wrapOne(first, atoms(rest), width, at).join('\n');
      // a lead that leaves the text no room is wrapped as text too, after its own leading spaces
      const spaces = /^ */.exec(first)![0];
      return wrapOne(spaces, atoms(first.slice(spaces.length) + rest), width, Math.min(at, spaces.length + 4)).join('\n');
    })
    .join('\n');
}

/**
 * A list after a lead (objects, checks, a table's cells), to fit `width` cells: `lead + items.join(joiner)`, broken
 * only between items — an item ("Deployment blog/blog-web", "etcd-quorum ok") is never split. As hang() otherwise.
 */
export function hangItems(lead: string, items: string[], width: number | undefined, joiner = ', ', indent?: number): string {
  const text = items.join(joiner);
  if (!width || cells(lead + text) <= width) return lead + text;
  const mark = joiner.trimEnd();
  const sep = joiner.slice(mark.length) || ' ';
  const list = items.map((t, i) => {
    const last = i === items.length - 1;
    const own = last ? t : t + mark;
    return { text: own, sep: last ? '' : sep, width: cells(own) };
  });
  return wrapOne(lead, list, width, indent ?? cells(lead)).join('\n');
}

/** Lines of text each wrapped under its own leading spaces (text whose layout is its indentation, e.g. docs). */
export function wrapLines(text: string, width: number | undefined): string {
  if (!width) return text;
  return text
    .split('\n')
    .map((l) => hang('', l, width))
    .join('\n');
}

/**
 * A fix step after a lead. Prose wraps as prose. A command step (lib/shell.ts) is one line when it fits; when it does
 * not, its prose wraps after the lead and its command line follows on a line of its own, whole, under the prose (a
 * command is copied, never broken), with its note after it when that fits, else on the next line as a comment.
 */
export function stepLines(lead: string, step: Step, width: number | undefined): string[] {
  if (typeof step === 'string') return [hang(lead, step, width)];
  const whole = lead + String(step);
  if (!width || cells(whole) <= width) return [whole];
  const under = ' '.repeat(Math.min(cells(lead), Math.max(0, width - MIN_TEXT)) + 2);
  const out = step.say ? [hang(lead, `${step.say}:`, width)] : [];
  const cmd = (step.say ? under : lead) + step.line;
  const note = step.note ? `   # ${step.note}` : '';
  if (!note || cells(cmd + note) <= width) out.push(cmd + note);
  else out.push(cmd, hang(step.say ? under : ' '.repeat(cells(lead)), `# ${step.note}`, width));
  return out;
}
