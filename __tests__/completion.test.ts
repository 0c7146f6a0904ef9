// Shell completion is text for a command line: a candidate from a kubeconfig must be inserted as the text it is,
// never as code (a context named prod$(touch x) ran on Enter in bash), never glob-expanded (a context named *),
// and never carry control characters to the terminal. Each shell is driven for real, in a terminal (`script`),
// where it is installed: TAB, then a key bound to write the command line to a file; Enter is never pressed.
import { afterAll, describe, expect, test } from '@jest/globals';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { arch, ROOT } from './helpers/run.js';
import { tempDir } from './helpers/tmp.js';

const NAMES = [
  'prod$(touch x)',
  '*',
  'st a',
  "q'uote",
  'co:lon',
  'back\\slash',
  '-n',
  ':x',
  'esc\x1b]0;t\x07',
  'tab\tx',
  'nl\nx',
  'del\x7fx',
  'bidi\u202ex',
];
const CLEAN = ['prod$(touch x)', '*', 'st a', "q'uote", 'co:lon', 'back\\slash', '-n', ':x'];

/** A kubeconfig with these context names (JSON, so any string can be written), and one with a lone surrogate. */
function kubeconfigs(dir: string): string {
  const kc = (names: string[]) =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: names.map((name) => ({ name, context: { cluster: 'c', user: 'u' } })),
    });
  writeFileSync(join(dir, 'kc'), kc(NAMES));
  writeFileSync(join(dir, 'kc-lone'), kc(['lone\ud800x']));
  // files a glob would expand to
  for (const f of ['f1', 'f2']) writeFileSync(join(dir, f), '');
  return `${join(dir, 'kc')}:${join(dir, 'kc-lone')}`;
}

/** One candidate a line, then the directive line last (a candidate may begin with a colon too). */
const candidates = (out: string): string[] =>
  out
    .split('\n')
    .slice(0, -2)
    .map((l) => l.split('\t')[0]!);

const installed = (shell: string): boolean => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
const PATH = `${ROOT}bin:${process.env.PATH}`;

const sessions = new Set<ChildProcess>();
afterAll(() => {
  for (const c of sessions) c.kill('SIGKILL');
});

/**
 * Types keys into an interactive shell in a terminal and returns its command line once the key bound to write it
 * (Ctrl-X) has: the shell reads the keys as a person's typing. The session is then killed, by its PID.
 */
async function typed(shell: 'bash' | 'zsh' | 'fish', dir: string, keys: string): Promise<string> {
  const script = (await arch(['completion', shell])).stdout;
  writeFileSync(join(dir, `comp.${shell}`), script);
  const out = join(dir, 'line.out');
  rmSync(out, { force: true });
  const rc = {
    bash: `source ./comp.bash\nbind -x '"\\C-x": printf "%s\\n" "$READLINE_LINE" > line.out'\n`,
    zsh: `autoload -Uz compinit && compinit -u -D\nsource ./comp.zsh\ndump() { print -r -- "$BUFFER" > line.out }\nzle -N dump\nbindkey '^X' dump\n`,
    fish: `source ./comp.fish\nbind \\cx 'commandline > line.out'\n`,
  }[shell];
  writeFileSync(join(dir, `rc.${shell}`), rc);
  const cmd = { bash: 'bash --norc --noprofile -i', zsh: 'zsh -f -i', fish: 'fish --no-config -i' }[shell];
  const child = spawn('script', ['-qec', cmd, '/dev/null'], {
    cwd: dir,
    stdio: ['pipe', 'ignore', 'ignore'],
    // fish keeps a runtime directory ($TMPDIR/fish.$USER without XDG_RUNTIME_DIR): the test's own, removed with it
    env: { ...process.env, PATH, XDG_RUNTIME_DIR: dir },
  });
  sessions.add(child);
  child.stdin.write(`source ./rc.${shell}\n${keys}\x18`);
  try {
    // by what happened, not by time: until the shell has written the line (the test's own timeout bounds it)
    while (!(existsSync(out) && readFileSync(out, 'utf8').endsWith('\n'))) await new Promise((r) => setTimeout(r, 50));
    return readFileSync(out, 'utf8').slice(0, -1);
  } finally {
    child.kill('SIGKILL');
    sessions.delete(child);
  }
}

/** What sh makes of the words of a command line (without running anything but printf). */
function words(line: string, dir: string): string[] {
  const r = spawnSync('bash', ['-c', `printf '%s\\0' ${line}`], { cwd: dir });
  return r.stdout.toString().split('\0').slice(0, -1);
}

