// Entry for the single-executable (Node SEA) build used by krew: CommonJS, so no top-level await.
import { main } from './cli.js';

main().then((code) => { process.exitCode = code; }, (e: unknown) => {
  process.stderr.write(`error: internal error: ${(e as Error)?.message ?? String(e)}\n`);
  process.exitCode = 4;
});
