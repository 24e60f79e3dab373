/**
 * A deterministic zip writer: the same entries always give the same bytes.
 * Every header field is fixed or derived from the entry itself — a fixed
 * timestamp (1980-01-01 00:00, the earliest a zip can say), regular-file
 * permissions, no extra fields, no comment — and compression is raw
 * DEFLATE at a fixed level from a pinned library, stored instead when that
 * would not shrink the entry.
 *
 * @module
 */
import { deflateSync } from "fflate";
import { crc32 } from "./_crc32.ts";

/** One file to write. */
export interface ZipEntry {
  readonly name: string;
  readonly bytes: Uint8Array;
}

/** Compression method numbers of the zip format. */
export const STORED = 0;
/** Raw DEFLATE. */
export const DEFLATED = 8;
/** General-purpose flag: the name is UTF-8. */
export const UTF8_FLAG = 0x0800;
/** DOS date for 1980-01-01 (day 1, month 1, year offset 0). */
export const FIXED_DATE = (1 << 5) | 1;
/** External attributes of a regular file with mode 0644 (Unix mode in the high 16 bits). */
export const REGULAR_FILE_ATTRS = (0o100644 << 16) >>> 0;
/** "Version made by": Unix (3) and zip 2.0. */
const MADE_BY = (3 << 8) | 20;
const NEEDED = 20;
const LEVEL = 6;

const ENCODER = new TextEncoder();

/** Writes `entries`, in the order given, as one zip archive. */
export function writeZip(entries: readonly ZipEntry[]): Uint8Array {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = ENCODER.encode(entry.name);
    const deflated = deflateSync(entry.bytes, { level: LEVEL });
    const method = deflated.length < entry.bytes.length ? DEFLATED : STORED;
    const data = method === DEFLATED ? deflated : entry.bytes;
    const crc = crc32(entry.bytes);

    const local = new Uint8Array(30 + name.length + data.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, NEEDED, true);
    lv.setUint16(6, UTF8_FLAG, true);
    lv.setUint16(8, method, true);
    lv.setUint16(10, 0, true);
    lv.setUint16(12, FIXED_DATE, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, data.length, true);
    lv.setUint32(22, entry.bytes.length, true);
    lv.setUint16(26, name.length, true);
    lv.setUint16(28, 0, true);
    local.set(name, 30);
    local.set(data, 30 + name.length);
    locals.push(local);

    const central = new Uint8Array(46 + name.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, MADE_BY, true);
    cv.setUint16(6, NEEDED, true);
    cv.setUint16(8, UTF8_FLAG, true);
    cv.setUint16(10, method, true);
    cv.setUint16(12, 0, true);
    cv.setUint16(14, FIXED_DATE, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, data.length, true);
    cv.setUint32(24, entry.bytes.length, true);
    cv.setUint16(28, name.length, true);
    // extra length, comment length, disk number, internal attributes: all 0
    cv.setUint32(38, REGULAR_FILE_ATTRS, true);
    cv.setUint32(42, offset, true);
    central.set(name, 46);
    centrals.push(central);
    offset += local.length;
  }
  const centralSize = centrals.reduce((n, c) => n + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, centralSize, true);
  ev.setUint32(16, offset, true);
  const out = new Uint8Array(offset + centralSize + end.length);
  let at = 0;
  for (const part of [...locals, ...centrals, end]) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
