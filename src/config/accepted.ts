// Accepted risks: `ignore:` rules in a config file silence findings the team has decided to live with.
// A suppressed finding is never dropped: it is counted and listed in the report's "suppressed" section with
// the rule's reason, and every run says which files were read and what they suppressed. A rule past its expiry
// date suppresses nothing and is warned about. A critical finding is suppressed only by a rule that names its
// namespace or name: a code alone (or a context) is too broad to silence what may be an outage.
// Which files are read, and how: src/config/files.ts.
import { load } from 'js-yaml';
import { InputError } from '../errors.js';
import type { CheckResult, Finding } from '../model.js';
import { resolve } from 'node:path';
import { configPlan, isTrusted, readConfigText, trustEntry, userConfigPath } from './files.js';
import { glob } from './glob.js';

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
  /** The files read, in order. */
  files: string[];
  /** Rules in force. */
  rules: IgnoreRule[];
  /** Rules past their expiry date: they suppress nothing. */
  expired: IgnoreRule[];
  /** A working directory's .kubectl-arch.yaml that was not read: its directory is not trusted. */
  untrusted: string[];
  /** The user's config file, where trust: is written (for the hint). */
  userFile?: string;
}

export const NO_RISKS: AcceptedRisks = { files: [], rules: [], expired: [], untrusted: [] };

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
  return parseConfigFile(file, text, knownCodes, false).rules;
}

