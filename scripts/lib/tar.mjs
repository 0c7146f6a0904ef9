// A deterministic ustar writer: entries sorted by name, owner root:root (numeric 0/0, no names),
// the given mtime and mode, nothing else from the file system. Enough for flat release archives.
const enc = new TextEncoder();

function header(name, size, mode, mtime) {
  if (enc.encode(name).length > 100) throw new Error(`tar: name too long: ${name}`);
  const h = Buffer.alloc(512);
  const put = (off, len, s) => {
    h.write(s, off, len, 'utf8');
  };
  const oct = (off, len, n) => put(off, len, n.toString(8).padStart(len - 1, '0') + '\0');
  put(0, 100, name);
  oct(100, 8, mode);
  oct(108, 8, 0); // uid
  oct(116, 8, 0); // gid
  oct(124, 12, size);
  oct(136, 12, mtime);
  put(148, 8, '        '); // checksum placeholder: eight spaces
  put(156, 1, '0'); // regular file
  put(257, 6, 'ustar\0');
  put(263, 2, '00');
  oct(329, 8, 0); // devmajor
  oct(337, 8, 0); // devminor
  let sum = 0;
  for (const b of h) sum += b;
  put(148, 8, sum.toString(8).padStart(6, '0') + '\0 ');
  return h;
}

/** @param {{name: string, data: Buffer, mode: number, mtime: number}[]} entries */
export function tar(entries) {
  const parts = [];
  for (const e of [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    parts.push(header(e.name, e.data.length, e.mode, e.mtime), e.data);
    const pad = (512 - (e.data.length % 512)) % 512;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(1024)); // end of archive: two zero blocks
  return Buffer.concat(parts);
}
