// Process lifecycle: Ctrl-C and SIGTERM always end the run promptly (spinner stopped, child
// processes such as exec credential plugins killed), and a closed stdout (`| head`) ends it quietly.
const cleanups = new Set<() => void>();

/** Run fn if the process is interrupted; returns a function that unregisters it. */
export function onInterrupt(fn: () => void): () => void {
  cleanups.add(fn);
  return () => cleanups.delete(fn);
}

let installed = false;

export function installProcessHandlers(): void {
  if (installed) return;
  installed = true;
  for (const [sig, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.on(sig, () => {
      for (const fn of cleanups) {
        try {
          fn();
        } catch {
          /* best effort: we are exiting */
        }
      }
      process.stderr.write(sig === 'SIGINT' ? '\ninterrupted\n' : '\nterminated\n');
      process.exit(code);
    });
  }
  // the reader went away (e.g. `kubectl arch doctor | head`): stop writing, no stack trace
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
      throw e;
    });
  }
}