/** Rules, and with mayTrust (the user's own file only) the trusted directories. */
export function parseConfigFile(
  file: string,
  text: string,
  knownCodes: ReadonlySet<string>,
  mayTrust: boolean,
  env = process.env,
): { rules: IgnoreRule[]; trust: string[] } {
  let doc: unknown;
  const body = text.replace(/^\uFEFF/, '');
  const none = { rules: [], trust: [] };
  if (body.trim() === '') return none; // an empty file: no rules
  try {
    // js-yaml 5 keeps an unquoted 2026-12-31 as the text written (no Date), which toDate checks
    doc = load(body, { maxAliases: 10 });
  } catch (e) {
    const ye = e as { mark?: { line?: number }; reason?: string; message: string };
    throw new InputError(`config ${file}:${(ye.mark?.line ?? 0) + 1}: malformed YAML: ${ye.reason ?? ye.message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return none;
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new InputError(`config ${file}: expected a mapping with an ignore: list`);
  const d = doc as Record<string, unknown>;
  for (const k of Object.keys(d)) {
    if (!['apiVersion', 'kind', 'ignore', 'trust'].includes(k))
      throw new InputError(`config ${file}: unknown key "${k}" (known: apiVersion, kind, ignore, trust)`);
  }
  if (d.trust !== undefined && !mayTrust)
    throw new InputError(
      `config ${file}: trust: is read only from the user's config file`,
      'a file cannot vouch for itself: list trusted directories in ~/.config/kubectl-arch/config.yaml',
    );
  if (d.trust !== undefined && d.trust !== null && !Array.isArray(d.trust))
    throw new InputError(`config ${file}: trust must be a list of directories`);
  const trust = ((d.trust ?? []) as unknown[]).map((t, i) => trustEntry(t, `config ${file}: trust[${i}]`, env));
  return { rules: rulesOf(file, d, knownCodes), trust };
}

function rulesOf(file: string, d: Record<string, unknown>, knownCodes: ReadonlySet<string>): IgnoreRule[] {
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

export function loadAcceptedRisks(
  flag: string | boolean | undefined,
  knownCodes: ReadonlySet<string>,
  now = new Date(),
  cwd = process.cwd(),
  env = process.env,
): AcceptedRisks {
  const plan = configPlan(flag, cwd, env);
  const files: string[] = [];
  const all: IgnoreRule[] = [];
  const read = (f: string, mayTrust: boolean): string[] => {
    const c = parseConfigFile(f, readConfigText(f), knownCodes, mayTrust, env);
    files.push(f);
    all.push(...c.rules);
    return c.trust;
  };
  // the user's own file may hold trust: also when --config names it (it trusts nothing then: no other file is read)
  if (plan.named) read(plan.named, plan.named === resolve(userConfigPath(env)));
  const trust = plan.user ? read(plan.user, true) : [];
  const untrusted: string[] = [];
  if (plan.local) {
    if (isTrusted(cwd, trust)) read(plan.local, false);
    else untrusted.push(plan.local);
  }
  return {
    files,
    rules: all.filter((r) => !isExpired(r, now)),
    expired: all.filter((r) => isExpired(r, now)),
    untrusted,
    ...(plan.user || plan.local ? { userFile: plan.user ?? userConfigPath(env) } : {}),
  };
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

/** A rule that names neither namespace nor name: too broad to silence a critical finding. */
const unscoped = (r: IgnoreRule): boolean => r.namespace === undefined && r.name === undefined;

/** Whether this rule silences this finding: it matches, and a critical finding needs a rule scoped to its objects. */
const silences = (r: IgnoreRule, f: Pick<Finding, 'code' | 'objects' | 'severity'>, place: RunPlace): boolean =>
  ruleMatches(r, f, place) && (f.severity !== 'critical' || !unscoped(r));

/** Splits findings into those reported and those an accepted-risk rule silences (the first rule that matches). */
export function partition<F extends Finding>(
  findings: F[],
  risks: AcceptedRisks,
  place: RunPlace,
): { kept: F[]; suppressed: Array<F & { suppressedBy: RuleRef }> } {
  const kept: F[] = [];
  const suppressed: Array<F & { suppressedBy: RuleRef }> = [];
  for (const f of findings) {
    const rule = risks.rules.find((r) => silences(r, f, place));
    if (rule) suppressed.push({ ...f, suppressedBy: ruleRef(rule) });
    else kept.push(f);
  }
  return { kept, suppressed };
}

/** The rules (once each, in file order) that match reported critical findings but cannot silence them: no scope. */
export function unscopedCritical(
  reported: ReadonlyArray<Pick<Finding, 'code' | 'objects' | 'severity'>>,
  risks: AcceptedRisks,
  place: RunPlace,
): Array<{ rule: IgnoreRule; findings: number }> {
  const crit = reported.filter((f) => f.severity === 'critical');
  return risks.rules
    .filter(unscoped)
    .map((rule) => ({ rule, findings: crit.filter((f) => ruleMatches(rule, f, place)).length }))
    .filter((x) => x.findings > 0);
}

/** Per file read: its rules in force and the findings they suppressed. */
export function byFile(risks: AcceptedRisks, suppressed: readonly SuppressedFinding[]): FileRisks[] {
  return risks.files.map((file) => ({
    file,
    rules: risks.rules.filter((r) => r.file === file).length,
    suppressed: suppressed.filter((f) => f.suppressedBy.file === file).length,
  }));
}

export interface FileRisks {
  file: string;
  rules: number;
  suppressed: number;
}

/** "1 finding", "2 findings". */
export const findingCount = (n: number): string => `${n} finding${n === 1 ? '' : 's'}`;

/** What each file read suppressed, one line each ("FILE: 2 findings suppressed"). */
export const fileRisksText = (f: FileRisks): string => `${f.file}: ${findingCount(f.suppressed)} suppressed`;

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
    const left = `no finding left: ${n} suppressed as accepted risk${n === 1 ? '' : 's'}`;
    return {
      ...c,
      status: c.unjudged?.length ? 'partial' : 'passed',
      reason: c.unjudged?.length ? `${left}; not judged without ${c.unjudged.join(', ')}` : left,
      findings: [],
      suppressed: n,
    };
  });
  return { checks: out, suppressed };
}

/** One line per expired rule, for stderr and the report. */
export const expiredText = (r: IgnoreRule): string =>
  `accepted-risk rule ${r.code} (${r.file}, ignore #${r.index}) expired on ${r.expires}: its findings are reported again (reason was: ${r.reason})`;
