/**
 * The canonical text of temporal values, as `string()` renders them: XML
 * Schema lexical forms, `Z` for a zero offset, `@zone` for an IANA zone, and
 * normalised durations (`P2DT1H`, `P1Y2M`, zero as `PT0S` / `P0M`).
 *
 * @module
 */
import type { Decimal } from "decimal.js";
import type {
  FeelDate,
  FeelDateTime,
  FeelDaysTimeDuration,
  FeelTime,
  FeelYearsMonthsDuration,
  FeelZone,
} from "./values.ts";

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

/** `[-]YYYY-MM-DD`, the year padded to at least four digits. */
export function formatDate(d: FeelDate): string {
  const sign = d.year < 0 ? "-" : "";
  return `${sign}${pad(Math.abs(d.year), 4)}-${pad(d.month, 2)}-${pad(d.day, 2)}`;
}

/** Seconds as `ss` or `ss.fff`, without trailing zeros in the fraction. */
function formatSeconds(s: Decimal): string {
  const text = s.toFixed();
  const dot = text.indexOf(".");
  return dot < 0 ? text.padStart(2, "0") : text.slice(0, dot).padStart(2, "0") + text.slice(dot);
}

/** An offset as `Z` or `±hh:mm[:ss]`. */
export function formatOffset(seconds: number): string {
  if (seconds === 0) return "Z";
  const sign = seconds < 0 ? "-" : "+";
  const a = Math.abs(seconds);
  const tail = a % 60 === 0 ? "" : `:${pad(a % 60, 2)}`;
  return `${sign}${pad(Math.floor(a / 3600), 2)}:${pad(Math.floor((a % 3600) / 60), 2)}${tail}`;
}

function formatZone(z: FeelZone): string {
  if (z.type === "none") return "";
  return z.type === "offset" ? formatOffset(z.seconds) : `@${z.id}`;
}

/** `hh:mm:ss[.f]` followed by the zone, if any. */
export function formatTime(t: FeelTime): string {
  return `${pad(t.hour, 2)}:${pad(t.minute, 2)}:${formatSeconds(t.second)}${formatZone(t.zone)}`;
}

/** `date'T'time`. */
export function formatDateTime(dt: FeelDateTime): string {
  return `${formatDate(dt.date)}T${formatTime(dt.time)}`;
}

/** `[-]PnDTnHnMnS` with only the non-zero parts; zero is `PT0S`. */
export function formatDaysTimeDuration(d: FeelDaysTimeDuration): string {
  if (d.seconds.isZero()) return "PT0S";
  const abs = d.seconds.abs();
  const days = abs.divToInt(86400);
  let rest = abs.minus(days.times(86400));
  const hours = rest.divToInt(3600);
  rest = rest.minus(hours.times(3600));
  const minutes = rest.divToInt(60);
  const seconds = rest.minus(minutes.times(60));
  let text = d.seconds.isNeg() ? "-P" : "P";
  if (!days.isZero()) text += `${days.toFixed()}D`;
  if (!hours.isZero() || !minutes.isZero() || !seconds.isZero()) {
    text += "T";
    if (!hours.isZero()) text += `${hours.toFixed()}H`;
    if (!minutes.isZero()) text += `${minutes.toFixed()}M`;
    if (!seconds.isZero()) text += `${seconds.toFixed()}S`;
  }
  return text;
}

/** `[-]PnYnM` with only the non-zero parts; zero is `P0M`. */
export function formatYearsMonthsDuration(d: FeelYearsMonthsDuration): string {
  if (d.months === 0) return "P0M";
  const abs = Math.abs(d.months);
  const years = Math.floor(abs / 12);
  const months = abs % 12;
  return `${d.months < 0 ? "-" : ""}P${years > 0 ? `${years}Y` : ""}${
    months > 0 ? `${months}M` : ""
  }`;
}
