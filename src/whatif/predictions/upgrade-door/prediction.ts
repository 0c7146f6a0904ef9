// ARCH-WI40: an API version the target no longer serves is still written to (objects last written through it, by a
// writer that is no re-applying owner: those are ARCH-WI43's); ARCH-WI41: a kind the target no longer serves in any
// version, with objects (PodSecurityPolicy in v1.25); ARCH-WI42: an admission or conversion webhook whose review
// versions the target no longer sends.
import { command, type Step } from '../../../lib/shell.js';
import { REMOVALS_KNOWN_TO, type ApiRemoval } from '../../../lib/removed-apis.js';
import type { KObject, ObjectRef } from '../../../model.js';
import { R } from '../../../resources.js';
import { arr } from '../../cluster.js';
import { count, definePrediction, input, refText, type Prediction } from '../../types.js';
import { OWNER_READS, retryingOwner } from '../upgrade-loops/prediction.js';
import { apiVersionText, kubectlType, refusal, writerText } from '../../upgrade/words.js';
import { REMOVED_READS, removedFor, removedKey, type RemovedWrite } from '../../upgrade/removed.js';
import { versionText } from '../../upgrade/version.js';

/** The AdmissionReview and ConversionReview versions every release from v1.16 up to the newest known sends
 *  (k8s.io/apiserver pkg/admission/plugin/webhook/request/admissionreview.go, k8s.io/apiextensions-apiserver
 *  pkg/apiserver/conversion/webhook_converter.go): no release has stopped sending v1beta1 yet. */
export const REVIEW_VERSIONS = ['v1', 'v1beta1'];
/** At most this many objects are named in one prediction (the rest are counted). */
const NAMED = 25;

/** The objects named, and how many more. */
const named = (refs: ObjectRef[]): { objects: ObjectRef[]; more: string } => ({
  objects: refs.slice(0, NAMED),
  more: refs.length > NAMED ? ` and ${refs.length - NAMED} more` : '',
});

