// Which etcd the tests run: ETCD_BIN, else Debian's etcd-server (/usr/bin/etcd), else etcd on PATH,
// else one built from its Go module into the test cache (e2e/build-etcd.sh, about a minute, once).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let found;

export function etcdBinary() {
  if (found) return found;
  if (process.env.ETCD_BIN) return (found = process.env.ETCD_BIN);
  for (const dir of ['/usr/bin', ...(process.env.PATH ?? '').split(delimiter)]) {
    if (dir && existsSync(join(dir, 'etcd'))) return (found = join(dir, 'etcd'));
  }
  try {
    found = execFileSync('bash', [join(ROOT, 'e2e/build-etcd.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
      .trim()
      .split('\n')
      .pop();
  } catch {
    throw new Error(
      "no etcd binary: install Debian's etcd-server (apt-get install etcd-server), set ETCD_BIN, or install Go so e2e/build-etcd.sh can build one",
    );
  }
  return found;
}
