// Accepted risks: `ignore:` rules in a config file silence findings the team has decided to live with.
// A suppressed finding is never dropped: it is counted and listed in the report's "suppressed" section with
// the rule's reason. A rule past its expiry date suppresses nothing and is warned about.
//
// Files: --config FILE; without it the user's config file ($XDG_CONFIG_HOME/kubectl-arch/config.yaml,
// ~/.config/kubectl-arch/config.yaml, %APPDATA%\kubectl-arch\config.yaml on Windows) and .kubectl-arch.yaml
// in the working directory, both when present. --no-config reads none.
import { closeSync, constants, existsSync, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { load } from 'js-yaml';
import { InputError } from '../errors.js';
import type { CheckResult, Finding } from '../model.js';

export const CONFIG_API_VERSION = 'kubectl-arch/v1';
const RULE_KEYS = ['code', 'context', 'cluster', 'namespace', 'name', 'reason', 'expires'] as const;

export interface IgnoreRule {
  code: string;
  /** Glob (`*`, `?`) on the kubeconfig context name. */
  context?: string;
  /** Glob on the kubeconfig cluster name or the server URL. */
  cluster?: string;
  /** Glob on an object's namespace (an object of the finding must match namespace and name). */
  namespace?: string;
  /** Glob on an object's name. */
  name?: string;
  reason: string;
  /** YYYY-MM-DD: the rule applies through that day (UTC), then warns and suppresses nothing. */
  expires?: string;
  /** Where the rule is written: file and position in its ignore list (1-based). */
  file: string;
  index: number;
}

export interface AcceptedRisks {
  files: string[];
  /** Rules in force. */
  rules: IgnoreRule[];
  /** Rules past their expiry date: they suppress nothing. */
  expired: IgnoreRule[];
}

export const NO_RISKS: AcceptedRisks = { files: [], rules: [], expired: [] };

/** The rule as a report carries it. */
export type RuleRef = IgnoreRule;

/** A check result after the rules: how many of its findings were suppressed (only set when some were). */
export type CheckResultAfterRules = CheckResult & { suppressed?: number };

/** A finding an accepted-risk rule silenced, with the rule. */
export type SuppressedFinding = Finding & { suppressedBy: RuleRef };

/** Where a run's findings come from, for the rules' context/cluster patterns. */
export interface RunPlace {
  context?: string;
  cluster?: string;
  server?: string;
}

export function userConfigPath(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'kubectl-arch', 'config.yaml');
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'kubectl-arch', 'config.yaml');
}

export const CWD_CONFIG = '.kubectl-arch.yaml';

