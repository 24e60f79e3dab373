/**
 * IANA time zone rules through the built-in `Temporal` API. Temporal only
 * covers years up to about ±270,000, so instants further out are moved by
 * whole 400-year cycles (after which the Gregorian calendar repeats) into its
 * range; zone rules there are the earliest or latest ones tzdb knows anyway.
 *
 * @module
 */
import { civilFromDays, DAYS_PER_ERA, SECONDS_PER_DAY } from "./_temporal_calendar.ts";

const validity = new Map<string, boolean>();
const SAFE_YEAR = 200_000;
const DAYS_PER_YEAR_APPROX = 365.2425;

/**
 * True when `id` names an IANA zone known to this runtime. Offset-style ids
 * (`+05:00`), which Temporal also accepts, are refused: FEEL writes those as
 * offsets, not zones.
 */
export function isValidZoneId(id: string): boolean {
  let ok = validity.get(id);
  if (ok === undefined) {
    ok = /^[A-Za-z]/.test(id);
    if (ok) {
      try {
        new Temporal.PlainDate(2000, 1, 1).toZonedDateTime(id);
      } catch {
        ok = false;
      }
    }
    validity.set(id, ok);
  }
  return ok;
}

/** How many whole eras to move a day number by so its year lands inside Temporal's range. */
function eraShift(days: number): number {
  const approxYear = 1970 + days / DAYS_PER_YEAR_APPROX;
  if (approxYear > SAFE_YEAR) return -Math.ceil((approxYear - SAFE_YEAR) / 400);
  if (approxYear < -SAFE_YEAR) return Math.ceil((-SAFE_YEAR - approxYear) / 400);
  return 0;
}

/** A wall-clock time resolved in a zone. */
export interface ZoneResolution {
  /** Offset east of UTC, in whole seconds. */
  readonly offset: number;
  /** The day number of the wall time, moved forward when it fell in a gap. */
  readonly days: number;
  /** Whole seconds of the day of the wall time, moved forward when it fell in a gap. */
  readonly secondOfDay: number;
}

/**
 * Resolves a local wall time (day number + whole seconds of day) in a zone:
 * a time in a spring-forward gap moves forward by the gap's length, and an
 * ambiguous time takes the earlier (pre-transition) offset.
 */
export function resolveLocal(id: string, days: number, secondOfDay: number): ZoneResolution {
  const shift = eraShift(days);
  const shiftedDays = days + shift * DAYS_PER_ERA;
  const c = civilFromDays(shiftedDays);
  const h = Math.floor(secondOfDay / 3600);
  const mi = Math.floor((secondOfDay % 3600) / 60);
  const s = secondOfDay % 60;
  const zdt = new Temporal.PlainDateTime(c.year, c.month, c.day, h, mi, s)
    .toZonedDateTime(id, { disambiguation: "compatible" });
  const offset = Math.round(zdt.offsetNanoseconds / 1e9);
  if (zdt.hour === h && zdt.minute === mi && zdt.second === s && zdt.day === c.day) {
    return { offset, days, secondOfDay };
  }
  // The wall time did not exist; Temporal moved it forward past the gap.
  const movedDays = days + (zdt.toPlainDate().since(new Temporal.PlainDate(c.year, c.month, c.day))
    .days);
  return { offset, days: movedDays, secondOfDay: zdt.hour * 3600 + zdt.minute * 60 + zdt.second };
}

/**
 * The zone's offset (seconds east of UTC) at an instant given as a UTC day
 * number and whole seconds of that day.
 */
export function offsetAtInstant(id: string, utcDays: number, secondOfDay: number): number {
  const shift = eraShift(utcDays);
  const ms = ((utcDays + shift * DAYS_PER_ERA) * SECONDS_PER_DAY + secondOfDay) * 1000;
  const zdt = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(id);
  return Math.round(zdt.offsetNanoseconds / 1e9);
}
