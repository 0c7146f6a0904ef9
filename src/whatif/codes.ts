// what-if's own finding codes, from its units (src/whatif/predictions/registry.ts is the only list).
import { UNITS } from './predictions/registry.js';
import { UPGRADE_CODES } from './upgrade/codes.js';
import { CHANGE_CODES } from '../change/codes.js';

export const WHATIF_CODES: Record<string, string> = {
  ...Object.fromEntries(UNITS.map((u) => [u.code, u.title])),
  // what-if --upgrade
  ...UPGRADE_CODES,
  // what-if -f and --k3s-config
  ...CHANGE_CODES,
};
