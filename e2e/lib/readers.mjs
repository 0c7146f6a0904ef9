// The plugin's users on a test control plane: the shipped ClusterRole (deploy/clusterrole.yaml) bound to the
// reader, and a reduced copy (no events, no Argo CD) bound to "limited". Written by the admin.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';
import { USERS } from './cluster.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export async function grantReaders(cp) {
  const docs = [];
  loadAll(readFileSync(join(ROOT, 'deploy/clusterrole.yaml'), 'utf8'), (d) => {
    if (d) docs.push(d);
  });
  const reader = docs.find((d) => d.metadata.name === 'kubectl-arch-reader');
  const limited = JSON.parse(JSON.stringify(reader));
  limited.metadata.name = 'kubectl-arch-limited';
  limited.rules[0].resources = limited.rules[0].resources.filter((r) => r !== 'events');
  limited.rules = limited.rules.map((r) =>
    r.apiGroups ? { ...r, apiGroups: r.apiGroups.filter((g) => g !== 'argoproj.io' && g !== 'events.k8s.io') } : r,
  );
  for (const role of [reader, limited]) {
    const r = await cp.admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', role);
    if (r.status !== 201) throw new Error(`ClusterRole ${role.metadata.name}: ${r.status} ${r.text}`);
  }
  for (const [user, role] of [
    [USERS.reader.name, 'kubectl-arch-reader'],
    [USERS.limited.name, 'kubectl-arch-limited'],
  ]) {
    const r = await cp.admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${role}-binding` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    });
    if (r.status !== 201) throw new Error(`ClusterRoleBinding ${role}-binding: ${r.status} ${r.text}`);
  }
}
