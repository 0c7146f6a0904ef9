// Serialise a snapshot as standard Kubernetes YAML: a header document, then one `List` per type.
// Written as a stream of documents so a large cluster does not need one giant string.
import { dump } from 'js-yaml';
import { gkKey, groupOf } from '../model.js';
import { Snapshot, SNAPSHOT_API_VERSION } from './snapshot.js';

export function* snapshotDocuments(snap: Snapshot, format: 'yaml' | 'json'): Generator<string> {
  const header = { apiVersion: SNAPSHOT_API_VERSION, kind: 'SnapshotHeader', ...snap.finalHeader() };
  const lists = snap.lists().sort(([a], [b]) => a.localeCompare(b));
  if (format === 'json') {
    // one JSON List holding everything; the header rides along as the first item's sibling field
    yield '{"apiVersion":"v1","kind":"List","metadata":{},"items":[\n';
    yield JSON.stringify(header);
    for (const [, items] of lists) for (const o of items) yield ',\n' + JSON.stringify(o);
    yield '\n]}\n';
    return;
  }
  yield dump(header, { lineWidth: -1 });
  for (const [key, items] of lists) {
    const first = items[0];
    const listKind = first ? gkKey(groupOf(first.apiVersion), first.kind ?? '') : key;
    yield '---\n' + dump({ apiVersion: 'v1', kind: 'List', metadata: { 'kubectl-arch/kind': listKind }, items }, { lineWidth: -1, noRefs: true });
  }
}
