// Exec credential plugins (aws eks get-token, gke-gcloud-auth-plugin, kubelogin, ...), run the way
// kubectl runs them (client.authentication.k8s.io ExecCredential over stdout, KUBERNETES_EXEC_INFO,
// stderr passed through) — plus what a diagnostic tool needs on a bad day: a time limit, the plugin
// killed with its children on Ctrl-C or timeout, and an error (not an anonymous request) when it
// returns no credential.
import { spawn } from 'node:child_process';
import { InputError } from '../errors.js';
import { onInterrupt } from '../lifecycle.js';

export interface ExecConfig {
  command: string;
  args?: string[];
  env?: Array<{ name: string; value: string }> | null;
  apiVersion?: string;
  interactiveMode?: 'Never' | 'IfAvailable' | 'Always';
  provideClusterInfo?: boolean;
  installHint?: string;
}

export interface ExecResult {
  token?: string;
  cert?: string;
  key?: string;
}

export async function runExecPlugin(
  user: string,
  exec: ExecConfig,
  opts: { timeoutMs: number; cluster?: Record<string, unknown>; signal?: AbortSignal },
): Promise<ExecResult> {
  if (!exec || typeof exec.command !== 'string' || exec.command === '') throw new InputError(`user "${user}": exec has no command`);
  if (opts.signal?.aborted) throw new InputError(`user "${user}": exec credential plugin ${exec.command} not run: the run was cancelled`);
  const interactive = exec.interactiveMode !== 'Never' && Boolean(process.stdin.isTTY);
  if (exec.interactiveMode === 'Always' && !interactive) {
    throw new InputError(`user "${user}": exec plugin ${exec.command} needs an interactive terminal (interactiveMode: Always)`);
  }
  const apiVersion = exec.apiVersion ?? 'client.authentication.k8s.io/v1beta1';
  const info = {
    apiVersion,
    kind: 'ExecCredential',
    spec: { interactive, ...(exec.provideClusterInfo && opts.cluster ? { cluster: opts.cluster } : {}) },
  };
  const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
  for (const e of exec.env ?? []) if (e && typeof e.name === 'string') env[e.name] = String(e.value ?? '');
  // an interactive login may wait for a browser: give it longer, the user is there to press Ctrl-C
  const timeoutMs = interactive ? Math.max(opts.timeoutMs, 300_000) : opts.timeoutMs;
  return new Promise<ExecResult>((resolve, reject) => {
    // non-interactive plugins get their own process group so a timeout kills their children too;
    // interactive ones stay in ours (a background group reading the terminal would be stopped)
    const child = spawn(exec.command, Array.isArray(exec.args) ? exec.args.map(String) : [], {
      env,
      stdio: [interactive ? 'inherit' : 'ignore', 'pipe', 'inherit'],
      detached: !interactive,
    });
    let out = '';
    let settled = false;
    const kill = (): void => {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      try {
        if (!interactive) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        /* already gone */
      }
    };
    const unregister = onInterrupt(kill);
    // a stopped run (an MCP call cancelled) kills the plugin as Ctrl-C does
    const stop = (): void => {
      kill();
      done(new InputError(`user "${user}": exec credential plugin ${exec.command} stopped: the run was cancelled`));
    };
    opts.signal?.addEventListener('abort', stop, { once: true });
    const done = (err: Error | null, r?: ExecResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unregister();
      opts.signal?.removeEventListener('abort', stop);
      if (err) reject(err);
      else resolve(r!);
    };
    const timer = setTimeout(() => {
      kill();
      done(
        new InputError(
          `user "${user}": exec credential plugin ${exec.command} did not answer within ${Math.round(timeoutMs / 1000)}s`,
          'run the plugin by hand to see what it waits for, or raise --deadline',
        ),
      );
    }, timeoutMs);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      if (out.length < 4 << 20) out += d;
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      done(
        new InputError(
          `user "${user}": cannot run exec credential plugin ${exec.command}: ${e.code === 'ENOENT' ? 'not found' : e.message}`,
          typeof exec.installHint === 'string' && exec.installHint ? exec.installHint.trim() : undefined,
        ),
      );
    });
    child.on('close', (code, signal) => {
      if (code !== 0) {
        done(
          new InputError(
            `user "${user}": exec credential plugin ${exec.command} failed (${signal ? `signal ${signal}` : `exit ${code}`})`,
            'its own error is printed above',
          ),
        );
        return;
      }
      let cred: { kind?: string; status?: { token?: unknown; clientCertificateData?: unknown; clientKeyData?: unknown } };
      try {
        cred = JSON.parse(out) as typeof cred;
      } catch {
        done(new InputError(`user "${user}": exec credential plugin ${exec.command} printed no ExecCredential JSON`));
        return;
      }
      const st = cred?.status ?? {};
      const r: ExecResult = {
        token: typeof st.token === 'string' && st.token !== '' ? st.token : undefined,
        cert: typeof st.clientCertificateData === 'string' && st.clientCertificateData !== '' ? st.clientCertificateData : undefined,
        key: typeof st.clientKeyData === 'string' && st.clientKeyData !== '' ? st.clientKeyData : undefined,
      };
      if (!r.token && !(r.cert && r.key)) {
        done(
          new InputError(
            `user "${user}": exec credential plugin ${exec.command} returned no token and no client certificate`,
            "kubectl-arch will not fall back to an anonymous request; check the plugin's configuration",
          ),
        );
        return;
      }
      done(null, r);
    });
  });
}
