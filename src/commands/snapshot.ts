// `kubectl arch snapshot`: save what every check needs, as standard Kubernetes YAML (or JSON).
import { EXIT } from '../errors.js';
import { snapshotDocuments } from '../snapshot/save.js';
import { acquire, type GlobalArgs } from './common.js';
import { collect } from './doctor.js';
import { WHAT_IF_NEEDS } from '../change/needs.js';

export async function snapshot(args: GlobalArgs & { deep?: boolean }): Promise<number> {
  const { needs, extra } = collect(Boolean(args.deep));
  // and what what-if -f --snapshot judges changes by (first: a type's bodies, whatever a check lists metadata-only)
  const { snap } = await acquire({ ...args, output: 'json' }, [...WHAT_IF_NEEDS, ...needs], extra);
  const format = args.output === 'json' ? 'json' : 'yaml';
  for (const chunk of snapshotDocuments(snap, format)) {
    if (!process.stdout.write(chunk)) await new Promise((r) => process.stdout.once('drain', r));
  }
  const missing = snap.unavailable();
  if (missing.length) {
    process.stderr.write(
      `saved ${snap.count()} objects; not captured: ${missing.map((u) => `${u.kind}${u.group ? '.' + u.group : ''} (${u.reason})`).join('; ')}\n`,
    );
  }
  return EXIT.OK;
}
