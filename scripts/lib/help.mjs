// Build-time renders for src/fast-paths.ts and src/complete.ts. The top-level --help text, rendered by the built CLI (yargs) at the two widths src/fast-paths.ts serves
// without loading yargs: 100 (not a terminal) and 110 (a terminal at least 110 columns wide).
import { execFileSync } from 'node:child_process';

export function renderHelp(entry = 'dist/kubectl-arch.mjs') {
  const help = {};
  for (const width of [100, 110]) {
    help[width] = execFileSync(process.execPath, [entry, '--help'], {
      env: { ...process.env, KUBECTL_ARCH_HELP_WIDTH: String(width), NODE_DISABLE_COMPILE_CACHE: '1' },
    }).toString();
  }
  return help;
}

/** The check ids and finding codes `explain` completes, from the built CLI (src/complete.ts). */
export function renderExplain(entry = 'dist/kubectl-arch.mjs') {
  const out = execFileSync(process.execPath, [entry, '__complete', 'explain', ''], {
    env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' },
  }).toString();
  return out
    .split('\n')
    .filter((l) => l && !l.startsWith(':'))
    .map((l) => {
      const [v, ...d] = l.split('\t');
      return [v, d.join('\t')];
    });
}
