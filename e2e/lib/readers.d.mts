import type { ControlPlane } from './cluster.mjs';
/** The shipped ClusterRole bound to the reader; a reduced copy (no events, no Argo CD) bound to "limited". */
export function grantReaders(cp: ControlPlane): Promise<void>;
