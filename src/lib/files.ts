// Files named by the user (snapshots, config) are read, never waited on: opened without blocking (opening a FIFO
// would wait for a writer forever, past any deadline and deaf to SIGTERM), checked on the open descriptor to be a
// regular file (a device such as /dev/zero would be read until memory ran out) of a bounded size, so nothing can
// swap the file between the check and the read.
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../errors.js';
import { byText } from './order.js';

export const kindOf = (st: Stats): string =>
  st.isDirectory()
    ? 'a directory'
    : st.isCharacterDevice()
      ? 'a character device'
      : st.isBlockDevice()
        ? 'a block device'
        : st.isFIFO()
          ? 'a FIFO'
          : st.isSocket()
            ? 'a socket'
            : 'not a file';

export interface RegularFile {
  fd: number;
  /** Its size when opened: what is read, at most (a file that grows while read is read as it was). */
  size: number;
}

/**
 * Opens a regular file of at most maxBytes for reading, or throws an InputError naming it as `what` (e.g.
 * "snapshot x.yaml"); the caller closes the descriptor.
 */
export function openRegular(file: string, what: string, maxBytes: number, hint?: string): RegularFile {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    throw new InputError(`cannot read ${what}: ${whyNot(e as NodeJS.ErrnoException)}`, hint);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new InputError(`${what} is not a regular file (${kindOf(st)})`, hint);
    if (st.size > maxBytes) throw new InputError(`${what} is larger than ${mib(maxBytes)} (${st.size} bytes)`, hint);
    return { fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** Why a file cannot be opened, in words (the errno code only for the rare ones). */
const WHY: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of its path is not a directory',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'its name is too long',
  EISDIR: 'it is a directory',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
};
export const whyNot = (e: NodeJS.ErrnoException): string => (e.code && WHY[e.code]) ?? (e.code ? `error ${e.code}` : e.message);

const mib = (n: number): string => (n >= 1 << 20 ? `${Math.round(n / (1 << 20))} MiB` : `${n} bytes`);

/** Reads up to n bytes at the file's current position into buf; fewer only at the end of the file. */
export function readFull(fd: number, buf: Buffer, n: number): number {
  let off = 0;
  while (off < n) {
    const got = readSync(fd, buf, off, n - off, null);
    if (got <= 0) break;
    off += got;
  }
  return off;
}

/** The files under a directory, its subdirectories included, whose names match: in a stable order (by path text, a
 *  directory's files where its name sorts), symlinked directories not followed. */
export function filesIn(dir: string, names: RegExp): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => byText(a.name, b.name))) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (names.test(e.name)) out.push(p);
    }
  };
  walk(dir);
  return out;
}
