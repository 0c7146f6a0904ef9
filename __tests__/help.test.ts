// Each command's --help shows exactly the flags it takes and the -o values it accepts, with its own default; the
// parser refuses the others (exit 2); every refusal of an -o value names exactly the formats that command takes. The
// one source of truth is TAKES (src/complete.ts): src/cli.ts declares from it, completion offers from it.
import { describe, expect, test } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_OUTPUTS, COMMANDS, flagsOf, outputRefusal, TAKES } from '../src/complete.js';
import { MACHINE_FORMATS, OUTPUTS } from '../src/render/formats/model.js';
import { EXAMPLE } from './helpers/fixtures.js';
import { arch, type RunResult } from './helpers/run.js';
import { tempDir } from './helpers/tmp.js';

const commands = Object.keys(TAKES);

interface Help {
  /** every flag shown, long form (--name), and the short ones (-x) */
  long: string[];
  short: string[];
  /** -o: its choices and default, when shown */
  choices?: string[];
  default?: string;
}

/** The flags a --help text lists, and what it says of -o. */
function parseHelp(text: string): Help {
  const lines = text.split('\n');
  // "  -o, --output" or "      --kubeconfig" (a description's wrapped lines are indented further)
  const flag = /^(?: {2}(-\w), | {6})(--[\w-]+)/;
  const long: string[] = [];
  const short: string[] = [];
  let choices: string[] | undefined;
  let dflt: string | undefined;
  lines.forEach((l, i) => {
    const m = flag.exec(l);
    if (!m) return;
    long.push(m[2]!);
    if (m[1]) short.push(m[1]);
    if (m[2] === '--output') {
      // the option's lines: until the next flag, or a blank line (its choices may wrap)
      const own = [l];
      for (let j = i + 1; j < lines.length && !flag.test(lines[j]!) && lines[j]!.trim() !== ''; j++) own.push(lines[j]!);
      const block = own.join(' ').replace(/\s+/g, ' ');
      choices = [.../\[choices: ([^\]]*)\]/.exec(block)![1]!.matchAll(/"([\w-]+)"/g)].map((x) => x[1]!);
      dflt = /\[default: "([\w-]+)"\]/.exec(block)?.[1];
    }
  });
  return { long, short, choices, default: dflt };
}

