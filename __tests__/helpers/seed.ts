// One seed for every property test of a run: fixed by default, so `npm test` never fails by chance; FC_SEED=N
// picks another (run the suite with several before you stop). fast-check prints the seed of a failing property;
// tests that draw samples themselves name the seed in their title.
import fc from 'fast-check';

const given = process.env.FC_SEED;
/** The seed of this run (FC_SEED, else a fixed one). */
export const SEED = given === undefined || given === '' ? 20261204 : Number(given);
if (!Number.isSafeInteger(SEED) || Math.abs(SEED) > 0x7fffffff) throw new Error(`FC_SEED must be a 32-bit integer, got ${given}`);
fc.configureGlobal({ seed: SEED });

/** A seed of its own for a measurement of what a generator reaches: pinned, whatever FC_SEED says, because a count of
 *  random outcomes is only the same every run under the same seed. */
export const COVERAGE_SEED = 42;
