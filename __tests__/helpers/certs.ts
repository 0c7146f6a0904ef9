// Self-signed CA and a serving certificate for 127.0.0.1, made with the openssl CLI for each test run.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './tmp.js';

export interface TestCerts {
  dir: string;
  caFile: string;
  ca: string;
  cert: string;
  key: string;
}

export function makeCerts(): TestCerts {
  const dir = tempDir('kubectl-arch-certs-');
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
    '365',
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
    '365',
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

/** A serving certificate for 127.0.0.1 signed by the CA of `certs`, valid only in the past (openssl ca sets
 *  both dates; openssl 3.0's x509 cannot). */
export function makeExpiredServing(
  certs: TestCerts,
  notBefore = '20250101000000Z',
  notAfter = '20250401000000Z',
): { cert: string; key: string } {
  const run = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: certs.dir, stdio: 'pipe' });
  };
  mkdirSync(join(certs.dir, 'issued'), { recursive: true });
  writeFileSync(join(certs.dir, 'index.txt'), '');
  writeFileSync(join(certs.dir, 'serial'), '1000\n');
  writeFileSync(
    join(certs.dir, 'ca.cnf'),
    [
      '[ca]',
      'default_ca = test',
      '[test]',
      'dir = .',
      'database = index.txt',
      'new_certs_dir = issued',
      'serial = serial',
      'default_md = sha256',
      'policy = any',
      'unique_subject = no',
      'copy_extensions = none',
      '[any]',
      'commonName = supplied',
      '[san]',
      'subjectAltName = IP:127.0.0.1',
      '',
    ].join('\n'),
  );
  run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'old.key', '-out', 'old.csr', '-subj', '/CN=127.0.0.1');
  run(
    'ca',
    '-batch',
    '-config',
    'ca.cnf',
    '-cert',
    'ca.crt',
    '-keyfile',
    'ca.key',
    '-in',
    'old.csr',
    '-startdate',
    notBefore,
    '-enddate',
    notAfter,
    '-extensions',
    'san',
    '-notext',
    '-out',
    'old.crt',
  );
  return { cert: readFileSync(join(certs.dir, 'old.crt'), 'utf8'), key: readFileSync(join(certs.dir, 'old.key'), 'utf8') };
}
