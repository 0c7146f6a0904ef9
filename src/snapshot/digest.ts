// A digest instead of a mask, where what-if -f must tell whether a masked value changed (a Job's env values, which
// the API server never lets change) without keeping it: `********#<salt>:<hmac>`, an HMAC-SHA256 of the value keyed
// by a random salt of its own (no table of digests serves two values or two snapshots; guessing one value means
// hashing each guess for that value alone), cut to 96 bits. A map or a list is digested as its canonical JSON.
import { createHmac, randomBytes } from 'node:crypto';

export const MASK = '********';
const DIGEST = /^\*{8}#([A-Za-z0-9_-]{8}):([A-Za-z0-9_-]{16})$/;
const hmac = (salt: string, v: string): string => createHmac('sha256', salt).update(v).digest('base64url').slice(0, 16);

/** JSON with every map's keys sorted: one text per value, whatever order a manifest writes it in. Built as one
 *  string (every pod's spec passes here at the door: a string per level, joined again at each level above, was most of
 *  what the door allocated for a pod). */
export function canonical(v: unknown): string {
  let out = '';
  const write = (x: unknown): void => {
    if (Array.isArray(x)) {
      out += '[';
      for (let i = 0; i < x.length; i++) {
        if (i) out += ',';
        write(x[i]);
      }
      out += ']';
    } else if (x && typeof x === 'object') {
      const o = x as Record<string, unknown>;
      out += '{';
      let first = true;
      for (const k of Object.keys(o).sort()) {
        if (o[k] === undefined) continue;
        out += first ? '' : ',';
        first = false;
        out += JSON.stringify(k) + ':';
        write(o[k]);
      }
      out += '}';
    } else out += JSON.stringify(x ?? null);
  };
  write(v);
  return out;
}
/** The digest of a value (a fresh salt each time); a map or a list by its canonical JSON. */
export const digestOf = (v: unknown): string => {
  const salt = randomBytes(6).toString('base64url');
  return `${MASK}#${salt}:${hmac(salt, typeof v === 'string' ? v : canonical(v))}`;
};
/** Is this a digest (as digestOf writes them)? */
export const isDigest = (v: unknown): v is string => typeof v === 'string' && DIGEST.test(v);
/** Does the digest stand for this value? undefined when it is not a digest. */
export function digestMatches(d: string, v: unknown): boolean | undefined {
  const m = DIGEST.exec(d);
  if (!m) return undefined;
  if (v === undefined) return false;
  return hmac(m[1]!, typeof v === 'string' ? v : canonical(v)) === m[2];
}
