// The longest gap between two runs of a cron schedule, as K3s/RKE2 read --etcd-snapshot-schedule-cron (robfig/cron's
// standard parser: five fields — minute hour day-of-month month day-of-week — or a descriptor such as @daily or
// @every 6h), in the server's local time; we take UTC, which moves runs but not the gaps between them.
// Written here rather than taken from a library: the one question is "how long may pass between two snapshots", the
// npm parsers carry a date library (cron-parser: luxon, ~70 KB more in the CLI bundle every command compiles) and
// none reads robfig's @every; this is sixty lines, tested against the forms K3s users write (__tests__/cron.test.ts).

const FIELDS: Array<[min: number, max: number]> = [
  [0, 59], // minute
  [0, 23], // hour
  [1, 31], // day of month
  [1, 12], // month
  [0, 6], // day of week (7 is Sunday too)
];
const NAMES: Record<string, number> = {
  sun: 0,
  mon: 1,
  tue: 2,
  wed: 3,
  thu: 4,
  fri: 5,
  sat: 6,
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

function field(text: string, [min, max]: [number, number]): Set<number> | null {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\*|[a-z0-9]+)(?:-([a-z0-9]+))?(?:\/(\d+))?$/i.exec(part);
    if (!m) return null;
    const num = (s: string): number => (/^\d+$/.test(s) ? Number(s) : (NAMES[s.toLowerCase()] ?? NaN));
    let lo = m[1] === '*' ? min : num(m[1]!);
    let hi = m[2] !== undefined ? num(m[2]) : m[1] === '*' || m[3] !== undefined ? max : lo;
    if (max === 6 && hi === 7) hi = 6; // Sunday as 7
    if (max === 6 && lo === 7) lo = 0;
    const step = m[3] !== undefined ? Number(m[3]) : 1;
    if (![lo, hi, step].every(Number.isFinite) || lo < min || hi > max || lo > hi || step < 1) return null;
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

/** The longest time between two runs in milliseconds, or null when the schedule does not parse (K3s then takes no
 *  scheduled snapshot at all, and says nothing: k3s-io/k3s#14085). */
export function longestGapMs(schedule: string): number | null {
  const s = schedule.trim();
  const every = /^@every\s+(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(s);
  if (every && (every[1] || every[2] || every[3]))
    return ((Number(every[1] ?? 0) * 60 + Number(every[2] ?? 0)) * 60 + Number(every[3] ?? 0)) * 1000 || null;
  const parts = (DESCRIPTORS[s] ?? s).split(/\s+/);
  if (parts.length !== 5) return null;
  const sets = parts.map((p, i) => field(p, FIELDS[i]!));
  if (sets.some((x) => x === null)) return null;
  const [mins, hours, doms, months, dows] = sets as Array<Set<number>>;
  // robfig: when both day fields are restricted, either may match
  const domAny = parts[2] === '*' || parts[2] === '?';
  const dowAny = parts[4] === '*' || parts[4] === '?';
  // the runs of two years from a fixed start, day by day: every gap, a yearly schedule's too, falls inside
  const start = Date.UTC(2024, 0, 1);
  const hs = [...hours!].sort((a, b) => a - b);
  const ms = [...mins!].sort((a, b) => a - b);
  let prev: number | null = null;
  let first: number | null = null;
  let longest = 0;
  for (let day = 0; day < 731; day++) {
    const d = new Date(start + day * 86_400_000);
    if (!months!.has(d.getUTCMonth() + 1)) continue;
    const dom = doms!.has(d.getUTCDate());
    const dow = dows!.has(d.getUTCDay());
    if (!(domAny && dowAny ? true : domAny ? dow : dowAny ? dom : dom || dow)) continue;
    for (const h of hs)
      for (const m of ms) {
        const t = d.getTime() + (h * 60 + m) * 60_000;
        if (prev !== null) longest = Math.max(longest, t - prev);
        first ??= t;
        prev = t;
      }
  }
  return first === null || first === prev ? null : longest;
}
