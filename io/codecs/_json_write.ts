/**
 * Writes a reply value as JSON text. Values come from the process as plain
 * data, possibly with exact decimals (written as JSON numbers, every digit
 * kept), dates and byte arrays (written as text).
 *
 * @module
 */
import { Decimal } from "decimal.js";
import { type Issue, issue } from "../../engine/core/codec.ts";
import { pointer } from "./_text.ts";
import { errorMessage } from "../../engine/core/errors.ts";

/** JSON text, or the issue naming the value that has no JSON form. */
export type JsonWrite =
  | { readonly text: string; readonly issue?: undefined }
  | { readonly text?: undefined; readonly issue: Issue };

/** Signals a value with no JSON form, with its path. */
class Unwritable {
  constructor(readonly path: (string | number)[], readonly what: string) {}
}

/** Writes `value` as compact JSON; never throws. */
export function writeJson(value: unknown): JsonWrite {
  try {
    return { text: write(value, []) };
  } catch (e) {
    const what = e instanceof Unwritable
      ? `${e.what} has no JSON form`
      : `the value cannot be written (${errorMessage(e)})`;
    const path = e instanceof Unwritable ? pointer(e.path) : "";
    return { issue: issue("SUTRA.ENCODE.UNWRITABLE", what, { path }) };
  }
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function write(value: unknown, path: (string | number)[]): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new Unwritable(path, `the number ${value}`);
      return JSON.stringify(value);
    case "bigint":
      return value.toString();
    case "undefined":
      return "null";
    case "object":
      break;
    default:
      throw new Unwritable(path, `a ${typeof value}`);
  }
  if (value === null) return "null";
  if (Decimal.isDecimal(value)) {
    if (!value.isFinite()) throw new Unwritable(path, `the number ${value.toString()}`);
    return value.toString();
  }
  if (value instanceof Uint8Array) return JSON.stringify(base64(value));
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new Unwritable(path, "an invalid date");
    return JSON.stringify(value.toISOString());
  }
  if (Array.isArray(value)) {
    return `[${value.map((v, i) => write(v, [...path, i])).join(",")}]`;
  }
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  return `{${
    entries.map(([k, v]) => `${JSON.stringify(String(k))}:${write(v, [...path, String(k)])}`)
      .join(",")
  }}`;
}
