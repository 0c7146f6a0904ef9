// The notAfter of a PEM certificate, read from its DER: only what the admission-webhooks check needs from a
// caBundle. node:crypto's X509Certificate would do it too, but loading node:crypto costs ~20 ms (node --cpu-prof)
// at the start of every doctor run, for one date per webhook. Anything that is not a well-formed certificate
// up to its validity throws, as X509Certificate would.

interface Tlv {
  tag: number;
  start: number; // first content byte
  end: number; // one past the last content byte
}

function tlv(buf: Buffer, off: number, limit: number): Tlv {
  if (off + 2 > limit) throw new Error('truncated DER');
  const tag = buf[off]!;
  let len = buf[off + 1]!;
  let start = off + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n < 1 || n > 4 || start + n > limit) throw new Error('bad DER length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[start + i]!;
    start += n;
  }
  if (start + len > limit) throw new Error('truncated DER');
  return { tag, start, end: start + len };
}

function time(buf: Buffer, t: Tlv): Date {
  const s = buf.toString('latin1', t.start, t.end);
  // DER: UTCTime YYMMDDHHMMSSZ, GeneralizedTime YYYYMMDDHHMMSSZ (RFC 5280 4.1.2.5)
  const m =
    t.tag === 0x17
      ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(s)
      : t.tag === 0x18
        ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(s)
        : null;
  if (!m) throw new Error('bad certificate time');
  let year = Number(m[1]);
  if (t.tag === 0x17) year += year >= 50 ? 1900 : 2000;
  const d = new Date(Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])));
  if (Number.isNaN(d.getTime())) throw new Error('bad certificate time');
  return d;
}

/** notAfter of the first certificate in a PEM block. */
export function certNotAfter(pem: string): Date {
  const body = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/.exec(pem)?.[1];
  if (!body) throw new Error('no PEM certificate');
  const b64 = body.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw new Error('PEM body is not base64');
  const der = Buffer.from(b64, 'base64');
  const cert = tlv(der, 0, der.length);
  if (cert.tag !== 0x30) throw new Error('not a certificate');
  const tbs = tlv(der, cert.start, cert.end);
  if (tbs.tag !== 0x30) throw new Error('not a certificate');
  let el = tlv(der, tbs.start, tbs.end);
  if (el.tag === 0xa0) el = tlv(der, el.end, tbs.end); // [0] version
  const expect = (t: Tlv, tag: number): Tlv => {
    if (t.tag !== tag) throw new Error('not a certificate');
    return t;
  };
  const serial = expect(el, 0x02);
  const sigAlg = expect(tlv(der, serial.end, tbs.end), 0x30);
  const issuer = expect(tlv(der, sigAlg.end, tbs.end), 0x30);
  const validity = expect(tlv(der, issuer.end, tbs.end), 0x30);
  const notBefore = tlv(der, validity.start, validity.end);
  time(der, notBefore);
  return time(der, tlv(der, notBefore.end, validity.end));
}
