// Errors the user sees as one line, each mapped to a documented exit code.

export const EXIT = {
  /** No finding at or above --fail-on. */
  OK: 0,
  /** Findings at or above --fail-on. */
  FINDINGS: 1,
  /** Bad usage or bad input (flags, kubeconfig, snapshot files). */
  USAGE: 2,
  /** Cluster unreachable, TLS failure, or credentials rejected. */
  UNREACHABLE: 3,
  /** A bug in kubectl-arch itself. */
  INTERNAL: 4,
} as const;

export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly hint?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad flags, kubeconfig or snapshot input. */
export class InputError extends UserError {
  constructor(message: string, hint?: string) {
    super(message, EXIT.USAGE, hint);
  }
}

/** The API server could not be reached or refused our credentials. */
export class ClusterError extends UserError {
  constructor(message: string, hint?: string) {
    super(message, EXIT.UNREACHABLE, hint);
  }
}
