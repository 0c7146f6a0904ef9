// what-if as SARIF or JUnit (a gate in a pull request's pipeline): its predictions are the findings of one check,
// "what-if", in one run. For -f each prediction points at the manifest line it concerns (SARIF region), so code
// scanning annotates the pull request on the line the API server would refuse.
import type { CheckResult, Finding } from '../model.js';
import { renderFormat } from '../render/formats/index.js';
import type { FormatRun } from '../render/formats/model.js';
import { VERSION } from '../version.js';
import type { GlobalArgs } from './common.js';

interface Doc {
  source: FormatRun['source'];
  fingerprint?: { distribution?: string; serverVersion?: string };
  predictions: Array<Omit<Finding, 'checkId' | 'evidence'> & { location?: { file: string; line: number }; apiError?: string }>;
  notJudged: Array<{ what: string; by: string; lost?: string }>;
  verdict: { exitCode: number };
  baseline?: FormatRun['baseline'];
}

export async function renderWhatIfFormat(
  structured: Record<string, unknown>,
  format: 'sarif' | 'junit',
  failOn: GlobalArgs['fail-on'],
  args: Pick<GlobalArgs, 'context' | 'snapshot' | 'sarif-all'>,
): Promise<string> {
  const doc = structured as unknown as Doc;
  const findings: Finding[] = doc.predictions.map((p) => ({
    ...p,
    checkId: 'what-if',
    evidence: p.apiError ? { apiError: p.apiError } : {},
  }));
  const check: CheckResult = {
    id: 'what-if',
    title: 'What breaks if this happens (kubectl arch what-if)',
    status: findings.length ? 'findings' : doc.notJudged.length ? 'partial' : 'passed',
    ...(doc.notJudged.length && !findings.length ? { reason: 'not judged: something it rests on was not visible' } : {}),
    findings,
    notes: doc.notJudged.map((n) => `${n.what}${n.lost ? ` (${n.lost})` : ''}`),
  };
  const run: FormatRun = {
    command: 'what-if',
    context: doc.source?.context ?? args.context ?? doc.source?.path ?? args.snapshot ?? '',
    source: doc.source,
    distribution: doc.fingerprint?.distribution,
    serverVersion: doc.fingerprint?.serverVersion,
    checks: [check],
    suppressed: [],
    ...(doc.baseline ? { baseline: doc.baseline } : {}),
    startedAt: new Date(),
    durationMs: 0,
    exitCode: doc.verdict.exitCode,
  };
  return renderFormat(format, [run], { failOn, version: VERSION, sarifAll: Boolean(args['sarif-all']) });
}
