// Small Go programs in __tests__/tools/<name> that bring a real consumer into the tests (Prometheus's parser, the
// MCP Go SDK), built once per source version from the Go module proxy into ~/.cache/kubectl-arch/tools/.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './run.js';

export function goTool(name: string): string {
  const src = join(ROOT, '__tests__/tools', name);
  const h = createHash('sha256');
  for (const f of ['go.mod', 'go.sum', 'main.go']) h.update(readFileSync(join(src, f)));
  const out = join(
    process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
    'kubectl-arch',
    'tools',
    `${name}-${h.digest('hex').slice(0, 12)}`,
  );
  if (existsSync(out)) return out;
  mkdirSync(join(out, '..'), { recursive: true });
  execFileSync('go', ['build', '-trimpath', '-o', `${out}.tmp.${process.pid}`, '.'], {
    cwd: src,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  renameSync(`${out}.tmp.${process.pid}`, out);
  return out;
}
