/**
 * A strict zip reader for sealed archives. It accepts the shape
 * {@link writeZip} produces and refuses everything else before inflating a
 * byte: archives over the size cap, comments, multi-disk or zip64 records,
 * encrypted or data-descriptor entries, methods other than stored and
 * DEFLATE, symbolic links, directories and other non-regular entries,
 * unsafe names (`../`, absolute paths), duplicate names, entries over the
 * per-file or total caps, local headers that disagree with the central
 * directory, and overlapping entries. Inflation is bounded by each entry's
 * declared size, so a compression bomb cannot allocate past the caps.
 *
 * @module
 */
import { inflateSync } from "fflate";
import { type Diagnostic, diagnostic } from "../core/diagnostic.ts";
import { crc32 } from "./_crc32.ts";
import { DEFLATED, STORED, UTF8_FLAG } from "./_zip_write.ts";
import { type PackageLimits, unsafePathReason } from "./files.ts";

/** A verified entry. */
export interface ZipFile {
  readonly name: string;
  readonly bytes: Uint8Array;
}

/** What {@link readZip} returns: every entry, or every reason there are none. */
export interface ReadZipResult {
  readonly entries?: readonly ZipFile[];
  readonly diagnostics: readonly Diagnostic[];
}

/** Options for {@link readZip}. */
export interface ReadZipOptions {
  /** URI of the archive, for diagnostics. */
  readonly uri: string;
  readonly limits: PackageLimits;
}

