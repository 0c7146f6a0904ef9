// `kubectl arch rbac`: the read-only ClusterRoles the plugin needs, printed for `kubectl apply -f -`.
// Bundled into the binary, so a krew install needs nothing from the source tree.
import clusterRole from '../../deploy/clusterrole.yaml';
import { EXIT } from '../errors.js';

export async function rbac(): Promise<number> {
  process.stdout.write(clusterRole.endsWith('\n') ? clusterRole : `${clusterRole}\n`);
  return EXIT.OK;
}
