/**
 * FEEL temporal semantics: arithmetic with durations, differences,
 * ordering, `is()` identity and the canonical text of dates, times,
 * date-times and durations. This is the door to the `_temporal_*` modules.
 *
 * Ordering and equality of times and date-times work at millisecond
 * precision, as the DMN TCK expects (`10:30:00.0001 = 10:30:00.0002`);
 * differences and arithmetic stay exact.
 *
 * @module
 */
import type { Decimal } from "decimal.js";
import {
  addMonths,
  daysFromCivil,
  isoWeekday,
  MAX_YEAR,
  SECONDS_PER_DAY,
} from "./_temporal_calendar.ts";
import {
  dateFromDays,
  dateTimeAtInstant,
  dateTimeFromLocalSeconds,
  dayNumber,
  instantSeconds,
  localSeconds,
  makeDateTime,
  makeTime,
  secondOfDay,
  timeFromSeconds,
} from "./_temporal_core.ts";
import {
  formatDate,
  formatDateTime,
  formatDaysTimeDuration,
  formatTime,
  formatYearsMonthsDuration,
} from "./_temporal_format.ts";
import { resolveLocal } from "./_temporal_zone.ts";
import {
  type FeelDate,
  type FeelDateTime,
  type FeelDaysTimeDuration,
  FeelDecimal,
  type FeelTime,
  type FeelYearsMonthsDuration,
  type FeelZone,
} from "./values.ts";

export {
  parseDate,
  parseDateTime,
  parseDaysTimeDuration,
  parseDuration,
  parseTime,
  parseYearsMonthsDuration,
} from "./_temporal_parse.ts";
export { formatOffset } from "./_temporal_format.ts";
export { isValidZoneId } from "./_temporal_zone.ts";
export {
  dayOfYear,
  daysInMonth,
  isoWeekday,
  isoWeekOfYear,
  isValidDate,
} from "./_temporal_calendar.ts";
export {
  dayNumber,
  makeDateTime,
  makeTime,
  MAX_OFFSET_SECONDS,
  offsetOf,
  secondOfDay,
} from "./_temporal_core.ts";

/** Any temporal value. */
export type FeelTemporal =
  | FeelDate
  | FeelTime
  | FeelDateTime
  | FeelDaysTimeDuration
  | FeelYearsMonthsDuration;

/** The canonical (`string()`) text of a temporal value. */
export function formatTemporal(v: FeelTemporal): string {
  switch (v.kind) {
    case "date":
      return formatDate(v);
    case "time":
      return formatTime(v);
    case "date and time":
      return formatDateTime(v);
    case "days and time duration":
      return formatDaysTimeDuration(v);
    case "years and months duration":
      return formatYearsMonthsDuration(v);
  }
}

const UTC: FeelZone = Object.freeze({ type: "offset", seconds: 0 });

/** A date as a date-time at midnight UTC, the conversion FEEL applies when the two are mixed. */
export function dateAtMidnightUtc(d: FeelDate): FeelDateTime {
  return makeDateTime(d, makeTime(0, 0, new FeelDecimal(0), UTC));
}

/** True when a date-time's year is inside FEEL's ±999,999,999 range. */
function inYearRange<T extends FeelDate | FeelDateTime>(v: T): T | null {
  const year = v.kind === "date" ? v.year : v.date.year;
  return Math.abs(year) <= MAX_YEAR ? v : null;
}

/**
 * date-time ± days-and-time duration. A fixed offset or local value moves its
 * wall clock; a zoned value moves along the time line and is re-rendered in
 * its zone, so crossing a DST change adjusts the offset. Null when the result
 * leaves the year range.
 */
export function addSecondsToDateTime(dt: FeelDateTime, seconds: Decimal): FeelDateTime | null {
  const zone = dt.time.zone;
  if (zone.type === "zone") {
    return inYearRange(dateTimeAtInstant(instantSeconds(dt)!.plus(seconds), zone));
  }
  return inYearRange(dateTimeFromLocalSeconds(localSeconds(dt).plus(seconds), zone));
}

/** date-time ± years-and-months duration, clamping the day to the month's end. */
export function addMonthsToDateTime(dt: FeelDateTime, months: number): FeelDateTime | null {
  const date = addMonthsToDate(dt.date, months);
  if (date === null) return null;
  const t = dt.time;
  return makeDateTime(date, makeTime(t.hour, t.minute, t.second, t.zone));
}

/** date ± years-and-months duration, clamping the day to the month's end. */
export function addMonthsToDate(d: FeelDate, months: number): FeelDate | null {
  const r = addMonths(d.year, d.month, d.day, months);
  return inYearRange(dateFromDays(daysFromCivil(r.year, r.month, r.day)));
}

/**
 * date ± days-and-time duration: the date is taken as midnight UTC, the
 * duration added, and the date part of the result kept.
 */
export function addSecondsToDate(d: FeelDate, seconds: Decimal): FeelDate | null {
  const days = seconds.div(SECONDS_PER_DAY).floor().toNumber();
  return inYearRange(dateFromDays(dayNumber(d) + days));
}

/** time ± days-and-time duration, wrapping around midnight and keeping the zone. */
export function addSecondsToTime(t: FeelTime, seconds: Decimal): FeelTime {
  return timeFromSeconds(secondOfDay(t).plus(seconds), t.zone);
}

/**
 * The exact seconds from `b` to `a` (a − b). Both must be local, or both
 * anchored (offset or zone); otherwise there is no common time line: null.
 */