describe('__complete', () => {
  test('a candidate with a control character (or a lone surrogate) is left out; the others are offered as they are', async () => {
    const dir = tempDir();
    const r = await arch(['__complete', '--context', ''], { KUBECONFIG: kubeconfigs(dir) });
    expect(candidates(r.stdout)).toEqual(CLEAN);
    expect(r.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]/);
    expect(r.stdout).not.toContain('lone');
  });
});

describe('bash', () => {
  const bash = (dir: string, words: string, kc: string) =>
    spawnSync(
      'bash',
      [
        '-c',
        `source ./comp.bash; COMP_WORDS=(${words}); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _kubectl_arch; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      {
        cwd: dir,
        env: { ...process.env, PATH, KUBECONFIG: kc },
      },
    ).stdout.toString();

  test('each candidate is quoted for the command line, never glob-expanded; quoted, it is the name again', async () => {
    const dir = tempDir();
    const kc = kubeconfigs(dir);
    writeFileSync(join(dir, 'comp.bash'), (await arch(['completion', 'bash'])).stdout);
    const reply = bash(dir, `kubectl-arch --context ''`, kc).split('\n').slice(0, -1);
    expect(reply).toEqual(['prod\\$\\(touch\\ x\\)', '\\*', 'st\\ a', "q\\'uote", 'co:lon', 'back\\\\slash', '-n', ':x']);
    expect(reply.map((w) => words(w, dir)[0])).toEqual(CLEAN);
    expect(readdirSync(dir)).not.toContain('x');
  });

  test('--snapshot: the embedded example and the entries of the directory, quoted; no space after a directory', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'comp.bash'), (await arch(['completion', 'bash'])).stdout);
    for (const d of ['examples', 'ex (copy)']) mkdirSync(join(dir, d));
    const reply = bash(dir, `kubectl-arch doctor --snapshot ex`, '/nonexistent').split('\n').slice(0, -1);
    expect(reply).toEqual(['example:field-notes-k3s', 'ex\\ \\(copy\\)/', 'examples/']);
    expect(words(reply[1]!, dir)).toEqual(['ex (copy)/']);
  });

  (installed('script') ? test : test.skip)(
    'TAB in an interactive bash inserts the quoted name',
    async () => {
      const dir = tempDir();
      const kc = kubeconfigs(dir);
      const line = await typed('bash', dir, `kubectl-arch --kubeconfig ${kc.split(':')[0]} --context pro\t`);
      expect(line).toBe(`kubectl-arch --kubeconfig ${kc.split(':')[0]} --context prod\\$\\(touch\\ x\\) `);
      expect(words(line, dir).at(-1)).toBe('prod$(touch x)');
      expect(readdirSync(dir)).not.toContain('x');
    },
    60_000,
  );
});

describe.each(['zsh', 'fish'] as const)('%s', (shell) => {
  // skipped where the shell is not installed (startup.test.ts checks the script's text there)
  (installed(shell) && installed('script') ? test : test.skip)(
    `TAB in an interactive ${shell} inserts the quoted name`,
    async () => {
      const dir = tempDir();
      const kc = kubeconfigs(dir).split(':')[0]!;
      for (const [typedName, inserted, name] of [
        ['pro', 'prod\\$\\(touch\\ x\\)', 'prod$(touch x)'],
        ['st', 'st\\ a', 'st a'],
        // zsh's _describe reads value:description: a colon or backslash in a name was lost there
        ['co', 'co:lon', 'co:lon'],
        ['ba', 'back\\\\slash', 'back\\slash'],
      ]) {
        const line = await typed(shell, dir, `kubectl-arch --kubeconfig ${kc} --context ${typedName}\t`);
        expect(line).toBe(`kubectl-arch --kubeconfig ${kc} --context ${inserted} `);
        expect(words(line, dir).at(-1)).toBe(name);
      }
      expect(readdirSync(dir)).not.toContain('x');
    },
    60_000,
  );
});

describe.each(['bash', 'zsh', 'fish'] as const)('%s: --snapshot', (shell) => {
  (installed(shell) && installed('script') ? test : test.skip)(
    `TAB in an interactive ${shell} inserts the embedded example, and goes into a directory with no space after it`,
    async () => {
      const dir = tempDir();
      const line = await typed(shell, dir, `kubectl-arch doctor --snapshot exa\t`);
      expect(line).toBe('kubectl-arch doctor --snapshot example:field-notes-k3s ');
      mkdirSync(join(dir, 'example-snaps'));
      writeFileSync(join(dir, 'example-snaps', 'nodes.yaml'), '');
      // the directory and the example share "example": a directory typed past that is completed as one
      const into = await typed(shell, dir, `kubectl-arch doctor --snapshot example-\t`);
      expect(into).toBe('kubectl-arch doctor --snapshot example-snaps/');
    },
    60_000,
  );
});
