// Colour and symbols only on a TTY, never with --no-color or NO_COLOR (https://no-color.org).
import type { Severity } from '../model.js';

export interface Style {
  color: boolean;
  bold(s: string): string;
  dim(s: string): string;
  sev(sev: Severity, s: string): string;
  green(s: string): string;
  yellow(s: string): string;
}

export function makeStyle(color: boolean): Style {
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