export default definePrediction({
  id: 'upgrade-door',
  code: 'ARCH-WI40',
  title: 'an API version the target no longer serves is still written to: the next write through it is refused',
  contract: 'door',
  applies: (h) => Boolean(h.upgrade),
  needs: [
    input(R.validatingWebhooks, 'evidence', 'which admission webhooks take only review versions the target no longer sends', {
      fields: ['webhooks[].name', 'webhooks[].admissionReviewVersions'],
    }),
    input(R.mutatingWebhooks, 'evidence', 'which admission webhooks take only review versions the target no longer sends', {
      fields: ['webhooks[].name', 'webhooks[].admissionReviewVersions'],
    }),
    input(R.crds, 'evidence', 'which conversion webhooks take only review versions the target no longer sends', {
      fields: ['spec.conversion.strategy', 'spec.conversion.webhook.conversionReviewVersions'],
    }),
  ],
  reads: [...REMOVED_READS, ...OWNER_READS],
  docs: {
    what: [
      'The table of API versions each release stops serving (src/lib/api-removals.ts) is generated from the lifecycle tags',
      'of every beta and alpha type in k8s.io/api, k8s.io/apiextensions-apiserver and k8s.io/kube-aggregator — what the',
      'API server itself reads to leave a type out (k8s.io/apiserver pkg/server/deleted_kinds.go) — and held to real API',
      'servers of several releases by difference. For every version removed after the current release up to the target,',
      'every object is looked at for how it was last written: each managedFields entry records the apiVersion of the',
      'request that wrote it and its manager, and kubectl apply leaves the apiVersion of its manifest in the',
      'last-applied-configuration annotation (a snapshot keeps only the entries and the apiVersion of removed versions, never',
      'the annotation itself). An object last written',
      'through a removed version by a writer that is no re-applying owner (kubectl, a script, an operator without an',
      'ownerReference) is ARCH-WI40: its next write through that version is refused; the object itself stays, served by',
      'the replacement version. A kind removed with no replacement (policy/v1beta1 PodSecurityPolicy in v1.25) takes its',
      'objects with it: ARCH-WI41. A webhook (admission, or a CRD conversion) that takes only review versions the target',
      'no longer sends is ARCH-WI42 (up to the newest release known, every release sends v1 and v1beta1).',
    ].join(' '),
    why: 'The API server is the only door; an upgrade closes the doors of removed versions, and whatever still writes through one is turned away — the objects stay, their writers fail.',
    limits: [
      'A client that only reads through a removed version, or sends requests that store nothing (TokenReview,',
      'SubjectAccessReview), leaves no trace on any object: the API server counts them in its',
      'apiserver_requested_deprecated_apis metric and audit log, which are not read. managedFields exist since v1.18: an',
      'object not written since carries none. A snapshot read without managedFields (kubectl get hides them unless',
      '--show-managed-fields) cannot say who wrote its objects: that is not judged. Releases after the newest the table',
      `knows (v1.${REMOVALS_KNOWN_TO}) are judged by the schedule that release's tags declare, and said so.`,
    ].join(' '),
  },
  predict(c) {
    const u = c.h.upgrade!;
    const rm = removedFor(c.snap, u);
    const predictions: Prediction[] = [];
    const unjudged: Array<{ what: string }> = [];
    const target = versionText(u.target);
    // writers that are no re-applying owner, by removed version
    const byRemoval = new Map<string, { removal: ApiRemoval; writes: RemovedWrite[] }>();
    for (const w of rm.writes) {
      // a kind with no replacement is said once, by ARCH-WI41 (it goes, whoever wrote it)
      if (!w.removal.replacement || retryingOwner(w.object, c.snap)) continue;
      const e = byRemoval.get(removedKey(w.removal)) ?? { removal: w.removal, writes: [] };
      e.writes.push(w);
      byRemoval.set(removedKey(w.removal), e);
    }
    for (const { removal: r, writes } of byRemoval.values()) {
      const { objects, more } = named(writes.map((w) => w.ref));
      const who = writes
        .slice(0, NAMED)
        .map((w) => `${refText(w.ref)} by ${[...new Set(w.writes.map(writerText))].join(' and ')}`)
        .join('; ');
      const events = r.kind === 'Event';
      const first = writes[0]!.object;
      const fix: Step[] = [
        r.replacement
          ? `before the upgrade, move each manifest and client to ${r.replacement} and apply it; the writer named is who applies it`
          : `before the upgrade, stop writing ${r.kind} objects: v1.${r.removed} serves no version of them`,
        ...(r.replacement
          ? [
              command(['kubectl', 'convert', '-f', 'FILE', '--output-version', r.replacement], {
                say: 'a manifest moved',
                note: 'FILE: each manifest that still says the removed version (the kubectl-convert plugin)',
              }),
              command(
                [
                  'kubectl',
                  ...(first.metadata.namespace ? ['-n', first.metadata.namespace] : []),
                  'get',
                  kubectlType(r.kind, r.replacement),
                  first.metadata.name,
                  '-o',
                  'yaml',
                ],
                { say: `${refText(writes[0]!.ref)} as ${r.replacement}` },
              ),
            ]
          : []),
      ];
      predictions.push({
        contract: 'door',
        code: 'ARCH-WI40',
        from: 'what-if',
        severity: events ? 'warning' : 'error',
        title: `${apiVersionText(r)} ${r.kind} is not served from v1.${r.removed}, and ${count(writes.length, 'object')} ${writes.length === 1 ? 'was' : 'were'} last written through it`,
        message: `${who}${more}. After the upgrade to ${target} the next write through ${apiVersionText(r)} is refused (${refusal(r)}; the API server answers 404 for /apis/${apiVersionText(r)})${events ? ': those events are lost' : ''}${r.replacement ? `; the objects stay, served as ${r.replacement}` : ''}.${r.removed > REMOVALS_KNOWN_TO ? ` (v1.${r.removed} is the removal the v1.${REMOVALS_KNOWN_TO} API schedules.)` : ''}`,
        objects,
        why: 'The API server is the only door: a removed version is a closed door, and whoever still writes through it is turned away.',
        fix,
      });
    }
    // kinds removed with no replacement: their objects go with them
    const gone = new Map<string, { removal: ApiRemoval; objects: KObject[] }>();
    for (const o of rm.orphaned) {
      const e = gone.get(removedKey(o.removal)) ?? { removal: o.removal, objects: [] };
      e.objects.push(o.object);
      gone.set(removedKey(o.removal), e);
    }
    for (const { removal: r, objects: objs } of gone.values()) {
      const { objects, more } = named(
        objs.map((o) => ({ kind: r.kind, apiVersion: apiVersionText(r), namespace: o.metadata.namespace, name: o.metadata.name })),
      );
      const psp = r.kind === 'PodSecurityPolicy';
      predictions.push({
        contract: 'door',
        code: 'ARCH-WI41',
        from: 'what-if',
        severity: 'error',
        title: `${r.kind} is not served at all from v1.${r.removed}: ${count(objs.length, 'object')} of it ${objs.length === 1 ? 'goes' : 'go'} with it`,
        message: `${objects.map((o) => refText(o)).join(', ')}${more}: ${apiVersionText(r)} is the only version serving them, and v1.${r.removed} has no replacement; they can no longer be read or written${psp ? '. The PodSecurityPolicy admission plugin is gone too: a kube-apiserver started with --enable-admission-plugins=…PodSecurityPolicy does not start' : ''}.`,
        objects,
        why: 'What the door no longer serves is out of reach: the objects remain in etcd, and nothing can read or enforce them.',
        fix: psp
          ? [
              'before the upgrade, enforce Pod Security Admission instead (pod-security.kubernetes.io/enforce labels on each namespace), then delete the PodSecurityPolicies and take PodSecurityPolicy out of the API server flags',
            ]
          : [`before the upgrade, move what they do elsewhere and delete them: v1.${r.removed} serves no version of ${r.kind}`],
      });
    }
    // webhooks that take only review versions the target no longer sends
    const sends = u.target.minor <= REMOVALS_KNOWN_TO ? REVIEW_VERSIONS : undefined;
    if (sends) {
      for (const type of [R.validatingWebhooks, R.mutatingWebhooks])
        for (const cfg of c.snap.of(type)) {
          const bad = arr<Record<string, unknown>>(cfg.webhooks).filter((w) => {
            const v = arr<string>(w?.admissionReviewVersions);
            return v.length > 0 && !v.some((x) => sends.includes(x));
          });
          if (!bad.length) continue;
          predictions.push({
            contract: 'door',
            code: 'ARCH-WI42',
            from: 'what-if',
            severity: 'error',
            title: `${refText({ kind: type.kind, name: cfg.metadata.name })} takes only review versions ${target} does not send`,
            message: `${bad.map((w) => `${String(w.name)}: admissionReviewVersions ${JSON.stringify(w.admissionReviewVersions)}`).join('; ')}. ${target} sends AdmissionReview ${sends.join(' or ')}: every request it matches fails with "webhook does not accept known AdmissionReview versions".`,
            objects: [{ kind: type.kind, name: cfg.metadata.name }],
            why: 'An admission webhook stands in the door: one the API server cannot talk to rejects what it matches.',
            fix: [
              `before the upgrade, upgrade the webhook's server to one that takes AdmissionReview v1, and list v1 in admissionReviewVersions`,
            ],
          });
        }
      for (const crd of c.snap.of(R.crds)) {
        const v = arr<string>(crd.spec?.conversion?.webhook?.conversionReviewVersions);
        if (crd.spec?.conversion?.strategy !== 'Webhook' || !v.length || v.some((x) => sends.includes(x))) continue;
        predictions.push({
          contract: 'door',
          code: 'ARCH-WI42',
          from: 'what-if',
          severity: 'error',
          title: `${refText({ kind: 'CustomResourceDefinition', name: crd.metadata.name })}'s conversion webhook takes only review versions ${target} does not send`,
          message: `conversionReviewVersions ${JSON.stringify(v)}; ${target} sends ConversionReview ${sends.join(' or ')}: every read or write that needs a conversion fails.`,
          objects: [{ kind: 'CustomResourceDefinition', name: crd.metadata.name }],
          why: 'A conversion webhook stands in the door for every version of its kind but the stored one.',
          fix: ['before the upgrade, upgrade the conversion webhook to one that takes ConversionReview v1'],
        });
      }
    } else
      unjudged.push({
        what: `which AdmissionReview and ConversionReview versions ${target} sends (releases after v1.${REMOVALS_KNOWN_TO} are not known)`,
      });
    if (!rm.managedFields)
      unjudged.push({
        what: `who writes the objects through removed versions: this snapshot was read without managedFields (kubectl get shows them with --show-managed-fields); only last-applied annotations were read`,
      });
    for (const k of rm.unseenKinds)
      unjudged.push({ what: `${k} objects (not listed): whether any was written through a version ${target} removes` });
    if (rm.beyondKnown)
      unjudged.push({ what: `what releases after v1.${REMOVALS_KNOWN_TO} remove beyond what the v1.${REMOVALS_KNOWN_TO} API schedules` });
    return { predictions, unjudged };
  },
});
