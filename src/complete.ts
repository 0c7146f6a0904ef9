// Shell completion without yargs or the Kubernetes client, in Cobra's `__complete` protocol, which
// kubectl 1.26+ expects from a plugin's `kubectl_complete-<name>` helper: the words after the plugin
// name, the last one being completed (possibly ""); the answer is one candidate a line
// ("value<TAB>description") and a last line ":<directive>" (0 default: files too; 2 no space after; 4 no files).
// What each command takes is TAKES below, from which src/cli.ts declares its options; tests keep `--help` and
// completion equal. Loaded on every completion: nothing heavy at the top (what a value needs is imported then).
import { readdirSync, statSync } from 'node:fs';
import type { Output } from './render/formats/model.js';
import { EXAMPLE_NAMES, EXAMPLE_PREFIX } from './snapshot/examples.js';
import { argvText } from './lib/shell.js';

const DEFAULT = 0,
  NO_SPACE = 2,
  NO_FILES = 4;

/** What a candidate may not hold: control characters (tab and line feed are the protocol's separators), DEL, C1,
 *  line and paragraph separators, bidirectional overrides, and lone surrogates (no UTF-8 form). */
const UNSAFE_G =
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const UNSAFE = new RegExp(UNSAFE_G.source);
// check ids and finding codes with their titles, rendered from the registry at build time
// (scripts/build.mjs) so completing `explain` loads no check code; null: import the registry
declare const __EXPLAIN__: [string, string][] | null | undefined;
const EXPLAIN: [string, string][] | null = typeof __EXPLAIN__ === 'object' ? __EXPLAIN__ : null;

/** What `explain` completes: every check id and finding code, with its title. */
export async function explainCandidates(): Promise<[string, string][]> {
  if (EXPLAIN) return EXPLAIN;
  const { CHECKS } = await import('./checks/registry.js');
  const { WHATIF_ID, WHATIF_TITLE } = await import('./whatif/docs.js');
  const { WHATIF_CODES } = await import('./whatif/codes.js');
  return [
    ...CHECKS.map((c) => ({ id: c.id, title: c.title, codes: c.codes as Record<string, string> })),
    { id: WHATIF_ID, title: WHATIF_TITLE, codes: WHATIF_CODES as Record<string, string> },
  ].flatMap((c) => [
    [c.id, c.title] as [string, string],
    ...Object.entries(c.codes).map(([code, title]) => [code, String(title)] as [string, string]),
  ]);
}

/** The commands of src/cli.ts with their descriptions (a test keeps them equal to --help). */
export const COMMANDS: [string, string][] = [
  ['doctor', 'Run every check and print one report'],
  ['map', 'The cluster by contract, with the checks that concern each part'],
  ['what-if', 'Predict what breaks if these nodes go down, or with --remove are removed'],
  ['snapshot', 'Save what the checks need to stdout, for --snapshot later'],
  ['orphans', 'Objects left running by deleted Argo CD / Flux owners'],
  ['quorum', 'etcd members and the quorum verdict'],
  ['diff', 'What appeared, was fixed or changed severity between two reports'],
  ['explain', 'Explain a check or finding code'],
  ['mcp', 'Serve the checks to AI assistants over MCP (stdio)'],
  ['rbac', 'Print the read-only ClusterRoles to apply'],
  ['completion', 'Print a shell completion script (bash, zsh, fish)'],
  ['version', 'Print the kubectl-arch version'],
];

interface Flag {
  name: string;
  alias?: string;
  desc: string;
  /** what its value completes from: no value (a boolean), files, nothing, kubeconfig names (contexts: a
   *  comma-separated list of them), the -o values of the command (outputs), a snapshot (files and the examples
   *  embedded in the CLI), or these words */
  value?: 'files' | 'none' | 'context' | 'contexts' | 'cluster' | 'user' | 'outputs' | 'snapshot' | string[];
}

/** Every flag of any command, as completion offers it (src/cli.ts declares them for yargs, with the long
 *  descriptions). `--help` is every command's too; `--no-config` and `--no-color` come with config and color. */
