// The synthetic API server (fake-cluster.mjs) in a process of its own, for benchmarks that time commands with
// spawnSync (which would block a server in the same process): writes {url, token} to the file named by argv[2]
// once it listens, and serves until killed.
//   node fake-cluster-server.mjs OUT.json [objects] [namespaces]
import { writeFileSync } from 'node:fs';
import { generate, startFakeCluster } from './fake-cluster.mjs';

const [out, objects = '200', namespaces = '4'] = process.argv.slice(2);
const fc = await startFakeCluster(generate(Number(objects), Number(namespaces)));
writeFileSync(out, JSON.stringify({ url: fc.url, token: fc.token }));
