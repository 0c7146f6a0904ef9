// Shell completion without yargs or the Kubernetes client, in Cobra's `__complete` protocol, which
// kubectl 1.26+ expects from a plugin's `kubectl_complete-<name>` helper: the words after the plugin
// name, the last one being completed (possibly ""); the answer is one candidate a line
// ("value<TAB>description") and a last line ":<directive>" (0 default: files too; 4 no files).
// The commands and flags mirror src/cli.ts; a test keeps them equal to `--help`.

const DEFAULT = 0,
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
  /** contexts: a comma-separated list of kubeconfig contexts */
  value?: 'files' | 'none' | 'context' | 'contexts' | 'cluster' | 'user' | string[];
}
const GLOBAL: Flag[] = [
  { name: 'kubeconfig', desc: 'Path to the kubeconfig file', value: 'files' },
  { name: 'context', desc: 'kubeconfig context to use', value: 'context' },
  { name: 'cluster', desc: 'kubeconfig cluster to use', value: 'cluster' },
  { name: 'user', desc: 'kubeconfig user to use', value: 'user' },
  { name: 'namespace', alias: 'n', desc: 'Limit namespaced objects to this namespace', value: 'none' },
  { name: 'all-namespaces', alias: 'A', desc: 'All namespaces (the default)' },
  { name: 'request-timeout', desc: 'Timeout per request, e.g. 30s', value: 'none' },
  { name: 'deadline', desc: 'Time limit for the whole run', value: 'none' },
  { name: 'snapshot', desc: 'Work offline on a snapshot FILE or DIR', value: 'files' },
  {
    name: 'output',
    alias: 'o',
    desc: 'Output format',
    value: ['table', 'json', 'yaml', 'sarif', 'junit', 'prometheus', 'policyreport', 'openreports', 'html', 'mermaid', 'dot'],
  },
  { name: 'fail-on', desc: 'Exit 1 when a finding is at least this severe', value: ['none', 'warning', 'error'] },
  { name: 'color', desc: 'Colour on a TTY' },
  { name: 'no-color', desc: 'No colour' },
  { name: 'verbose', alias: 'v', desc: 'Log every request to stderr' },
  { name: 'help', alias: 'h', desc: 'Show help' },
];
// doctor, orphans and quorum: several contexts at once, and accepted-risk rules
const FLEET: Flag[] = [
  { name: 'contexts', desc: 'Run on these kubeconfig contexts (comma-separated) at once', value: 'contexts' },
  { name: 'all-contexts', desc: 'Run on every context of the kubeconfig' },
  { name: 'parallel', desc: 'Contexts run at once', value: 'none' },
  { name: 'config', desc: 'Accepted-risk rules from FILE', value: 'files' },
  { name: 'no-config', desc: 'Read no accepted-risk rules' },
  { name: 'baseline', desc: 'A previous -o json: new findings only fail', value: 'files' },
];
const PER_COMMAND: Record<string, Flag[]> = {
  doctor: [
    { name: 'deep', desc: 'Also read kubelet configs through nodes/proxy' },
    { name: 'stuck-after', desc: 'How long a deletion may take before it counts as stuck', value: 'none' },
    ...FLEET,
  ],
  snapshot: [{ name: 'deep', desc: 'Include what --deep checks read' }],
  'what-if': [
    { name: 'remove', desc: 'Gone for good: the nodes deleted, their etcd members removed' },
    { name: 'baseline', desc: 'A previous what-if -o json: new predictions only fail', value: 'files' },
  ],
  diff: [{ name: 'output', alias: 'o', desc: 'Output format', value: ['table', 'json', 'yaml', 'markdown'] }],
  mcp: [
    { name: 'allow-snapshot-dir', desc: 'Let tool calls read snapshots under DIR', value: 'files' },
    { name: 'max-result-bytes', desc: "Cut a tool's JSON answer to this size", value: 'none' },
    { name: 'config', desc: 'Accepted-risk rules from FILE', value: 'files' },
    { name: 'no-config', desc: 'Read no accepted-risk rules' },
  ],
  orphans: [{ name: 'cleanup-plan', desc: 'Print (never run) the kubectl delete commands' }, ...FLEET],
  quorum: [
    { name: 'etcd-endpoints', desc: 'Comma-separated etcd client URLs to probe directly', value: 'none' },
    { name: 'etcd-cacert', desc: 'CA bundle for the etcd endpoints', value: 'files' },
    { name: 'etcd-cert', desc: 'Client certificate for etcd', value: 'files' },
    { name: 'etcd-key', desc: 'Client key for etcd', value: 'files' },
    { name: 'etcd-timeout', desc: 'Timeout per etcd endpoint', value: 'none' },
    ...FLEET,
  ],
};
export const SHELLS = ['bash', 'zsh', 'fish'];

const flagsFor = (cmd: string | undefined): Flag[] => [...(cmd ? (PER_COMMAND[cmd] ?? []) : []), ...GLOBAL];
const findFlag = (word: string, cmd: string | undefined): Flag | undefined => {
  const name = word.replace(/^--?/, '').replace(/=.*$/, '');
  return flagsFor(cmd).find((f) => (word.startsWith('--') ? f.name === name : f.alias === name));
};

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

async function values(flag: Flag, words: string[], typed: string): Promise<{ items: [string, string][]; directive: number }> {
  const v = flag.value;
  if (v === 'files') return { items: [], directive: DEFAULT };
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
  if (prevFlag?.value) {
    ({ items, directive } = await values(prevFlag, words, cur));
  } else if (cur.startsWith('--') && cur.includes('=')) {
    const f = findFlag(cur, cmd);
    if (f?.value) {
      const r = await values(f, words, cur.slice(cur.indexOf('=') + 1));
      items = r.items.map(([v, d]) => [`${cur.slice(0, cur.indexOf('=') + 1)}${v}`, d]);
      directive = r.directive;
    }
  } else if (cur.startsWith('-')) {
    for (const f of flagsFor(cmd)) {
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
