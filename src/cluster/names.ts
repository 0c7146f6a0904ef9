// Node names for shell completion of `what-if`: one metadata-only LIST of nodes (at most 500), with a short timeout,
// the same kubeconfig flags as a run. Completion never fails: an unreachable cluster offers nothing.
import { METADATA_ACCEPT, DEFAULT_CLIENT_OPTIONS } from './client.js';
import { connect } from './connect.js';
import { resolveConfig, type ConnectionFlags } from './kubeconfig.js';

export const COMPLETION_TIMEOUT_MS = 3000;

export async function liveNodeNames(flags: ConnectionFlags): Promise<string[]> {
  try {
    const client = await connect(resolveConfig(flags), { ...DEFAULT_CLIENT_OPTIONS, timeoutMs: COMPLETION_TIMEOUT_MS });
    try {
      const list = await client.getJSON<{ items?: Array<{ metadata?: { name?: unknown } }> }>('/api/v1/nodes?limit=500', METADATA_ACCEPT);
      return (list.items ?? []).map((n) => n.metadata?.name).filter((n): n is string => typeof n === 'string');
    } finally {
      client.close();
    }
  } catch {
    return [];
  }
}
