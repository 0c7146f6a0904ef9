// Start-up fast paths, taken before yargs (and the rest of the CLI) is loaded: `version`, top-level
// `--help`, the completion scripts (`completion bash|zsh|fish`, run by a shell's start-up file) and shell
// completion itself (`__complete`, which kubectl_complete-arch and the completion scripts call). Measured: loading and setting up yargs was most of `kubectl arch version`'s time (see README).
// Anything else, or any form these do not recognise exactly, goes to the full CLI.
import { completionScript } from './commands/completion.js';
import { complete, TAKES } from './complete.js';
import { VERSION } from './version.js';

// The top-level --help text as yargs renders it, by wrap width (scripts/build.mjs renders it with the
// built CLI and injects it; null in the first build pass and in tests run from source).
declare const __HELP__: Record<string, string> | null | undefined;
const HELP: Record<string, string> | null = typeof __HELP__ === 'object' ? __HELP__ : null;

export function versionLine(format: string | undefined): string {
  return format === 'json'
    ? JSON.stringify({ version: VERSION, node: process.version }) + '\n'
    : format === 'yaml'
      ? `version: ${VERSION}\nnode: ${process.version}\n`
      : `kubectl-arch ${VERSION} (node ${process.version})\n`;
}

/** `version` with nothing but one of its output formats (TAKES): the format, else null (not a fast case). */
function versionFormat(argv: string[]): string | null {
  if (argv[0] !== 'version' && argv[0] !== '--version') return null;
  const outputs: readonly string[] = TAKES.version?.outputs ?? [];
  const rest = argv.slice(1);
  if (rest.length === 0) return outputs[0] ?? null;
  const m = rest.length === 1 ? /^(?:-o|--output)=(.*)$/.exec(rest[0] ?? '') : null;
  const value = m ? m[1] : rest.length === 2 && (rest[0] === '-o' || rest[0] === '--output') ? rest[1] : undefined;
  return value !== undefined && outputs.includes(value) ? value : null;
}

/** The exit code when a fast path handled argv, undefined when the full CLI must. */
export async function fast(argv: string[]): Promise<number | undefined> {
  const fmt = versionFormat(argv);
  if (fmt) {
    process.stdout.write(versionLine(fmt));
    return 0;
  }
  if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h')) {
    // the same width rule as src/cli.ts; other widths are rendered by yargs
    const text = HELP?.[String(Math.min(110, process.stdout.columns || 100))];
    if (text !== undefined) {
      process.stdout.write(text);
      return 0;
    }
  }
  // `completion bash|zsh|fish`, which a shell's start-up file runs every time a shell starts
  const script = argv.length === 2 && argv[0] === 'completion' ? completionScript(argv[1]) : undefined;
  if (script !== undefined) {
    process.stdout.write(script);
    return 0;
  }
  if (argv[0] === '__complete') {
    process.stdout.write(await complete(argv.slice(1)));
    return 0;
  }
  return undefined;
}
