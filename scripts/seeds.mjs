// Runs the unit suite (npm test's jest part) once per seed, FC_SEED=1..N (default 10), after one build, and prints
// one line per run and a last line "N of N seeds passed". A failing property names its seed; FC_SEED=<seed> npm test
// runs it again.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(process.argv[2] ?? 10);
const first = Number(process.argv[3] ?? 1);
const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(1);
let passed = 0;
for (let seed = first; seed < first + runs; seed++) {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, ['--experimental-vm-modules', 'node_modules/jest/bin/jest.js', '--silent'], {
    cwd: root,
    env: { ...process.env, FC_SEED: String(seed) },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const tests = /^Tests: .*$/m.exec(r.stderr)?.[0] ?? '(no summary)';
  console.log(`FC_SEED=${seed}: ${r.status === 0 ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - t0) / 1000)} s — ${tests}`);
  if (r.status === 0) passed++;
  else
    console.log(
      r.stderr
        .split('\n')
        .filter((l) => /●|seed/.test(l))
        .slice(0, 20)
        .join('\n'),
    );
}
console.log(`${passed} of ${runs} seeds passed`);
process.exit(passed === runs ? 0 : 1);
