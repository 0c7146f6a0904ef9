// Every command kubectl-arch prints for a human to run is built here: an argument list, rendered by one quoting
// function. Names from the cluster are hostile input: a Role may be named `x;touch${IFS}/tmp/pwned;#` or
// `$(id)` (RBAC names are only path segments), and a printed command must run exactly the argument list it says,
// in bash, zsh and sh, pasted whole or copied from a commented-out line.
// - An argument made only of characters no shell treats specially is written bare (`kube-system`, `--wait=false`).
// - Any other is single-quoted: nothing inside single quotes is special to a POSIX shell (a `'` is written '\'').
// - An argument holding a character no reader may be shown raw (lib/safe.ts: newlines, escapes, zero-width and
//   bidirectional characters) is written $'…' with that character's UTF-8 bytes as \xHH: the line stays one line
//   (a commented-out command cannot end its comment), shows what it runs, and runs the same bytes. $'…' is POSIX
//   since 2024 (IEEE Std 1003.1-2024) and has long been in bash, zsh and ksh; dash has no $'…', so the plans say
//   they are for bash or zsh.
import { UNSEEN } from './safe.js';

export type Argv = readonly string[];

/** Bare words: letters, digits and _ @ % + = : , . / - (an `=` or `%` first is special to zsh, `-`… is fine). */
const BARE = /^[A-Za-z0-9_@+:,./-][A-Za-z0-9_@%+=:,./-]*$/;
const UNSEEN_ONE = new RegExp(UNSEEN.source);
const UNSEEN_CHAR = new RegExp(`^(?:${UNSEEN.source})$`);
const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The bytes of one character as \xHH (a lone surrogate as its three WTF-8 bytes: distinct, never U+FFFD). */
function bytes(c: string): string {
  const code = c.codePointAt(0)!;
  let b: number[];
  if (code >= 0xd800 && code <= 0xdfff) b = [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
  else b = [...Buffer.from(c, 'utf8')];
  return b.map((x) => `\\x${x.toString(16).padStart(2, '0')}`).join('');
}

/** One argument as a shell word that gives back exactly this string. A NUL character cannot be passed in an argument
 *  (the program would get the text before it: another name), so no word is made for it. */
export function quote(arg: string): string {
  if (arg.includes('\0')) throw new RangeError('an argument holds a NUL character, which no command line can pass');
  if (arg === '') return "''";
  if (BARE.test(arg)) return arg;
  if (!UNSEEN_ONE.test(arg) && !LONE.test(arg)) return `'${arg.replace(/'/g, `'\\''`)}'`;
  let out = '';
  for (let i = 0; i < arg.length; i++) {
    const hi = arg.charCodeAt(i);
    // a surrogate pair is one character; a lone half is its own
    const c = hi >= 0xd800 && hi <= 0xdbff && i + 1 < arg.length && /[\udc00-\udfff]/.test(arg[i + 1]!) ? arg.slice(i, ++i + 1) : arg[i]!;
    if (c === "'" || c === '\\') out += `\\${c}`;
    else if (UNSEEN_CHAR.test(c) || (c.length === 1 && c >= '\ud800' && c <= '\udfff')) out += bytes(c);
    else out += c;
  }
  return `$'${out}'`;
}

/** Said instead of a command whose arguments hold a NUL character: as a comment, so that nothing runs. */
export const NO_COMMAND = '# no command: an argument holds a NUL character, which no command line can pass (it would name another object)';

/** An argument list as one command line (or, when it cannot be one, NO_COMMAND). */
export const argvText = (argv: Argv): string => (argv.some((a) => a.includes('\0')) ? NO_COMMAND : argv.map(quote).join(' '));

/** A command for a human to run (kubectl-arch never runs it): a pipeline of argument lists, with what to say before it
 *  (`say: command`) and a remark after it (`command   # note`). Prose is prose: `say` and `note` are shown as text, the
 *  command line is what a shell is given. As JSON (reports, MCP results) it is its line. */
export class Command {
  constructor(
    readonly stages: readonly Argv[],
    readonly say?: string,
    readonly note?: string,
  ) {}

  /** The command line alone: each stage's arguments quoted, stages joined by a pipe. */
  get line(): string {
    return this.stages.some((a) => a.some((x) => x.includes('\0'))) ? NO_COMMAND : this.stages.map(argvText).join(' | ');
  }

  toString(): string {
    return `${this.say ? `${this.say}: ` : ''}${this.line}${this.note ? `   # ${this.note}` : ''}`;
  }

  toJSON(): string {
    return this.toString();
  }

  /** The same command with its prose (say, note) passed through `f`: the arguments are the shell's to quote. */
  withText(f: (s: string) => string): Command {
    return new Command(this.stages, this.say === undefined ? undefined : f(this.say), this.note === undefined ? undefined : f(this.note));
  }
}

/** `kubectl -n ns get pods …` as a Command; `pipe` adds stages after it (`| base64 -d | openssl …`). */
export function command(argv: Argv, opts: { say?: string; note?: string; pipe?: readonly Argv[] } = {}): Command {
  return new Command([argv, ...(opts.pipe ?? [])], opts.say, opts.note);
}

/** A fix step: prose, or a command to run. */
export type Step = string | Command;

/** A step as one line of text. */
export const stepText = (s: Step): string => String(s);

/** kubectl's namespace flag for an object: `-n ns`, or nothing for a cluster-scoped one. */
export const inNamespace = (ns: string | undefined): string[] => (ns ? ['-n', ns] : []);
