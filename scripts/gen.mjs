// npm run gen — regenerates examples/field-notes-k3s/ (the embedded example behind `npm run demo`) from the
// scenario builder: the field-notes base plus every check scenario marked `example`. The output is committed,
// and __tests__/example.test.ts fails when it is stale. The TypeScript sources are bundled with esbuild first
// (scenario files are found by name: src/checks/*.scenario.ts).
import { build } from 'esbuild';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const OUT = 'examples/field-notes-k3s';
const files = readdirSync('src/checks').filter((f) => f.endsWith('.scenario.ts')).sort();
const entry = [
  "import { build, files } from './src/scenarios/index.ts';",
  ...files.map((f, i) => `import { scenarios as s${i} } from './src/checks/${f}';`),
  `export const all = [${files.map((_, i) => `...s${i}`).join(', ')}];`,
  'export { build, files };',
].join('\n');
const tmp = 'dist/gen';
mkdirSync(tmp, { recursive: true });
await build({ stdin: { contents: entry, resolveDir: '.', loader: 'ts' }, bundle: true, platform: 'node', format: 'esm', outfile: join(tmp, 'gen.mjs'), logLevel: 'warning' });
const mod = await import(pathToFileURL(join(tmp, 'gen.mjs')).href);
const example = mod.all.filter((s) => s.example && s.base === 'field-notes');
const out = mod.files(mod.build(example));
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
for (const [f, text] of out) writeFileSync(join(OUT, f), text);
console.log(`wrote ${OUT}: ${[...out.keys()].join(', ')} (scenarios: ${example.map((s) => s.name).join(', ')})`);
