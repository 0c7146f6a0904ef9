// Human output of `kubectl arch orphans`. Every string from the cluster is escaped (lib/safe.ts).
import type { Finding, ReportSource } from '../model.js';
import type { OrphanReport } from '../orphans/scan.js';
import { age } from '../lib/time.js';
import { refText } from '../model.js';
import { termSafeDeep } from '../lib/safe.js';
import type { Style } from './style.js';
import { columns } from './table.js';
import { hang } from '../lib/wrap.js';

/** "1 Application", "5 Applications", and for none "no Applications". */
const count = (n: number, one: string): string => (n === 0 ? `no ${one}s` : `${n} ${one}${n === 1 ? '' : 's'}`);

/** The findings the command made of the report (one per group, per owner elsewhere, per deletion, in its order): a
 *  renderer shows findings, it does not make them. */
type Shown = Pick<Finding, 'severity' | 'title' | 'message'>;
export interface OrphanFindings {
  groups: Shown[];
  elsewhere: Shown[];
  deleting: Shown[];
}

export function renderOrphans(report: OrphanReport, found: OrphanFindings, src0: ReportSource, s: Style, now: Date): string {
  const rep = termSafeDeep(report, false);
  const source = termSafeDeep(src0, false);
  const w = s.width;
  const L: string[] = [];
  const src = source.type === 'snapshot' ? `snapshot ${source.path}` : `context ${source.context}`;
  L.push(
    hang(
      '',
      s.bold('kubectl arch orphans') +
        s.dim(` — ${src}${source.namespace ? `, namespace ${source.namespace}` : ''}, ${rep.scanned} objects scanned`),
      w,
    ),
    '',
  );
  const state = (st: string, reason?: string): string =>
    st === 'not-installed' ? 'not installed in this cluster' : `not visible: ${reason ?? '?'}`;
  L.push(
    hang(
      '  Argo CD  ',
      rep.argo.visible
        ? `${count(rep.argo.apps, 'Application')}${rep.argo.namespace ? ` in ${rep.argo.namespace}` : ''} (tracking method ${rep.argo.trackingMethod}, label ${rep.argo.instanceLabelKey}${rep.argo.installationID ? `, installationID ${rep.argo.installationID}` : ''})`
        : state(rep.argo.state, rep.argo.reason),
      w,
    ),
  );
  L.push(
    hang(
      '  Flux     ',
      rep.flux.visible
        ? `${count(rep.flux.kustomizations, 'Kustomization')}, ${count(rep.flux.helmReleases, 'HelmRelease')}`
        : state(rep.flux.state, rep.flux.reason),
      w,
    ),
    '',
  );
  // "none found" is said only for owner types that could be judged
  const cannot = [
    ...(rep.argo.state === 'not-visible' ? ['Argo CD (not visible)'] : []),
    ...(rep.flux.state === 'not-visible' ? ['Flux (not visible)'] : []),
    ...rep.elsewhere.map((e) => `${e.tool} (runs in another cluster)`),
  ];
  if (rep.groups.length === 0) {
    if (cannot.length === 0) L.push(s.green('No objects of deleted GitOps owners found.'), '');
    else L.push(hang('', `No leftovers found for the owners that could be judged; not judged here: ${cannot.join(', ')}.`, w), '');
  }
  for (const [i, g] of rep.groups.entries()) {
    const f = termSafeDeep(found.groups[i]!, false);
    L.push(
      hang(
        `${s.sev(f.severity, f.severity.toUpperCase())} `,
        `${s.bold(f.title.replace(/ \u2014 still .*$/, ''))}${g.liveness.servingTraffic ? s.sev('error', '  STILL SERVING TRAFFIC') : g.liveness.runningPods ? s.yellow('  still running') : ''}`,
        w,
      ),
    );
    L.push(hang('    ', `confidence ${g.confidence} (${g.signals.join(', ')}); oldest object ${age(g.oldest, now)} old`, w));
    L.push(hang('    liveness: ', g.liveness.summary, w));
    L.push(
      ...columns(
        [
          ['KIND', 'NAMESPACE', 'NAME', 'SIGNAL', 'AGE'],
          ...g.objects.map((o) => [o.kind, o.namespace ?? '(cluster)', o.name, o.signal, age(o.created, now)]),
        ],
        { indent: '    ', maxWidth: 80, width: w },
      ),
    );
    L.push('');
  }
  for (const [i, e] of rep.elsewhere.entries()) {
    const f = termSafeDeep(found.elsewhere[i]!, false);
    L.push(hang(`${s.sev('info', 'CANNOT JUDGE HERE')} `, s.bold(f.title), w), hang('    ', f.message, w));
    L.push(
      ...columns(
        [
          ['KIND', 'NAMESPACE', 'NAME', 'SIGNAL', 'AGE'],
          ...e.objects.map((o) => [o.kind, o.namespace ?? '(cluster)', o.name, o.signal, age(o.created, now)]),
        ],
        { indent: '    ', maxWidth: 80, width: w },
      ),
      '',
    );
  }
  if (rep.deleting.length) {
    L.push(hang('', s.bold('Being deleted (not orphans)'), w));
    for (const i of rep.deleting.keys()) {
      const f = termSafeDeep(found.deleting[i]!, false);
      L.push(hang(`    ${s.sev(f.severity, f.severity.toUpperCase())} `, `${f.title}: ${f.message}`, w));
    }
    L.push('');
  }
  if (rep.kept.length) {
    L.push(hang('', s.bold('Kept on purpose (not orphans)'), w));
    for (const k of rep.kept) L.push(hang('    ', `${refText(k)} — ${k.reason} (owner ${k.owner} is gone)`, w));
    L.push('');
  }
  if (rep.risks.length) {
    L.push(hang('', s.bold('At risk: live Applications whose deletion would orphan their resources'), w));
    for (const r of rep.risks)
      L.push(
        hang(
          '    ',
          `Application ${r.app.namespace}/${r.app.name}: no cascading finalizer, ${r.trackedObjects} tracked objects${r.children?.length ? `; parent of ${r.children.join(', ')}` : ''}`,
          w,
        ),
      );
    L.push('');
  }
  if (rep.dangling.length) {
    L.push(hang('', s.bold('Dangling ownerReferences'), w));
    for (const d of rep.dangling.slice(0, 20))
      L.push(hang('    ', `${refText(d)} → ${d.ownerKind} ${d.ownerName} (uid ${d.ownerUid}) no longer exists`, w));
    if (rep.dangling.length > 20) L.push(`    … and ${rep.dangling.length - 20} more (-o json for all)`);
    L.push('');
  }
  if (rep.ignoredCopiedAnnotations)
    L.push(hang('', s.dim(`ignored ${rep.ignoredCopiedAnnotations} copied tracking annotation(s) that do not match their object`), w));
  for (const n of rep.notes) L.push(hang('', s.dim(`note: ${n}`), w, 6));
  if (rep.groups.length) L.push('', hang('', 'Cleanup commands for review: kubectl arch orphans --cleanup-plan', w));
  return L.join('\n') + '\n';
}