interface CentralEntry {
  readonly name: string;
  readonly method: number;
  readonly flags: number;
  readonly crc: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly offset: number;
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;
const UNIX = 3;

const DECODER = new TextDecoder("utf-8", { fatal: true });

/** Reads and checks every entry of a zip archive. */
export function readZip(bytes: Uint8Array, options: ReadZipOptions): ReadZipResult {
  const { uri, limits } = options;
  const refuse = (reason: string, message: string, entry?: string): ReadZipResult => ({
    diagnostics: [invalid(uri, reason, message, entry)],
  });
  if (bytes.length > limits.maxArchiveBytes) {
    return refuse(
      "oversize",
      `the archive is ${bytes.length} bytes; at most ${limits.maxArchiveBytes} are accepted`,
    );
  }
  if (bytes.length < 22) return refuse("format", "the file is too short to be an archive");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = bytes.length - 22;
  if (view.getUint32(eocd, true) !== 0x06054b50) {
    return refuse(
      "format",
      "no end-of-archive record at the end of the file: not a sealed archive, or truncated, " +
        "or followed by other bytes",
    );
  }
  const count = view.getUint16(eocd + 10, true);
  const cdSize = view.getUint32(eocd + 12, true);
  const cdOffset = view.getUint32(eocd + 16, true);
  if (
    view.getUint16(eocd + 4, true) !== 0 || view.getUint16(eocd + 6, true) !== 0 ||
    view.getUint16(eocd + 8, true) !== count || view.getUint16(eocd + 20, true) !== 0 ||
    cdOffset + cdSize !== eocd
  ) {
    return refuse(
      "format",
      "the end-of-archive record is inconsistent (multi-disk, commented, zip64 or damaged)",
    );
  }
  if (count > limits.maxFiles + 1) {
    return refuse(
      "oversize",
      `the archive has ${count} entries; at most ${limits.maxFiles} files are accepted`,
    );
  }

  const diagnostics: Diagnostic[] = [];
  const central: CentralEntry[] = [];
  const seen = new Map<string, string>();
  let total = 0;
  let at = cdOffset;
  for (let k = 0; k < count; k++) {
    if (at + 46 > eocd || view.getUint32(at, true) !== 0x02014b50) {
      return refuse("format", `central directory record ${k + 1} is damaged`);
    }
    const madeBy = view.getUint16(at + 4, true);
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const crc = view.getUint32(at + 16, true);
    const compressedSize = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const attrs = view.getUint32(at + 38, true);
    const offset = view.getUint32(at + 42, true);
    const end = at + 46 + nameLength + extraLength + commentLength;
    if (end > eocd) return refuse("format", `central directory record ${k + 1} is damaged`);
    let name: string;
    try {
      name = DECODER.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    } catch {
      diagnostics.push(invalid(uri, "name", `entry ${k + 1} has a name that is not UTF-8`));
      at = end;
      continue;
    }
    at = end;
    const problem = entryProblem({
      name,
      madeBy,
      flags,
      method,
      attrs,
      extraLength,
      commentLength,
      size,
      limits,
    });
    if (problem) {
      diagnostics.push(invalid(uri, problem.reason, `${name}: ${problem.message}`, name));
      continue;
    }
    const folded = name.normalize("NFC").toLowerCase();
    const first = seen.get(folded);
    if (first !== undefined) {
      diagnostics.push(invalid(
        uri,
        "duplicate",
        first === name
          ? `${name} appears twice in the archive`
          : `${name} and ${first} differ only in case or Unicode form`,
        name,
      ));
      continue;
    }
    seen.set(folded, name);
    total += size;
    if (total > limits.maxTotalBytes) {
      diagnostics.push(invalid(
        uri,
        "oversize",
        `the archive's entries exceed ${limits.maxTotalBytes} bytes in total`,
      ));
      return { diagnostics };
    }
    central.push({ name, method, flags, crc, compressedSize, size, offset });
  }
  if (diagnostics.length > 0) return { diagnostics };

  const entries: ZipFile[] = [];
  let previousEnd = 0;
  for (const e of [...central].sort((a, b) => a.offset - b.offset)) {
    const result = readEntry(bytes, view, e, { previousEnd, cdOffset });
    if ("reason" in result) {
      diagnostics.push(invalid(uri, result.reason, `${e.name}: ${result.message}`, e.name));
      continue;
    }
    previousEnd = result.end;
    entries.push({ name: e.name, bytes: result.bytes });
  }
  return diagnostics.length > 0 ? { diagnostics } : { entries, diagnostics };
}

interface EntryFacts {
  readonly name: string;
  readonly madeBy: number;
  readonly flags: number;
  readonly method: number;
  readonly attrs: number;
  readonly extraLength: number;
  readonly commentLength: number;
  readonly size: number;
  readonly limits: PackageLimits;
}

function entryProblem(f: EntryFacts): { reason: string; message: string } | undefined {
  const mode = (f.attrs >>> 16) & S_IFMT;
  if (f.madeBy >> 8 === UNIX && mode === S_IFLNK) {
    return {
      reason: "symlink",
      message: "is a symbolic link; an archive holds regular files only",
    };
  }
  if (f.name.endsWith("/") || (f.madeBy >> 8 === UNIX && mode === S_IFDIR)) {
    return { reason: "directory", message: "is a directory entry; an archive holds files only" };
  }
  if (f.madeBy >> 8 !== UNIX || mode !== S_IFREG) {
    return { reason: "entry-type", message: "is not marked as a regular file" };
  }
  const unsafe = unsafePathReason(f.name);
  if (unsafe !== undefined) {
    const reason = /'\.\.'/.test(unsafe)
      ? "traversal"
      : /absolute|drive/.test(unsafe)
      ? "absolute"
      : "name";
    return { reason, message: `${unsafe}; refusing it` };
  }
  if ((f.flags & ~UTF8_FLAG) !== 0) {
    return {
      reason: "format",
      message: `uses zip features a sealed archive never has (flags 0x${f.flags.toString(16)})`,
    };
  }
  if (f.method !== STORED && f.method !== DEFLATED) {
    return { reason: "format", message: `uses compression method ${f.method}` };
  }
  if (f.extraLength !== 0 || f.commentLength !== 0) {
    return { reason: "format", message: "carries extra fields or a comment" };
  }
  if (f.size > f.limits.maxFileBytes) {
    return {
      reason: "oversize",
      message: `is ${f.size} bytes; a file may have at most ${f.limits.maxFileBytes}`,
    };
  }
  return undefined;
}

function readEntry(
  bytes: Uint8Array,
  view: DataView,
  e: CentralEntry,
  bounds: { previousEnd: number; cdOffset: number },
): { bytes: Uint8Array; end: number } | { reason: string; message: string } {
  const at = e.offset;
  if (at < bounds.previousEnd) return { reason: "format", message: "overlaps another entry" };
  if (at + 30 > bounds.cdOffset || view.getUint32(at, true) !== 0x04034b50) {
    return { reason: "format", message: "its local header is missing or damaged" };
  }
  const nameLength = view.getUint16(at + 26, true);
  const extraLength = view.getUint16(at + 28, true);
  const dataStart = at + 30 + nameLength + extraLength;
  const dataEnd = dataStart + e.compressedSize;
  if (dataEnd > bounds.cdOffset) return { reason: "format", message: "runs past its data" };
  let localName: string;
  try {
    localName = DECODER.decode(bytes.subarray(at + 30, at + 30 + nameLength));
  } catch {
    localName = "";
  }
  if (
    localName !== e.name || extraLength !== 0 ||
    view.getUint16(at + 6, true) !== e.flags || view.getUint16(at + 8, true) !== e.method ||
    view.getUint32(at + 14, true) !== e.crc ||
    view.getUint32(at + 18, true) !== e.compressedSize ||
    view.getUint32(at + 22, true) !== e.size
  ) {
    return { reason: "format", message: "its local header disagrees with the central directory" };
  }
  const data = bytes.subarray(dataStart, dataEnd);
  let content: Uint8Array;
  if (e.method === STORED) {
    if (e.compressedSize !== e.size) {
      return { reason: "format", message: "a stored entry whose sizes differ" };
    }
    content = data.slice();
  } else {
    try {
      // One byte of headroom tells "exactly the declared size" from "more".
      content = inflateSync(data, { out: new Uint8Array(e.size + 1) });
    } catch (error) {
      return {
        reason: "corrupt",
        message: `its compressed data is corrupt (${
          error instanceof Error ? error.message : error
        })`,
      };
    }
    if (content.length !== e.size) {
      return {
        reason: "corrupt",
        message: `inflates to ${content.length > e.size ? "more" : "fewer"} bytes than declared`,
      };
    }
    content = content.slice(0, e.size);
  }
  if (crc32(content) !== e.crc) {
    return { reason: "corrupt", message: "its checksum does not match its content" };
  }
  return { bytes: content, end: dataEnd };
}

/** The one code every archive refusal carries; `reason` says which check failed. */
export function invalid(uri: string, reason: string, message: string, entry?: string): Diagnostic {
  return diagnostic("SUTRA.DEPLOY.ARCHIVE_INVALID", message, {
    source: { uri },
    attributes: entry === undefined ? { reason } : { reason, entry },
  });
}
