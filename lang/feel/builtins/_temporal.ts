/**
 * Date and time built-ins: `is`, `day of year`, `day of week`,
 * `month of year`, `week of year`, and the clock functions `now` and
 * `today`, which read `env.now` (and `env.zone`) and refuse to guess when no
 * clock is supplied.
 *
 * @module
 */
import { kindName, valueEquals } from "../semantics.ts";
import {
  dateTimeAtMillis,
  dayOfYear,
  type FeelTemporal,
  isoWeekOfYear,
  isValidZoneId,
  sameTemporal,
  weekdayOf,
} from "../temporal.ts";
import {
  type EvalEnv,
  type FeelDate,
  type FeelDateTime,
  FeelDecimal,
  type FeelValue,
} from "../values.ts";
import { builtin, describe, fail, param } from "./_define.ts";

const TEMPORAL_KINDS = new Set([
  "date",
  "time",
  "date and time",
  "days and time duration",
  "years and months duration",
]);
const QUIET: EvalEnv = { warn() {} };

/**
 * `is(value1, value2)`: identity in the semantic domain. Temporals must agree
 * in every field including how they are anchored (a zone is not the offset
 * it resolves to); other values must be of the same kind and equal.
 */
const is = builtin("is", [[param("value1"), param("value2")]], (args) => {
  const a = args[0] ?? null;
  const b = args[1] ?? null;
  if (a === null || b === null) return a === b;
  const ka = kindName(a);
  if (ka !== kindName(b)) return false;
  if (TEMPORAL_KINDS.has(ka)) return sameTemporal(a as FeelTemporal, b as FeelTemporal);
  return valueEquals(a, b, QUIET) === true;
});

/** The date of a date or date-time argument, or null with a warning. */
function dateArg(v: FeelValue | undefined, env: EvalEnv, fn: string): FeelDate | null {
  const k = describe(v);
  if (k === "date") return v as FeelDate;
  if (k === "date and time") return (v as FeelDateTime).date;
  return fail(env, fn, `expects a date or date and time, got ${k}`);
}

function dateFunction(name: string, f: (d: FeelDate) => FeelValue) {
  return builtin(name, [[param("date")]], (args, env) => {
    const d = dateArg(args[0], env, name);
    return d === null ? null : f(d);
  });
}

const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** The current date-time from the environment's clock, or null with a warning. */
function current(env: EvalEnv, fn: string): FeelDateTime | null {
  if (env.now === undefined) return fail(env, fn, "no clock is available in this evaluation");
  if (env.zone !== undefined && !isValidZoneId(env.zone)) {
    return fail(env, fn, `unknown time zone '${env.zone}'`);
  }
  return dateTimeAtMillis(env.now(), env.zone);
}

/** The date and time built-ins. */
export const temporalBuiltins = [
  is,
  dateFunction("day of year", (d) => new FeelDecimal(dayOfYear(d.year, d.month, d.day))),
  dateFunction("day of week", (d) => WEEKDAYS[weekdayOf(d) - 1]),
  dateFunction("month of year", (d) => MONTHS[d.month - 1]),
  dateFunction("week of year", (d) => new FeelDecimal(isoWeekOfYear(d.year, d.month, d.day))),
  builtin("now", [[]], (_args, env) => current(env, "now")),
  builtin("today", [[]], (_args, env) => current(env, "today")?.date ?? null),
];
