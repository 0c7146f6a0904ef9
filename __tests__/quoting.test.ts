// A printed command runs exactly what it says (#43). Names come from the full set each kind's validation accepts —
// RBAC objects and custom resources are only path segments (anything but "/", "%", "." and ".."), so
// `x;touch${IFS}/tmp/pwned;#`, `$(touch /tmp/pwned)` and `a`id`b` are real names — and every command is run by real
// shells (bash, zsh; sh where the line needs no $'…') in an empty directory, with PATH holding only a stub for each
// program a fix names, which records its argv. Asserted: each stub got exactly the argument list the tool meant, no
// other program ran (a shell says "command not found" on stderr), and no file appeared.
import { describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { CHECKS } from '../src/checks/registry.js';
import { runChecks } from '../src/checks/run.js';
import { argvText, Command, NO_COMMAND, quote, type Argv } from '../src/lib/shell.js';
import type { KObject } from '../src/model.js';
import { cleanupPlan } from '../src/orphans/plan.js';
import { scanOrphans, type OrphanGroup } from '../src/orphans/scan.js';
import { loadSnapshot } from '../src/snapshot/load.js';
import { dump, loadAll } from 'js-yaml';
import { corpusCases } from './helpers/corpus.js';
import { SEED } from './helpers/seed.js';
import { tempDir } from './helpers/tmp.js';

const installed = (p: string): boolean => spawnSync('sh', ['-c', `command -v ${p}`]).status === 0;
const SHELLS = (['bash', 'zsh'] as const).filter(installed);
/** Programs a fix names (each a recording stub here). */
const PROGRAMS = ['kubectl', 'helm', 'argocd', 'flux', 'systemctl', 'journalctl', 'grep', 'base64', 'openssl', 'oc', 'k0s', 'talosctl'];

/** The bytes a shell passes for a string: UTF-8, a lone surrogate as its three WTF-8 bytes (as quote() writes it). */
function bytesOf(s: string): Buffer {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.codePointAt(i)!;
    if (c > 0xffff) i++;
    if (c >= 0xd800 && c <= 0xdfff) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
    else out.push(...Buffer.from(String.fromCodePoint(c), 'utf8'));
  }
  return Buffer.from(out);
}

/** A directory with a stub per program; each call writes its name and argv (NUL-separated) to calls/<pid>. */
function stubs(): { dir: string; bin: string; calls: string } {
  const dir = tempDir('kubectl-arch-quoting-');
  const bin = join(dir, 'bin');
  const calls = join(dir, 'calls');
  mkdirSync(bin);
  mkdirSync(calls);
  const stub = join(dir, 'stub');
  // bash itself is found by its absolute path: PATH holds only the stubs
  writeFileSync(
    stub,
    `#!${spawnSync('sh', ['-c', 'command -v bash']).stdout.toString().trim()}\nprintf '%s\\0' "\${0##*/}" "$@" > "${calls}/$$"\n`,
  );
  chmodSync(stub, 0o755);
  for (const p of PROGRAMS) symlinkSync(stub, join(bin, p));
  return { dir, bin, calls };
}

/** What the stubs recorded, each call as its argv (program first), sorted (pipeline stages run at once). */
function recorded(calls: string): string[][] {
  return readdirSync(calls)
    .map((f) => {
      const parts = readFileSync(join(calls, f)).toString('latin1').split('\0');
      parts.pop();
      return parts;
    })
    .sort(byArgv);
}
const byArgv = (a: string[], b: string[]): number => (a.join('\0') < b.join('\0') ? -1 : a.join('\0') > b.join('\0') ? 1 : 0);
/** An argv as the stubs record it: each argument's bytes read one byte a character. */
const asRecorded = (argv: Argv): string[] => argv.map((a) => bytesOf(a).toString('latin1'));

/** Runs a script in `shell` with PATH = the stubs only, in an empty work directory. */
function run(shell: string, script: string, env: { dir: string; bin: string }): { status: number | null; stderr: string; files: string[] } {
  const work = join(env.dir, 'work');
  mkdirSync(work, { recursive: true });
  const path = join(env.dir, 'script');
  writeFileSync(path, script);
  const r = spawnSync(
    shell === 'sh'
      ? '/bin/sh'
      : spawnSync('sh', ['-c', `command -v ${shell}`])
          .stdout.toString()
          .trim(),
    shell === 'zsh' ? ['-f', path] : [path],
    {
      cwd: work,
      env: { PATH: env.bin, HOME: work },
    },
  );
  return { status: r.status, stderr: r.stderr.toString(), files: readdirSync(work) };
}

