// Files and directories of the user's own, checked on the opened descriptor (a swap of the path after the check
// changes nothing): what src/host/store.ts trusts a code cache from. uid undefined (Windows): no such checks.

/** Larger than any cache of the bundles (about 1 MB): a larger file is not one. */
export const MAX_BYTES = 64 * 1024 * 1024;

export function ownFiles(uid: number | undefined) {
  const fs = process.getBuiltinModule('node:fs');
  const { O_RDONLY } = fs.constants;
  // 0 where the platform has no such flag (Windows)
  const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
  const NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
  const DIRECTORY = fs.constants.O_DIRECTORY ?? 0;

  /** The directory is the user's own, not a symlink, and (narrowed if need be) mode 0700: checked on the opened
   *  directory, so a swap after the check changes nothing. */
  const ownDir = (p: string): boolean => {
    if (uid === undefined) return true;
    let fd: number | undefined;
    try {
      fd = fs.openSync(p, O_RDONLY | DIRECTORY | NOFOLLOW);
      const st = fs.fstatSync(fd);
      if (!st.isDirectory() || st.uid !== uid) return false;
      if (st.mode & 0o077) fs.fchmodSync(fd, 0o700);
      return true;
    } catch {
      return false;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  };
  /** Made mode 0700 where missing (its parents too), then checked. */
  const makeDir = (p: string): boolean => {
    try {
      fs.mkdirSync(p, { recursive: true, mode: 0o700 });
    } catch {
      /* there already, or not makeable: ownDir says */
    }
    return ownDir(p);
  };
  /** A regular file of the user's with one link, opened without following a symlink: its bytes, else undefined. */
  const readOwn = (file: string): Buffer | undefined => {
    let fd: number | undefined;
    try {
      fd = fs.openSync(file, O_RDONLY | NOFOLLOW | NONBLOCK);
      const st = fs.fstatSync(fd);
      if (!st.isFile() || (uid !== undefined && (st.uid !== uid || st.nlink !== 1)) || st.size > MAX_BYTES) return undefined;
      const buf = Buffer.allocUnsafe(st.size); // every byte is read into it
      let n = 0;
      while (n < buf.length) {
        const got = fs.readSync(fd, buf, n, buf.length - n, n);
        if (got === 0) break;
        n += got;
      }
      return buf.subarray(0, n);
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  };
  const drop = (file: string): void => {
    try {
      fs.unlinkSync(file);
    } catch {
      /* gone already */
    }
  };

  return { ownDir, makeDir, readOwn, drop };
}
