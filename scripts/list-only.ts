// The benchmarks' lower bound: the same client, discovery and metadata-only lists as `orphans`, nothing else.
// Not part of the CLI; scripts/lib/list-only.mjs bundles it for scripts/bench-orphans.mjs and e2e/bench-scale.mjs.
import { DEFAULT_CLIENT_OPTIONS } from '../src/cluster/client.js';
import { connect } from '../src/cluster/connect.js';
import { fetchSnapshot } from '../src/cluster/fetch.js';
import { resolveConfig } from '../src/cluster/kubeconfig.js';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const cfg = resolveConfig({ kubeconfig: arg('--kubeconfig'), context: arg('--context') });
const client = await connect(cfg, DEFAULT_CLIENT_OPTIONS);
const snap = await fetchSnapshot(client, [], { server: cfg.server, allTypes: true });
client.close();
process.stdout.write(JSON.stringify({ objects: snap.count(), types: snap.kinds().length }) + '\n');
