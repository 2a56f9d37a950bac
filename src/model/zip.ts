// The central directory of a zip archive (PKWARE APPNOTE 4.3, zip64 included), read by ranges: the end
// record from the file's last 64 KiB, then the directory itself, then one local header per entry asked
// for. Only stored (uncompressed) entries are read: torch.save writes them so (64-byte aligned); a
// compressed entry is refused by name (no inflater: a zip bomb has nothing to expand).
import { DecoderError } from '../gpu/errors';
import { printable } from './printable';
import type { WeightSource } from './weight-source';

export interface ZipEntry {
  name: string;
  /** 0: stored; anything else is refused when the entry is read */
  method: number;
  compressedSize: number;
  size: number;
  /** offset of the local header */
  localOffset: number;
}

/** The largest central directory read (a few hundred entries take a few tens of KiB). */
export const MAX_ZIP_DIRECTORY = 64 * 2 ** 20;

const EOCD = 0x06054b50,
  EOCD64 = 0x06064b50,
  LOCATOR64 = 0x07064b50,
  CENTRAL = 0x02014b50,
  LOCAL = 0x04034b50;

const u64 = (dv: DataView, at: number): number => {
  const v = dv.getBigUint64(at, true);
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
};

/** True when the first bytes are a zip local header ("PK\x03\x04"). */
export function isZip(head: Uint8Array): boolean {
  return head.byteLength >= 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

/** Every entry of the archive, by name. Throws 'bad-input' naming the file when a record lies. */
export async function readZipDirectory(src: WeightSource): Promise<Map<string, ZipEntry>> {
  const bad = (what: string) => new DecoderError('bad-input', `${src.name}: ${what}; not a zip archive or truncated`);
  const tailLen = Math.min(src.size, 22 + 65535);
  if (tailLen < 22) throw bad(`${src.size} bytes, too short for a zip end record`);
  const tail = await src.read(src.size - tailLen, tailLen);
  const tv = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  let e = -1;
  for (let i = tailLen - 22; i >= 0; i--)
    if (tv.getUint32(i, true) === EOCD && i + 22 + tv.getUint16(i + 20, true) === tailLen) {
      e = i;
      break;
    }
  if (e < 0) throw bad('no zip end-of-central-directory record');
  let count = tv.getUint16(e + 10, true);
  let cdSize = tv.getUint32(e + 12, true);
  let cdOffset = tv.getUint32(e + 16, true);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    // zip64: the locator sits just before the end record and points at the zip64 end record
    if (e < 20 || tv.getUint32(e - 20, true) !== LOCATOR64) throw bad('zip64 fields without a zip64 locator');
    const at = u64(tv, e - 20 + 8);
    if (at + 56 > src.size) throw bad(`zip64 end record at ${at} lies past the end`);
    const r = await src.read(at, 56);
    const rv = new DataView(r.buffer, r.byteOffset, 56);
    if (rv.getUint32(0, true) !== EOCD64) throw bad('no zip64 end record where the locator points');
    count = u64(rv, 32);
    cdSize = u64(rv, 40);
    cdOffset = u64(rv, 48);
  }
  if (cdOffset + cdSize > src.size) throw bad(`central directory ${cdOffset}..${cdOffset + cdSize} lies past the end (${src.size} bytes)`);
  if (cdSize > MAX_ZIP_DIRECTORY) throw bad(`central directory of ${cdSize} bytes (more than ${MAX_ZIP_DIRECTORY})`);
  if (count * 46 > cdSize) throw bad(`${count} entries cannot fit a central directory of ${cdSize} bytes`);
  const cd = await src.read(cdOffset, cdSize);
  const dv = new DataView(cd.buffer, cd.byteOffset, cd.byteLength);
  const out = new Map<string, ZipEntry>();
  const text = new TextDecoder();
  let p = 0;
  for (let k = 0; k < count; k++) {
    if (p + 46 > cdSize || dv.getUint32(p, true) !== CENTRAL) throw bad(`central directory entry ${k} is not a directory record`);
    const method = dv.getUint16(p + 10, true);
    let compressedSize = dv.getUint32(p + 20, true);
    let size = dv.getUint32(p + 24, true);
    const nameLen = dv.getUint16(p + 28, true),
      extraLen = dv.getUint16(p + 30, true),
      commentLen = dv.getUint16(p + 32, true);
    let localOffset = dv.getUint32(p + 42, true);
    if (p + 46 + nameLen + extraLen + commentLen > cdSize) throw bad(`central directory entry ${k} runs past the directory`);
    const name = text.decode(cd.subarray(p + 46, p + 46 + nameLen));
    // zip64 extra field: the 64-bit values, in this order, of the fields that are 0xffffffff
    for (let x = p + 46 + nameLen; x + 4 <= p + 46 + nameLen + extraLen;) {
      const id = dv.getUint16(x, true),
        len = dv.getUint16(x + 2, true);
      if (id === 1) {
        let q = x + 4;
        const next = () => {
          if (q + 8 > x + 4 + len) throw bad(`entry ${printable(name)}: zip64 extra field too short`);
          const v = u64(dv, q);
          q += 8;
          return v;
        };
        if (size === 0xffffffff) size = next();
        if (compressedSize === 0xffffffff) compressedSize = next();
        if (localOffset === 0xffffffff) localOffset = next();
      }
      x += 4 + len;
    }
    if (localOffset + 30 + compressedSize > src.size) throw bad(`entry ${printable(name)}: ${compressedSize} bytes at ${localOffset} lie past the end (${src.size} bytes)`);
    out.set(name, { name, method, compressedSize, size, localOffset });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** Offset in the file of a stored entry's bytes (reads its local header). Compressed entries are refused. */
export async function entryDataOffset(src: WeightSource, e: ZipEntry): Promise<number> {
  if (e.method !== 0)
    throw new DecoderError(
      'bad-input',
      `${src.name}: zip entry ${printable(e.name)} is compressed (method ${e.method}); torch.save stores entries uncompressed: re-save the checkpoint with torch.save`,
    );
  if (e.compressedSize !== e.size) throw new DecoderError('bad-input', `${src.name}: zip entry ${printable(e.name)} is stored but its sizes differ (${e.compressedSize} vs ${e.size}); corrupt`);
  const h = await src.read(e.localOffset, 30);
  const dv = new DataView(h.buffer, h.byteOffset, 30);
  if (dv.getUint32(0, true) !== LOCAL) throw new DecoderError('bad-input', `${src.name}: zip entry ${printable(e.name)} has no local header at ${e.localOffset}; corrupt`);
  const at = e.localOffset + 30 + dv.getUint16(26, true) + dv.getUint16(28, true);
  if (at + e.size > src.size) throw new DecoderError('bad-input', `${src.name}: zip entry ${printable(e.name)}: ${e.size} bytes at ${at} lie past the end (${src.size} bytes); truncated?`);
  return at;
}
