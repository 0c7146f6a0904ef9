// Colour and symbols only on a TTY, never with --no-color or NO_COLOR (https://no-color.org). Prose wraps to the
// terminal's width (render/wrap.ts) only when the style carries one: a command's text on stdout, never the MCP server's.
import type { Severity } from '../model.js';

export interface Style {
  color: boolean;
  /** The width in terminal cells prose wraps to; none: nothing is wrapped (a pipe, a file, the MCP server). */
  width?: number;
  bold(s: string): string;
  dim(s: string): string;
  sev(sev: Severity, s: string): string;
  green(s: string): string;
  yellow(s: string): string;
}

export function makeStyle(color: boolean, width?: number): Style {
  const wrap =
    (code: string) =>
    (s: string): string =>
      color ? `\x1b[${code}m${s}\x1b[0m` : s;
  const red = wrap('31');
  const yellow = wrap('33');
  const blue = wrap('36');
  const magenta = wrap('1;35');
  return {
    color,
    ...(width ? { width } : {}),
    bold: wrap('1'),
    dim: wrap('2'),
    green: wrap('32'),
    yellow,
    sev: (sev, s) => (sev === 'critical' ? magenta(s) : sev === 'error' ? red(s) : sev === 'warning' ? yellow(s) : blue(s)),
  };
}

export function wantColor(flag: boolean | undefined, stream: NodeJS.WriteStream, env = process.env): boolean {
  if (flag === false) return false; // --no-color
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return Boolean(stream.isTTY);
}

/** Narrower than this, prose is not wrapped: there is no room to lay it out (the terminal wraps as it does). */
export const MIN_WIDTH = 20;

/** The width stdout's prose wraps to: COLUMNS when set to a number (so a pipe can ask for it too), else the terminal's
 *  columns when stdout is a TTY; none for a pipe or a file without COLUMNS, or narrower than MIN_WIDTH. */
export function terminalWidth(stream: { isTTY?: boolean; columns?: number } = process.stdout, env = process.env): number | undefined {
  const set = env.COLUMNS?.trim();
  const n = set && /^\d+$/.test(set) ? Number(set) : stream.isTTY ? (stream.columns ?? 0) : 0;
  return n >= MIN_WIDTH ? n : undefined;
}

/** The style with the width of stdout (terminalWidth), for text a command writes there. */
export const toTerminal = (s: Style, width = terminalWidth()): Style => (width ? { ...s, width } : s);

/** A run whose text a command writes to stdout: that text wraps to the terminal (toTerminal). The MCP server calls the
 *  run itself, whose text stays unwrapped. */
export const forTerminal =
  <A extends unknown[], O extends { text(s: Style): Promise<string> }>(run: (...a: A) => Promise<O>) =>
  async (...a: A): Promise<O> => {
    const o = await run(...a);
    return { ...o, text: (s: Style) => o.text(toTerminal(s)) };
  };
