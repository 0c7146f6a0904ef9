import { describe, expect, test } from '@jest/globals';
import { parseDuration } from '../src/commands/common.js';
import { exitFor } from '../src/commands/common.js';
import { worst } from '../src/render/report.js';
const exitCodeFor = (r: Report, failOn: 'none' | 'warning' | 'error'): number => exitFor(worst(r.checks), failOn);
import { wantColor, makeStyle } from '../src/render/style.js';
import type { Report } from '../src/render/report.js';

describe('flags and exit codes', () => {
  test('--request-timeout accepts kubectl durations', () => {
    expect(parseDuration('30s', 1)).toBe(30_000);
    expect(parseDuration('1m', 1)).toBe(60_000);
    expect(parseDuration('500ms', 1)).toBe(500);
    expect(parseDuration('5', 1)).toBe(5000);
    expect(parseDuration(undefined, 42)).toBe(42);
    expect(parseDuration('0', 1)).toBeGreaterThan(3_600_000);
    expect(() => parseDuration('soon', 1)).toThrow(/invalid --request-timeout/);
  });

  test('colour only on a TTY, never with --no-color or NO_COLOR', () => {
    const tty = { isTTY: true } as NodeJS.WriteStream;
    const pipe = { isTTY: false } as NodeJS.WriteStream;
    expect(wantColor(undefined, tty, {})).toBe(true);
    expect(wantColor(undefined, pipe, {})).toBe(false);
    expect(wantColor(false, tty, {})).toBe(false);
    expect(wantColor(undefined, tty, { NO_COLOR: '1' })).toBe(false);
    expect(makeStyle(false).sev('error', 'x')).toBe('x');
    expect(makeStyle(true).sev('error', 'x')).toBe('\x1b[31mx\x1b[0m');
  });

  test('--fail-on maps the worst finding to the documented exit code', () => {
    const rep = (sev: string | null): Report =>
      ({
        checks: [{ id: 'c', title: 't', status: sev ? 'findings' : 'passed', notes: [], findings: sev ? [{ severity: sev }] : [] }],
      }) as unknown as Report;
    expect(exitCodeFor(rep(null), 'error')).toBe(0);
    expect(exitCodeFor(rep('warning'), 'error')).toBe(0);
    expect(exitCodeFor(rep('warning'), 'warning')).toBe(1);
    expect(exitCodeFor(rep('critical'), 'error')).toBe(1);
    expect(exitCodeFor(rep('critical'), 'none')).toBe(0);
  });
});
