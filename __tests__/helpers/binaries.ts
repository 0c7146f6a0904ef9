// Structural checks of executables we cannot run here: Mach-O (with its ad-hoc code signature,
// verified page by page) and PE (the SEA blob as an RCDATA resource). Written from the formats'
// documentation, independent of the tools that produced the files.
import { createHash } from 'node:crypto';

const sha256 = (b: Buffer): Buffer => createHash('sha256').update(b).digest();

export interface MachOInfo {
  cpu: 'x86_64' | 'arm64' | string;
  segments: { name: string; fileoff: number; filesize: number; sections: { name: string; offset: number; size: number }[] }[];
  signature?: { dataoff: number; datasize: number };
}

export function parseMachO(f: Buffer): MachOInfo {
  if (f.readUInt32LE(0) !== 0xfeedfacf) throw new Error('not a 64-bit little-endian Mach-O');
  const cputype = f.readUInt32LE(4);
  const cpu = cputype === 0x01000007 ? 'x86_64' : cputype === 0x0100000c ? 'arm64' : `0x${cputype.toString(16)}`;
  const ncmds = f.readUInt32LE(16);
  const info: MachOInfo = { cpu, segments: [] };
  let off = 32;
  for (let i = 0; i < ncmds; i++) {
    const cmd = f.readUInt32LE(off),
      size = f.readUInt32LE(off + 4);
    if (cmd === 0x19) {
      // LC_SEGMENT_64
      const name = f.toString('latin1', off + 8, off + 24).replace(/\0+$/, '');
      const seg = {
        name,
        fileoff: Number(f.readBigUInt64LE(off + 40)),
        filesize: Number(f.readBigUInt64LE(off + 48)),
        sections: [] as MachOInfo['segments'][0]['sections'],
      };
      const nsects = f.readUInt32LE(off + 64);
      for (let s = 0; s < nsects; s++) {
        const so = off + 72 + s * 80;
        seg.sections.push({
          name: f.toString('latin1', so, so + 16).replace(/\0+$/, ''),
          size: Number(f.readBigUInt64LE(so + 40)),
          offset: f.readUInt32LE(so + 48),
        });
      }
      info.segments.push(seg);
    } else if (cmd === 0x1d) {
      // LC_CODE_SIGNATURE
      info.signature = { dataoff: f.readUInt32LE(off + 8), datasize: f.readUInt32LE(off + 12) };
    }
    off += size;
  }
  return info;
}

export interface AdHocSignature {
  identifier: string;
  flags: number;
  codeLimit: number;
  pages: number;
  verifiedPages: number;
  execSegBase: number;
  execSegLimit: number;
  requirementsHashOk: boolean;
}

/** Verifies an embedded ad-hoc signature the way the kernel does: every page hash, the requirements slot. */
export function verifyAdHocSignature(f: Buffer, m: MachOInfo): AdHocSignature {
  if (!m.signature) throw new Error('no LC_CODE_SIGNATURE');
  const sb = f.subarray(m.signature.dataoff, m.signature.dataoff + m.signature.datasize);
  if (sb.readUInt32BE(0) !== 0xfade0cc0) throw new Error('no embedded signature SuperBlob');
  const count = sb.readUInt32BE(8);
  const blobs = new Map<number, Buffer>();
  for (let i = 0; i < count; i++) {
    const type = sb.readUInt32BE(12 + i * 8),
      offset = sb.readUInt32BE(16 + i * 8);
    blobs.set(type, sb.subarray(offset, offset + sb.readUInt32BE(offset + 4)));
  }
  const cd = blobs.get(0); // CSSLOT_CODEDIRECTORY
  if (!cd || cd.readUInt32BE(0) !== 0xfade0c02) throw new Error('no CodeDirectory');
  const version = cd.readUInt32BE(8),
    flags = cd.readUInt32BE(12),
    hashOffset = cd.readUInt32BE(16),
    identOffset = cd.readUInt32BE(20);
  const nSpecial = cd.readUInt32BE(24),
    nCode = cd.readUInt32BE(28),
    codeLimit = cd.readUInt32BE(32);
  const hashSize = cd.readUInt8(36),
    hashType = cd.readUInt8(37),
    pageBits = cd.readUInt8(39);
  if (hashType !== 2 || hashSize !== 32) throw new Error(`hash type ${hashType}/${hashSize}, expected SHA-256`);
  const page = 1 << pageBits;
  let verified = 0;
  for (let i = 0; i < nCode; i++) {
    const want = cd.subarray(hashOffset + i * 32, hashOffset + (i + 1) * 32);
    if (sha256(f.subarray(i * page, Math.min((i + 1) * page, codeLimit))).equals(want)) verified++;
  }
  const req = blobs.get(2); // CSSLOT_REQUIREMENTS, special slot -2
  const reqSlot = nSpecial >= 2 ? cd.subarray(hashOffset - 2 * 32, hashOffset - 32) : undefined;
  const requirementsHashOk = Boolean(req && reqSlot && sha256(req).equals(reqSlot));
  const execSeg = version >= 0x20400;
  return {
    identifier: cd.toString('utf8', identOffset, cd.indexOf(0, identOffset)),
    flags,
    codeLimit,
    pages: nCode,
    verifiedPages: verified,
    execSegBase: execSeg ? Number(cd.readBigUInt64BE(64)) : -1,
    execSegLimit: execSeg ? Number(cd.readBigUInt64BE(72)) : -1,
    requirementsHashOk,
  };
}