const FLAGS: Flag[] = [
  { name: 'kubeconfig', desc: 'Path to the kubeconfig file', value: 'files' },
  { name: 'context', desc: 'kubeconfig context to use', value: 'context' },
  { name: 'cluster', desc: 'kubeconfig cluster to use', value: 'cluster' },
  { name: 'user', desc: 'kubeconfig user to use', value: 'user' },
  { name: 'namespace', alias: 'n', desc: 'Limit namespaced objects to this namespace', value: 'none' },
  { name: 'all-namespaces', alias: 'A', desc: 'All namespaces (the default)' },
  { name: 'request-timeout', desc: 'Timeout per request, e.g. 30s', value: 'none' },
  { name: 'deadline', desc: 'Time limit for the whole run', value: 'none' },
  { name: 'max-memory', desc: 'Memory the run may use, e.g. 400Mi', value: 'none' },
  { name: 'snapshot', desc: 'Work offline on a snapshot FILE or DIR, or an embedded example', value: 'snapshot' },
  { name: 'output', alias: 'o', desc: 'Output format', value: 'outputs' },
  { name: 'fail-on', desc: 'Exit 1 when a finding is at least this severe', value: ['none', 'warning', 'error'] },
  { name: 'color', desc: 'Colour on a TTY' },
  { name: 'verbose', alias: 'v', desc: 'Log every request and error stacks to stderr' },
  // doctor, orphans and quorum: several contexts at once, and accepted-risk rules
  { name: 'contexts', desc: 'Run on these kubeconfig contexts (comma-separated) at once', value: 'contexts' },
  { name: 'all-contexts', desc: 'Run on every context of the kubeconfig' },
  { name: 'parallel', desc: 'Contexts run at once', value: 'none' },
  { name: 'config', desc: 'Accepted-risk rules from FILE', value: 'files' },
  { name: 'baseline', desc: 'A previous -o json: new findings only fail', value: 'files' },
  { name: 'sarif-all', desc: 'SARIF: also accepted risks and what is fixed (not open)' },
  { name: 'report-label', desc: 'PolicyReports: a label every report carries (KEY=VALUE)', value: 'none' },
  { name: 'deep', desc: 'Also read kubelet configs through nodes/proxy' },
  { name: 'stuck-after', desc: 'How long a deletion may take before it counts as stuck', value: 'none' },
  { name: 'remove', desc: 'Gone for good: the nodes deleted, their etcd members removed' },
  { name: 'filename', alias: 'f', desc: 'Manifests that would be applied (FILE, DIR or -)', value: 'files' },
  { name: 'k3s-config', desc: 'A new K3s server config.yaml', value: 'files' },
  { name: 'rke2-config', desc: 'A new RKE2 server config.yaml', value: 'files' },
  { name: 'upgrade', desc: 'Instead of nodes: upgrading the cluster to VERSION (v1.33, v1.33.4+k3s1)', value: 'none' },
  {
    name: 'apply-mode',
    desc: 'How -f manifests are applied when their owner does not say',
    value: ['client-side', 'server-side', 'replace', 'helm', 'wrangler'],
  },
  { name: 'cleanup-plan', desc: 'Print (never run) the kubectl delete commands' },
  { name: 'etcd-endpoints', desc: 'Comma-separated etcd client URLs to probe directly', value: 'none' },
  { name: 'etcd-cacert', desc: 'CA bundle for the etcd endpoints', value: 'files' },
  { name: 'etcd-cert', desc: 'Client certificate for etcd', value: 'files' },
  { name: 'etcd-key', desc: 'Client key for etcd', value: 'files' },
  { name: 'etcd-timeout', desc: 'Timeout per etcd endpoint', value: 'none' },
  { name: 'allow-snapshot-dir', desc: 'Let tool calls read snapshots under DIR', value: 'files' },
  { name: 'max-result-bytes', desc: "Cut a tool's JSON answer to this size", value: 'none' },
];
const HELP: Flag = { name: 'help', alias: 'h', desc: 'Show help' };
const NEGATED: Record<string, Flag> = {
  config: { name: 'no-config', desc: 'Read no accepted-risk rules' },
  color: { name: 'no-color', desc: 'No colour' },
};

/** What a command takes: its flags (besides --help, and -o when it has outputs), its -o values (the first is its
 *  default), and flags the parser accepts, hidden from --help and completion, only for the command to refuse with its
 *  reason (mcp: chosen per call; what-if: a node is in every namespace). */
export interface Takes {
  flags: readonly string[];
  outputs?: readonly (Output | 'markdown')[];
  refused?: readonly string[];
}

