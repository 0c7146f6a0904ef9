import type { ControlPlane } from './cluster.mjs';
export function shiftTimes<T>(v: T, deltaMs: number): T;
export function readScenario(dir: string): any[];
export function loadScenario(
  cp: ControlPlane,
  src: string | any[],
  opts?: { outDir?: string; referenceTime?: number; now?: number; concurrency?: number; settleMs?: number },
): Promise<number>;