export function dateTimeDifference(a: FeelDateTime, b: FeelDateTime): Decimal | null {
  const ia = instantSeconds(a);
  const ib = instantSeconds(b);
  if (ia !== null && ib !== null) return ia.minus(ib);
  if (ia === null && ib === null) return localSeconds(a).minus(localSeconds(b));
  return null;
}

/** Days between two dates as exact seconds (a − b). */
export function dateDifference(a: FeelDate, b: FeelDate): Decimal {
  return new FeelDecimal(dayNumber(a) - dayNumber(b)).times(SECONDS_PER_DAY);
}

/**
 * Offset a time is compared with: its own offset, or for a zone id the
 * zone's offset on 1970-01-01 (a time alone has no date to consult).
 */
function timeOffset(t: FeelTime): number | null {
  if (t.zone.type === "offset") return t.zone.seconds;
  if (t.zone.type === "zone") {
    return resolveLocal(t.zone.id, 0, t.hour * 3600 + t.minute * 60).offset;
  }
  return null;
}

/**
 * Seconds from `b` to `a` on the clock (a − b). Local times subtract
 * directly, as do two times in the same zone; otherwise both are moved to
 * UTC. Mixing a local time with an anchored one gives null.
 */
export function timeDifference(a: FeelTime, b: FeelTime): Decimal | null {
  const sa = secondOfDay(a);
  const sb = secondOfDay(b);
  if (a.zone.type === "none" && b.zone.type === "none") return sa.minus(sb);
  if (a.zone.type === "zone" && b.zone.type === "zone" && a.zone.id === b.zone.id) {
    return sa.minus(sb);
  }
  const oa = timeOffset(a);
  const ob = timeOffset(b);
  if (oa === null || ob === null) return null;
  return sa.minus(oa).minus(sb.minus(ob));
}

/** Orders two second counts at millisecond precision (anything finer is ignored). */
function compareMillis(a: Decimal, b: Decimal): number {
  return a.times(1000).floor().cmp(b.times(1000).floor());
}

/** Orders two dates. */
export function compareDates(a: FeelDate, b: FeelDate): number {
  if (a.year !== b.year) return a.year < b.year ? -1 : 1;
  if (a.month !== b.month) return a.month < b.month ? -1 : 1;
  return a.day === b.day ? 0 : a.day < b.day ? -1 : 1;
}

/**
 * Orders two date-times. Two anchored values compare as instants; when one
 * is local it is taken to share the other's offset, which amounts to
 * comparing wall clocks.
 */
export function compareDateTimes(a: FeelDateTime, b: FeelDateTime): number {
  const ia = instantSeconds(a);
  const ib = instantSeconds(b);
  return ia !== null && ib !== null
    ? compareMillis(ia, ib)
    : compareMillis(localSeconds(a), localSeconds(b));
}

/**
 * Orders two times of day (see {@link timeDifference}); a local time is
 * taken to share the other's offset, so the wall clocks are compared.
 */
export function compareTimes(a: FeelTime, b: FeelTime): number {
  const oa = timeOffset(a);
  const ob = timeOffset(b);
  const sameZoneId = a.zone.type === "zone" && b.zone.type === "zone" && a.zone.id === b.zone.id;
  if (oa === null || ob === null || sameZoneId) {
    return compareMillis(secondOfDay(a), secondOfDay(b));
  }
  return compareMillis(secondOfDay(a).minus(oa), secondOfDay(b).minus(ob));
}

function sameZone(a: FeelZone, b: FeelZone): boolean {
  if (a.type === "none") return b.type === "none";
  if (a.type === "offset") return b.type === "offset" && a.seconds === b.seconds;
  return b.type === "zone" && a.id === b.id && a.offset === b.offset;
}

/**
 * `is()`: same type and same fields, so an IANA zone differs from an offset
 * with the same value, and equal instants in different zones differ.
 */
export function sameTemporal(a: FeelTemporal, b: FeelTemporal): boolean {
  switch (a.kind) {
    case "date":
      return b.kind === "date" && compareDates(a, b) === 0;
    case "time":
      return b.kind === "time" && a.hour === b.hour && a.minute === b.minute &&
        a.second.eq(b.second) && sameZone(a.zone, b.zone);
    case "date and time":
      return b.kind === "date and time" && compareDates(a.date, b.date) === 0 &&
        sameTemporal(a.time, b.time);
    case "days and time duration":
      return b.kind === "days and time duration" && a.seconds.eq(b.seconds);
    case "years and months duration":
      return b.kind === "years and months duration" && a.months === b.months;
  }
}

/**
 * Whole months from one date (or date-time's date) to another, counting a
 * month only once its day of month is reached (time of day is ignored).
 */
export function monthsBetween(from: FeelDate, to: FeelDate): number {
  let months = (to.year - from.year) * 12 + (to.month - from.month);
  if (months > 0 && to.day < from.day) months--;
  else if (months < 0 && to.day > from.day) months++;
  return months;
}

/** ISO weekday (1 = Monday) of a date. */
export function weekdayOf(d: FeelDate): number {
  return isoWeekday(dayNumber(d));
}

/**
 * The date-time of an instant (epoch milliseconds) in an IANA zone, or at
 * UTC (`Z`) when no zone is given.
 */
export function dateTimeAtMillis(ms: number, zone?: string): FeelDateTime {
  const seconds = new FeelDecimal(ms).div(1000);
  return dateTimeAtInstant(seconds, zone === undefined ? UTC : { type: "zone", id: zone });
}
