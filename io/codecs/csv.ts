/**
 * `urn:sutra:codec:csv`: RFC 4180 CSV with a header row. The payload is a
 * list of contexts, one per record, keyed by the header's names; values are
 * text (no type guessing: `007` stays `"007"`). A record with too few or
 * too many fields is a soft error: missing fields are null, extra fields
 * are dropped, and the issue says which record on which line.
 *
 * @module
 */
import { Decimal } from "decimal.js";
import {
  type Codec,
  codecUrn,
  decoded,
  type EncodeResult,
  fatal,
  type Issue,
  issue,
} from "../../engine/core/codec.ts";
import { parseCsv } from "./_csv_parse.ts";
import { put } from "./_data.ts";
import {
  decodeText,
  mediaMatches,
  parseMediaType,
  pointer,
  unsupportedMediaType,
  utf8,
} from "./_text.ts";

const TYPES: readonly string[] = ["text/csv"];

function decodeCsv(text: string) {
  const parsed = parseCsv(text);
  if (parsed.error) {
    const { message, line, column } = parsed.error;
    return fatal(
      issue("SUTRA.PARSE.CSV.MALFORMED", `not well-formed CSV at line ${line}: ${message}`, {
        line,
        column,
      }),
    );
  }
  const [header, ...rows] = parsed.records;
  if (header === undefined) {
    return fatal(issue("SUTRA.PARSE.CSV.HEADER_INVALID", "the CSV has no header row"));
  }
  const names = header.fields;
  const seen = new Set<string>();
  for (const [i, name] of names.entries()) {
    const problem = name === "" ? "is empty" : seen.has(name) ? `repeats '${name}'` : undefined;
    if (problem !== undefined) {
      return fatal(
        issue("SUTRA.PARSE.CSV.HEADER_INVALID", `header column ${i + 1} ${problem}`, {
          line: header.line,
          value: name,
        }),
      );
    }
    seen.add(name);
  }
  const issues: Issue[] = [];
  const records = rows.map((row, index) => {
    const record: Record<string, unknown> = {};
    names.forEach((name, i) => put(record, name, i < row.fields.length ? row.fields[i] : null));
    if (row.fields.length !== names.length) {
      issues.push(
        issue(
          "SUTRA.PARSE.CSV.FIELD_COUNT",
          `record ${
            index + 1
          } (line ${row.line}) has ${row.fields.length} fields, the header ${names.length}`,
          { path: pointer([index]), line: row.line, value: row.fields.length },
        ),
      );
    }
    return record;
  });
  return decoded(records, issues);
}

const NEEDS_QUOTES = /[",\r\n]/;

function csvField(value: unknown): string | undefined {
  let text: string;
  if (value === null || value === undefined) text = "";
  else if (typeof value === "string") text = value;
  else if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") {
    text = String(value);
  } else if (Decimal.isDecimal(value)) text = value.toString();
  else return undefined;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function unwritable(message: string, path = ""): EncodeResult {
  return { ok: false, issues: [issue("SUTRA.ENCODE.UNWRITABLE", message, { path })] };
}

function encodeCsv(value: unknown): EncodeResult {
  if (!Array.isArray(value)) return unwritable("CSV is written from a list of contexts");
  const columns: string[] = [];
  const known = new Set<string>();
  for (const [i, record] of value.entries()) {
    if (record === null || typeof record !== "object" || Array.isArray(record)) {
      return unwritable("every CSV record must be a context", pointer([i]));
    }
    for (const key of Object.keys(record)) {
      if (!known.has(key)) {
        known.add(key);
        columns.push(key);
      }
    }
  }
  const lines = [columns.map(csvField).join(",")];
  for (const [i, record] of value.entries()) {
    const cells: string[] = [];
    for (const column of columns) {
      const cell = csvField((record as Record<string, unknown>)[column]);
      if (cell === undefined) {
        return unwritable("a CSV field must be a scalar", pointer([i, column]));
      }
      cells.push(cell);
    }
    lines.push(cells.join(","));
  }
  return { ok: true, bytes: utf8(lines.join("\r\n") + "\r\n"), contentType: "text/csv" };
}

/** The built-in CSV codec. */
export const csvCodec: Codec = {
  name: codecUrn("csv"),
  contentTypes: TYPES,
  decode(bytes: Uint8Array, contentType?: string) {
    const media = parseMediaType(contentType);
    if (media && !mediaMatches(media, TYPES)) {
      return Promise.resolve(fatal(unsupportedMediaType(csvCodec.name, contentType!, TYPES)));
    }
    const text = decodeText(bytes, media?.charset);
    return Promise.resolve(text.issue ? fatal(text.issue) : decodeCsv(text.text));
  },
  messageTypes: () => [],
  shapeOf: () => ({
    kind: "list",
    item: { kind: "record", fields: {}, open: true },
  }),
  encode: (value: unknown) => Promise.resolve(encodeCsv(value)),
};
