// Self-signed CA and a serving certificate for 127.0.0.1, made with the openssl CLI for each test run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCerts {
  dir: string;
  caFile: string;
  ca: string;
  cert: string;
  key: string;
}

export function makeCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-arch-certs-'));
  const run = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  };
  run(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=kubectl-arch-test-ca',
  );
  run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.crt',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  );
  return {
    dir,
    caFile: join(dir, 'ca.crt'),
    ca: readFileSync(join(dir, 'ca.crt'), 'utf8'),
    cert: readFileSync(join(dir, 'server.crt'), 'utf8'),
    key: readFileSync(join(dir, 'server.key'), 'utf8'),
  };
}
