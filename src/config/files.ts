// Where accepted-risk rules come from, and how a config file is read.
//
// Files: --config FILE alone (naming a file is consent to it); --no-config none; by default the user's config
// file ($XDG_CONFIG_HOME/kubectl-arch/config.yaml, ~/.config/kubectl-arch/config.yaml, %APPDATA%\kubectl-arch\
// config.yaml on Windows), and .kubectl-arch.yaml in the working directory only when that directory is listed under
// `trust:` in the user's file. A repository can carry a .kubectl-arch.yaml: cloning one and running doctor in it
// must not silence findings nobody agreed to (as git's safe.directory and direnv's allow, the consent is the
// user's, written where only the user writes).
import { closeSync, existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { InputError } from '../errors.js';
import { openRegular, readFull, whyNot } from '../lib/files.js';

export function userConfigPath(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'kubectl-arch', 'config.yaml');
  // a relative XDG_CONFIG_HOME is ignored, as the XDG spec asks: it would make a repository's files the user's
  const xdg = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : '';
  const base = xdg || join(env.HOME || homedir(), '.config');
  return join(base, 'kubectl-arch', 'config.yaml');
}

export const CWD_CONFIG = '.kubectl-arch.yaml';

/** What to read, before reading: the files named or found, and which is the user's own (the only one that may trust). */
export interface ConfigPlan {
  /** --config FILE, resolved; none by default. */
  named?: string;
  /** The user's config file, when it exists (default only). */
  user?: string;
  /** The working directory's .kubectl-arch.yaml, when it exists (default only): read only if trusted. */
  local?: string;
}

export function configPlan(flag: string | boolean | undefined, cwd = process.cwd(), env = process.env): ConfigPlan {
  if (flag === false) return {};
  if (typeof flag === 'string' && flag !== '') {
    if (!existsSync(flag)) throw new InputError(`config file ${flag} does not exist`, 'check --config, or pass --no-config');
    return { named: resolve(flag) };
  }
  if (flag === true || flag === '') throw new InputError('--config needs a file name');
  const user = userConfigPath(env);
  const local = join(cwd, CWD_CONFIG);
  return { ...(existsSync(user) ? { user } : {}), ...(existsSync(local) && resolve(local) !== resolve(user) ? { local } : {}) };
}

/** A trust: entry as written: an absolute directory, or one under the home directory (~/...). */
export function trustEntry(v: unknown, where: string, env = process.env): string {
  if (typeof v === 'string' && (isAbsolute(v) || v === '~' || v.startsWith('~/')))
    return v.startsWith('~') ? join(env.HOME || homedir(), v.slice(1)) : v;
  throw new InputError(`${where} must be an absolute directory (or start with ~/), found ${JSON.stringify(v)}`);
}

/** Whether dir is one of the trusted directories: the same directory once symlinks are resolved; not its subdirectories. */
export function isTrusted(dir: string, trust: readonly string[]): boolean {
  const real = (p: string): string | undefined => {
    try {
      return realpathSync(p);
    } catch {
      return undefined;
    }
  };
  const here = real(dir);
  return here !== undefined && trust.some((t) => real(t) === here);
}

/** A config file of rules is a few KB; anything much larger is not one. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * A config file's text: regular files only, at most MAX_CONFIG_BYTES, checked on the open file before reading
 * (so nothing can swap the file between the check and the read). O_NONBLOCK: opening a FIFO would otherwise wait
 * for a writer forever; /dev/zero would be read until memory ran out.
 */
export function readConfigText(file: string): string {
  const hint = 'accepted-risk rules are read from regular files only, a few KB';
  const { fd, size } = openRegular(file, `config ${file}`, MAX_CONFIG_BYTES, hint);
  try {
    const buf = Buffer.alloc(size);
    return buf.subarray(0, readFull(fd, buf, size)).toString('utf8');
  } catch (e) {
    throw new InputError(`cannot read config ${file}: ${whyNot(e as NodeJS.ErrnoException)}`);
  } finally {
    closeSync(fd);
  }
}
