// Run by the target platform's own Node (natively, or under qemu): the V8 code cache of the SEA asset
// cli.cjs, compiled exactly as src/sea.ts compiles it (same wrapper, same file name).
//   node --random_seed=42 sea-cache.cjs cli.cjs cli.cache
const fs = require('node:fs');
const vm = require('node:vm');
const [src, out] = process.argv.slice(2);
const wrap = (s) => `(function (exports, require, module, __filename, __dirname) {${s}\n})`;
const script = new vm.Script(wrap(fs.readFileSync(src, 'utf8')), { filename: 'kubectl-arch-cli.cjs' });
fs.writeFileSync(out, script.createCachedData());
