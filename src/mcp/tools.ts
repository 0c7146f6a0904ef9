// The MCP server's tools: one per command, each answering with the command's -o json (structured content, and the
// same JSON as text for clients that read only text) and a short summary to quote. Every tool only reads (the
// cluster through src/cluster/, or a snapshot); none takes a command, a flag, a file other than an allowed
// snapshot, or a kubeconfig. The input schemas are strict: an unknown key is refused, not ignored.
//
// A new tool is one ToolSpec in TOOLS: its inputs as a shape, and run() calling the command's report function (as
// doctorRuns, runAll, mapReport and whatIfReport are called), so that its answer is the CLI's -o json too.
import type { z as Z } from 'zod';
import { CHECKS } from '../checks/registry.js';
import { explainText } from '../checks/docs.js';
import type { RunHooks } from '../commands/common.js';
import { doctorRuns, type DoctorArgs } from '../commands/doctor.js';
import { checkFor, checkList, checkListText, explainDoc } from '../commands/explain.js';
import { runAll, structuredOf, type Runs } from '../commands/fleet.js';
import { mapReport } from '../commands/map.js';
import { orphansOne } from '../commands/orphans.js';
import { quorumOne } from '../commands/quorum.js';
import { whatIfReport } from '../commands/whatif.js';
import { changeReport } from '../commands/change.js';
import { upgradeReport } from '../commands/upgrade.js';
import { InputError } from '../errors.js';
import { isWhatIf, whatIfExplainDoc, whatIfExplainText } from '../whatif/docs.js';
import { makeStyle } from '../render/style.js';
import { filterDoctor, filterOrphans } from './fit.js';
import { callArgs, type ServerSettings, type SourceInput } from './inputs.js';
import { runsSummary } from './summary.js';

type Zod = typeof Z;

/** What a tool answers: the CLI's JSON (perhaps filtered), a summary, and how to reach what a cut leaves out. */
export interface ToolAnswer {
  structured: Record<string, unknown>;
  text: string;
  /** Said in the `truncated` note of a result cut to size. */
  reach: string;
}

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  /** The input's fields (the SDK turns them into the JSON schema a client sees; the object is strict). */
  input(z: Zod): Record<string, Z.ZodType>;
  /** Reads a cluster or a snapshot (MCP's openWorldHint); explain reads only its own docs. */
  openWorld: boolean;
  /** What its structuredContent is (MCP's outputSchema): the command's -o json document, open to more fields. */
  output(z: Zod): Z.ZodType;
  run(input: any, settings: ServerSettings, hooks: RunHooks): Promise<ToolAnswer>;
}

/** A kubectl-arch document of these kinds (what -o json prints), possibly cut to fit (`truncated`). */
const document = (z: Zod, kinds: [string, ...string[]], fields: Record<string, Z.ZodType> = {}): Z.ZodType =>
  z
    .object({
      apiVersion: z.literal('kubectl-arch/v1'),
      kind: z.enum(kinds),
      ...fields,
      truncated: z
        .object({ cut: z.array(z.object({ path: z.string() }).loose()), hint: z.string() })
        .loose()
        .optional(),
    })
    .loose();
const reportFields = (z: Zod): Record<string, Z.ZodType> => ({
  source: z
    .object({ type: z.enum(['cluster', 'snapshot']) })
    .loose()
    .optional(),
  summary: z.object({}).loose().optional(),
  checks: z.array(z.object({ id: z.string(), status: z.enum(['passed', 'findings', 'partial', 'skipped']) }).loose()).optional(),
  contexts: z.array(z.object({ context: z.string(), status: z.enum(['ok', 'failed']) }).loose()).optional(),
});

/** Each check's documentation as an MCP resource: CHECK_URI + its id. */
export const CHECK_URI = 'kubectl-arch://checks/';

/** What a cut prediction still has (code, severity, title, objects), and where the rest is. */
const EXPLAIN_A_CODE =
  'each prediction kept its code, severity, title and objects: call explain with a code for what it means and how to fix it';

/** Manifests as text in one call: a large chart's render is a few hundred KiB. */
const MAX_MCP_TEXT = 4 * 1024 * 1024;

