// The README is for the people who use kubectl-arch (#46): under 400 lines, what is for developers in docs/; and
// every relative link of it and of docs/ reaches a file, and a heading of that file when it names one (as GitHub
// makes anchors: lower case, punctuation but - and _ dropped, spaces as -).
import { describe, expect, test } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './helpers/run.js';

const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor of a heading. */
const slug = (h: string): string =>
  h
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The text outside fenced code blocks (a fence is a line that starts with three backticks). */
function prose(file: string): string {
  let inFence = false;
  return readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .filter((l) => {
      if (/^\s*```/.test(l)) inFence = !inFence;
      return !inFence && !/^\s*```/.test(l);
    })
    .join('\n');
}

function anchors(file: string): Set<string> {
  const text = prose(file);
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

describe('the README and docs/', () => {
  test('the README is under 400 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThan(400);
  });

  test.each(DOCS)('%s: every relative link reaches its file and heading', (file) => {
    const text = prose(file);
    const broken: string[] = [];
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = m[1]!;
      if (/^[a-z]+:/.test(link)) continue;
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path ? join(dirname(file), path) : file;
      if (!existsSync(join(ROOT, target))) broken.push(link);
      else if (anchor && target.endsWith('.md') && !anchors(target).has(anchor)) broken.push(link);
    }
    expect(broken).toEqual([]);
  });
});
