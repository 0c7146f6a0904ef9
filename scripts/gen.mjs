// npm run gen — regenerates the README's checks table (from each check's docs), its map of the example and examples/field-notes-k3s/ (the embedded example behind `npm run demo`) from the
// scenario builder: the field-notes base plus every check scenario marked `example`. The output is committed,
// and __tests__/example.test.ts fails when it is stale. The TypeScript sources are bundled with esbuild first
// (scenario files are found by name: src/checks/*.scenario.ts).
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const OUT = 'examples/field-notes-k3s';
const files = readdirSync('src/checks')
  .filter((f) => f.endsWith('.scenario.ts'))
  .sort();
const entry = [
  "import { build, files } from './src/scenarios/index.ts';",
  "import { CHECKS } from './src/checks/registry.ts';",
  "import { withChecksTable } from './src/checks/docs.ts';",
  "import { withExampleMap } from './src/map/readme.ts';",
  ...files.map((f, i) => `import { scenarios as s${i} } from './src/checks/${f}';`),
  `export const all = [${files.map((_, i) => `...s${i}`).join(', ')}];`,
  'export { build, files, CHECKS, withChecksTable, withExampleMap };',
].join('\n');
const tmp = 'dist/gen';
mkdirSync(tmp, { recursive: true });
await build({
  stdin: { contents: entry, resolveDir: '.', loader: 'ts' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: join(tmp, 'gen.mjs'),
  logLevel: 'warning',
});
const mod = await import(pathToFileURL(join(tmp, 'gen.mjs')).href);
const example = mod.all.filter((s) => s.example && s.base === 'field-notes');
const out = mod.files(mod.build(example));
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
for (const [f, text] of out) writeFileSync(join(OUT, f), text);
writeFileSync('README.md', mod.withExampleMap(mod.withChecksTable(readFileSync('README.md', 'utf8'), mod.CHECKS), OUT));
console.log(
  `wrote README.md checks table and map, and ${OUT}: ${[...out.keys()].join(', ')} (scenarios: ${example.map((s) => s.name).join(', ')})`,
);
