/**
 * What the textual codecs share: reading a content type, turning bytes into
 * text in the declared charset (or the byte-order mark's), and positions.
 *
 * @module
 */
import { type Issue, issue } from "../../engine/core/codec.ts";

/** A parsed `Content-Type`. */
export interface MediaType {
  /** `type/subtype`, lower case. */
  readonly essence: string;
  /** The `charset` parameter, lower case, when given. */
  readonly charset?: string;
}

/** Parses a content type; undefined when absent or blank. */
export function parseMediaType(contentType: string | undefined): MediaType | undefined {
  if (contentType === undefined) return undefined;
  const [head, ...params] = contentType.split(";");
  const essence = head.trim().toLowerCase();
  if (essence === "") return undefined;
  let charset: string | undefined;
  for (const p of params) {
    const eq = p.indexOf("=");
    if (eq < 0 || p.slice(0, eq).trim().toLowerCase() !== "charset") continue;
    charset = p.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1").toLowerCase();
  }
  return charset === undefined ? { essence } : { essence, charset };
}

/**
 * True when `media` is one of `accepted`, or carries an accepted structured
 * syntax suffix (`application/vnd.acme+json` for `+json`).
 */
export function mediaMatches(media: MediaType, accepted: readonly string[]): boolean {
  return accepted.some((a) => a.startsWith("+") ? media.essence.endsWith(a) : media.essence === a);
}

/** The FATAL issue for a content type a codec does not speak. */
export function unsupportedMediaType(
  codec: string,
  contentType: string,
  accepted: readonly string[],
): Issue {
  return issue(
    "SUTRA.PARSE.CONTENT_TYPE.UNSUPPORTED",
    `codec ${codec} does not accept content type '${contentType}' (accepted: ${
      accepted.join(", ")
    })`,
    { value: contentType },
  );
}

const decoders = new Map<string, TextDecoder>();

function decoderFor(label: string): TextDecoder {
  let d = decoders.get(label);
  if (d === undefined) {
    d = new TextDecoder(label, { fatal: true });
    decoders.set(label, d);
  }
  return d;
}

/** Text, or the FATAL issue saying why the bytes are not text. */
export type TextResult =
  | { readonly text: string; readonly issue?: undefined }
  | { readonly text?: undefined; readonly issue: Issue };

/**
 * Decodes `bytes` as text: in `charset` when given, else by byte-order mark
 * (UTF-16 LE/BE), else UTF-8. A leading byte-order mark is dropped.
 */
export function decodeText(bytes: Uint8Array, charset?: string): TextResult {
  const label = charset ?? sniffCharset(bytes);
  let decoder: TextDecoder;
  try {
    decoder = decoderFor(label);
  } catch {
    return {
      issue: issue(
        "SUTRA.PARSE.TEXT.CHARSET_UNSUPPORTED",
        `charset '${label}' is not supported`,
        { value: label },
      ),
    };
  }
  try {
    return { text: decoder.decode(bytes) };
  } catch {
    const at = decoder.encoding === "utf-8" ? firstInvalidUtf8(bytes) : undefined;
    return {
      issue: issue(
        "SUTRA.PARSE.TEXT.ENCODING",
        `the payload is not valid ${decoder.encoding}` +
          (at === undefined ? "" : ` (first bad byte at offset ${at})`),
        at === undefined ? {} : { value: at },
      ),
    };
  }
}

function sniffCharset(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return "utf-8";
}

/** Byte offset of the first byte that breaks UTF-8 (only called once decoding failed). */
function firstInvalidUtf8(bytes: Uint8Array): number | undefined {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const need = continuationBytes(b);
    if (need < 0) return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
    }
    if (
      (b === 0xe0 && bytes[i + 1] < 0xa0) || (b === 0xed && bytes[i + 1] >= 0xa0) ||
      (b === 0xf0 && bytes[i + 1] < 0x90) || (b === 0xf4 && bytes[i + 1] >= 0x90)
    ) {
      return i;
    }
    i += need + 1;
  }
  return undefined;
}

/** How many continuation bytes follow a UTF-8 lead byte; -1 when `b` cannot lead. */
function continuationBytes(b: number): number {
  if (b < 0x80) return 0;
  if (b >= 0xc2 && b < 0xe0) return 1;
  if (b >= 0xe0 && b < 0xf0) return 2;
  if (b >= 0xf0 && b < 0xf5) return 3;
  return -1;
}

/** 1-based line and column of a UTF-16 offset in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: end - start + 1 };
}

const encoder = new TextEncoder();

/** UTF-8 bytes of `text`. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Escapes `~` and `/` for one JSON Pointer segment. */
export function pointerSegment(key: string | number): string {
  if (typeof key === "number") return String(key);
  if (!key.includes("~") && !key.includes("/")) return key;
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** A JSON Pointer from segments (`["a", 0]` → `/a/0`). */
export function pointer(segments: readonly (string | number)[]): string {
  return segments.map((s) => `/${pointerSegment(s)}`).join("");
}