// ---- names as each kind's validation accepts them

const SHELL_CHARS = [...';&|$`\'"\\<>(){}[]*?~#!=%^ \t\n\r'].filter((c) => c !== '%');
const UNSEEN = ['\u200b', '\u202e', '\u2066', '\ufeff', '\u0085', '\u001b', '\u0007', '\u00ad', '\ud83d', '\udca9', '\u0000'];
/** RBAC objects and custom resources: any text but "/", "%", "." and ".." (apimachinery path.IsValidPathSegmentName). */
const pathSegment = fc
  .array(
    fc.oneof(
      fc.constantFrom(...SHELL_CHARS, ...UNSEEN, '$(', '${IFS}', '`id`', "'\\''", '-', '.'),
      fc.string({ unit: 'grapheme', maxLength: 3 }),
    ),
    {
      minLength: 1,
      maxLength: 12,
    },
  )
  .map((xs) => xs.join(''))
  .filter((s) => s !== '' && s !== '.' && s !== '..' && !s.includes('/') && !s.includes('%'));
const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/);
/** Most built-in kinds: a DNS-1123 subdomain; namespaces: a DNS-1123 label. */
const subdomain = fc.array(label, { minLength: 1, maxLength: 3 }).map((xs) => xs.join('.'));

describe('quote(): the word a shell turns back into exactly the string', () => {
  test.each(SHELLS)(`%s gives back every string (seed ${SEED})`, (shell) => {
    const env = stubs();
    fc.assert(
      fc.property(fc.array(fc.oneof(pathSegment, fc.string({ unit: 'binary' }), subdomain), { minLength: 1, maxLength: 20 }), (args) => {
        const argv = args.filter((a) => !a.includes('\0'));
        const r = run(shell, `kubectl ${argv.map(quote).join(' ')}\n`, env);
        const got = recorded(env.calls);
        for (const f of readdirSync(env.calls)) spawnSync('rm', [join(env.calls, f)]);
        expect([r.status, r.stderr, r.files]).toEqual([0, '', []]);
        expect(got).toEqual([asRecorded(['kubectl', ...argv])]);
      }),
      { numRuns: 60 },
    );
  });

  test('sh (POSIX) gives back every string the line writes without $…', () => {
    const env = stubs();
    const plain = [
      'x;touch${IFS}/tmp/pwned;#',
      '$(touch pwned)',
      'a`id`b',
      "it's",
      '',
      '-n',
      '~root',
      '=x',
      '*',
      'é ü',
      '漢字',
      '[a]',
      '{a,b}',
    ];
    expect(plain.map(quote).join(' ')).not.toContain("$'");
    const r = run('sh', `kubectl ${plain.map(quote).join(' ')}\n`, env);
    expect([r.status, r.stderr, r.files]).toEqual([0, '', []]);
    expect(recorded(env.calls)).toEqual([asRecorded(['kubectl', ...plain])]);
  });

  test('what no shell may be given raw is written $…, one line, showing what it runs', () => {
    expect(quote('kube-system')).toBe('kube-system');
    expect(quote('x;touch${IFS}/tmp/pwned;#')).toBe("'x;touch${IFS}/tmp/pwned;#'");
    expect(quote("it's")).toBe("'it'\\''s'");
    expect(quote('=x')).toBe("'=x'");
    expect(quote('a\nb')).toBe("$'a\\x0ab'");
    expect(quote('n1\u200b')).toBe("$'n1\\xe2\\x80\\x8b'");
    expect(quote("'\\\u202e")).toBe("$'\\'\\\\\\xe2\\x80\\xae'");
    expect(() => quote('a\0b')).toThrow(/NUL/);
    // a name holding a NUL cannot be passed: its command is a comment, never the name cut short (another object)
    expect(argvText(['kubectl', 'delete', 'role', 'admin\0x'])).toBe(NO_COMMAND);
    expect(new Command([['kubectl', 'get', 'role', 'a\0']], 'see').toString()).toBe(`see: ${NO_COMMAND}`);
  });
});

// ---- the cleanup plan

