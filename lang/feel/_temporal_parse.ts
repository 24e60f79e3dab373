/**
 * Parsing of the XML Schema lexical forms FEEL uses for temporals: dates,
 * times (local, with an offset, or with `@` and an IANA zone), date-times and
 * the two duration kinds. Every parser returns null for text it does not
 * accept; callers attach the warning.
 *
 * @module
 */
import { daysFromCivil, isValidDate, MAX_YEAR } from "./_temporal_calendar.ts";
import { isValidZoneId } from "./_temporal_zone.ts";
import {
  daysTimeDuration,
  type FeelDate,
  type FeelDateTime,
  type FeelDaysTimeDuration,
  FeelDecimal,
  type FeelTime,
  type FeelYearsMonthsDuration,
  type FeelZone,
  NO_ZONE,
  yearsMonthsDuration,
} from "./values.ts";
import { dateFromDays, makeDateTime, makeTime, MAX_OFFSET_SECONDS } from "./_temporal_core.ts";

const DATE = /^(-?)(\d{4,9})-(\d{2})-(\d{2})$/;
const TIME =
  /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:(Z)|([+-])(\d{2}):(\d{2})(?::(\d{2}))?|@([^@\s]+))?$/;
const DAYS_TIME = /^(-)?P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.(\d*))?S)?)?$/;
const YEARS_MONTHS = /^(-)?P(?:(\d+)Y)?(?:(\d+)M)?$/;

/** Parses `[-]YYYY-MM-DD` (4–9 year digits, no leading zero beyond four digits). */
export function parseDate(text: string): FeelDate | null {
  const m = DATE.exec(text);
  if (m === null) return null;
  if (m[2].length > 4 && m[2][0] === "0") return null;
  const year = (m[1] === "-" ? -1 : 1) * Number(m[2]);
  if (m[1] === "-" && year === 0) return null;
  const month = Number(m[3]);
  const day = Number(m[4]);
  if (!isValidDate(year, month, day)) return null;
  return dateFromDays(daysFromCivil(year, month, day));
}

/** A parsed time of day plus whether it was written as `24:00:00` (end of day). */
interface ParsedTime {
  readonly time: FeelTime;
  readonly endOfDay: boolean;
}

function parseTimeParts(text: string): ParsedTime | null {
  const m = TIME.exec(text);
  if (m === null) return null;
  const hour = Number(m[1]);
  const minute = Number(m[2]);
  const whole = Number(m[3]);
  const endOfDay = hour === 24;
  if (endOfDay ? minute !== 0 || whole !== 0 || /[1-9]/.test(m[4] ?? "") : hour > 23) return null;
  if (minute > 59 || whole > 59) return null;
  let zone: FeelZone = NO_ZONE;
  if (m[5] === "Z") zone = { type: "offset", seconds: 0 };
  else if (m[6] !== undefined) {
    const oh = Number(m[7]);
    const om = Number(m[8]);
    const os = m[9] === undefined ? 0 : Number(m[9]);
    if (om > 59 || os > 59) return null;
    const seconds = oh * 3600 + om * 60 + os;
    if (seconds > MAX_OFFSET_SECONDS) return null;
    zone = { type: "offset", seconds: m[6] === "-" ? -seconds : seconds };
  } else if (m[10] !== undefined) {
    if (!isValidZoneId(m[10])) return null;
    zone = { type: "zone", id: m[10] };
  }
  const second = m[4] === undefined ? new FeelDecimal(whole) : new FeelDecimal(`${m[3]}.${m[4]}`);
  return { time: makeTime(endOfDay ? 0 : hour, minute, second, zone), endOfDay };
}

/** Parses `hh:mm:ss[.f][Z|±hh:mm[:ss]|@zone]`; `24:00:00` reads as midnight. */
export function parseTime(text: string): FeelTime | null {
  return parseTimeParts(text)?.time ?? null;
}

/**
 * Parses `date'T'time` or a bare date (midnight, local). `24:00:00` is the
 * first instant of the next day; a zoned wall time inside a DST gap moves
 * forward past the gap.
 */
export function parseDateTime(text: string): FeelDateTime | null {
  const t = text.indexOf("T");
  if (t < 0) {
    const date = parseDate(text);
    return date === null ? null : makeDateTime(date, makeTime(0, 0, new FeelDecimal(0), NO_ZONE));
  }
  const date = parseDate(text.slice(0, t));
  const parsed = date === null ? null : parseTimeParts(text.slice(t + 1));
  if (date === null || parsed === null) return null;
  if (!parsed.endOfDay) return makeDateTime(date, parsed.time);
  const next = daysFromCivil(date.year, date.month, date.day) + 1;
  const nextDate = dateFromDays(next);
  return Math.abs(nextDate.year) > MAX_YEAR ? null : makeDateTime(nextDate, parsed.time);
}

/** Parses a days-and-time duration such as `P1DT2H3M4.5S` or `-PT1H`. */
export function parseDaysTimeDuration(text: string): FeelDaysTimeDuration | null {
  const m = DAYS_TIME.exec(text);
  if (m === null || text.endsWith("T") || text.endsWith("P")) return null;
  let total = new FeelDecimal(0);
  if (m[2] !== undefined) total = total.plus(new FeelDecimal(m[2]).times(86400));
  if (m[3] !== undefined) total = total.plus(new FeelDecimal(m[3]).times(3600));
  if (m[4] !== undefined) total = total.plus(new FeelDecimal(m[4]).times(60));
  if (m[5] !== undefined) total = total.plus(new FeelDecimal(`${m[5]}.${m[6] || "0"}`));
  if (!total.isFinite()) return null;
  return daysTimeDuration(m[1] === "-" ? total.neg() : total);
}

/** Parses a years-and-months duration such as `P1Y2M` or `-P3M`. */
export function parseYearsMonthsDuration(text: string): FeelYearsMonthsDuration | null {
  const m = YEARS_MONTHS.exec(text);
  if (m === null || text.endsWith("P")) return null;
  const months = Number(m[2] ?? 0) * 12 + Number(m[3] ?? 0);
  if (!Number.isSafeInteger(months)) return null;
  return yearsMonthsDuration(m[1] === "-" ? -months : months);
}

/** Parses either duration kind; a form mixing years/months with days/time is refused. */
export function parseDuration(text: string): FeelDaysTimeDuration | FeelYearsMonthsDuration | null {
  return parseYearsMonthsDuration(text) ?? parseDaysTimeDuration(text);
}
