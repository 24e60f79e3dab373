/**
 * RFC 4180 CSV: comma-separated fields, records ended by CRLF or LF, fields
 * optionally enclosed in double quotes (which may then contain commas, line
 * breaks and `""` for a quote). Blank lines are skipped.
 *
 * @module
 */

/** One record: its fields and the line it starts on. */
export interface CsvRecord {
  readonly fields: readonly string[];
  readonly line: number;
}

/** Where the text first breaks the format. */
export interface CsvError {
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

/** Every record, or the first format error. */
export type CsvParse =
  | { readonly records: readonly CsvRecord[]; readonly error?: undefined }
  | { readonly records?: undefined; readonly error: CsvError };

const QUOTE = 0x22;
const COMMA = 0x2c;
const CR = 0x0d;
const LF = 0x0a;

/** Splits CSV text into records; never throws. */
export function parseCsv(text: string): CsvParse {
  const records: CsvRecord[] = [];
  const n = text.length;
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const fail = (message: string): CsvParse => ({
    error: { message, line, column: i - lineStart + 1 },
  });
  while (i < n) {
    const recordLine = line;
    const fields: string[] = [];
    let blank = true;
    for (;;) {
      let field: string;
      if (text.charCodeAt(i) === QUOTE) {
        blank = false;
        const opened = { at: i, line, lineStart };
        i++;
        field = "";
        for (;;) {
          const close = text.indexOf('"', i);
          if (close < 0) {
            ({ at: i, line, lineStart } = opened);
            return fail("the quoted field opened here is not closed");
          }
          const chunk = text.slice(i, close);
          for (let k = chunk.indexOf("\n"); k >= 0; k = chunk.indexOf("\n", k + 1)) {
            line++;
            lineStart = i + k + 1;
          }
          field += chunk;
          i = close + 1;
          if (text.charCodeAt(i) !== QUOTE) break;
          field += '"';
          i++;
        }
        const after = text.charCodeAt(i);
        if (i < n && after !== COMMA && after !== CR && after !== LF) {
          return fail("text follows the closing quote of a field");
        }
      } else {
        const start = i;
        while (i < n) {
          const c = text.charCodeAt(i);
          if (c === COMMA || c === CR || c === LF) break;
          if (c === QUOTE) return fail("a double quote inside an unquoted field");
          i++;
        }
        field = text.slice(start, i);
        if (field !== "") blank = false;
      }
      fields.push(field);
      if (i < n && text.charCodeAt(i) === COMMA) {
        blank = false;
        i++;
        continue;
      }
      break;
    }
    if (i < n) {
      i += text.charCodeAt(i) === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      line++;
      lineStart = i;
    }
    if (!blank) records.push({ fields, line: recordLine });
  }
  return { records };
}
