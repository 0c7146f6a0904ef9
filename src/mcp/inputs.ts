// What an assistant may ask for, checked before anything is read. Its inputs are untrusted: it names contexts of
// the kubeconfig the server was started with (never a kubeconfig path, an exec plugin, a flag or a command), and
// snapshots only under the directories the operator allowed at start (--allow-snapshot-dir), judged by their real
// path (symlinks and `..` resolved) — and so is every file of a snapshot directory. Each refusal is an InputError,
// which the tool answers as a tool error with the CLI's message and hint.
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { InputError } from '../errors.js';
import type { GlobalArgs, RunHooks } from '../commands/common.js';
import { snapshotFiles } from '../snapshot/load.js';
import { isExample } from '../snapshot/examples.js';

/** Where the server reads from, fixed when it starts. */
export interface ServerSettings {
  /** The start flags every call runs with: --kubeconfig, --context, --request-timeout, --deadline, --config, -v. */
  base: GlobalArgs;
  /** Real paths of the --allow-snapshot-dir directories. */
  snapshotDirs: string[];
  /** The size a result's JSON is cut to (--max-result-bytes). */
  maxResultBytes: number;
}

/** The inputs shared by the tools that read a cluster or a snapshot. */
export interface SourceInput {
  context?: string;
  contexts?: string[];
  allContexts?: boolean;
  snapshot?: string;
  namespace?: string;
}

const inside = (p: string, dir: string): boolean => {
  const r = relative(dir, p);
  return r === '' || (r !== '..' && !r.startsWith(`..${sep}`) && !isAbsolute(r));
};

/** The directories --allow-snapshot-dir names, by their real paths; a usage error at start for one that is not a directory. */
export function allowedDirs(dirs: readonly string[]): string[] {
  return dirs.map((d) => {
    let real: string;
    try {
      real = realpathSync(d);
    } catch {
      throw new InputError(`--allow-snapshot-dir ${d}: no such directory`);
    }
    if (!statSync(real).isDirectory()) throw new InputError(`--allow-snapshot-dir ${d}: not a directory`);
    return real;
  });
}

/**
 * The real path of a snapshot an assistant named, if it lies under an allowed directory, and so does every file it
 * would be read from (a directory's files may be symlinks); relative paths are taken from the server's working
 * directory. Whether a path outside exists is not told.
 */
export function snapshotPath(given: string, dirs: readonly string[]): string {
  // an example inside the CLI is no file: readable without --allow-snapshot-dir
  if (isExample(given)) return given;
  if (dirs.length === 0)
    throw new InputError(
      'snapshots are not readable here: the server was started without --allow-snapshot-dir',
      'start it with --allow-snapshot-dir DIR (repeatable) to let snapshots under DIR be read',
    );
  const outside = (): InputError =>
    new InputError(
      `snapshot ${given}: not under a directory this server may read (${dirs.join(', ')})`,
      'symlinks and .. are resolved first; ask the operator to add the directory with --allow-snapshot-dir',
    );
  if (given.includes('\0')) throw outside();
  const abs = resolve(given);
  const lexicallyInside = dirs.some((d) => inside(abs, d));
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    if (lexicallyInside) throw new InputError(`snapshot ${given}: no such file or directory`);
    throw outside();
  }
  if (!dirs.some((d) => inside(real, d))) throw outside();
  for (const f of snapshotFiles(real)) {
    let rf: string;
    try {
      rf = realpathSync(f);
    } catch {
      throw new InputError(`snapshot ${given}: ${f} cannot be read (a dangling symlink?)`);
    }
    if (!dirs.some((d) => inside(rf, d)))
      throw new InputError(
        `snapshot ${given}: ${f} is a link to a file outside the directories this server may read`,
        'a snapshot directory is read whole: remove the link, or copy the file in',
      );
    // a FIFO or a device would block the read (and with it the server)
    if (!statSync(rf).isFile()) throw new InputError(`snapshot ${given}: ${f} is not a regular file`);
  }
  return real;
}

/** The arguments of one call: the start flags, with what the assistant chose among what they allow. */
export function callArgs(settings: ServerSettings, input: SourceInput, hooks: RunHooks): GlobalArgs {
  const many = input.contexts !== undefined || input.allContexts === true;
  if (input.snapshot !== undefined && (input.context !== undefined || many))
    throw new InputError('snapshot works offline on one snapshot: leave out context, contexts and allContexts');
  if (input.context !== undefined && many) throw new InputError('context names one context: leave it out with contexts or allContexts');
  if (input.contexts !== undefined && input.allContexts) throw new InputError('contexts and allContexts cannot be used together');
  const args: GlobalArgs = { ...settings.base, hooks };
  if (input.snapshot !== undefined) args.snapshot = snapshotPath(input.snapshot, settings.snapshotDirs);
  if (input.namespace !== undefined) args.namespace = input.namespace;
  if (many) {
    // the start flag's --context is the default of a single run only
    delete args.context;
    if (input.contexts) args.contexts = input.contexts.join(',');
    else args['all-contexts'] = true;
  } else if (input.context !== undefined) args.context = input.context;
  return args;
}
