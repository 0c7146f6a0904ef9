// The synthetic API server (fake-cluster.mjs) in a process of its own, for benchmarks that time commands with
// spawnSync (which would block a server in the same process): writes a kubeconfig for it to the file named by
// argv[2] once it listens, and serves until killed.
//   node fake-cluster-server.mjs KUBECONFIG [objects] [namespaces]
import { renameSync, writeFileSync } from 'node:fs';
import { generate, kubeconfigFor, startFakeCluster } from './fake-cluster.mjs';

const [out, objects = '200', namespaces = '4'] = process.argv.slice(2);
const fc = await startFakeCluster(generate(Number(objects), Number(namespaces)));
// whole or not at all: the benchmark starts when the file appears
writeFileSync(`${out}.tmp`, kubeconfigFor(fc));
renameSync(`${out}.tmp`, out);
