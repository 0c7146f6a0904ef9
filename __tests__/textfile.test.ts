// Collectors over time (#46): the `-o prometheus` files of doctor, orphans and quorum side by side in one
// node-exporter textfile directory, read by the real node_exporter (built from its Go module): every series is
// one of its own (every family carries `command` and `context`), so a scrape logs no "collected before" error and
// serves them all. Shown by difference: the same files with build_info's labels taken away make node_exporter
// refuse the duplicate, as it did before.
import { describe, expect, test } from '@jest/globals';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE } from './helpers/fixtures.js';
import { NODE_EXPORTER_VERSION, scrapeTextfiles } from './helpers/node-exporter.js';
import { arch, ROOT } from './helpers/run.js';
import { tempDir } from './helpers/tmp.js';

const COMMANDS = ['doctor', 'orphans', 'quorum'];

async function textfiles(edit: (text: string) => string = (t) => t): Promise<string> {
  const dir = join(tempDir('kubectl-arch-textfile-'), 'textfile');
  mkdirSync(dir);
  for (const c of COMMANDS) {
    const r = await arch([c, '--snapshot', EXAMPLE, '-o', 'prometheus', '--no-config']);
    expect(r.stderr).toBe('');
    writeFileSync(join(dir, `kubectl-arch-${c}.prom`), edit(r.stdout));
  }
  return dir;
}

/** Sample lines of the kubectl_arch_ families, as name and labels. */
const samples = (body: string): Array<{ name: string; labels: string }> =>
  body
    .split('\n')
    .filter((l) => l.startsWith('kubectl_arch_'))
    .map((l) => {
      const m = /^(\w+)(\{.*\})? /.exec(l)!;
      return { name: m[1]!, labels: m[2] ?? '' };
    });

describe(`node_exporter ${NODE_EXPORTER_VERSION}, textfile collector: doctor, orphans and quorum in one directory`, () => {
  test('the README says every family carries command and context', () => {
    const row = readFileSync(join(ROOT, 'README.md'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('| `prometheus` |'));
    expect(row).toMatch(/every family carries the labels `command` and `context`/);
  });

  test('one scrape serves every series, with no "collected before" error', async () => {
    const s = await scrapeTextfiles(await textfiles());
    expect(s.status).toBe(200);
    expect(s.log).not.toMatch(/collected before|error gathering|level=ERROR/);
    expect(s.body).toMatch(/^node_textfile_scrape_error 0$/m);
    const ours = samples(s.body);
    // every kubectl_arch_ series of the three files is served, and each names its command and context
    expect(new Set(ours.map((x) => x.name))).toContain('kubectl_arch_build_info');
    for (const x of ours) expect([x.name, x.labels]).toEqual([x.name, expect.stringMatching(/command="\w+".*context="home-k3s"/)]);
    const info = ours.filter((x) => x.name === 'kubectl_arch_build_info').map((x) => /command="(\w+)"/.exec(x.labels)![1]);
    expect(info.sort()).toEqual([...COMMANDS].sort());
    for (const c of COMMANDS) expect(s.body).toContain(`kubectl_arch_up{command="${c}",context="home-k3s"} 1`);
  });

  test('by difference: build_info without its command and context is refused as a duplicate', async () => {
    const strip = (t: string): string => t.replace(/^(kubectl_arch_build_info)\{command="\w+",context="[^"]*",/m, '$1{');
    const s = await scrapeTextfiles(await textfiles(strip));
    expect(s.log).toMatch(/collected metric \\"kubectl_arch_build_info\\".* was collected before with the same name and label values/);
  });
});
