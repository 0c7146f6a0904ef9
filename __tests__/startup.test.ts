// Start-up fast paths (src/fast-paths.ts) answer exactly as the full CLI would, and shell completion
// (src/complete.ts) through `__complete`, the completion scripts and the real kubectl's plugin
// completion (kubectl_complete-arch). No timing here: npm run bench measures it.
import { describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { etcdQuorum } from '../src/checks/etcd-quorum/check.js';
import { CHECKS } from '../src/checks/registry.js';
import { ALL_OUTPUTS, TAKES } from '../src/complete.js';
import { EXAMPLE_NAMES, EXAMPLE_PREFIX } from '../src/snapshot/examples.js';
import { WHATIF_CODES } from '../src/whatif/codes.js';
import { arch, BIN, kubectl, ROOT } from './helpers/run.js';
import { tempDir } from './helpers/tmp.js';

describe("fast paths give the full CLI's output", () => {
  // -v, which every command takes, is no fast path's: the full CLI answers
  test.each([
    [['version'], ['version', '-v']],
    [
      ['version', '-o', 'json'],
      ['version', '-o', 'json', '-v'],
    ],
    [
      ['version', '--output=yaml'],
      ['version', '--output=yaml', '--verbose'],
    ],
    [['--help'], ['--help', '--verbose']],
    [
      ['completion', 'bash'],
      ['completion', 'bash', '-v'],
    ],
    [
      ['completion', 'zsh'],
      ['completion', 'zsh', '-v'],
    ],
    [
      ['completion', 'fish'],
      ['completion', 'fish', '--verbose'],
    ],
    [['-h'], ['--help', '-v']],
  ])('%j = %j', async (fastArgs, fullArgs) => {
    const a = await arch(fastArgs);
    const b = await arch(fullArgs);
    expect(a).toEqual(b);
    expect(a.code).toBe(0);
    expect(a.stdout.length).toBeGreaterThan(10);
  });

  test('usage always reads kubectl arch', async () => {
    expect((await arch(['--help'])).stdout).toMatch(/^kubectl arch — /);
  });
});

const help = async (): Promise<string> => (await arch(['--help'])).stdout;
const candidates = (out: string): string[] =>
  out
    .trim()
    .split('\n')
    .filter((l) => !l.startsWith(':'))
    .map((l) => l.split('\t')[0] ?? '');

describe('completion', () => {
  test('commands: the ones --help lists, and nothing else', async () => {
    const listed = [...(await help()).matchAll(/^ {2}kubectl arch (\S+)/gm)].map((m) => m[1]);
    const r = await arch(['__complete', '']);
    expect(candidates(r.stdout).sort()).toEqual([...listed].sort());
    expect(r.stdout.endsWith(':4\n')).toBe(true);
  });

  test('flags: for each command, exactly the ones its --help lists; before a command, the top-level ones', async () => {
    const shown = (text: string): string[] => [...text.matchAll(/^(?: {2}-\w, | {6})(--[\w-]+)/gm)].map((m) => m[1]!);
    for (const cmd of [undefined, ...Object.keys(TAKES)]) {
      const listed = shown((await arch(cmd ? [cmd, '--help'] : ['--help'])).stdout);
      // yargs' --no-<flag> is offered beside the flag
      const negated = listed.filter((f) => f === '--color' || f === '--config').map((f) => `--no-${f.slice(2)}`);
      const offered = candidates((await arch(['__complete', ...(cmd ? [cmd] : []), '--'])).stdout);
      expect([cmd, [...offered].sort()]).toEqual([cmd, [...listed, ...negated].sort()]);
    }
    expect(candidates((await arch(['__complete', 'doctor', '--d'])).stdout)).toEqual(['--deep', '--deadline']);
    // what explain does not take is not offered
    expect(candidates((await arch(['__complete', 'explain', '-'])).stdout)).toEqual(['--output', '-o', '--verbose', '-v', '--help', '-h']);
  });

  test('explain completes check ids and finding codes; --fail-on and completion their values', async () => {
    const ex = candidates((await arch(['__complete', 'explain', ''])).stdout);
    expect(ex).toEqual(
      expect.arrayContaining(['immutable-retry-loop', 'gitops-orphans', 'etcd-quorum', 'ARCH-RL01', 'ARCH-OR06', 'ARCH-EQ07']),
    );
    expect(candidates((await arch(['__complete', 'explain', 'ARCH-EQ0'])).stdout)).toEqual(
      Object.keys(etcdQuorum.codes).filter((k) => k.startsWith('ARCH-EQ0')),
    );
    // rendered at build time: exactly the registry's ids and codes, then what-if's page and codes
    expect(ex).toEqual([...CHECKS.flatMap((c) => [c.id, ...Object.keys(c.codes)]), 'what-if', ...Object.keys(WHATIF_CODES)]);
    expect(candidates((await arch(['__complete', '--fail-on', 'w'])).stdout)).toEqual(['warning']);
    expect(candidates((await arch(['__complete', 'completion', ''])).stdout)).toEqual(['bash', 'zsh', 'fish']);
    // files where a flag takes a path: directive 0 lets the shell complete file names
    expect((await arch(['__complete', 'doctor', '--config', ''])).stdout).toBe(':0\n');
  });

  test('-o: the formats of the command being completed, and only those (TAKES)', async () => {
    for (const [cmd, t] of Object.entries(TAKES)) {
      for (const form of [
        ['-o', ''],
        ['--output', ''],
      ]) {
        const r = await arch(['__complete', cmd, ...(cmd === 'what-if' ? ['n1'] : []), ...form]);
        // a command without -o has no such flag: no format is offered
        if (t.outputs) expect([cmd, candidates(r.stdout)]).toEqual([cmd, [...t.outputs]]);
        else expect([cmd, candidates(r.stdout).filter((c) => ALL_OUTPUTS.includes(c))]).toEqual([cmd, []]);
        expect(r.stdout.endsWith(':4\n')).toBe(true);
      }
    }
    expect(candidates((await arch(['__complete', 'explain', '-o', ''])).stdout)).toEqual(['table', 'json', 'yaml']);
    expect(candidates((await arch(['__complete', 'what-if', 'ilwon', '-o', ''])).stdout)).toEqual([
      'table',
      'json',
      'yaml',
      'html',
      'sarif',
      'junit',
    ]);
    expect(candidates((await arch(['__complete', 'doctor', '--output=h'])).stdout)).toEqual(['--output=html']);
    expect(candidates((await arch(['__complete', 'map', '-o', 'm'])).stdout)).toEqual(['mermaid']);
    expect(candidates((await arch(['__complete', 'snapshot', '-o', ''])).stdout)).toEqual(['yaml', 'json']);
    // before a command is named: any command's
    expect(candidates((await arch(['__complete', '--output=j'])).stdout)).toEqual(['--output=json', '--output=junit']);
  });

  test('--snapshot: the example embedded in the binary, besides files', async () => {
    const dir = tempDir('ka-compl-snap-');
    const at = (args: string[]): string =>
      spawnSync(BIN, ['__complete', ...args], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } }).stdout.toString();
    const ex = `${EXAMPLE_PREFIX}${EXAMPLE_NAMES[0]}`;
    expect(ex).toBe('example:field-notes-k3s');
    // an empty directory: the example, and files left to the shell (directive 0)
    expect(at(['doctor', '--snapshot', ''])).toBe(`${ex}\tthe example embedded in kubectl-arch\n:0\n`);
    // what the word may name besides the example is offered with it (a shell lists files only when nothing is offered);
    // a directory with a slash, and no space after it (2)
    mkdirSync(join(dir, 'examples'));
    writeFileSync(join(dir, 'ex.yaml'), '');
    writeFileSync(join(dir, 'other.yaml'), '');
    writeFileSync(join(dir, '.hidden'), '');
    expect(candidates(at(['doctor', '--snapshot', 'ex']))).toEqual([ex, 'ex.yaml', 'examples/']);
    expect(at(['doctor', '--snapshot', 'ex']).endsWith('\n:2\n')).toBe(true);
    expect(candidates(at(['map', '--snapshot', '']))).toEqual([ex, 'ex.yaml', 'examples/', 'other.yaml']);
    expect(candidates(at(['what-if', '--snapshot=example:f']))).toEqual([`--snapshot=${ex}`]);
    // a word that names no example is a path: the shell's
    expect(at(['doctor', '--snapshot', 'oth'])).toBe(':0\n');
    expect(at(['doctor', '--snapshot', './'])).toBe(':0\n');
    // mcp refuses --snapshot (a call names it): nothing offered for it, and not offered as a flag
    expect(candidates(at(['mcp', '--sn']))).toEqual([]);
  });

  test('--context, --cluster, --user from the kubeconfig files (KUBECONFIG list, or --kubeconfig)', async () => {
    const dir = tempDir('ka-compl-');
    const kc = (ctx: string[]) =>
      `apiVersion: v1\nkind: Config\ncontexts:\n${ctx.map((c) => `- name: ${c}\n  context: {cluster: c-${c}, user: u-${c}}\n`).join('')}clusters:\n${ctx.map((c) => `- name: c-${c}\n  cluster: {server: "https://127.0.0.1:1"}\n`).join('')}users:\n${ctx.map((c) => `- name: u-${c}\n  user: {}\n`).join('')}`;
    writeFileSync(join(dir, 'a'), kc(['prod-eu', 'prod-us']));
    writeFileSync(join(dir, 'b'), kc(['staging']));
    writeFileSync(join(dir, 'bad'), ': not yaml: [');
    const env = { KUBECONFIG: [join(dir, 'a'), join(dir, 'missing'), join(dir, 'bad'), join(dir, 'b')].join(':') };
    expect(candidates((await arch(['__complete', 'doctor', '--context', ''], env)).stdout)).toEqual(['prod-eu', 'prod-us', 'staging']);
    expect(candidates((await arch(['__complete', '--context=prod'], env)).stdout)).toEqual(['--context=prod-eu', '--context=prod-us']);
    expect(candidates((await arch(['__complete', '--cluster', 'c-s'], env)).stdout)).toEqual(['c-staging']);
    expect(candidates((await arch(['__complete', '--kubeconfig', join(dir, 'b'), '--user', ''], env)).stdout)).toEqual(['u-staging']);
    // --contexts: the next name of the comma-separated list, without the ones already named
    expect(candidates((await arch(['__complete', 'doctor', '--contexts', 'prod-eu,'], env)).stdout)).toEqual([
      'prod-eu,prod-us',
      'prod-eu,staging',
    ]);
    expect(candidates((await arch(['__complete', 'quorum', '--contexts=st'], env)).stdout)).toEqual(['--contexts=staging']);
  });

  test('the real kubectl completes `kubectl arch` through bin/kubectl_complete-arch', async () => {
    const r = await kubectl(['__complete', 'arch', 'explain', 'gitops']);
    expect(r.stdout).toBe('gitops-orphans\tOrphans of deleted GitOps owners\n:4\n');
    expect(candidates((await kubectl(['__complete', 'arch', 'q'])).stdout)).toEqual(['quorum']);
  });

  test('completion bash: the script completes kubectl-arch in bash', async () => {
    const script = (await arch(['completion', 'bash'])).stdout;
    const r = spawnSync(
      'bash',
      ['-c', `${script}\nCOMP_WORDS=(kubectl-arch explain etcd-q); COMP_CWORD=2; _kubectl_arch; printf '%s\\n' "\${COMPREPLY[@]}"`],
      {
        env: { ...process.env, PATH: `${ROOT}bin:${process.env.PATH}` },
      },
    );
    expect(r.stdout.toString()).toBe('etcd-quorum\n');
  });

  test.each(['zsh', 'fish'])('completion %s: a script that the shell parses (where installed)', async (shell) => {
    const script = (await arch(['completion', shell])).stdout;
    expect(script).toContain('kubectl-arch __complete');
    const which = spawnSync('sh', ['-c', `command -v ${shell}`]);
    if (which.status !== 0) return; // not installed here: content checked above
    // from a file: fish reads no script from a pipe with -n ("Unable to read input file")
    const dir = tempDir('kubectl-arch-completion-');
    const file = join(dir, `arch.${shell}`);
    writeFileSync(file, script);
    // fish's runtime directory in the test's own (else $TMPDIR/fish.$USER is left behind)
    const r = spawnSync(shell, ['-n', file], { env: { ...process.env, XDG_RUNTIME_DIR: dir } });
    expect([r.status, String(r.stderr)]).toEqual([0, '']);
  });

  test('an unknown shell is a usage error', async () => {
    const r = await arch(['completion', 'tcsh']);
    expect(r.code).toBe(2);
  });
});