const CLUSTER = [
  'kubeconfig',
  'context',
  'cluster',
  'user',
  'namespace',
  'all-namespaces',
  'request-timeout',
  'deadline',
  'max-memory',
  'snapshot',
];
const FLEET = ['contexts', 'all-contexts', 'parallel', 'config', 'baseline', 'sarif-all', 'report-label'];
const TEXT = ['table', 'json', 'yaml'] as const;
const MACHINE = ['sarif', 'junit', 'prometheus', 'policyreport', 'openreports'] as const;

/**
 * The one table of which command takes which flags and which -o values. src/cli.ts declares each command's options
 * from it (so --help shows exactly these, and yargs' strict mode refuses any other), every refusal of an -o value is
 * worded from it (outputRefusal), and completion offers from it. Its order is COMMANDS' order.
 */
export const TAKES: Record<string, Takes> = {
  doctor: {
    flags: ['deep', 'stuck-after', ...CLUSTER, 'fail-on', 'color', ...FLEET, 'verbose'],
    outputs: [...TEXT, ...MACHINE, 'html'],
  },
  // a view, like kubectl get: it exits 0 whatever it shows (no --fail-on)
  map: { flags: [...CLUSTER, 'color', 'verbose'], outputs: [...TEXT, 'html', 'mermaid', 'dot'] },
  'what-if': {
    flags: [
      'remove',
      'filename',
      'k3s-config',
      'rke2-config',
      'upgrade',
      'apply-mode',
      ...CLUSTER.filter((f) => f !== 'all-namespaces'),
      'fail-on',
      'color',
      'baseline',
      'sarif-all',
      'verbose',
    ],
    outputs: [...TEXT, 'html', 'sarif', 'junit'],
    // -n: with -f, where manifests without a namespace go; with nodes it is refused (a node is in every namespace)
    refused: ['all-namespaces'],
  },
  snapshot: { flags: ['deep', ...CLUSTER, 'verbose'], outputs: ['yaml', 'json'] },
  orphans: { flags: ['cleanup-plan', ...CLUSTER, 'fail-on', 'color', ...FLEET, 'verbose'], outputs: [...TEXT, ...MACHINE] },
  quorum: {
    flags: ['etcd-endpoints', 'etcd-cacert', 'etcd-cert', 'etcd-key', 'etcd-timeout', ...CLUSTER, 'fail-on', 'color', ...FLEET, 'verbose'],
    outputs: [...TEXT, ...MACHINE],
  },
  // reads two files, talks to no cluster
  diff: { flags: ['fail-on', 'verbose'], outputs: [...TEXT, 'markdown'] },
  explain: { flags: ['verbose'], outputs: TEXT },
  mcp: {
    flags: ['allow-snapshot-dir', 'max-result-bytes', 'kubeconfig', 'context', 'request-timeout', 'deadline', 'config', 'verbose'],
    refused: ['snapshot', 'cluster', 'user', 'namespace', 'all-namespaces', 'output', 'contexts', 'all-contexts'],
  },
  rbac: { flags: ['verbose'] },
  completion: { flags: ['verbose'] },
  version: { flags: ['verbose'], outputs: TEXT },
};

/** Every -o value of any command, in the table's order. */
export const ALL_OUTPUTS: readonly string[] = [...new Set(Object.values(TAKES).flatMap((t) => t.outputs ?? []))];

/** The flags a command shows in --help and completion offers (without --help): -o first when it has outputs.
 *  No command: the flags every command takes (what the top-level --help lists). */
export function flagsOf(cmd: string | undefined): string[] {
  if (cmd === undefined) return FLAGS.map((f) => f.name).filter((n) => Object.values(TAKES).every((t) => t.flags.includes(n)));
  const t = TAKES[cmd];
  return t ? [...(t.outputs ? ['output'] : []), ...t.flags] : [];
}

