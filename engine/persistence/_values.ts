/**
 * Value conversions both drivers install, so a column reads and a parameter
 * binds the same way on a PostgreSQL server and on embedded PGlite (the
 * mapping table is in `database.ts`).
 *
 * Parsers never throw: a throw inside the server driver's protocol handler
 * would tear down the connection. An int8 that does not fit a JS number is
 * parsed to a bigint and refused afterwards by {@link assertSafeIntegers}.
 *
 * @module
 */

/** Type OIDs the conversions are keyed by. */
export const OID = {
  bool: 16,
  bytea: 17,
  int8: 20,
  json: 114,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  int8Array: 1016,
  jsonb: 3802,
} as const;

/** Turns the text form of a column value into its JS value. */
export type Parser = (text: string) => unknown;

/** Turns a JS parameter into the text form PostgreSQL parses. */
export type Serializer = (value: unknown) => string;

/** One type's conversions in both directions. */
export interface TypeConversion {
  readonly oid: number;
  readonly parse: Parser;
  readonly serialize: Serializer;
}

// PostgreSQL prints 'infinity' for unbounded timestamps; JS has no such Date,
// so they become the extreme Dates JS can hold.
const MAX_DATE_MS = 8.64e15;

const TIMESTAMP =
  /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:([+-])(\d\d)(?::?(\d\d))?(?::?(\d\d))?)?( BC)?$/;

/**
 * Parses PostgreSQL's ISO text form of timestamp/timestamptz. A value without
 * an offset is read as UTC, so it does not depend on the process time zone.
 */
export function parseTimestamp(text: string): Date {
  if (text === "infinity") return new Date(MAX_DATE_MS);
  if (text === "-infinity") return new Date(-MAX_DATE_MS);
  const m = TIMESTAMP.exec(text);
  if (!m) return new Date(Number.NaN);
  const [, y, mo, d, h, mi, s, frac, sign, oh, om, os, bc] = m;
  const year = bc ? 1 - Number(y) : Number(y);
  const date = new Date(0);
  date.setUTCFullYear(year, Number(mo) - 1, Number(d));
  date.setUTCHours(
    Number(h),
    Number(mi),
    Number(s),
    frac ? Number(frac.slice(0, 3).padEnd(3, "0")) : 0,
  );
  if (sign) {
    const offsetSeconds = Number(oh) * 3600 + Number(om ?? 0) * 60 + Number(os ?? 0);
    date.setTime(date.getTime() - (sign === "+" ? 1 : -1) * offsetSeconds * 1000);
  }
  return date;
}

/** Parses int8 to a number when exact, otherwise to a bigint that {@link assertSafeIntegers} refuses. */
export function parseInt8(text: string): number | bigint {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : BigInt(text);
}

function serializeTimestamp(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "number") return new Date(value).toISOString();
  return String(value);
}

function serializeTimestampDate(value: unknown): string {
  // A Date bound to a date column means its UTC calendar day.
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  return String(value);
}

function serializeBytea(value: unknown): string {
  if (value instanceof Uint8Array) return "\\x" + value.toHex();
  return String(value);
}

function serializeJson(value: unknown): string {
  return JSON.stringify(value);
}

function serializeBool(value: unknown): string {
  if (value === true) return "t";
  if (value === false) return "f";
  return String(value);
}

const identity: Parser = (text) => text;

/** Every conversion both drivers install, keyed by the OID they apply to. */
export const CONVERSIONS: readonly TypeConversion[] = [
  { oid: OID.bool, parse: (t) => t === "t", serialize: serializeBool },
  { oid: OID.bytea, parse: (t) => Uint8Array.fromHex(t.slice(2)), serialize: serializeBytea },
  { oid: OID.int8, parse: parseInt8, serialize: String },
  { oid: OID.json, parse: JSON.parse, serialize: serializeJson },
  { oid: OID.jsonb, parse: JSON.parse, serialize: serializeJson },
  { oid: OID.date, parse: identity, serialize: serializeTimestampDate },
  { oid: OID.timestamp, parse: parseTimestamp, serialize: serializeTimestamp },
  { oid: OID.timestamptz, parse: parseTimestamp, serialize: serializeTimestamp },
];

/** A result column as both drivers describe it. */
export interface ColumnType {
  readonly name: string;
  readonly type: number;
}

function containsBigint(value: unknown): bigint | undefined {
  if (typeof value === "bigint") return value;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = containsBigint(item);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Throws a RangeError naming the column when an int8 value does not fit a JS number. */
export function assertSafeIntegers(
  rows: readonly Record<string, unknown>[],
  columns: readonly ColumnType[],
): void {
  const wide = columns.filter((c) => c.type === OID.int8 || c.type === OID.int8Array);
  if (wide.length === 0) return;
  for (const row of rows) {
    for (const column of wide) {
      const big = containsBigint(row[column.name]);
      if (big !== undefined) {
        throw new RangeError(
          `int8 column "${column.name}" holds ${big}, beyond the ±2^53 range a JavaScript number ` +
            `represents exactly; cast it to text or numeric in the query`,
        );
      }
    }
  }
}

/** Refuses `undefined` parameters (pass `null` for SQL NULL) the same way on both drivers. */
export function checkParams(params: readonly unknown[]): void {
  const i = params.indexOf(undefined);
  if (i >= 0) {
    throw new TypeError(`query parameter $${i + 1} is undefined; pass null for SQL NULL`);
  }
}

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/** Refuses channel names that would need quoting, so both drivers fold them identically. */
export function checkChannel(channel: string): void {
  if (!CHANNEL.test(channel)) {
    throw new TypeError(
      `notification channel '${channel}' must be a lower-case SQL identifier (a-z, 0-9, _)`,
    );
  }
}

/** Quotes an SQL identifier. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
