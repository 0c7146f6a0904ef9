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
import upgradeDoor from './upgrade-door/prediction.js';
import upgradeLoops from './upgrade-loops/prediction.js';
import upgradeNodes from './upgrade-nodes/prediction.js';
import upgradeVersions from './upgrade-versions/prediction.js';
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

/** what-if --upgrade's own predictions on the cluster as it is, for the target version (the rollout's steps are judged
 *  by UNITS and the checks, as what-if NODE judges them: ../upgrade/predict.ts). */
export const UPGRADE_UNITS: PredictionUnit[] = [upgradeVersions, upgradeDoor, upgradeLoops, upgradeNodes];
