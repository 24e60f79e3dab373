/**
 * FEEL values as XDM values for XSLT: contexts become maps, lists arrays,
 * numbers `xs:decimal` (exact), strings and booleans their XSD types, dates
 * `xs:date`, date-times `xs:dateTime`, times `xs:time`, durations
 * `xs:dayTimeDuration` / `xs:yearMonthDuration`, and null the empty sequence.
 *
 * XSD has no IANA zones: a date-time in one (`…@Europe/Paris`) is passed
 * with the offset in force at that moment; a time in one, which has no date
 * to fix the offset, is passed as its FEEL text.
 *
 * @module
 */
import {
  FeelContext,
  type FeelDateTime,
  FeelDecimal,
  type FeelValue,
  type FeelZone,
} from "../feel/mod.ts";
import { decimalText, textOf } from "./_feel_text.ts";
import type { AtomicType, XdmSource } from "./_saxon.ts";

/** Converts a FEEL value to the XDM value a stylesheet receives (built by `_saxon.ts`). */
export function toXdm(value: FeelValue): XdmSource {
  if (value === null) return null;
  if (typeof value === "string") return atomic("string", value);
  if (typeof value === "boolean") return atomic("boolean", String(value));
  if (value instanceof FeelDecimal) return atomic("decimal", decimalText(value));
  if (Array.isArray(value)) return value.map(toXdm);
  if (value instanceof FeelContext) {
    return new Map(Array.from(value.entries, ([k, v]): [string, XdmSource] => [k, toXdm(v)]));
  }
  switch (value.kind) {
    case "date":
      return atomic("date", textOf(value));
    case "date and time": {
      const text = dateTimeText(value);
      return text === undefined ? atomic("string", textOf(value)) : atomic("dateTime", text);
    }
    case "time":
      return value.zone.type === "zone" || !whole(value.zone)
        ? atomic("string", textOf(value))
        : atomic("time", textOf(value));
    case "days and time duration":
      return atomic("dayTimeDuration", textOf(value));
    case "years and months duration":
      return atomic("yearMonthDuration", textOf(value));
    default:
      // Ranges and functions have no XDM counterpart; the stylesheet sees their FEEL text.
      return atomic("string", textOf(value));
  }
}

function atomic(type: AtomicType, text: string): XdmSource {
  return { type, text };
}

/** The `xs:dateTime` lexical form, or undefined when the offset cannot be written in XSD. */
function dateTimeText(value: FeelDateTime): string | undefined {
  const text = textOf(value);
  const zone = value.time.zone;
  if (zone.type !== "zone") return whole(zone) ? text : undefined;
  const offset = zone.offset ?? zoneOffset(value, zone.id);
  if (offset === undefined || offset % 60 !== 0) return undefined;
  return text.slice(0, text.indexOf("@")) + offsetText(offset);
}

/** Seconds east of UTC that zone `id` has at the wall time of `value` (earlier one on overlap). */
function zoneOffset(value: FeelDateTime, id: string): number | undefined {
  const { date, time } = value;
  try {
    const zoned = Temporal.PlainDateTime.from({
      year: date.year,
      month: date.month,
      day: date.day,
      hour: time.hour,
      minute: time.minute,
      second: Math.floor(time.second.toNumber()),
    }).toZonedDateTime(id, { disambiguation: "earlier" });
    return zoned.offsetNanoseconds / 1e9;
  } catch {
    // Years beyond Temporal's range or an unknown zone: no offset to give.
    return undefined;
  }
}

/** XSD offsets are whole minutes; FEEL's may carry seconds. */
function whole(zone: FeelZone): boolean {
  return zone.type !== "offset" || zone.seconds % 60 === 0;
}

function offsetText(seconds: number): string {
  if (seconds === 0) return "Z";
  const sign = seconds < 0 ? "-" : "+";
  const minutes = Math.abs(seconds) / 60;
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${sign}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}