/** The files to read: --config FILE alone; --no-config (false) none; by default the user's and the working directory's. */
export function configFiles(flag: string | boolean | undefined, cwd = process.cwd(), env = process.env): string[] {
  if (flag === false) return [];
  if (typeof flag === 'string' && flag !== '') {
    if (!existsSync(flag)) throw new InputError(`config file ${flag} does not exist`, 'check --config, or pass --no-config');
    return [resolve(flag)];
  }
  if (flag === true || flag === '') throw new InputError('--config needs a file name');
  return [userConfigPath(env), join(cwd, CWD_CONFIG)].filter((f) => existsSync(f));
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A YYYY-MM-DD that names a real day: Date.parse rolls 2027-02-31 over to 3 March, so the day must come back. */
function toDate(v: unknown, where: string): string {
  const m = typeof v === 'string' ? DATE.exec(v) : null;
  if (m) {
    const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    if (!Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === v) return v;
  }
  throw new InputError(`${where}: expires must be a date like 2026-12-31, found ${JSON.stringify(v)}`);
}

/** Read and check one config file. knownCodes: every finding code of the registry (a typo suppresses nothing: an error). */
export function parseConfig(file: string, text: string, knownCodes: ReadonlySet<string>): IgnoreRule[] {
  let doc: unknown;
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') return []; // an empty file: no rules
  try {
    // js-yaml 5 keeps an unquoted 2026-12-31 as the text written (no Date), which toDate checks
    doc = load(body, { maxAliases: 10 });
  } catch (e) {
    const ye = e as { mark?: { line?: number }; reason?: string; message: string };
    throw new InputError(`config ${file}:${(ye.mark?.line ?? 0) + 1}: malformed YAML: ${ye.reason ?? ye.message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return [];
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new InputError(`config ${file}: expected a mapping with an ignore: list`);
  const d = doc as Record<string, unknown>;
  for (const k of Object.keys(d)) {
    if (!['apiVersion', 'kind', 'ignore'].includes(k))
      throw new InputError(`config ${file}: unknown key "${k}" (known: apiVersion, kind, ignore)`);
  }
  if (d.apiVersion !== undefined && d.apiVersion !== CONFIG_API_VERSION)
    throw new InputError(`config ${file}: apiVersion must be ${CONFIG_API_VERSION}, found ${JSON.stringify(d.apiVersion)}`);
  if (d.kind !== undefined && d.kind !== 'Config')
    throw new InputError(`config ${file}: kind must be Config, found ${JSON.stringify(d.kind)}`);
  if (d.ignore === undefined || d.ignore === null) return [];
  if (!Array.isArray(d.ignore)) throw new InputError(`config ${file}: ignore must be a list of rules`);
  return d.ignore.map((r, i): IgnoreRule => {
    const where = `config ${file}: ignore[${i}]`;
    if (!r || typeof r !== 'object' || Array.isArray(r)) throw new InputError(`${where}: a rule must be a mapping`);
    const rule = r as Record<string, unknown>;
    for (const k of Object.keys(rule)) {
      if (!(RULE_KEYS as readonly string[]).includes(k))
        throw new InputError(`${where}: unknown key "${k}" (known: ${RULE_KEYS.join(', ')})`);
    }
    const str = (k: string): string | undefined => {
      const v = rule[k];
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'string' || v.trim() === '') throw new InputError(`${where}: ${k} must be a non-empty string`);
      return v;
    };
    const code = str('code');
    if (!code) throw new InputError(`${where}: code is required (a finding code, e.g. ARCH-OR03)`);
    const upper = code.toUpperCase();
    if (!knownCodes.has(upper))
      throw new InputError(`${where}: no finding code "${code}"`, 'kubectl arch explain lists the checks and their codes');
    const reason = str('reason');
    if (!reason) throw new InputError(`${where}: reason is required (why this risk is accepted)`);
    return {
      code: upper,
      ...(str('context') ? { context: str('context') } : {}),
      ...(str('cluster') ? { cluster: str('cluster') } : {}),
      ...(str('namespace') ? { namespace: str('namespace') } : {}),
      ...(str('name') ? { name: str('name') } : {}),
      reason,
      ...(rule.expires !== undefined && rule.expires !== null ? { expires: toDate(rule.expires, where) } : {}),
      file,
      index: i + 1,
    };
  });
}

/** A rule is expired once the day after its expiry date has begun (UTC). */
export const isExpired = (r: Pick<IgnoreRule, 'expires'>, now: Date): boolean =>
  r.expires !== undefined && now.getTime() >= Date.parse(`${r.expires}T00:00:00Z`) + 86_400_000;

/** A config file of rules is a few KB; anything much larger is not one. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

const kindOf = (st: Stats): string =>
  st.isDirectory()
    ? 'a directory'
    : st.isCharacterDevice()
      ? 'a character device'
      : st.isBlockDevice()
        ? 'a block device'
        : st.isFIFO()
          ? 'a FIFO'
          : st.isSocket()
            ? 'a socket'
            : 'not a file';

/**
 * A config file's text: regular files only, at most MAX_CONFIG_BYTES, checked on the open file before reading
 * (so nothing can swap the file between the check and the read). O_NONBLOCK: opening a FIFO would otherwise wait
 * for a writer forever; /dev/zero would be read until memory ran out.
 */
export function readConfigText(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    throw new InputError(`cannot read config ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile())
      throw new InputError(`config ${file} is not a regular file (${kindOf(st)})`, 'accepted-risk rules are read from regular files only');
    const tooBig = (n: number) => new InputError(`config ${file} is larger than 1 MiB (${n} bytes)`, 'a config file holds rules, a few KB');
    if (st.size > MAX_CONFIG_BYTES) throw tooBig(st.size);
    // read until the end, one byte past the limit at most (the file may have grown since fstat)
    const buf = Buffer.alloc(MAX_CONFIG_BYTES + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      n += got;
      if (got === 0 || n === buf.length) break;
    }
    if (n > MAX_CONFIG_BYTES) throw tooBig(n);
    return buf.subarray(0, n).toString('utf8');
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`cannot read config ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

export function loadAcceptedRisks(flag: string | boolean | undefined, knownCodes: ReadonlySet<string>, now = new Date()): AcceptedRisks {
  const files = configFiles(flag);
  const all: IgnoreRule[] = [];
  for (const f of files) all.push(...parseConfig(f, readConfigText(f), knownCodes));
  return { files, rules: all.filter((r) => !isExpired(r, now)), expired: all.filter((r) => isExpired(r, now)) };
}

/** A rule's glob: `test(value)` is true when the whole value matches. */
export interface Glob {
  test(value: string): boolean;
}

const globCache = new Map<string, Glob>();
/** `*` any run of characters (line breaks too), `?` one character (a code point); everything else literal; the
 *  whole string must match. */
export function glob(pattern: string): Glob {
  let g = globCache.get(pattern);
  if (!g) {
    const p = Array.from(pattern);
    g = { test: (value) => globMatch(p, Array.from(value)) };
    globCache.set(pattern, g);
  }
  return g;
}

/**
 * The classic two-pointer wildcard matcher, not a regular expression: a RegExp of `.*` runs backtracks
 * exponentially (`****************#` against a long context name ran for minutes and, holding the event loop,
 * ignored SIGTERM). Here a mismatch only ever goes back to the latest `*`, which is enough for `*` and `?` alone:
 * at most len(pattern) x len(value) steps, no allocation while matching.
 */
function globMatch(p: readonly string[], s: readonly string[]): boolean {
  let i = 0; // in s
  let j = 0; // in p
  let star = -1; // the latest * seen in p
  let from = 0; // where in s that * started matching
  while (i < s.length) {
    if (j < p.length && p[j] !== '*' && (p[j] === '?' || p[j] === s[i])) {
      i++;
      j++;
    } else if (j < p.length && p[j] === '*') {
      star = j++;
      from = i;
    } else if (star >= 0) {
      // let the latest * take one character more, and try the rest of the pattern again from there
      j = star + 1;
      i = ++from;
    } else return false;
  }
  while (j < p.length && p[j] === '*') j++;
  return j === p.length;
}

const matches = (pattern: string | undefined, value: string | undefined): boolean =>
  pattern === undefined || (value !== undefined && glob(pattern).test(value));

export function ruleMatches(rule: IgnoreRule, f: Pick<Finding, 'code' | 'objects'>, place: RunPlace): boolean {
  if (rule.code !== f.code) return false;
  if (!matches(rule.context, place.context)) return false;
  if (rule.cluster !== undefined && !matches(rule.cluster, place.cluster) && !matches(rule.cluster, place.server)) return false;
  if (rule.namespace === undefined && rule.name === undefined) return true;
  // the same object must match both: namespace "blog" and name "web-*" means blog/web-…
  return f.objects.some((o) => matches(rule.namespace, o.namespace) && matches(rule.name, o.name));
}

export const ruleRef = (r: IgnoreRule): RuleRef => ({ ...r });

/** Splits findings into those reported and those an accepted-risk rule silences (the first rule that matches). */
export function partition<F extends Finding>(
  findings: F[],
  risks: AcceptedRisks,
  place: RunPlace,
): { kept: F[]; suppressed: Array<F & { suppressedBy: RuleRef }> } {
  const kept: F[] = [];
  const suppressed: Array<F & { suppressedBy: RuleRef }> = [];
  for (const f of findings) {
    const rule = risks.rules.find((r) => ruleMatches(r, f, place));
    if (rule) suppressed.push({ ...f, suppressedBy: ruleRef(rule) });
    else kept.push(f);
  }
  return { kept, suppressed };
}

/** Applies the rules to check results: suppressed findings leave their check (a check left with none passes, saying so). */
export function suppressInChecks(
  checks: CheckResult[],
  risks: AcceptedRisks,
  place: RunPlace,
): { checks: CheckResultAfterRules[]; suppressed: SuppressedFinding[] } {
  const suppressed: SuppressedFinding[] = [];
  const out = checks.map((c): CheckResultAfterRules => {
    if (c.findings.length === 0 || risks.rules.length === 0) return c;
    const p = partition(c.findings, risks, place);
    if (p.suppressed.length === 0) return c;
    suppressed.push(...p.suppressed);
    const n = p.suppressed.length;
    if (p.kept.length > 0) return { ...c, findings: p.kept, suppressed: n };
    return {
      ...c,
      status: 'passed',
      reason: `no finding left: ${n} suppressed as accepted risk${n === 1 ? '' : 's'}`,
      findings: [],
      suppressed: n,
    };
  });
  return { checks: out, suppressed };
}

/** One line per expired rule, for stderr and the report. */
export const expiredText = (r: IgnoreRule): string =>
  `accepted-risk rule ${r.code} (${r.file}, ignore #${r.index}) expired on ${r.expires}: its findings are reported again (reason was: ${r.reason})`;
