// Run the built CLI (bin/kubectl-arch) or the real kubectl as child processes.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = `${ROOT}bin/kubectl-arch`;
export const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      env: {
        ...process.env,
        NO_COLOR: '1',
        KUBECONFIG: '/nonexistent',
        COLUMNS: '',
        ...env,
        PATH: `${ROOT}bin:${env.PATH ?? process.env.PATH}`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(cwd ? { cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

export const arch = (args: string[], env?: NodeJS.ProcessEnv, cwd?: string): Promise<RunResult> => run(BIN, args, env, cwd);
export const kubectl = (args: string[], env?: NodeJS.ProcessEnv): Promise<RunResult> => run(KUBECTL, args, env);
