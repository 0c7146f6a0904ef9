// Durations for people: "45s", "12 min", "6 h", "3 days"; ages as "12m", "6h", "3d" in tables; and a stopwatch.

/** Milliseconds since this call, from hrtime: the global `performance` object would load perf_hooks (~3 ms at
 *  start) for nothing else. */
export function stopwatch(): () => number {
  const t0 = process.hrtime.bigint();
  return () => Number(process.hrtime.bigint() - t0) / 1e6;
}

export function human(seconds: number | undefined): string {
  if (seconds === undefined) return 'unknown';
  if (seconds < 90) return `${seconds}s`;
  const m = Math.round(seconds / 60);
  if (m < 90) return `${m} min`;
  const h = seconds / 3600;
  if (h < 48) return `${Number.isInteger(Math.round(h * 10) / 10) ? Math.round(h) : Math.round(h * 10) / 10} h`;
  return `${Math.round(h / 24)} days`;
}

/** Compact age of a timestamp relative to now, for table columns; "?" when unknown. */
export function age(iso: string | undefined, now: Date): string {
  const t = iso ? Date.parse(iso) : NaN;
  if (Number.isNaN(t)) return '?';
  const s = Math.max(0, (now.getTime() - t) / 1000);
  return s < 3600 ? `${Math.round(s / 60)}m` : s < 172800 ? `${Math.round(s / 3600)}h` : `${Math.round(s / 86400)}d`;
}
