/**
 * Construction and normalisation of temporal values: day numbers, seconds of
 * day, zone resolution, and the instant a zoned value denotes. Kept apart
 * from parsing, formatting and arithmetic so each of those can build on it.
 *
 * @module
 */
import type { Decimal } from "decimal.js";
import { civilFromDays, daysFromCivil, SECONDS_PER_DAY } from "./_temporal_calendar.ts";
import { offsetAtInstant, resolveLocal } from "./_temporal_zone.ts";
import {
  type FeelDate,
  feelDate,
  type FeelDateTime,
  feelDateTime,
  FeelDecimal,
  type FeelNumber,
  type FeelTime,
  feelTime,
  type FeelZone,
  NO_ZONE,
} from "./values.ts";

/** Largest offset magnitude accepted (±18:00, as in XML Schema and java.time). */
export const MAX_OFFSET_SECONDS = 18 * 3600;

/** Day number (days since 1970-01-01) of a date. */
export function dayNumber(d: FeelDate): number {
  return daysFromCivil(d.year, d.month, d.day);
}

/** The date of a day number. */
export function dateFromDays(days: number): FeelDate {
  const c = civilFromDays(days);
  return feelDate(c.year, c.month, c.day);
}

/** Builds a time; zone offsets only make sense together with a date, so a zone keeps just its id. */
export function makeTime(
  hour: number,
  minute: number,
  second: FeelNumber,
  zone: FeelZone,
): FeelTime {
  const z: FeelZone = zone.type === "zone" && zone.offset !== undefined
    ? { type: "zone", id: zone.id }
    : zone;
  return feelTime(hour, minute, second, z);
}

/** Seconds since midnight of a time's wall clock, fraction included. */
export function secondOfDay(t: FeelTime): Decimal {
  return t.second.plus(t.hour * 3600 + t.minute * 60);
}

/** A wall-clock time from seconds since midnight (0 ≤ seconds < 86400), zone kept as given. */
function wallTime(seconds: Decimal, zone: FeelZone): FeelTime {
  const whole = seconds.floor().toNumber();
  return feelTime(
    Math.floor(whole / 3600),
    Math.floor((whole % 3600) / 60),
    seconds.minus(whole - (whole % 60)),
    zone,
  );
}

/** Builds a time from seconds since midnight, wrapped into one day. */
export function timeFromSeconds(seconds: Decimal, zone: FeelZone): FeelTime {
  const wrapped = seconds.mod(SECONDS_PER_DAY);
  const s = wrapped.isNeg() ? wrapped.plus(SECONDS_PER_DAY) : wrapped;
  const t = wallTime(s, zone);
  return makeTime(t.hour, t.minute, t.second, zone);
}

/**
 * Builds a date-time. A zoned wall time is resolved against its zone's rules:
 * a time inside a spring-forward gap moves forward, and the resolved offset
 * is recorded. A recorded offset is kept when it is one of the two valid
 * offsets of an ambiguous (fall-back) wall time.
 */
export function makeDateTime(date: FeelDate, time: FeelTime): FeelDateTime {
  const zone = time.zone;
  if (zone.type !== "zone") return feelDateTime(date, time);
  const days = dayNumber(date);
  const whole = time.hour * 3600 + time.minute * 60 + Math.floor(time.second.toNumber());
  const r = resolveLocal(zone.id, days, whole);
  let offset = r.offset;
  if (zone.offset !== undefined && zone.offset !== offset && r.days === days) {
    // Only the later occurrence of a repeated hour has a different valid offset.
    const later = offsetAtInstant(zone.id, days, whole - zone.offset);
    if (later === zone.offset) offset = later;
  }
  const z: FeelZone = { type: "zone", id: zone.id, offset };
  if (r.days === days && r.secondOfDay === whole) {
    return feelDateTime(date, feelTime(time.hour, time.minute, time.second, z));
  }
  const frac = time.second.minus(Math.floor(time.second.toNumber()));
  return feelDateTime(
    dateFromDays(r.days),
    feelTime(
      Math.floor(r.secondOfDay / 3600),
      Math.floor((r.secondOfDay % 3600) / 60),
      frac.plus(r.secondOfDay % 60),
      z,
    ),
  );
}

/** Offset east of UTC in seconds, or null for a local value or a time with only a zone id. */
export function offsetOf(v: FeelTime | FeelDateTime): number | null {
  const zone = v.kind === "time" ? v.zone : v.time.zone;
  if (zone.type === "offset") return zone.seconds;
  if (zone.type === "zone" && zone.offset !== undefined) return zone.offset;
  return null;
}

/** Seconds from 1970-01-01T00:00:00 to a date-time's wall clock, ignoring its zone. */
export function localSeconds(dt: FeelDateTime): Decimal {
  const days = dayNumber(dt.date);
  const base = days * SECONDS_PER_DAY;
  const sod = secondOfDay(dt.time);
  return Number.isSafeInteger(base)
    ? sod.plus(base)
    : new FeelDecimal(days).times(SECONDS_PER_DAY).plus(sod);
}

/** Builds a date-time from seconds since the epoch of its wall clock. */
export function dateTimeFromLocalSeconds(seconds: Decimal, zone: FeelZone): FeelDateTime {
  const days = seconds.divToInt(SECONDS_PER_DAY).toNumber() - (seconds.isNeg() &&
      !seconds.mod(SECONDS_PER_DAY).isZero()
    ? 1
    : 0);
  const rest = seconds.minus(new FeelDecimal(days).times(SECONDS_PER_DAY));
  return feelDateTime(dateFromDays(days), wallTime(rest, zone));
}

/**
 * Builds a zoned date-time at a UTC instant (seconds since the epoch),
 * rendering the wall clock in the zone's offset at that instant.
 */
export function dateTimeAtInstant(utcSeconds: Decimal, zone: FeelZone): FeelDateTime {
  if (zone.type === "offset") {
    return dateTimeFromLocalSeconds(utcSeconds.plus(zone.seconds), zone);
  }
  if (zone.type === "none") return dateTimeFromLocalSeconds(utcSeconds, NO_ZONE);
  const whole = utcSeconds.floor();
  const days = whole.divToInt(SECONDS_PER_DAY).toNumber() -
    (whole.isNeg() && !whole.mod(SECONDS_PER_DAY).isZero() ? 1 : 0);
  const sod = whole.minus(new FeelDecimal(days).times(SECONDS_PER_DAY)).toNumber();
  const offset = offsetAtInstant(zone.id, days, sod);
  return dateTimeFromLocalSeconds(utcSeconds.plus(offset), { type: "zone", id: zone.id, offset });
}

/** The UTC instant (seconds since the epoch) of a date-time, or null when it is local. */
export function instantSeconds(dt: FeelDateTime): Decimal | null {
  const offset = offsetOf(dt);
  return offset === null ? null : localSeconds(dt).minus(offset);
}
