// Prometheus's own text-format parser and linter (prometheus/common expfmt, client_golang promlint), as the
// small Go program in __tests__/tools/promcheck.
import { spawnSync } from 'node:child_process';
import { goTool } from './gotool.js';

export interface PromFamily {
  name: string;
  type: string;
  help: string;
  metrics: Array<{ labels: Record<string, string>; value: number }>;
}

export const promcheckBinary = (): string => goTool('promcheck');

/** Parses and lints text exposition format; throws with the parser's message when it does not parse. */
export function promcheck(text: string): { families: PromFamily[]; lint: string[] } {
  const r = spawnSync(promcheckBinary(), { input: text, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`promcheck: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