export interface PEInfo {
  machine: number;
  subsystem: number;
  sections: { name: string; va: number; vsize: number; raw: number; rawSize: number }[];
  rcdata: Map<string, Buffer>;
}

/** PE headers and the named RT_RCDATA resources (where Node's SEA looks for NODE_SEA_BLOB). */
export function parsePE(f: Buffer): PEInfo {
  if (f.toString('latin1', 0, 2) !== 'MZ') throw new Error('no MZ header');
  const pe = f.readUInt32LE(0x3c);
  if (f.toString('latin1', pe, pe + 4) !== 'PE\0\0') throw new Error('no PE signature');
  const machine = f.readUInt16LE(pe + 4),
    nsect = f.readUInt16LE(pe + 6),
    optSize = f.readUInt16LE(pe + 20);
  const opt = pe + 24;
  if (f.readUInt16LE(opt) !== 0x20b) throw new Error('not PE32+');
  const subsystem = f.readUInt16LE(opt + 68);
  const rsrcRva = f.readUInt32LE(opt + 112 + 2 * 8); // data directory 2: resources
  const sections: PEInfo['sections'] = [];
  for (let i = 0; i < nsect; i++) {
    const s = opt + optSize + i * 40;
    sections.push({
      name: f.toString('latin1', s, s + 8).replace(/\0+$/, ''),
      vsize: f.readUInt32LE(s + 8),
      va: f.readUInt32LE(s + 12),
      rawSize: f.readUInt32LE(s + 16),
      raw: f.readUInt32LE(s + 20),
    });
  }
  const toOff = (rva: number): number => {
    const s = sections.find((x) => rva >= x.va && rva < x.va + Math.max(x.vsize, x.rawSize));
    if (!s) throw new Error(`RVA 0x${rva.toString(16)} in no section`);
    return s.raw + rva - s.va;
  };
  const base = toOff(rsrcRva);
  const entries = (dirOff: number) => {
    const named = f.readUInt16LE(dirOff + 12),
      ids = f.readUInt16LE(dirOff + 14);
    return Array.from({ length: named + ids }, (_, i) => {
      const e = dirOff + 16 + i * 8;
      const nameField = f.readUInt32LE(e),
        target = f.readUInt32LE(e + 4);
      const name =
        nameField & 0x80000000
          ? f.toString(
              'utf16le',
              base + (nameField & 0x7fffffff) + 2,
              base + (nameField & 0x7fffffff) + 2 + 2 * f.readUInt16LE(base + (nameField & 0x7fffffff)),
            )
          : String(nameField);
      return { name, isDir: (target & 0x80000000) !== 0, off: base + (target & 0x7fffffff) };
    });
  };
  const rcdata = new Map<string, Buffer>();
  const type = entries(base).find((e) => e.name === '10' && e.isDir); // RT_RCDATA
  for (const named of type ? entries(type.off) : []) {
    const lang = named.isDir ? entries(named.off)[0] : named;
    if (!lang || lang.isDir) continue;
    const rva = f.readUInt32LE(lang.off),
      size = f.readUInt32LE(lang.off + 4);
    rcdata.set(named.name, f.subarray(toOff(rva), toOff(rva) + size));
  }
  return { machine, subsystem, sections, rcdata };
}

export const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
/** Node flips the fuse to ':1' in a binary with an injected blob. */
export const fuseFlipped = (f: Buffer): boolean => f.includes(`${SEA_FUSE}:1`) && !f.includes(`${SEA_FUSE}:0`);
