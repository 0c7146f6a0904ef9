// Run by the target platform's own Node (natively, or under qemu): the V8 code cache of an SEA asset
// (cli.cjs, client-node.cjs), compiled exactly as src/host/cjs.ts compiles it (same wrapper, same file name
// as src/entry-sea.ts gives it). Made before anything ran: a cache made after running holds bytecode ages that
// differ from build to build (measured: 21 bytes in 665 KB), and the archives must be reproducible.
//   node --random_seed=42 sea-cache.cjs dist/sea/cli.cjs cli.cache
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const [src, out] = process.argv.slice(2);
// the V8 flags the CLI sets at run time before it compiles anything (src/host/run.ts, V8_RUN_FLAGS): V8 counts them in
// the hash a code cache must match, so a cache made without them is refused (the release suite checks it is accepted)
require('node:v8').setFlagsFromString('--heap-growing-percent=40');
const wrap = (s) => `(function (exports, require, module, __filename, __dirname) {${s}\n})`;
// the name as a flat string of its own: path.basename() returns a slice of the path, and V8 serializes a sliced
// string with its whole parent, so the cache held the absolute build directory (archives then differed by checkout path)
const filename = Buffer.from(`kubectl-arch-${path.basename(src)}`).toString('utf8');
const script = new vm.Script(wrap(fs.readFileSync(src, 'utf8')), { filename });
fs.writeFileSync(out, script.createCachedData());
