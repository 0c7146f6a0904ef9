// Plain aligned columns for the human outputs (the last column is not padded). With a width (the terminal's), a table
// wider than it is laid out to fit, nothing cut: closer columns, then the last column wrapped under its own start, then
// the last cell on the lines below its row, and at last each row as its cells in a line.
import { cells, hang, hangItems } from '../lib/wrap.js';

/** The last column wraps under its own start only when that leaves it this many cells (and its longest word). */
const MIN_LAST = 20;

export function columns(rows: string[][], opts: { indent?: string; maxWidth?: number; width?: number } = {}): string[] {
  const max = opts.maxWidth ?? 60;
  const widths = (rows[0] ?? []).map((_, i) => Math.min(max, Math.max(...rows.map((r) => (r[i] ?? '').length))));
  const indent = opts.indent ?? '';
  const layout = (gap: number): string[] =>
    rows.map(
      (r) =>
        indent +
        r
          .map((c, i) => cell(c, i, i === r.length - 1, gap))
          .join('')
          .trimEnd(),
    );
  const cell = (c: string, i: number, last: boolean, gap = 2): string => {
    if (last) return c;
    const w = widths[i]!;
    return (c.length > w ? c.slice(0, w - 1) + '…' : c).padEnd(w + gap);
  };
  const lines = layout(2);
  const width = opts.width;
  const fits = (ls: string[]): boolean => ls.every((l) => cells(l) <= width!);
  if (!width || fits(lines)) return lines;
  const n = widths.length;
  const even = rows.every((r) => r.length === n);
  const lead = (r: string[], gap: number): string =>
    indent +
    r
      .slice(0, -1)
      .map((c, i) => cell(c, i, false, gap))
      .join('');
  const longest = Math.max(0, ...rows.flatMap((r) => (r[n - 1] ?? '').split(' ').map(cells)));
  for (const gap of [2, 1]) {
    if (gap === 1 && fits(layout(1))) return layout(1);
    const start = cells(indent) + widths.slice(0, -1).reduce((a, w) => a + w + gap, 0);
    if (n > 1 && even && width - start >= Math.max(MIN_LAST, longest)) return rows.map((r) => hang(lead(r, gap), r[n - 1]!, width, start));
  }
  // the columns but the last fit: the last cell goes on the lines below its row
  const under = cells(indent) + 4;
  if (n > 1 && even && rows.every((r) => cells(lead(r, 2).trimEnd()) <= width))
    return rows.map((r, i) =>
      cells(lines[i]!) <= width ? lines[i]! : `${lead(r, 2).trimEnd()}\n${hang(' '.repeat(under), r[n - 1]!, width)}`,
    );
  return rows.map((r) => hangItems(indent, r, width, '  ', cells(indent) + 2));
}
