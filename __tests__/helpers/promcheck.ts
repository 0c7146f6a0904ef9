// Prometheus's own text-format parser and linter (prometheus/common expfmt, client_golang promlint), as the
// small Go program in __tests__/tools/promcheck, built once per source version from the Go module proxy into
// ~/.cache/kubectl-arch/tools/.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './run.js';

export interface PromFamily {
  name: string;
  type: string;
  help: string;
  metrics: Array<{ labels: Record<string, string>; value: number }>;
}

export function promcheckBinary(): string {
  const src = join(ROOT, '__tests__/tools/promcheck');
  const h = createHash('sha256');
  for (const f of ['go.mod', 'go.sum', 'main.go']) h.update(readFileSync(join(src, f)));
  const out = join(
    process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
    'kubectl-arch',
    'tools',
    `promcheck-${h.digest('hex').slice(0, 12)}`,
  );
  if (existsSync(out)) return out;
  mkdirSync(join(out, '..'), { recursive: true });
  execFileSync('go', ['build', '-trimpath', '-o', `${out}.tmp`, '.'], { cwd: src, stdio: ['ignore', 'ignore', 'pipe'] });
  renameSync(`${out}.tmp`, out);
  return out;
}

/** Parses and lints text exposition format; throws with the parser's message when it does not parse. */
export function promcheck(text: string): { families: PromFamily[]; lint: string[] } {
  const r = spawnSync(promcheckBinary(), { input: text, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`promcheck: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
