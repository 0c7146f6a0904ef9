// A digest instead of a mask, where what-if -f must tell whether a masked value changed (a Job's env values, which
// the API server never lets change) without keeping it: `********#<salt>:<hmac>`, an HMAC-SHA256 of the value keyed
// by a random salt of its own (no table of digests serves two values or two snapshots; guessing one value means
// hashing each guess for that value alone), cut to 96 bits. A map or a list is digested as its canonical JSON.
import { createHmac, randomBytes } from 'node:crypto';

export const MASK = '********';
const DIGEST = /^\*{8}#([A-Za-z0-9_-]{8}):([A-Za-z0-9_-]{16})$/;
const hmac = (salt: string, v: string): string => createHmac('sha256', salt).update(v).digest('base64url').slice(0, 16);

/** JSON with every map's keys sorted: one text per value, whatever order a manifest writes it in. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v ?? null);
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
