// The only list of what-if's own predictions (each a unit in ./<id>/prediction.ts with its cases beside it), in the
// order they are reported. The checks' predictions are the checks' own (src/checks/registry.ts), run on the cluster
// as it would be (../predict.ts).
import apiServers from './api-servers/prediction.js';
import barePods from './bare-pods/prediction.js';
import capacity from './capacity/prediction.js';
import controllers from './controllers/prediction.js';
import drainBudgets from './drain-budgets/prediction.js';
import etcdSnapshots from './etcd-snapshots/prediction.js';
import ingress from './ingress/prediction.js';
import pinnedVolumes from './pinned-volumes/prediction.js';
import workloadsDown from './workloads-down/prediction.js';
import type { PredictionUnit } from '../types.js';

export const UNITS: PredictionUnit[] = [
  apiServers,
  workloadsDown,
  drainBudgets,
  pinnedVolumes,
  capacity,
  controllers,
  ingress,
  etcdSnapshots,
  barePods,
];