const inWords = (xs: readonly string[], and: string): string =>
  xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} ${and} ${xs.at(-1)}`;

/** At most `limit` CLI runs at once. */
async function pooled<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

const helpOf = async (cmd: string): Promise<Help> => {
  const r = await arch([cmd, '--help']);
  expect([cmd, r.code, r.stderr]).toEqual([cmd, 0, '']);
  return parseHelp(r.stdout);
};

describe('the table', () => {
  test('covers every command, and every -o value some command writes', () => {
    expect(commands).toEqual(COMMANDS.map(([c]) => c));
    for (const o of OUTPUTS) expect(ALL_OUTPUTS).toContain(o);
    // the machine formats are the reports of the checks: doctor, orphans and quorum
    for (const c of ['doctor', 'orphans', 'quorum']) expect(TAKES[c]!.outputs).toEqual(expect.arrayContaining([...MACHINE_FORMATS]));
  });
});

describe('--help', () => {
  test.each(commands)('%s --help lists exactly its flags, and -o with its own values and default', async (cmd) => {
    const h = await helpOf(cmd);
    expect([...h.long].sort()).toEqual([...flagsOf(cmd).map((f) => `--${f}`), '--help'].sort());
    const t = TAKES[cmd]!;
    if (t.outputs) {
      expect(h.choices).toEqual(t.outputs);
      expect(h.default).toBe(t.outputs[0]);
    } else expect(h.choices).toBeUndefined();
    // flags it only refuses (with its reason) are not shown
    for (const f of t.refused ?? []) expect(h.long).not.toContain(`--${f}`);
  });

  test('explain, rbac, version, completion and mcp show no flag that means nothing there', async () => {
    const explain = await helpOf('explain');
    for (const f of ['--context', '--kubeconfig', '--snapshot', '--namespace', '--fail-on', '--color', '--deadline'])
      expect(explain.long).not.toContain(f);
    expect(explain.choices).toEqual(['table', 'json', 'yaml']);
    expect((await helpOf('rbac')).long.sort()).toEqual(['--help', '--verbose']);
    expect((await helpOf('completion')).long.sort()).toEqual(['--help', '--verbose']);
    const version = await helpOf('version');
    expect([version.long.sort(), version.choices]).toEqual([
      ['--help', '--output', '--verbose'],
      ['table', 'json', 'yaml'],
    ]);
    const mcp = await helpOf('mcp');
    for (const f of ['--snapshot', '--output', '--fail-on', '--color', '--namespace', '--contexts', '--cluster', '--user'])
      expect(mcp.long).not.toContain(f);
    expect(mcp.long).toEqual(expect.arrayContaining(['--kubeconfig', '--context', '--allow-snapshot-dir', '--config']));
  });

  test('spot checks: what-if writes html, shows -n (for -f) and no -A; snapshot writes YAML by default; diff writes markdown', async () => {
    const w = await helpOf('what-if');
    expect(w.choices).toEqual(['table', 'json', 'yaml', 'html', 'sarif', 'junit']);
    expect([w.long, w.short]).toEqual([expect.arrayContaining(['--namespace']), expect.arrayContaining(['-n', '-f'])]);
    expect([w.long, w.short]).toEqual([expect.not.arrayContaining(['--all-namespaces']), expect.not.arrayContaining(['-A'])]);
    expect((await arch(['what-if', '--help'])).stdout.replace(/\s+/g, ' ')).toContain(
      '-n, --namespace With -f: the namespace of manifests that name none',
    );
    const s = await helpOf('snapshot');
    expect([s.choices, s.default]).toEqual([['yaml', 'json'], 'yaml']);
    const d = await helpOf('diff');
    expect([d.choices, d.long.includes('--kubeconfig')]).toEqual([['table', 'json', 'yaml', 'markdown'], false]);
    expect((await helpOf('doctor')).choices).toEqual(['table', 'json', 'yaml', ...MACHINE_FORMATS, 'html']);
    expect((await helpOf('map')).choices).toEqual(['table', 'json', 'yaml', 'html', 'mermaid', 'dot']);
  });

  test('--snapshot says example:field-notes-k3s is the example embedded in the binary', async () => {
    const r = await arch(['doctor', '--help']);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('example:field-notes-k3s names the example embedded in kubectl-arch');
  });

  test('the top-level --help lists the flags every command takes, and where to find the others', async () => {
    const r = await arch(['--help']);
    const h = parseHelp(r.stdout);
    expect(h.long.sort()).toEqual([...flagsOf(undefined).map((f) => `--${f}`), '--help'].sort());
    expect(r.stdout).toContain('kubectl arch <command> --help');
  });
});

describe('flags a command does not take', () => {
  test.each([
    [['explain', '--context', 'x'], 'explain does not take --context'],
    [['explain', 'etcd-quorum', '--snapshot', EXAMPLE], 'explain does not take --snapshot'],
    [['version', '--no-color'], 'version does not take --no-color'],
    [['rbac', '-n', 'x'], 'rbac does not take -n'],
    [['map', '--fail-on', 'none'], 'map does not take --fail-on'],
    [['mcp', '--color'], 'mcp does not take --color'],
    [['completion', 'bash', '--kubeconfig', '/x'], 'completion does not take --kubeconfig'],
    // a flag before the command is the command's to take
    [['-A', 'explain'], 'explain does not take -A'],
  ])('%j: a usage error (exit 2)', async (args, msg) => {
    const r = await arch(args);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `error: ${msg}\n  hint: kubectl arch ${msg.split(' ')[0]} --help\n`]);
  });

  test('a flag before the command is read as the command reads it', async () => {
    const r = await arch(['-A', 'orphans', '--snapshot', EXAMPLE, '-o', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).kind).toBe('OrphanReport');
  });
});

describe('-o', () => {
  test('every refusal of a value names where it belongs and exactly the formats the command takes', () => {
    for (const cmd of commands)
      for (const o of [...ALL_OUTPUTS, 'xml']) {
        const takes = TAKES[cmd]!.outputs;
        if (takes?.some((x) => x === o)) continue;
        const by = commands.filter((c) => TAKES[c]!.outputs?.some((x) => x === o));
        expect([cmd, o, outputRefusal(cmd, o)]).toEqual([
          cmd,
          o,
          !takes
            ? { message: `${cmd} has no -o`, hint: `leave out -o (kubectl arch ${cmd} --help)` }
            : {
                message: `-o ${o} ${by.length ? `is for ${inWords(by, 'and')}, not ${cmd}` : 'is not an output format'}`,
                hint: `use -o ${inWords(takes, 'or')}`,
              },
        ]);
      }
  });

  test.each(commands.filter((c) => c !== 'mcp'))('%s refuses a value it does not take with that refusal (exit 2)', async (cmd) => {
    const o = [...ALL_OUTPUTS, 'xml'].find((x) => !(TAKES[cmd]!.outputs ?? []).some((y) => y === x))!;
    const positional: Record<string, string[]> = { 'what-if': ['n1'], diff: ['a.json', 'b.json'], completion: ['bash'] };
    const r = await arch([cmd, ...(positional[cmd] ?? []), '-o', o]);
    const { message, hint } = outputRefusal(cmd, o);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `error: ${message}\n  hint: ${hint}\n`]);
  });

  test('spot checks: doctor -o mermaid and what-if -o prometheus name html among what they take', async () => {
    const d = await arch(['doctor', '-o', 'mermaid', '--snapshot', EXAMPLE]);
    expect([d.code, d.stderr]).toEqual([
      2,
      'error: -o mermaid is for map, not doctor\n  hint: use -o table, json, yaml, sarif, junit, prometheus, policyreport, openreports or html\n',
    ]);
    const w = await arch(['what-if', 'ilwon', '--snapshot', EXAMPLE, '-o', 'prometheus']);
    expect([w.code, w.stderr]).toEqual([
      2,
      'error: -o prometheus is for doctor, orphans and quorum, not what-if\n  hint: use -o table, json, yaml, html, sarif or junit\n',
    ]);
    const s = await arch(['snapshot', '--output=table']);
    expect(s.stderr).toMatch(/^error: -o table is for .*, not snapshot\n {2}hint: use -o yaml or json\n$/);
  });

  test('every value the table gives a command, the command takes (no usage error)', async () => {
    const dir = tempDir();
    const report = join(dir, 'report.json');
    writeFileSync(report, (await arch(['doctor', '--snapshot', EXAMPLE, '-o', 'json', '--no-config'])).stdout);
    const args: Record<string, string[]> = {
      doctor: ['doctor', '--snapshot', EXAMPLE, '--no-config'],
      map: ['map', '--snapshot', EXAMPLE],
      'what-if': ['what-if', 'ilwon', '--snapshot', EXAMPLE],
      snapshot: ['snapshot', '--snapshot', EXAMPLE],
      orphans: ['orphans', '--snapshot', EXAMPLE, '--no-config'],
      quorum: ['quorum', '--snapshot', EXAMPLE, '--no-config'],
      diff: ['diff', report, report],
      explain: ['explain', 'etcd-quorum'],
      version: ['version'],
    };
    expect(Object.keys(args).sort()).toEqual(commands.filter((c) => TAKES[c]!.outputs).sort());
    const cases = Object.entries(args).flatMap(([cmd, a]) => TAKES[cmd]!.outputs!.map((o) => [cmd, [...a, '-o', o]] as const));
    const results: RunResult[] = await pooled(cases, 4, ([, a]) => arch([...a]));
    cases.forEach(([cmd, a], i) => {
      const r = results[i]!;
      expect([cmd, a.at(-1), r.code === 0 || r.code === 1, r.stderr]).toEqual([cmd, a.at(-1), true, expect.not.stringMatching(/^error:/m)]);
      expect(r.stdout.length).toBeGreaterThan(0);
    });
  }, 120_000);
});
