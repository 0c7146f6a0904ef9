// Generates examples/field-notes-k3s/: a snapshot of a cluster like the one in our field notes
// (K3s v1.35.4+k3s1, 3 servers + 3 agents, 45 namespaces), with the failure cases the checks find:
// the CoreDNS clusterIP retry loop and the leftovers of the deleted Argo CD Application `blog`.
// Run: node scripts/gen-example.mjs  (the output is committed; this script documents how it was made)
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dump } from 'js-yaml';
import { buildFieldNotes } from './lib/field-notes.mjs';

const OUT = 'examples/field-notes-k3s';
const { lists, header } = buildFieldNotes({ corednsLoop: true, deletedBlog: true });
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
writeFileSync(`${OUT}/00-header.yaml`, `# kubectl-arch snapshot header: what is not an object (see README "Snapshots")\n${dump(header, { lineWidth: -1 })}`);
for (const [file, items] of Object.entries(lists)) {
  writeFileSync(`${OUT}/${file}`, dump({ apiVersion: 'v1', kind: 'List', metadata: {}, items }, { lineWidth: -1, noRefs: true }));
}
console.log(`wrote ${OUT}: ${Object.values(lists).reduce((n, l) => n + l.length, 0)} objects`);
