/**
 * Text forms of FEEL values for templates: the text a value prints as, and
 * its JSON. Numbers are written from their decimal digits, never through a
 * JS float, so `1250.75` stays `1250.75` and 34-digit values keep every
 * digit; temporals and durations print in their ISO-8601 form.
 *
 * @module
 */
import { FeelContext, FeelDecimal, type FeelValue, formatFeel, toJs } from "../feel/mod.ts";

/** Plain decimal notation without an exponent, and without the sign of a negative zero. */
export function decimalText(d: InstanceType<typeof FeelDecimal>): string {
  return d.isZero() ? "0" : d.toFixed();
}

/** The text a value prints as: what FEEL's `string()` gives, with null as the empty string. */
export function textOf(value: FeelValue): string {
  if (value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return String(value);
  if (value instanceof FeelDecimal) return decimalText(value);
  if (Array.isArray(value) || value instanceof FeelContext) return formatFeel(value);
  if (value.kind === "range" || value.kind === "function") return formatFeel(value);
  // Dates, times and durations: toJs yields their ISO-8601 text.
  return toJs(value) as string;
}

/** The JSON text of a value: contexts as objects (in entry order), lists as arrays, temporals as strings. */
export function jsonOf(value: FeelValue): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "string") return JSON.stringify(value);
  if (value instanceof FeelDecimal) return decimalText(value);
  if (Array.isArray(value)) return `[${value.map(jsonOf).join(",")}]`;
  if (value instanceof FeelContext) {
    const members = Array.from(value.entries, ([k, v]) => `${JSON.stringify(k)}:${jsonOf(v)}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(textOf(value));
}