const CHECK_IDS = CHECKS.map((c) => c.id) as [string, ...string[]];
const CODES = CHECKS.flatMap((c) => Object.keys(c.codes)) as [string, ...string[]];

/** Where a tool reads from: a context (or several) of the server's kubeconfig, or an allowed snapshot. */
function source(z: Zod, opts: { many: boolean; namespace: boolean }): Record<string, Z.ZodType> {
  const name = z.string().min(1).max(253);
  return {
    context: name
      .optional()
      .describe(
        "A context of the kubeconfig the server was started with (default: the server's --context, else the kubeconfig's current context)",
      ),
    ...(opts.many
      ? {
          contexts: z
            .array(name.regex(/^[^,]+$/, 'a context name without commas'))
            .min(1)
            .max(100)
            .optional()
            .describe('Several contexts at once, each its own report (a ReportList, as --contexts gives)'),
          allContexts: z.boolean().optional().describe('Every context of the kubeconfig (--all-contexts)'),
        }
      : {}),
    snapshot: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe(
        'Work offline on a snapshot file or directory (kubectl arch snapshot output); only under the directories the server allows (--allow-snapshot-dir). example:field-notes-k3s is the example inside the CLI (always allowed)',
      ),
    ...(opts.namespace
      ? {
          namespace: z
            .string()
            .max(63)
            .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'a namespace name')
            .optional()
            .describe('Limit namespaced objects to this namespace (-n); GitOps owners are still read everywhere'),
        }
      : {}),
  };
}

const sourceOf = (i: SourceInput & Record<string, unknown>): SourceInput => ({
  context: i.context,
  contexts: i.contexts,
  allContexts: i.allContexts,
  snapshot: i.snapshot,
  namespace: i.namespace,
});

