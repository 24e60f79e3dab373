/**
 * How a snapshot travels to and from the `instances.snapshot` column
 * (`bytea`) without the cost of the driver's hex encoding.
 *
 * A snapshot is UTF-8 text, usually plain ASCII. Sent as a `bytea`
 * parameter it is encoded to bytes, then to hex text twice its size, and
 * read back the same way in reverse; on a park+resume pair that was about a
 * tenth of the engine's CPU. So an ASCII snapshot is sent as text and
 * converted by the server (ASCII is the same bytes in every server
 * encoding), and snapshots are read in the server's `escape` form, which is
 * the text itself unless it holds a backslash, a zero byte or a non-ASCII
 * byte; only then is it unescaped here. Any other snapshot is sent as the
 * hex of its UTF-8 bytes, so the column holds exactly those bytes either way.
 *
 * @module
 */

/**
 * A snapshot as two text values, exactly one of them not null: `text`, the
 * snapshot itself when it is ASCII without NUL; else `hex`, its UTF-8 bytes
 * in hex.
 */
export interface SnapshotParts {
  readonly text: string | null;
  readonly hex: string | null;
}

/** Printable ASCII and the control characters other than NUL: the same bytes as text in any encoding. */
// deno-lint-ignore no-control-regex -- the range starts at \x01 on purpose: NUL cannot be text.
const ASCII = /^[\x01-\x7f]*$/;

/** The parts that write snapshot `text` into the `bytea` column through {@link snapshotFromParts}. */
export function snapshotParts(text: string): SnapshotParts {
  return ASCII.test(text)
    ? { text, hex: null }
    : { text: null, hex: new TextEncoder().encode(text).toHex() };
}

/**
 * The SQL expression for the column's bytes from the two parts, given as
 * text-typed SQL expressions (placeholders or columns).
 */
export function snapshotFromParts(text: string, hex: string): string {
  return `coalesce(convert_to(${text}, 'UTF8'), decode(${hex}, 'hex'))`;
}

/** The select-list item that reads the column as {@link snapshotFromColumn} expects it. */
export const SNAPSHOT_COLUMN = "encode(snapshot, 'escape') as snapshot";

/**
 * The snapshot read through {@link SNAPSHOT_COLUMN}: the text itself when
 * nothing was escaped, else its bytes (`\\` is a backslash, `\nnn` an octal
 * byte; every other character is one ASCII byte).
 */
export function snapshotFromColumn(escaped: string): string | Uint8Array {
  if (!escaped.includes("\\")) return escaped;
  const bytes: number[] = [];
  for (let i = 0; i < escaped.length; i++) {
    if (escaped[i] !== "\\") {
      bytes.push(escaped.charCodeAt(i));
    } else if (escaped[i + 1] === "\\") {
      bytes.push(0x5c);
      i++;
    } else {
      bytes.push(parseInt(escaped.slice(i + 1, i + 4), 8));
      i += 3;
    }
  }
  return new Uint8Array(bytes);
}
