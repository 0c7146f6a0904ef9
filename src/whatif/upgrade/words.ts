// How what-if --upgrade words a removed version, its refusal and who wrote through it.
import type { ApiRemoval, WrittenAs } from '../../lib/removed-apis.js';

export const apiVersionText = (r: Pick<ApiRemoval, 'group' | 'version'>): string => (r.group ? `${r.group}/${r.version}` : r.version);

/** What kubectl, Helm, Argo CD and Flux print when the API server does not serve a kind at a version (client-go's
 *  REST mapper; the API server itself answers 404 for the group version). */
export const refusal = (r: Pick<ApiRemoval, 'group' | 'version' | 'kind'>): string =>
  `no matches for kind "${r.kind}" in version "${apiVersionText(r)}"`;

/** kubectl's name for a kind at a version (`kubectl get cronjob.v1.batch`). */
export const kubectlType = (kind: string, apiVersion: string): string => {
  const [g, v] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return `${kind.toLowerCase()}.${v}${g ? `.${g}` : ''}`;
};

/** Who wrote it, in words: "helm (Update, 2024-03-01)", "kubectl apply (its last-applied-configuration)". */
export const writerText = (w: WrittenAs): string =>
  w.via === 'last-applied'
    ? 'kubectl apply (its last-applied-configuration)'
    : `${w.manager ?? 'a manager with no name'}${w.operation || w.time ? ` (${[w.operation, w.time?.slice(0, 10)].filter(Boolean).join(', ')})` : ''}`;
