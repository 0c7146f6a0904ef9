// K3s and RKE2 record each node's command line (with its config.yaml, since v1.21.1) in the <program>.io/node-args
// annotation, credentials masked: what-if --upgrade reads which flags they pass to the kubelet and the API server.
import type { KObject } from '../../model.js';

export interface NodeArgs {
  program: 'k3s' | 'rke2';
  args: string[];
}

export function nodeArgs(n: KObject): NodeArgs | null {
  for (const program of ['k3s', 'rke2'] as const) {
    const raw = n.metadata.annotations?.[`${program}.io/node-args`];
    if (typeof raw !== 'string') continue;
    try {
      const a: unknown = JSON.parse(raw);
      if (Array.isArray(a)) return { program, args: a.map(String) };
    } catch {
      return null;
    }
  }
  return null;
}

/** The values given to a repeatable flag (`--kubelet-arg X`, `--kubelet-arg=X`). */
export function values(args: string[], flag: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === flag && i + 1 < args.length) out.push(args[++i]!);
    else if (a.startsWith(`${flag}=`)) out.push(a.slice(flag.length + 1));
  }
  return out;
}

/** `name=value` (or `--name=value`, `name`) as its flag name and value. */
export const split = (v: string): { name: string; value?: string } => {
  const s = v.replace(/^-+/, '');
  const eq = s.indexOf('=');
  return eq < 0 ? { name: s } : { name: s.slice(0, eq), value: s.slice(eq + 1) };
};
