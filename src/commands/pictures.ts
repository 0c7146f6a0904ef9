// Which commands draw each picture format, for the usage errors of the others (cli.ts reads it before any command
// loads: no imports here).
/** -o html is a page for doctor, map and what-if; mermaid and dot are map's. */
export const picturesOf = (o: string): string => (o === 'html' ? 'doctor, map and what-if' : 'map');
