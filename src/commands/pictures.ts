// Which commands draw each picture format, for the usage errors of the others (cli.ts reads it before any command
// loads: no imports here).
/** -o html is a page for doctor, map and what-if; mermaid and dot are map's. */
const DRAWN_BY: Record<string, readonly string[]> = { html: ['doctor', 'map', 'what-if'], mermaid: ['map'], dot: ['map'] };

const inWords = (cs: readonly string[]): string => (cs.length < 2 ? cs.join('') : `${cs.slice(0, -1).join(', ')} and ${cs.at(-1)}`);

/** Who draws `output`, in words, when `command` does not (undefined when it does, or `output` is no picture). */
export function drawnElsewhere(output: string, command: string): string | undefined {
  const by = DRAWN_BY[output];
  return by && !by.includes(command) ? inWords(by) : undefined;
}