const KINDS: Array<{ kind: string; apiVersion: string; namespaced: boolean; name: fc.Arbitrary<string> }> = [
  { kind: 'Role', apiVersion: 'rbac.authorization.k8s.io/v1', namespaced: true, name: pathSegment },
  { kind: 'RoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1', namespaced: true, name: pathSegment },
  { kind: 'ClusterRole', apiVersion: 'rbac.authorization.k8s.io/v1', namespaced: false, name: pathSegment },
  { kind: 'ClusterRoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1', namespaced: false, name: pathSegment },
  { kind: 'Widget', apiVersion: 'example.com/v1', namespaced: true, name: pathSegment },
  { kind: 'Deployment', apiVersion: 'apps/v1', namespaced: true, name: subdomain },
  { kind: 'ConfigMap', apiVersion: 'v1', namespaced: true, name: subdomain },
  { kind: 'Service', apiVersion: 'v1', namespaced: true, name: label },
  { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespaced: true, name: subdomain },
];

const group = fc
  .record({
    owner: pathSegment,
    ns: label,
    objects: fc.array(
      fc.integer({ min: 0, max: KINDS.length - 1 }).chain((i) => KINDS[i]!.name.map((name) => ({ ...KINDS[i]!, name }))),
      {
        minLength: 1,
        maxLength: 6,
      },
    ),
    routes: fc.array(pathSegment, { maxLength: 1 }),
    deletable: fc.boolean(),
  })
  .map((g): OrphanGroup => ({
    owner: { tool: 'Argo CD', kind: 'Application', namespace: 'argocd', name: g.owner },
    objects: [
      ...g.objects.map((o) => ({
        kind: o.kind,
        apiVersion: o.apiVersion,
        name: o.name,
        ...(o.namespaced ? { namespace: g.ns } : {}),
        signal: 'annotation' as const,
      })),
      { kind: 'Namespace', apiVersion: 'v1', name: g.ns, signal: 'annotation' as const },
    ],
    namespaced: g.objects.filter((o) => o.namespaced).length,
    clusterScoped: g.objects.filter((o) => !o.namespaced).length,
    confidence: 'high',
    signals: ['annotation'],
    caveats: [],
    liveness: {
      servingTraffic: g.routes.length > 0,
      routes: g.routes,
      summary: g.routes.length ? 'serving' : 'idle',
    } as OrphanGroup['liveness'],
    namespaces: [{ name: g.ns, deletable: g.deletable, others: g.deletable ? [] : ['Secret x'] }],
    storage: g.objects
      .filter((o) => o.kind === 'PersistentVolumeClaim')
      .map((o) => ({ kind: o.kind, namespace: g.ns, name: o.name, volume: `pv-${o.name}` })),
  }));

/** The deletes a plan means: every object of each group not held back, the namespace last when it may go. */
function meant(groups: OrphanGroup[]): string[][] {
  const out: string[][] = [];
  for (const g of groups) {
    if (g.liveness.servingTraffic || g.confidence === 'low') continue;
    for (const o of g.objects) {
      if (o.kind === 'Namespace' && !o.namespace) continue;
      const grp = o.apiVersion?.includes('/') ? o.apiVersion.split('/')[0] : '';
      out.push([
        'kubectl',
        'delete',
        grp ? `${o.kind.toLowerCase()}.${grp}` : o.kind.toLowerCase(),
        o.name,
        ...(o.namespace ? ['-n', o.namespace] : []),
        '--wait=false',
      ]);
    }
    // a namespace goes only when the group holds it and nothing else lives there
    for (const ns of g.namespaces)
      if (ns.deletable && g.objects.some((o) => o.kind === 'Namespace' && o.name === ns.name))
        out.push(['kubectl', 'delete', 'namespace', ns.name, '--wait=false']);
  }
  return out
    .filter((a) => !a.some((x) => x.includes('\0')))
    .map(asRecorded)
    .sort(byArgv);
}

describe('orphans --cleanup-plan', () => {
  test.each(SHELLS)(`%s runs exactly the deletes the plan means, and nothing else (seed ${SEED})`, (shell) => {
    const env = stubs();
    fc.assert(
      fc.property(fc.array(group, { minLength: 1, maxLength: 3 }), (groups) => {
        const plan = cleanupPlan(groups);
        const r = run(shell, plan, env);
        const got = recorded(env.calls);
        for (const f of readdirSync(env.calls)) spawnSync('rm', [join(env.calls, f)]);
        expect([r.status, r.stderr, r.files]).toEqual([0, '', []]);
        expect(got).toEqual(meant(groups));
        // every line is a comment or a command: no name from the cluster starts a line of its own
        for (const line of plan.split('\n')) expect(line === '' || line.startsWith('#') || line.startsWith('kubectl delete ')).toBe(true);
      }),
      { numRuns: 40 },
    );
  });
});

// ---- every fix of the corpus, with the corpus's names made hostile

