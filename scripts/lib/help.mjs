// The top-level --help text, rendered by the built CLI (yargs) at the two widths src/fast.ts serves
// without loading yargs: 100 (not a terminal) and 110 (a terminal at least 110 columns wide).
import { execFileSync } from 'node:child_process';

export function renderHelp(entry = 'dist/kubectl-arch.mjs') {
  const help = {};
  for (const width of [100, 110]) {
    help[width] = execFileSync(process.execPath, [entry, '--help'], { env: { ...process.env, KUBECTL_ARCH_HELP_WIDTH: String(width) } }).toString();
  }
  return help;
}
