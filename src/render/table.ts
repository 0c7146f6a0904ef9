// Plain aligned columns for the human outputs (the last column is not padded).
export function columns(rows: string[][], opts: { indent?: string; maxWidth?: number } = {}): string[] {
  const max = opts.maxWidth ?? 60;
  const widths = (rows[0] ?? []).map((_, i) => Math.min(max, Math.max(...rows.map((r) => (r[i] ?? '').length))));
  const cell = (c: string, i: number, last: boolean): string => {
    if (last) return c;
    const w = widths[i]!;
    return (c.length > w ? c.slice(0, w - 1) + '…' : c).padEnd(w + 2);
  };
  return rows.map(
    (r) =>
      (opts.indent ?? '') +
      r
        .map((c, i) => cell(c, i, i === r.length - 1))
        .join('')
        .trimEnd(),
  );
}