/** Names as an attacker with namespace rights can create them (path segments: RBAC objects, custom resources). */
const HOSTILE = [
  'x;touch${IFS}pwned;#',
  '$(touch pwned)',
  'a`touch pwned`b',
  "it's'$(touch pwned)'",
  'a\ntouch pwned\n#',
  '-rf --kubeconfig=/tmp/x',
  '"; touch pwned; echo "',
  'n1\u200b\u202e',
  '|| touch pwned',
  '>pwned',
];
/** Kinds whose names are only path segments (RBAC, and every custom resource: not in this list of built-ins). */
const BUILT_IN_DNS = new Set(
  'Pod Service Endpoints EndpointSlice ConfigMap Secret Node Namespace PersistentVolume PersistentVolumeClaim Deployment StatefulSet DaemonSet ReplicaSet Job CronJob Ingress Lease Event PodDisruptionBudget ServiceAccount StorageClass CSIDriver CSINode ValidatingWebhookConfiguration MutatingWebhookConfiguration APIService CustomResourceDefinition NetworkPolicy HorizontalPodAutoscaler'.split(
    ' ',
  ),
);

/** A snapshot file with every name of a path-segment kind replaced, wherever the same text stands (references, labels,
 *  annotations): each gets the next hostile name, made unique. Written to `out`, loaded as any snapshot file. */
function hostile(file: string, out: string): { names: Map<string, string> } {
  const docs = loadAll(readFileSync(file, 'utf8')) as unknown[];
  const objects = docs
    .flatMap((d) => {
      const x = d as { items?: unknown[] } | null;
      return (Array.isArray(x?.items) ? x.items : [d]) as KObject[];
    })
    .filter((o) => o && typeof o === 'object' && o.metadata && typeof o.kind === 'string');
  const dnsNames = new Set(
    objects.filter((o) => BUILT_IN_DNS.has(o.kind ?? '')).flatMap((o) => [o.metadata.name, o.metadata.namespace ?? '']),
  );
  const names = new Map<string, string>();
  for (const o of objects)
    if (
      !BUILT_IN_DNS.has(o.kind ?? '') &&
      typeof o.metadata?.name === 'string' &&
      !dnsNames.has(o.metadata.name) &&
      !names.has(o.metadata.name)
    )
      names.set(o.metadata.name, `${HOSTILE[names.size % HOSTILE.length]}${names.size}`);
  const swap = (v: unknown): unknown =>
    typeof v === 'string'
      ? (names.get(v) ?? v)
      : Array.isArray(v)
        ? v.map(swap)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, swap(x)]))
          : v;
  writeFileSync(out, docs.map((d) => dump(swap(d), { noRefs: true, lineWidth: -1 })).join('---\n'));
  return { names };
}

describe('every fix of the corpus, names made hostile', () => {
  const cases = corpusCases();
  test.each(SHELLS)('%s runs exactly the argument list of every command a finding prints', (shell) => {
    const env = stubs();
    let commands = 0;
    let withHostile = 0;
    for (const c of cases) {
      const file = join(env.dir, 'snapshot.yaml');
      const { names } = hostile(join(c.dir, 'snapshot.yaml'), file);
      const snap = loadSnapshot(file);
      const steps = runChecks(CHECKS, snap).flatMap((r) => r.findings.flatMap((f) => f.fix ?? []));
      const cmds = steps.filter((s): s is Command => s instanceof Command);
      const orphans = scanOrphans(snap);
      const script = [...cmds.map((s) => s.line), cleanupPlan(orphans.groups)].join('\n') + '\n';
      const r = run(shell, script, env);
      const got = recorded(env.calls);
      for (const f of readdirSync(env.calls)) spawnSync('rm', [join(env.calls, f)]);
      const want = [...cmds.flatMap((s) => (s.line === NO_COMMAND ? [] : s.stages.map(asRecorded))), ...meant(orphans.groups)].sort(byArgv);
      expect([c.name, r.status, r.stderr, r.files]).toEqual([c.name, 0, '', []]);
      expect([c.name, got]).toEqual([c.name, want]);
      commands += cmds.length;
      const hostileNames = [...names.values()];
      withHostile += cmds.filter((s) => s.stages.some((a) => a.some((x) => hostileNames.includes(x)))).length;
    }
    // the corpus reaches commands, and hostile names reach some of them (the names are fixed: no chance in this count)
    expect(commands).toBeGreaterThan(50);
    expect(withHostile).toBeGreaterThan(3);
  });
});
