// The real node_exporter (prometheus/node_exporter), built once from its Go module at a pinned release into
// ~/.cache/kubectl-arch/tools/, run with only its textfile collector: what reads `-o prometheus` files on a node.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const NODE_EXPORTER_VERSION = 'v1.12.1';

export function nodeExporterBinary(): string {
  const dir = join(
    process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
    'kubectl-arch',
    'tools',
    `node_exporter-${NODE_EXPORTER_VERSION}`,
  );
  const bin = join(dir, 'node_exporter');
  if (existsSync(bin)) return bin;
  const tmp = `${dir}.tmp.${process.pid}`;
  mkdirSync(tmp, { recursive: true });
  try {
    // the module's own go.mod and go.sum, checked against the checksum database: its release, as published
    execFileSync('go', ['install', '-trimpath', `github.com/prometheus/node_exporter@${NODE_EXPORTER_VERSION}`], {
      env: { ...process.env, GOBIN: tmp, CGO_ENABLED: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    renameSync(tmp, dir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return bin;
}

export interface Scrape {
  status: number;
  body: string;
  /** What node_exporter logged up to and after the scrape. */
  log: string;
}

/** Starts node_exporter on a loopback port of its choosing with only the textfile collector on `dir`, scrapes
 *  /metrics once, and stops it. */
export async function scrapeTextfiles(dir: string): Promise<Scrape> {
  const child: ChildProcess = spawn(
    nodeExporterBinary(),
    [
      '--collector.disable-defaults',
      '--collector.textfile',
      `--collector.textfile.directory=${dir}`,
      '--web.listen-address=127.0.0.1:0',
      '--log.level=debug',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  try {
    // it logs the address it listens on, the port the kernel gave it included
    const port = await new Promise<number>((resolve, reject) => {
      child.stderr!.on('data', (d: Buffer) => {
        log += d.toString();
        const m = /Listening on.*address=127\.0\.0\.1:(\d+)/.exec(log);
        if (m && m[1] !== '0') resolve(Number(m[1]));
      });
      child.on('exit', (code) => reject(new Error(`node_exporter exited (${code}):\n${log}`)));
    });
    const r = await fetch(`http://127.0.0.1:${port}/metrics`);
    const body = await r.text();
    // everything it logged about the scrape: read to the end of its stderr, after it stopped
    const ended = new Promise((r2) => child.stderr!.on('end', r2));
    child.kill('SIGTERM');
    await ended;
    return { status: r.status, body, log };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}