const inWords = (xs: readonly string[], and: string): string =>
  xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} ${and} ${xs.at(-1)}`;

/** Why `command` refuses `-o value`, and a hint with exactly the formats it takes: every such refusal says this. */
export function outputRefusal(command: string, value: string): { message: string; hint: string } {
  const takes = TAKES[command]?.outputs ?? [];
  if (!takes.length) return { message: `${command} has no -o`, hint: `leave out -o (${argvText(['kubectl', 'arch', command, '--help'])})` };
  if (value === '') return { message: '-o needs a format', hint: `use -o ${inWords(takes, 'or')}` };
  const by = Object.keys(TAKES).filter((c) => TAKES[c]!.outputs?.some((o) => o === value));
  return {
    message: by.length ? `-o ${value} is for ${inWords(by, 'and')}, not ${command}` : `-o ${value} is not an output format`,
    hint: `use -o ${inWords(takes, 'or')}`,
  };
}

/** A flag as typed (--name, --name=value, -n): the command's own, or before a command any command's. Flags a
 *  command only refuses are known here too, so that their value is not taken for a positional. */
const findFlag = (word: string, cmd: string | undefined): Flag | undefined => {
  const name = word.replace(/^--?/, '').replace(/=.*$/, '');
  const known = cmd === undefined ? undefined : [...flagsOf(cmd), ...(TAKES[cmd]?.refused ?? [])];
  return FLAGS.filter((f) => !known || known.includes(f.name)).find((f) => (word.startsWith('--') ? f.name === name : f.alias === name));
};

/** The flags completion offers for a command, --help and the negated forms included. */
const offered = (cmd: string | undefined): Flag[] =>
  flagsOf(cmd)
    .flatMap((n) => {
      const f = FLAGS.find((x) => x.name === n);
      return f ? [f, ...(NEGATED[n] ? [NEGATED[n]] : [])] : [];
    })
    .concat(HELP);

export const SHELLS = ['bash', 'zsh', 'fish'];

/** Names from the kubeconfig file(s) kubectl would read: --kubeconfig, else KUBECONFIG, else ~/.kube/config. */
async function kubeconfigNames(words: string[], kind: 'contexts' | 'clusters' | 'users'): Promise<string[]> {
  let explicit: string | undefined;
  words.forEach((w, i) => {
    if (w === '--kubeconfig') explicit = words[i + 1];
    else if (w.startsWith('--kubeconfig=')) explicit = w.slice('--kubeconfig='.length);
  });
  // the one kubeconfig reader (src/cluster/kubeconfig.ts), lenient: completion never fails, an unreadable file offers nothing
  const { kubeconfigNames } = await import('./cluster/kubeconfig.js');
  return kubeconfigNames({ kubeconfig: explicit }, kind, true);
}

/** The value of --name VALUE or --name=VALUE among the words typed, the last one winning. */
function flagValue(words: string[], name: string): string | undefined {
  let v: string | undefined;
  words.forEach((w, i) => {
    if (w === `--${name}`) v = words[i + 1];
    else if (w.startsWith(`--${name}=`)) v = w.slice(name.length + 3);
  });
  return v;
}

/** Node names for what-if: from --snapshot, else one short metadata-only list from the cluster. */
async function nodeNames(words: string[]): Promise<string[]> {
  const snapshot = flagValue(words, 'snapshot');
  if (snapshot) {
    try {
      const { loadSnapshot } = await import('./snapshot/load.js');
      const { R } = await import('./resources.js');
      return loadSnapshot(snapshot)
        .of(R.nodes)
        .map((n) => n.metadata.name);
    } catch {
      return [];
    }
  }
  const { liveNodeNames } = await import('./cluster/names.js');
  return liveNodeNames({
    kubeconfig: flagValue(words, 'kubeconfig'),
    context: flagValue(words, 'context'),
    cluster: flagValue(words, 'cluster'),
    user: flagValue(words, 'user'),
  });
}

/** The examples embedded in the CLI, as --snapshot names them. */
export const EXAMPLES: readonly string[] = EXAMPLE_NAMES.map((n) => `${EXAMPLE_PREFIX}${n}`);

/** --snapshot: the embedded examples besides files. Shells list files only when completion offers nothing, so while
 *  the word typed may still name an example, the entries of the working directory it may name are offered with it
 *  (a directory with a slash, and then no space after); a word that names no example is left to the shell's files. */
function snapshotValues(typed: string): { items: [string, string][]; directive: number } {
  if (!EXAMPLES.some((e) => e.startsWith(typed))) return { items: [], directive: DEFAULT };
  const items: [string, string][] = EXAMPLES.map((e) => [e, 'the example embedded in kubectl-arch']);
  let dirs = false;
  try {
    const names = readdirSync('.', { withFileTypes: true })
      // hidden files as a shell lists them: only when the word begins with a dot (an example's name does not)
      .filter((d) => !d.name.startsWith('.') && d.name.startsWith(typed))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const d of names) {
      let dir = d.isDirectory();
      if (d.isSymbolicLink()) dir = statSync(d.name, { throwIfNoEntry: false })?.isDirectory() ?? false;
      items.push([dir ? `${d.name}/` : d.name, '']);
      dirs ||= dir;
    }
  } catch {
    // an unreadable working directory: the examples only
  }
  return { items, directive: dirs ? NO_SPACE : DEFAULT };
}

async function values(
  flag: Flag,
  words: string[],
  typed: string,
  cmd: string | undefined,
): Promise<{ items: [string, string][]; directive: number }> {
  const v = flag.value;
  if (v === 'files') return { items: [], directive: DEFAULT };
  if (v === 'snapshot') return snapshotValues(typed);
  // the command's own formats; before a command is named, any command's
  if (v === 'outputs') return { items: (cmd ? (TAKES[cmd]?.outputs ?? []) : ALL_OUTPUTS).map((x) => [x, '']), directive: NO_FILES };
  if (Array.isArray(v)) return { items: v.map((x) => [x, '']), directive: NO_FILES };
  if (v === 'context' || v === 'cluster' || v === 'user') {
    return { items: (await kubeconfigNames(words, `${v}s` as 'contexts')).map((x) => [x, '']), directive: NO_FILES };
  }
  if (v === 'contexts') {
    // the next name of a comma-separated list: what is already typed stays in front
    const prefix = typed.slice(0, typed.lastIndexOf(',') + 1);
    const chosen = new Set(prefix.split(','));
    const names = (await kubeconfigNames(words, 'contexts')).filter((x) => !chosen.has(x));
    return { items: names.map((x) => [`${prefix}${x}`, '']), directive: NO_FILES };
  }
  return { items: [], directive: NO_FILES };
}

/** Completions for `kubectl arch <args>`, the last arg being the word under the cursor. */
export async function complete(args: string[]): Promise<string> {
  const words = args.slice(0, -1);
  const cur = args[args.length - 1] ?? '';
  // the command and positionals: words that are neither flags nor a flag's value
  const positionals: string[] = [];
  let cmd: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i] ?? '';
    if (w.startsWith('-')) {
      const f = findFlag(w, cmd);
      if (f?.value && !w.includes('=')) i++; // skip its value
      continue;
    }
    if (!cmd && COMMANDS.some(([c]) => c === w)) cmd = w;
    else positionals.push(w);
  }
  let items: [string, string][] = [];
  let directive = NO_FILES;
  const prev = words[words.length - 1];
  const prevFlag = prev?.startsWith('-') && !prev.includes('=') ? findFlag(prev, cmd) : undefined;
  if (prevFlag?.value && cmd !== undefined && TAKES[cmd]?.refused?.includes(prevFlag.name)) {
    // a flag the command refuses: no value to offer
  } else if (prevFlag?.value) {
    ({ items, directive } = await values(prevFlag, words, cur, cmd));
  } else if (cur.startsWith('--') && cur.includes('=')) {
    const f = findFlag(cur, cmd);
    if (f?.value) {
      const r = await values(f, words, cur.slice(cur.indexOf('=') + 1), cmd);
      items = r.items.map(([v, d]) => [`${cur.slice(0, cur.indexOf('=') + 1)}${v}`, d]);
      directive = r.directive;
    }
  } else if (cur.startsWith('-')) {
    for (const f of offered(cmd)) {
      items.push([`--${f.name}`, f.desc]);
      if (f.alias && cur.length <= 2) items.push([`-${f.alias}`, f.desc]);
    }
  } else if (!cmd) {
    items = COMMANDS;
  } else if (cmd === 'explain' && positionals.length === 0) {
    items = await explainCandidates();
  } else if (cmd === 'what-if') {
    const chosen = new Set(positionals);
    items = (await nodeNames(words)).filter((n) => !chosen.has(n)).map((n) => [n, '']);
  } else if (cmd === 'completion' && positionals.length === 0) {
    items = SHELLS.map((s) => [s, '']);
  }
  // a candidate with a control character is dropped, not cleaned: the shell would insert what the terminal shows
  // differently (or act on: ESC), and a cleaned name is another name; descriptions are only shown, so cleaned
  const lines = items
    .filter(([v]) => v !== '' && v.startsWith(cur) && !UNSAFE.test(v))
    .map(([v, d]) => (d ? `${v}\t${d.replace(UNSAFE_G, ' ')}` : v));
  return [...lines, `:${directive}`].join('\n') + '\n';
}
