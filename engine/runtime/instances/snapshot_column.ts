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
 * byte; only then is it unescaped here. Any other snapshot is still sent as
 * bytes, so the column holds exactly the snapshot's UTF-8 bytes either way.
 *
 * @module
 */

/** A snapshot as a statement parameter: the value to bind, and the SQL expression to write for it. */
export interface SnapshotParam {
  readonly value: string | Uint8Array;
  readonly sql: string;
}

/** Printable ASCII and the control characters other than NUL: the same bytes as text in any encoding. */
// deno-lint-ignore no-control-regex -- the range starts at \x01 on purpose: NUL cannot be text.
const ASCII = /^[\x01-\x7f]*$/;

/** The parameter that writes snapshot `text` into the `bytea` column, bound at `placeholder` (e.g. `$5`). */
export function snapshotParam(text: string, placeholder: string): SnapshotParam {
  return ASCII.test(text)
    ? { value: text, sql: `convert_to(${placeholder}::text, 'UTF8')` }
    : { value: new TextEncoder().encode(text), sql: placeholder };
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
