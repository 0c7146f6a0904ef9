// The examples inside the CLI: `--snapshot example:<name>` works wherever the binary goes (a krew install or a release
// archive has no examples/ directory). Their names only, light enough for shell completion's fast path; the files
// are in ./example-files.ts.

/** The prefix that names an embedded example instead of a path. */
export const EXAMPLE_PREFIX = 'example:';
/** Names of the examples, in the order the README shows them (= scripts/lib/examples.mjs). */
export const EXAMPLE_NAMES: readonly string[] = ['field-notes-k3s'];
/** The example the README and `--help` use. */
export const MAIN_EXAMPLE = `${EXAMPLE_PREFIX}${EXAMPLE_NAMES[0]}`;

export const isExample = (source: string): boolean => source.startsWith(EXAMPLE_PREFIX);
