// jest's globalSetup: every temporary file of the run — the tests', the CLI's and the tools' they start (go
// build, etcd, openssl) — goes to one directory of its own (TMPDIR, which os.tmpdir() and the child processes read).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-arch-jest-'));
  process.env.KUBECTL_ARCH_TEST_TMP = dir;
  process.env.TMPDIR = dir;
}
