// Serialise a snapshot as standard Kubernetes YAML: a header document, then one document per
// object, then an end marker. Written as a stream of documents so a large cluster never becomes one
// giant string, and read back one document at a time. A document js-yaml cannot write (a scalar of
// several MB overflows its stack) is written as JSON, which is valid YAML. If the process dies mid-way
// the end marker is missing and the loader rejects the file instead of reading a partial cluster.
import { dump } from 'js-yaml';
import { Snapshot, SNAPSHOT_API_VERSION, SNAPSHOT_END_KIND } from './snapshot.js';
import { byText } from '../lib/order.js';

function yamlDoc(v: unknown): string {
  try {
    return dump(v, { lineWidth: -1, noRefs: true });
  } catch {
    return JSON.stringify(v) + '\n';
  }
}

export function* snapshotDocuments(snap: Snapshot, format: 'yaml' | 'json'): Generator<string> {
  const header = { apiVersion: SNAPSHOT_API_VERSION, kind: 'SnapshotHeader', endMarker: true, ...snap.finalHeader() };
  const lists = snap.lists().sort(([a], [b]) => byText(a, b));
  const end = { apiVersion: SNAPSHOT_API_VERSION, kind: SNAPSHOT_END_KIND, objects: snap.count() };
  if (format === 'json') {
    // one JSON List holding everything; the header and the end marker ride along as items
    yield '{"apiVersion":"v1","kind":"List","metadata":{},"items":[\n';
    yield JSON.stringify(header);
    for (const [, items] of lists) for (const o of items) yield ',\n' + JSON.stringify(o);
    yield ',\n' + JSON.stringify(end) + '\n]}\n';
    return;
  }
  yield yamlDoc(header);
  for (const [, items] of lists) for (const o of items) yield '---\n' + yamlDoc(o);
  yield '---\n' + yamlDoc(end);
}
