// Entry for the single-executable (Node SEA) build used by krew: CommonJS, so no top-level await.
import { fast } from './fast.js';

// version, top-level --help and completion before the CLI (and yargs) is evaluated
fast(process.argv.slice(2)).then(async (code) => code ?? (await import('./cli.js')).main()).then((code) => { process.exitCode = code; }, (e: unknown) => {
  process.stderr.write(`error: internal error: ${(e as Error)?.message ?? String(e)}\n`);
  process.exitCode = 4;
});