export const TOOLS: ToolSpec[] = [
  {
    name: 'doctor',
    title: 'Diagnose a cluster (every check)',
    description:
      'Runs every kubectl-arch check (immutable-field retry loops, GitOps orphans, etcd quorum, webhooks, aggregated APIs, certificates, DNS, stuck deletions, CSI drivers) and returns the report of `kubectl arch doctor -o json`: each check passed, partial, skipped with its reason, or its findings with evidence, why and fix steps for a human (never run). checks and codes narrow the answer to those checks or finding codes; the summary still counts the whole run.',
    input: (z) => ({
      ...source(z, { many: true, namespace: true }),
      checks: z.array(z.enum(CHECK_IDS)).min(1).optional().describe('Only these checks in the answer'),
      codes: z.array(z.enum(CODES)).min(1).optional().describe('Only findings with these codes in the answer (e.g. ARCH-OR01)'),
      deep: z.boolean().optional().describe('Also read kubelet configs through nodes/proxy (--deep; needs get nodes/proxy)'),
    }),
    openWorld: true,
    output: (z) => document(z, ['Report', 'ReportList'], reportFields(z)),
    async run(input, settings, hooks) {
      const args: DoctorArgs = { ...callArgs(settings, sourceOf(input), hooks), deep: Boolean(input.deep), 'stuck-after': '10m' };
      const runs = await doctorRuns(args);
      const shown = (id: string, code: string): boolean =>
        (!input.checks?.length || input.checks.includes(id)) && (!input.codes?.length || input.codes.includes(code));
      return {
        structured: filterDoctor(structuredOf(runs), input.checks, input.codes),
        text: runsSummary(runs, shown),
        reach: 'the summary counts the whole run; call doctor again with checks or codes to see what was cut',
      };
    },
  },
  {
    name: 'orphans',
    title: 'What deleted GitOps owners left running',
    description:
      'Objects left by deleted Argo CD Applications and Flux Kustomizations/HelmReleases, grouped by former owner, with liveness (pods, endpoints, routes, volumes) and confidence: `kubectl arch orphans -o json`. The text also holds the cleanup plan (`--cleanup-plan`: kubectl delete commands in a safe order) for a human to review; it is never run. owners narrows the answer to those former owners.',
    input: (z) => ({
      ...source(z, { many: true, namespace: true }),
      owners: z.array(z.string().min(1).max(507)).min(1).optional().describe('Only these former owners (name or namespace/name)'),
    }),
    openWorld: true,
    output: (z) => document(z, ['OrphanReport', 'ReportList'], { groups: z.array(z.object({}).loose()).optional() }),
    async run(input, settings, hooks) {
      const runs = await runAll('orphans', callArgs(settings, sourceOf(input), hooks), orphansOne);
      const plan = runs.contexts ? undefined : runs.done[0]!.outcome!.plan?.();
      return {
        structured: filterOrphans(structuredOf(runs), input.owners),
        text:
          runsSummary(runs) +
          (plan !== undefined
            ? `\n\nCleanup plan (kubectl arch orphans --cleanup-plan), for a human to review; nothing was run:\n${plan}`
            : runs.contexts
              ? '\n\nCleanup plans are made for one context at a time (their commands carry no --context): call orphans with context.'
              : ''),
        reach: 'call orphans again with owners (or namespace) to see what was cut',
      };
    },
  },
  {
    name: 'quorum',
    title: 'etcd quorum',
    description:
      "etcd members (where, role, health, evidence) and the verdict, e.g. '3 voters, 2 healthy — quorum 2 — no failure tolerated — DEGRADED', as seen through the API (`kubectl arch quorum -o json`). It does not talk to etcd itself.",
    input: (z) => source(z, { many: true, namespace: false }),
    openWorld: true,
    output: (z) =>
      document(z, ['Quorum', 'ReportList'], { verdict: z.string().optional(), members: z.array(z.object({}).loose()).optional() }),
    async run(input, settings, hooks) {
      const runs: Runs = await runAll('quorum', callArgs(settings, sourceOf(input), hooks), quorumOne);
      return { structured: structuredOf(runs), text: runsSummary(runs), reach: 'call quorum for one context at a time' };
    },
  },
  {
    name: 'map',
    title: 'The cluster by contract',
    description:
      'The cluster by its architecture: state (etcd), door (API servers, certificate, webhooks, aggregated APIs), loops (controllers, Argo CD, Flux, finalizers), interfaces (CRI, CNI, CSI, DNS, ingress), each line with the status of the checks that concern it (`kubectl arch map -o json`). The text is the map as the CLI draws it.',
    input: (z) => source(z, { many: false, namespace: true }),
    openWorld: true,
    output: (z) => document(z, ['ArchMap'], { sections: z.array(z.object({ contract: z.string() }).loose()).optional() }),
    async run(input, settings, hooks) {
      const r = await mapReport(callArgs(settings, sourceOf(input), hooks));
      return { structured: r.structured, text: await r.text(makeStyle(false)), reach: 'call map with namespace to see less' };
    },
  },
  {
    name: 'what-if',
    title: 'What breaks if these nodes go down or are removed',
    description:
      'With upgrade (a version) instead of nodes: what upgrading the cluster to it would break. With manifests (or k3sConfig) instead of nodes: what applying them would do, before it is applied. Otherwise it predicts, before a reboot, a drain or a removal, what breaks if these nodes go down for a while (or, with remove, are removed for good: their etcd members too): etcd quorum as it would be, webhooks and aggregated APIs whose only backends are there, controllers that stop, DNS and ingress with nothing left, pods pinned to local volumes, PodDisruptionBudgets that would stop kubectl drain, pods that would not fit, and for several nodes whether one at a time is safe (`kubectl arch what-if <nodes> -o json`). verdict.safe says whether nothing is predicted at or above error. It only reads and changes nothing; a node that does not exist is an error naming it.',
    input: (z) => ({
      ...source(z, { many: false, namespace: false }),
      nodes: z.array(z.string().min(1).max(253)).min(1).max(100).optional().describe('Node names (as kubectl get nodes lists them)'),
      remove: z
        .boolean()
        .optional()
        .describe('Gone for good: the nodes deleted and their etcd members removed (default: down for a while)'),
      manifests: z
        .string()
        .min(1)
        .max(MAX_MCP_TEXT)
        .optional()
        .describe(
          'Instead of nodes: manifests that would be applied (YAML or JSON, many documents; helm template or kustomize build output), as text — what the API server would refuse, what an owner would prune, the door (`kubectl arch what-if -f -`)',
        ),
      k3sConfig: z
        .string()
        .min(1)
        .max(64 * 1024)
        .optional()
        .describe('Instead of nodes: a new K3s server config.yaml, as text (`kubectl arch what-if --k3s-config FILE`)'),
      upgrade: z
        .string()
        .min(1)
        .max(80)
        .optional()
        .describe(
          "Instead of nodes: the version the cluster would be upgraded to (v1.33, v1.33.4, v1.33.4+k3s1) — API versions it no longer serves that are still written to and the owners that would keep applying them, the rollout in the distribution's order with each step judged as for nodes, skipped minors and skew, what would stop a kubelet (`kubectl arch what-if --upgrade VERSION`)",
        ),
    }),
    openWorld: true,
    output: (z) =>
      document(z, ['WhatIf'], {
        predictions: z.array(z.object({ code: z.string(), severity: z.enum(['critical', 'error', 'warning', 'info']) }).loose()).optional(),
        verdict: z
          .object({ state: z.enum(['safe', 'not safe', 'not judged', 'no gate']) })
          .loose()
          .optional(),
      }),
    async run(input, settings, hooks) {
      const change = input.manifests !== undefined || input.k3sConfig !== undefined;
      if (input.upgrade !== undefined) {
        if (change || input.nodes !== undefined || input.remove !== undefined)
          throw new InputError('what-if takes nodes, manifests/k3sConfig, or upgrade: one of them');
        const r = await upgradeReport({ ...callArgs(settings, sourceOf(input), hooks), upgrade: input.upgrade });
        return { structured: r.structured, text: await r.text(makeStyle(false)), reach: 'call what-if upgrade with a closer version' };
      }
      if (change && (input.nodes !== undefined || input.remove !== undefined))
        throw new InputError('what-if takes nodes, or manifests/k3sConfig: not both');
      if (!change && !input.nodes) throw new InputError('what-if needs nodes, manifests, k3sConfig or upgrade');
      if (change) {
        const r = await changeReport({
          ...callArgs(settings, sourceOf(input), hooks),
          ...(input.manifests !== undefined ? { manifestsText: input.manifests } : {}),
          ...(input.k3sConfig !== undefined ? { k3sConfigText: input.k3sConfig } : {}),
        });
        return {
          structured: r.structured,
          text: await r.text(makeStyle(false)),
          reach: `call what-if with fewer manifests; ${EXPLAIN_A_CODE}`,
        };
      }
      const r = await whatIfReport({ ...callArgs(settings, sourceOf(input), hooks), nodes: input.nodes, remove: input.remove === true });
      // fewer nodes is an answer only when there are several: one node's predictions are what they are
      const reach = input.nodes.length > 1 ? `call what-if with one node at a time; ${EXPLAIN_A_CODE}` : EXPLAIN_A_CODE;
      return { structured: r.structured, text: await r.text(makeStyle(false)), reach };
    },
  },
  {
    name: 'explain',
    title: 'Explain a check or finding code',
    description:
      'What a check looks for, why it matters, how to fix it and what its evidence can and cannot prove (`kubectl arch explain <id> -o json`); without id, the list of checks with their finding codes. The same text is offered as the resource kubectl-arch://checks/<id>.',
    input: (z) => ({
      id: z.string().min(1).max(64).optional().describe('A check id (e.g. etcd-quorum) or finding code (e.g. ARCH-EQ01)'),
    }),
    openWorld: false,
    output: (z) =>
      z.object({ id: z.string().optional(), title: z.string().optional(), checks: z.array(z.object({}).loose()).optional() }).loose(),
    async run(input) {
      if (input.id === undefined)
        return { structured: checkList(), text: checkListText(), reach: `call explain with one check's id, or read ${CHECK_URI}<id>` };
      const whole = `ask the user to raise the server's --max-result-bytes for the whole of it`;
      if (isWhatIf(input.id)) return { structured: whatIfExplainDoc(), text: whatIfExplainText(), reach: whole };
      const c = checkFor(input.id);
      return { structured: explainDoc(c), text: explainText(c), reach: `read the resource ${CHECK_URI}${c.id}, or ${whole}` };
    },
  },
];
