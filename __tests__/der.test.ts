// certNotAfter (src/lib/der.ts) reads a certificate's notAfter from its DER, so that doctor need not load
// node:crypto: held to node:crypto's own X509Certificate on certificates openssl makes (UTCTime before 2050,
// GeneralizedTime after, with and without the version field's extensions), and to its refusals.
import { describe, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { certNotAfter } from '../src/lib/der.js';
import { makeCerts, makeExpiredServing } from './helpers/certs.js';
import { tempDir } from './helpers/tmp.js';

function selfSigned(days: number, extra: string[] = []): string {
  const d = tempDir();
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(d, 'k'),
      '-out',
      join(d, 'c'),
      '-days',
      String(days),
      '-subj',
      '/CN=t',
      ...extra,
    ],
    { stdio: 'pipe' },
  );
  const pem = readFileSync(join(d, 'c'), 'utf8');
  rmSync(d, { recursive: true, force: true });
  return pem;
}

const viaCrypto = (pem: string): string => new Date(new X509Certificate(pem).validTo).toISOString();

describe('certNotAfter', () => {
  test('agrees with X509Certificate: a CA, a leaf it signed, an expired one, UTCTime and GeneralizedTime', () => {
    const certs = makeCerts();
    const expired = makeExpiredServing(certs);
    const pems = [certs.ca, certs.cert, expired.cert, selfSigned(30), selfSigned(20_000)];
    for (const pem of pems) expect(certNotAfter(pem).toISOString()).toBe(viaCrypto(pem));
    expect(certNotAfter(expired.cert).toISOString()).toBe('2025-04-01T00:00:00.000Z');
    // after 2049 the date is a GeneralizedTime (RFC 5280): four-digit year
    expect(certNotAfter(selfSigned(20_000)).getUTCFullYear()).toBeGreaterThan(2049);
    rmSync(certs.dir, { recursive: true, force: true });
  });

  test('the first certificate of a bundle, with text around it (as in a caBundle)', () => {
    const a = selfSigned(3);
    const b = selfSigned(400);
    expect(certNotAfter(`subject=CN=t\n${a}\n${b}`).toISOString()).toBe(viaCrypto(a));
  });

  test('refuses what X509Certificate refuses: no PEM, not base64, truncated, not a certificate', () => {
    const good = selfSigned(3);
    const body = good.split('\n').slice(1, -2).join('');
    const wrap = (b64: string): string => `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`;
    const bad = [
      'hello',
      wrap('!!!not base64!!!'),
      wrap(body.slice(0, 40)),
      wrap(Buffer.from('0123456789abcdef0123456789').toString('base64')),
      wrap(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x01]).toString('base64')),
    ];
    for (const pem of bad) {
      expect(() => certNotAfter(pem)).toThrow();
      if (pem.includes('BEGIN')) expect(() => new X509Certificate(pem)).toThrow();
    }
  });
});
