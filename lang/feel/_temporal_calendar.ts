/**
 * Proleptic Gregorian calendar arithmetic on day numbers. FEEL years range
 * over ±999,999,999, far beyond what `Date` or `Temporal` accept, so dates
 * are converted to a count of days since 1970-01-01 (which stays well inside
 * the safe integer range) with closed-form formulas that hold for any year.
 *
 * @module
 */

/** Largest absolute year a FEEL date may have. */
export const MAX_YEAR = 999_999_999;

/** Days in one 400-year Gregorian cycle; the calendar repeats after it. */
export const DAYS_PER_ERA = 146_097;

/** Seconds in a day. */
export const SECONDS_PER_DAY = 86_400;

/** True for leap years of the proleptic Gregorian calendar (year 0 is a leap year). */
export function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Number of days in a month (1-based) of a year. */
export function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : MONTH_DAYS[month - 1];
}

/** True when year/month/day name a real calendar day within the FEEL year range. */
export function isValidDate(year: number, month: number, day: number): boolean {
  return Number.isInteger(year) && Number.isInteger(month) && Number.isInteger(day) &&
    Math.abs(year) <= MAX_YEAR && month >= 1 && month <= 12 && day >= 1 &&
    day <= daysInMonth(year, month);
}

/** Days from 1970-01-01 to the given civil date (negative before it). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * DAYS_PER_ERA + doe - 719_468;
}

/** The civil date of a day number, inverse of {@link daysFromCivil}. */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / DAYS_PER_ERA);
  const doe = z - era * DAYS_PER_ERA;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) -
      Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return { year, month, day };
}

/** ISO weekday of a day number: 1 = Monday … 7 = Sunday (1970-01-01 was a Thursday). */
export function isoWeekday(days: number): number {
  return ((((days + 3) % 7) + 7) % 7) + 1;
}

/** Day of the year, 1-based. */
export function dayOfYear(year: number, month: number, day: number): number {
  return daysFromCivil(year, month, day) - daysFromCivil(year, 1, 1) + 1;
}

/** ISO 8601 week number (weeks start on Monday; week 1 holds the year's first Thursday). */
export function isoWeekOfYear(year: number, month: number, day: number): number {
  const days = daysFromCivil(year, month, day);
  // The Thursday of this date's week decides which ISO year the week belongs to.
  const thursday = days - isoWeekday(days) + 4;
  const weekYear = civilFromDays(thursday).year;
  return Math.floor((thursday - daysFromCivil(weekYear, 1, 1)) / 7) + 1;
}

/**
 * Adds whole months to a date, clamping the day to the end of the target
 * month (January 31 + 1 month = February 28/29).
 */
export function addMonths(
  year: number,
  month: number,
  day: number,
  months: number,
): { year: number; month: number; day: number } {
  const total = year * 12 + (month - 1) + months;
  const y = Math.floor(total / 12);
  const m = total - y * 12 + 1;
  return { year: y, month: m, day: Math.min(day, daysInMonth(y, m)) };
}
