// Near the memory limit, a run stops taking in more and finishes with what it has (#48): a report that names what
// it could not judge, exit 3, instead of an OOM kill with no report. Two limits count, whichever comes first:
//  - the process's: --max-memory, else the container's (process.constrainedMemory(), the cgroup limit), against the
//    resident set the kernel kills on;
//  - V8's heap limit, against the live heap: Node sizes it from the container's memory (268 MiB in a 512 MiB
//    container, measured with Node 26), and past it V8 aborts the process, which no limit of ours would see.
import { getHeapStatistics } from 'node:v8';

/** The share of a limit at which a run stops taking in more: what is held must still be judged and printed. */
export const NEAR = 0.85;

export interface MemoryReading {
  rss: number;
  heapUsed: number;
  heapLimit: number;
}

const read = (): MemoryReading => {
  const h = getHeapStatistics();
  return { rss: process.memoryUsage.rss(), heapUsed: h.used_heap_size, heapLimit: h.heap_size_limit };
};

export const mib = (bytes: number): string => `${Math.round(bytes / 1048576)} MiB`;

export class MemoryGuard {
  private reachedText?: string;
  constructor(
    /** The resident-set limit in bytes (--max-memory or the container's), if any. */
    readonly limit: number | undefined,
    /** Where the limit comes from, as the report says it: "--max-memory", "the container's limit". */
    readonly source: string,
    private readonly reading: () => MemoryReading = read,
  ) {}

  /** Whether the run is near a limit; once near, it stays so (what was let go may not be taken in again). */
  near(): boolean {
    if (this.reachedText) return true;
    const m = this.reading();
    if (this.limit !== undefined && m.rss >= this.limit * NEAR)
      this.reachedText = `memory near its limit (${mib(m.rss)} of ${mib(this.limit)}, ${this.source})`;
    else if (m.heapUsed >= m.heapLimit * NEAR)
      this.reachedText = `memory near its limit (a ${mib(m.heapUsed)} heap of ${mib(m.heapLimit)} the JavaScript engine may hold)`;
    return this.reachedText !== undefined;
  }

  /** Why the run stopped taking in more, once near(); undefined while it has not (no new reading). */
  get reached(): string | undefined {
    return this.reachedText;
  }

  /** Why the run stopped taking in more, once near(). */
  text(): string {
    return this.reachedText ?? 'memory near its limit';
  }
}

const UNITS: Record<string, number> = { '': 1, k: 1e3, m: 1e6, g: 1e9, ki: 1024, mi: 1048576, gi: 1073741824 };

/** A quantity as Kubernetes writes one (512Mi, 1G, 400000000), in bytes; undefined when it is none. */
export function parseBytes(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(k|m|g|ki|mi|gi)?b?$/i.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]) * UNITS[(m[2] ?? '').toLowerCase()]!;
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;
}

/** The container's memory limit (cgroup v1 or v2) as Node reads it; none when unlimited. */
export function containerLimit(): number | undefined {
  const c = typeof process.constrainedMemory === 'function' ? process.constrainedMemory() : 0;
  // unlimited reads as 0, or as a huge number (cgroup v1's "no limit" is near 2^63)
  return c > 0 && c < 2 ** 50 ? c : undefined;
}

/** The run's guard: --max-memory when given, else the container's limit; the heap limit counts either way. */
export function memoryGuard(maxMemory?: string): MemoryGuard {
  if (maxMemory !== undefined) {
    const bytes = parseBytes(maxMemory);
    if (bytes === undefined) throw new Error(`--max-memory: ${JSON.stringify(maxMemory)} is no amount of memory (e.g. 400Mi, 1Gi)`);
    return new MemoryGuard(bytes, '--max-memory');
  }
  const c = containerLimit();
  return new MemoryGuard(c, "the container's limit");
}

let run: { guard: MemoryGuard; max?: string } | undefined;
/** The process's one guard for a CLI run (every context of it shares the limit); an MCP call makes its own. */
export function runGuard(maxMemory?: string): MemoryGuard {
  if (!run || run.max !== maxMemory) run = { guard: memoryGuard(maxMemory), max: maxMemory };
  return run.guard;
}
/** A new run of the CLI starts with no guard (tests run the CLI's main several times in one process). */
export const resetRunGuard = (): void => {
  run = undefined;
};
/** Why this CLI run stopped taking in more, if it did: the run then exits 3 with what it judged. */
export const runReached = (): string | undefined => run?.guard.reached;
