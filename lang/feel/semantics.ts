/**
 * FEEL value semantics: equality and ordering, arithmetic, property access,
 * the type system (`instance of`, conformance), function invocation with
 * typed-parameter coercion, conversion to and from JS, and FEEL-syntax
 * rendering. Every operator returns null with a warning on `env` instead of
 * throwing; the common cases (two numbers, two strings, a context lookup)
 * are tested first and allocate nothing beyond their result.
 *
 * @module
 */
import { Decimal } from "decimal.js";
import {
  addMonthsToDate,
  addMonthsToDateTime,
  addSecondsToDate,
  addSecondsToDateTime,
  addSecondsToTime,
  compareDates,
  compareDateTimes,
  compareTimes,
  dateAtMidnightUtc,
  dateDifference,
  dateTimeAtMillis,
  dateTimeDifference,
  type FeelTemporal,
  formatTemporal,
  offsetOf,
  parseDate,
  parseDateTime,
  parseDuration,
  parseTime,
  timeDifference,
  weekdayOf,
} from "./temporal.ts";
import {
  daysTimeDuration,
  type EvalEnv,
  FeelContext,
  type FeelDate,
  type FeelDateTime,
  type FeelDaysTimeDuration,
  FeelDecimal,
  FeelFunction,
  type FeelNamedType,
  type FeelNumber,
  type FeelParam,
  type FeelRange,
  type FeelTime,
  type FeelType,
  type FeelValue,
  type FeelYearsMonthsDuration,
  isFeelRecord,
  yearsMonthsDuration,
} from "./values.ts";

// ---------------------------------------------------------------------------
// Kinds and warnings

/** The name of a value's kind, for messages (`number`, `list`, `date and time`, …). */
export function kindName(v: FeelValue | undefined): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "boolean";
  if (v instanceof Decimal) return "number";
  if (Array.isArray(v)) return "list";
  return v.kind;
}

function mismatch(op: string, a: FeelValue, b: FeelValue, env: EvalEnv): null {
  env.warn(`cannot apply '${op}' to ${kindName(a)} and ${kindName(b)}`);
  return null;
}

/** Returns a finite decimal, or null with a warning when it overflowed decimal128. */
function checked(d: Decimal, env: EvalEnv): FeelNumber | null {
  if (d.isFinite()) return d;
  env.warn(d.isNaN() ? "arithmetic result is not a number" : "number outside the decimal128 range");
  return null;
}

function isTemporalKind(k: string): boolean {
  return k === "date" || k === "time" || k === "date and time" ||
    k === "days and time duration" || k === "years and months duration";
}

// ---------------------------------------------------------------------------
// Equality and ordering

/** Orders strings by Unicode code point (JS `<` orders UTF-16 code units). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Surrogates stand for code points above U+FFFF: lift them over U+E000–U+FFFF.
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

function ternaryAll(results: Iterable<boolean | null>): boolean | null {
  let sawNull = false;
  for (const r of results) {
    if (r === false) return false;
    if (r === null) sawNull = true;
  }
  return sawNull ? null : true;
}

function listEquals(a: FeelValue[], b: FeelValue[], env: EvalEnv): boolean | null {
  if (a.length !== b.length) return false;
  let sawNull = false;
  for (let i = 0; i < a.length; i++) {
    const r = valueEquals(a[i], b[i], env);
    if (r === false) return false;
    if (r === null) sawNull = true;
  }
  return sawNull ? null : true;
}

function contextEquals(a: FeelContext, b: FeelContext, env: EvalEnv): boolean | null {
  if (a.entries.size !== b.entries.size) return false;
  for (const k of a.entries.keys()) if (!b.entries.has(k)) return false;
  return ternaryAll(
    Array.from(a.entries, ([k, v]) => valueEquals(v, b.entries.get(k)!, env)),
  );
}

function rangeEquals(a: FeelRange, b: FeelRange, env: EvalEnv): boolean | null {
  if (a.op !== b.op || a.startIncluded !== b.startIncluded || a.endIncluded !== b.endIncluded) {
    return false;
  }
  return ternaryAll([valueEquals(a.start, b.start, env), valueEquals(a.end, b.end, env)]);
}

function temporalEquals(a: FeelTemporal, b: FeelValue, env: EvalEnv): boolean | null {
  const bk = kindName(b);
  if (a.kind !== bk) {
    // Zero is the one duration both duration kinds share.
    if (
      (a.kind === "days and time duration" && bk === "years and months duration") ||
      (a.kind === "years and months duration" && bk === "days and time duration")
    ) {
      if (isZeroDuration(a) && isZeroDuration(b as FeelTemporal)) return true;
    }
    return mismatch("=", a, b, env);
  }
  return compareTemporals(a, b as FeelTemporal) === 0;
}

function isZeroDuration(d: FeelTemporal): boolean {
  return d.kind === "days and time duration"
    ? d.seconds.isZero()
    : d.kind === "years and months duration" && d.months === 0;
}

function compareTemporals(a: FeelTemporal, b: FeelTemporal): number {
  switch (a.kind) {
    case "date":
      return compareDates(a, b as FeelDate);
    case "date and time":
      return compareDateTimes(a, b as FeelDateTime);
    case "time":
      return compareTimes(a, b as FeelTime);
    case "days and time duration":
      return a.seconds.cmp((b as FeelDaysTimeDuration).seconds);
    case "years and months duration": {
      const m = (b as FeelYearsMonthsDuration).months;
      return a.months === m ? 0 : a.months < m ? -1 : 1;
    }
  }
}

/**
 * FEEL `=`: deep equality. `null = null` is true and null against a value is
 * false; values of different types are not comparable (null, with a
 * warning). Functions are equal only to themselves.
 */
export function valueEquals(a: FeelValue, b: FeelValue, env: EvalEnv): boolean | null {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (a instanceof Decimal) return b instanceof Decimal ? a.eq(b) : mismatch("=", a, b, env);
  if (typeof a === "string") return typeof b === "string" ? false : mismatch("=", a, b, env);
  if (typeof a === "boolean") return typeof b === "boolean" ? false : mismatch("=", a, b, env);
  if (Array.isArray(a)) return Array.isArray(b) ? listEquals(a, b, env) : mismatch("=", a, b, env);
  if (a instanceof FeelContext) {
    return b instanceof FeelContext ? contextEquals(a, b, env) : mismatch("=", a, b, env);
  }
  if (a instanceof FeelFunction) {
    return b instanceof FeelFunction ? false : mismatch("=", a, b, env);
  }
  if (a.kind === "range") {
    return kindName(b) === "range" ? rangeEquals(a, b as FeelRange, env) : mismatch("=", a, b, env);
  }
  return temporalEquals(a, b, env);
}

/**
 * FEEL ordering (`<`, `<=`, `>`, `>=`): negative, zero or positive for
 * numbers, strings (by code point), dates, times, date-times and either
 * duration kind compared with its own kind; null with a warning otherwise.
 */
export function valueCompare(a: FeelValue, b: FeelValue, env: EvalEnv): number | null {
  if (a instanceof Decimal) return b instanceof Decimal ? a.cmp(b) : mismatch("<", a, b, env);
  if (typeof a === "string") {
    return typeof b === "string" ? compareStrings(a, b) : mismatch("<", a, b, env);
  }
  const ak = kindName(a);
  if (!isTemporalKind(ak) || ak !== kindName(b)) return mismatch("<", a, b, env);
  return compareTemporals(a as FeelTemporal, b as FeelTemporal);
}

// ---------------------------------------------------------------------------
// Arithmetic

function dtSeconds(v: FeelValue): Decimal | null {
  return v !== null && typeof v === "object" && !Array.isArray(v) &&
      !(v instanceof Decimal) && v.kind === "days and time duration"
    ? v.seconds
    : null;
}

function ymMonths(v: FeelValue): number | null {
  return v !== null && typeof v === "object" && !Array.isArray(v) &&
      !(v instanceof Decimal) && v.kind === "years and months duration"
    ? v.months
    : null;
}

function outOfRange(env: EvalEnv): null {
  env.warn("date outside the year range ±999999999");
  return null;
}

/** temporal ± duration (sign = 1 or -1); null when `t` or `d` do not combine. */
function shiftTemporal(
  t: FeelValue,
  d: FeelValue,
  sign: number,
  env: EvalEnv,
): FeelValue | undefined {
  const secs = dtSeconds(d);
  const months = secs === null ? ymMonths(d) : null;
  if (secs === null && months === null) return undefined;
  switch (kindName(t)) {
    case "date and time": {
      const dt = t as FeelDateTime;
      const r = secs !== null
        ? addSecondsToDateTime(dt, sign < 0 ? secs.neg() : secs)
        : addMonthsToDateTime(dt, sign * months!);
      return r ?? outOfRange(env);
    }
    case "date": {
      const date = t as FeelDate;
      const r = secs !== null
        ? addSecondsToDate(date, sign < 0 ? secs.neg() : secs)
        : addMonthsToDate(date, sign * months!);
      return r ?? outOfRange(env);
    }
    case "time":
      return secs !== null
        ? addSecondsToTime(t as FeelTime, sign < 0 ? secs.neg() : secs)
        : undefined;
  }
  return undefined;
}

/** FEEL `+`: numbers, string concatenation, temporal + duration, duration + duration. */
export function add(a: FeelValue, b: FeelValue, env: EvalEnv): FeelValue {
  if (a instanceof Decimal) {
    return b instanceof Decimal ? checked(a.plus(b), env) : mismatch("+", a, b, env);
  }
  if (typeof a === "string") return typeof b === "string" ? a + b : mismatch("+", a, b, env);
  if (a === null || b === null) return mismatch("+", a, b, env);
  const as = dtSeconds(a);
  const bs = dtSeconds(b);
  if (as !== null && bs !== null) return daysTimeDuration(as.plus(bs));
  const am = ymMonths(a);
  const bm = ymMonths(b);
  if (am !== null && bm !== null) return yearsMonthsDuration(am + bm);
  const r = shiftTemporal(a, b, 1, env) ?? shiftTemporal(b, a, 1, env);
  return r === undefined ? mismatch("+", a, b, env) : r;
}

/**
 * FEEL `-`: numbers, temporal − duration, duration − duration, and the
 * difference of two dates, times or date-times (a days-and-time duration; a
 * date mixed with a date-time counts as midnight UTC).
 */
export function subtract(a: FeelValue, b: FeelValue, env: EvalEnv): FeelValue {
  if (a instanceof Decimal) {
    return b instanceof Decimal ? checked(a.minus(b), env) : mismatch("-", a, b, env);
  }
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") {
    return mismatch("-", a, b, env);
  }
  const as = dtSeconds(a);
  const bs = dtSeconds(b);
  if (as !== null && bs !== null) return daysTimeDuration(as.minus(bs));
  const am = ymMonths(a);
  const bm = ymMonths(b);
  if (am !== null && bm !== null) return yearsMonthsDuration(am - bm);
  const ak = kindName(a);
  const bk = kindName(b);
  if (ak === "date" && bk === "date") {
    return daysTimeDuration(dateDifference(a as FeelDate, b as FeelDate));
  }
  if ((ak === "date" || ak === "date and time") && (bk === "date" || bk === "date and time")) {
    const x = ak === "date" ? dateAtMidnightUtc(a as FeelDate) : a as FeelDateTime;
    const y = bk === "date" ? dateAtMidnightUtc(b as FeelDate) : b as FeelDateTime;
    const diff = dateTimeDifference(x, y);
    if (diff !== null) return daysTimeDuration(diff);
    env.warn("cannot subtract a local date and time from one with a zone or offset, or back");
    return null;
  }
  if (ak === "time" && bk === "time") {
    const diff = timeDifference(a as FeelTime, b as FeelTime);
    if (diff !== null) return daysTimeDuration(diff);
    env.warn("cannot subtract a local time from one with a zone or offset, or back");
    return null;
  }
  const r = shiftTemporal(a, b, -1, env);
  return r === undefined ? mismatch("-", a, b, env) : r;
}

/** Scales whole months by a number, truncating toward zero (P2M × 1.5 = P3M, P23M × 2.5 = P57M). */
function scaleMonths(months: number, factor: Decimal, env: EvalEnv): FeelValue {
  const r = new FeelDecimal(months).times(factor).trunc();
  if (!r.isFinite() || r.abs().gt(Number.MAX_SAFE_INTEGER)) {
    env.warn("years and months duration out of range");
    return null;
  }
  return yearsMonthsDuration(r.toNumber());
}

/** FEEL `*`: numbers, and a duration times a number (either order). */
export function multiply(a: FeelValue, b: FeelValue, env: EvalEnv): FeelValue {
  if (a instanceof Decimal) {
    if (b instanceof Decimal) return checked(a.times(b), env);
    const s = dtSeconds(b);
    if (s !== null) return daysTimeDuration(s.times(a));
    const m = ymMonths(b);
    return m !== null ? scaleMonths(m, a, env) : mismatch("*", a, b, env);
  }
  if (b instanceof Decimal) {
    const s = dtSeconds(a);
    if (s !== null) return daysTimeDuration(s.times(b));
    const m = ymMonths(a);
    if (m !== null) return scaleMonths(m, b, env);
  }
  return mismatch("*", a, b, env);
}

function divisionByZero(env: EvalEnv): null {
  env.warn("division by zero");
  return null;
}

/**
 * FEEL `/`: numbers, a duration divided by a number, and a duration divided
 * by a duration of the same kind (a number). Division by zero is null.
 */
export function divide(a: FeelValue, b: FeelValue, env: EvalEnv): FeelValue {
  if (b instanceof Decimal) {
    if (b.isZero()) return a === null ? mismatch("/", a, b, env) : divisionByZero(env);
    if (a instanceof Decimal) return checked(a.div(b), env);
    const s = dtSeconds(a);
    if (s !== null) return daysTimeDuration(s.div(b));
    const m = ymMonths(a);
    if (m !== null) return yearsMonthsDuration(new FeelDecimal(m).div(b).trunc().toNumber());
    return mismatch("/", a, b, env);
  }
  const as = dtSeconds(a);
  const bs = dtSeconds(b);
  if (as !== null && bs !== null) {
    return bs.isZero() ? divisionByZero(env) : checked(as.div(bs), env);
  }
  const am = ymMonths(a);
  const bm = ymMonths(b);
  if (am !== null && bm !== null) {
    return bm === 0 ? divisionByZero(env) : checked(new FeelDecimal(am).div(bm), env);
  }
  return mismatch("/", a, b, env);
}

const MAX_EXPONENT = 999_999_999;

/**
 * FEEL `**`: an integer exponent is computed exactly (then rounded to 34
 * digits); any other exponent through exp/ln at 34 digits. Results that are
 * not real numbers (negative base, fractional exponent) or overflow are null.
 */
export function power(a: FeelValue, b: FeelValue, env: EvalEnv): FeelValue {
  if (!(a instanceof Decimal) || !(b instanceof Decimal)) return mismatch("**", a, b, env);
  if (b.abs().gt(MAX_EXPONENT)) {
    env.warn("exponent outside -999999999..999999999");
    return null;
  }
  if (a.isZero() && b.isNeg()) return divisionByZero(env);
  return checked(a.pow(b), env);
}

/** FEEL unary `-`: numbers and durations. */
export function negate(a: FeelValue, env: EvalEnv): FeelValue {
  if (a instanceof Decimal) return a.neg();
  const s = dtSeconds(a);
  if (s !== null) return daysTimeDuration(s.neg());
  const m = ymMonths(a);
  if (m !== null) return yearsMonthsDuration(-m);
  env.warn(`cannot negate ${kindName(a)}`);
  return null;
}

// ---------------------------------------------------------------------------
// Properties

function noProperty(value: FeelValue, name: string, env: EvalEnv): null {
  env.warn(`${kindName(value)} has no property '${name}'`);
  return null;
}

function num(n: number): FeelNumber {
  return new FeelDecimal(n);
}

function dateProperty(d: FeelDate, name: string): FeelValue | undefined {
  switch (name) {
    case "year":
      return num(d.year);
    case "month":
      return num(d.month);
    case "day":
      return num(d.day);
    case "weekday":
      return num(weekdayOf(d));
  }
  return undefined;
}

function timeProperty(t: FeelTime, dt: FeelDateTime | null, name: string): FeelValue | undefined {
  switch (name) {
    case "hour":
      return num(t.hour);
    case "minute":
      return num(t.minute);
    case "second":
      return t.second;
    case "time offset": {
      const o = offsetOf(dt ?? t);
      return o === null ? null : daysTimeDuration(num(o));
    }
    case "timezone":
      return t.zone.type === "zone" ? t.zone.id : null;
  }
  return undefined;
}

function durationProperty(v: FeelValue, name: string): FeelValue | undefined {
  const s = dtSeconds(v);
  if (s !== null) {
    const whole = s.trunc();
    switch (name) {
      case "days":
        return whole.divToInt(86400);
      case "hours":
        return whole.mod(86400).divToInt(3600);
      case "minutes":
        return whole.mod(3600).divToInt(60);
      case "seconds":
        return s.mod(60);
    }
    return undefined;
  }
  const m = ymMonths(v)!;
  if (name === "years") return num(Math.trunc(m / 12));
  if (name === "months") return num(m % 12 || 0);
  return undefined;
}

function rangeProperty(r: FeelRange, name: string): FeelValue | undefined {
  switch (name) {
    case "start":
      return r.start;
    case "end":
      return r.end;
    case "start included":
      return r.startIncluded;
    case "end included":
      return r.endIncluded;
  }
  return undefined;
}

/**
 * Property access `value.name`: a context's entry, a temporal's or
 * duration's component, a range's bounds; applied to each item of a list.
 */
export function getProperty(value: FeelValue, name: string, env: EvalEnv): FeelValue {
  if (value instanceof FeelContext) {
    const v = value.entries.get(name);
    if (v !== undefined) return v;
    env.warn(`context has no entry '${name}'`);
    return null;
  }
  if (Array.isArray(value)) return value.map((item) => getProperty(item, name, env));
  if (value === null || typeof value !== "object" || value instanceof Decimal) {
    return noProperty(value, name, env);
  }
  let r: FeelValue | undefined;
  switch (value.kind) {
    case "date":
      r = dateProperty(value, name);
      break;
    case "date and time":
      r = dateProperty(value.date, name) ?? timeProperty(value.time, value, name);
      break;
    case "time":
      r = timeProperty(value, null, name);
      break;
    case "days and time duration":
    case "years and months duration":
      r = durationProperty(value, name);
      break;
    case "range":
      r = rangeProperty(value, name);
      break;
  }
  return r === undefined ? noProperty(value, name, env) : r;
}

// ---------------------------------------------------------------------------
// Types

const ANY: FeelType = { kind: "Any" };
const NULL_TYPE: FeelType = { kind: "Null" };
const SIMPLE_TYPES = new Map<string, FeelType>(
  [
    "number",
    "string",
    "boolean",
    "date",
    "time",
    "date and time",
    "days and time duration",
    "years and months duration",
  ].map((k) => [k, { kind: k } as FeelType]),
);

function commonType(values: readonly FeelValue[]): FeelType {
  let t: FeelType | undefined;
  for (const v of values) {
    if (v === null) continue;
    const vt = typeOf(v);
    if (t === undefined) t = vt;
    else if (!conformsTo(vt, t)) {
      if (conformsTo(t, vt)) t = vt;
      else return ANY;
    }
  }
  return t ?? ANY;
}

/** The most specific FEEL type of a value (`list<number>`, `context<a: string>`, …). */
export function typeOf(value: FeelValue): FeelType {
  if (value === null) return NULL_TYPE;
  const simple = SIMPLE_TYPES.get(kindName(value));
  if (simple !== undefined) return simple;
  if (Array.isArray(value)) return { kind: "list", item: commonType(value) };
  if (value instanceof FeelContext) {
    const entries = new Map<string, FeelType>();
    for (const [k, v] of value.entries) entries.set(k, typeOf(v));
    return { kind: "context", entries };
  }
  if (value instanceof FeelFunction) {
    const sig = value.signatures[0] ?? [];
    return {
      kind: "function",
      params: sig.map((p) => p.type ?? ANY),
      result: value.resultType ?? ANY,
    };
  }
  const r = value as FeelRange;
  return { kind: "range", item: commonType([r.start, r.end]) };
}

/** A type in FEEL syntax: `number`, `list<string>`, `context<a: number>`, `function<Any>->Any`. */
export function typeName(type: FeelType): string {
  switch (type.kind) {
    case "list":
    case "range":
      return `${type.kind}<${typeName(type.item)}>`;
    case "context":
      return `context<${
        Array.from(type.entries, ([k, t]) => `${formatName(k)}: ${typeName(t)}`).join(", ")
      }>`;
    case "function":
      return `function<${type.params.map(typeName).join(", ")}>->${typeName(type.result)}`;
    case "named":
      return type.name;
    default:
      return type.kind;
  }
}

/**
 * Type conformance (`sub` can stand where `sup` is expected): everything
 * conforms to Any, Null conforms to everything, lists and ranges are
 * covariant, a context type is satisfied by any context type with at least
 * its entries, and function types are contravariant in their parameters.
 * A named type stands for its structure.
 */
export function conformsTo(sub: FeelType, sup: FeelType): boolean {
  return conforms(sub, sup, new Map());
}

/**
 * `assumed` holds the pairs of named types being compared further up: two
 * recursive types meet themselves again there, and the comparison assumes
 * the pair conforms instead of expanding it forever.
 */
function conforms(
  sub: FeelType,
  sup: FeelType,
  assumed: Map<FeelType, Set<FeelType>>,
): boolean {
  if (sup.kind === "Any" || sub.kind === "Null" || sub === sup) return true;
  if (sub.kind === "named" || sup.kind === "named") {
    const seen = assumed.get(sub);
    if (seen?.has(sup)) return true;
    if (seen === undefined) assumed.set(sub, new Set([sup]));
    else seen.add(sup);
    return sub.kind === "named"
      ? conforms(sub.base, sup, assumed)
      : conforms(sub, (sup as FeelNamedType).base, assumed);
  }
  if (sub.kind !== sup.kind) return false;
  switch (sup.kind) {
    case "list":
    case "range":
      return conforms((sub as typeof sup).item, sup.item, assumed);
    case "context": {
      const se = (sub as typeof sup).entries;
      for (const [k, t] of sup.entries) {
        const st = se.get(k);
        if (st === undefined || !conforms(st, t, assumed)) return false;
      }
      return true;
    }
    case "function": {
      const sf = sub as typeof sup;
      return sf.params.length === sup.params.length &&
        sup.params.every((p, i) => conforms(p, sf.params[i], assumed)) &&
        conforms(sf.result, sup.result, assumed);
    }
    default:
      return true;
  }
}

function functionIsInstance(
  fn: FeelFunction,
  type: Extract<FeelType, { kind: "function" }>,
): boolean {
  if (fn.resultType !== undefined && !conformsTo(fn.resultType, type.result)) return false;
  return fn.signatures.some((sig) =>
    sig.length === type.params.length &&
    sig.every((p, i) => !p.variadic && conformsTo(type.params[i], p.type ?? ANY))
  );
}

/**
 * `value instance of type`. Null is an instance of Null only; items of a
 * list, entries of a context and bounds of a range may be null.
 */
export function isInstanceOf(value: FeelValue, type: FeelType): boolean {
  switch (type.kind) {
    case "Any":
      return value !== null;
    case "Null":
      return value === null;
    case "list":
      return Array.isArray(value) &&
        (type.item.kind === "Any" || value.every((v) => v === null || isInstanceOf(v, type.item)));
    case "context":
      if (!(value instanceof FeelContext)) return false;
      for (const [k, t] of type.entries) {
        const v = value.entries.get(k);
        if (v === undefined || (v !== null && !isInstanceOf(v, t))) return false;
      }
      return true;
    case "range": {
      if (kindName(value) !== "range") return false;
      const r = value as FeelRange;
      return (r.start === null || isInstanceOf(r.start, type.item)) &&
        (r.end === null || isInstanceOf(r.end, type.item));
    }
    case "function":
      return value instanceof FeelFunction && functionIsInstance(value, type);
    case "named":
      return isInstanceOf(value, type.base);
    default:
      return kindName(value) === type.kind;
  }
}

// ---------------------------------------------------------------------------
// Function invocation

/** Arguments of a call: in order, or by parameter name. */
export type CallArgs = { positional: FeelValue[] } | { named: Map<string, FeelValue> };

/**
 * Coerces an argument to a declared parameter type: a lone value becomes a
 * singleton list where a list is expected, a singleton list yields its item
 * where a non-list is expected, and a date becomes midnight UTC where a date
 * and time is expected. Returns undefined when the result still does not conform.
 */
function coerce(v: FeelValue, type: FeelType): FeelValue | undefined {
  if (v === null || type.kind === "Any") return v;
  let x: FeelValue = v;
  const kind = structureOf(type).kind;
  if (kind === "list") {
    if (!Array.isArray(x)) x = [x];
  } else if (Array.isArray(x) && x.length === 1) x = x[0];
  if (kind === "date and time" && kindName(x) === "date") x = dateAtMidnightUtc(x as FeelDate);
  return isInstanceOf(x, type) ? x : undefined;
}

/** The structural type behind any names (`tPerson` → `context<…>`). */
export function structureOf(type: FeelType): FeelType {
  let t = type;
  while (t.kind === "named") t = t.base;
  return t;
}

/**
 * Coerces the arguments of one signature in place; returns the name of the
 * first parameter whose argument does not conform, or undefined when all do.
 */
function coerceArgs(
  sig: readonly FeelParam[],
  args: (FeelValue | undefined)[],
): string | undefined {
  for (let i = 0; i < sig.length; i++) {
    const p = sig[i];
    const a = args[i];
    if (p.type === undefined || a === undefined) continue;
    const c = p.variadic ? coerceEach(a as FeelValue[], p.type) : coerce(a, p.type);
    if (c === undefined) {
      return `parameter '${p.name}' expects ${typeName(p.type)}, got ${kindName(a)}`;
    }
    args[i] = c;
  }
  return undefined;
}

function coerceEach(items: FeelValue[], type: FeelType): FeelValue[] | undefined {
  const out: FeelValue[] = [];
  for (const item of items) {
    const c = coerce(item, type);
    if (c === undefined) return undefined;
    out.push(c);
  }
  return out;
}

function fnLabel(fn: FeelFunction): string {
  return fn.name === undefined ? "function" : `'${fn.name}'`;
}

function accepts(sig: readonly FeelParam[], count: number): boolean {
  let required = 0;
  for (const p of sig) {
    // A variadic parameter takes at least one argument unless it is also optional.
    if (p.variadic) return count >= (p.optional ? required : required + 1);
    if (!p.optional) required++;
  }
  return count >= required && count <= sig.length;
}

function positionalArgs(sig: readonly FeelParam[], given: FeelValue[]): (FeelValue | undefined)[] {
  const out: (FeelValue | undefined)[] = [];
  for (let i = 0; i < sig.length; i++) {
    out.push(sig[i].variadic ? given.slice(i) : given[i]);
  }
  return out;
}

function namedArgs(
  sig: readonly FeelParam[],
  named: Map<string, FeelValue>,
): (FeelValue | undefined)[] | undefined {
  for (const k of named.keys()) if (!sig.some((p) => p.name === k)) return undefined;
  return sig.map((p) => {
    if (!named.has(p.name)) return p.optional ? undefined : p.variadic ? [] : null;
    const v = named.get(p.name)!;
    return p.variadic && !Array.isArray(v) ? [v] : v;
  });
}

/**
 * Invokes a function value. Positional arguments go to the first signature
 * whose arity fits and whose parameter types the arguments conform to
 * (after implicit conversions: singleton list ↔ item, date → date and time);
 * named arguments likewise to the first signature having every given name,
 * with parameters left out bound to null (optional ones stay absent). A call
 * no signature accepts is null with a warning.
 */
export function callFunction(fn: FeelFunction, args: CallArgs, env: EvalEnv): FeelValue {
  const sigs = fn.signatures;
  let reason: string | undefined;
  for (let i = 0; i < sigs.length; i++) {
    const sig = sigs[i];
    let ordered: (FeelValue | undefined)[] | undefined;
    if ("positional" in args) {
      if (accepts(sig, args.positional.length)) ordered = positionalArgs(sig, args.positional);
    } else ordered = namedArgs(sig, args.named);
    if (ordered === undefined) continue;
    const failure = coerceArgs(sig, ordered);
    if (failure === undefined) return fn.body(ordered, env, i);
    reason ??= failure;
  }
  if (reason !== undefined) env.warn(`${fnLabel(fn)}: ${reason}`);
  else if ("positional" in args) {
    env.warn(`${fnLabel(fn)} does not take ${args.positional.length} argument(s)`);
  } else env.warn(`${fnLabel(fn)} has no parameters named ${[...args.named.keys()].join(", ")}`);
  return null;
}

// ---------------------------------------------------------------------------
// Ranges

/**
 * `value in range`: the interval test, or equality / inequality for a range
 * written as `= x` / `!= x`. The side a unary comparison leaves open
 * (`< 10` has no start) always passes; a null endpoint of an interval
 * literal (`[null..10]`) is a value that cannot be compared, so the test is null.
 */
export function rangeContains(range: FeelRange, value: FeelValue, env: EvalEnv): boolean | null {
  if (value === null) return null;
  const op = range.op;
  if (op === "=" || op === "!=") {
    const eq = valueEquals(value, range.start, env);
    return eq === null ? null : op === "=" ? eq : !eq;
  }
  if (op !== "<" && op !== "<=") {
    const c = valueCompare(range.start, value, env);
    if (c === null) return null;
    if (range.startIncluded ? c > 0 : c >= 0) return false;
  }
  if (op !== ">" && op !== ">=") {
    const c = valueCompare(value, range.end, env);
    if (c === null) return null;
    if (range.endIncluded ? c > 0 : c >= 0) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// JS interop

function contextFromObject(x: object): FeelContext {
  const m = new Map<string, FeelValue>();
  for (const k of Object.keys(x)) m.set(k, fromJs((x as Record<string, unknown>)[k]));
  return new FeelContext(m);
}

/** Shared decimals for small integers: decimals are immutable, so one instance serves every use. */
const SMALL_INTEGERS: (FeelNumber | undefined)[] = [];
const SMALL_LIMIT = 1024;

function smallInteger(x: number): FeelNumber | undefined {
  if (!Number.isInteger(x) || x < -SMALL_LIMIT || x > SMALL_LIMIT) return undefined;
  const i = x + SMALL_LIMIT;
  return SMALL_INTEGERS[i] ??= new FeelDecimal(x + 0);
}

/**
 * Converts a JS value to FEEL: numbers and bigints to decimals (NaN and
 * infinities to null), arrays to lists, plain objects and Maps to contexts,
 * `Date` to a UTC date and time, undefined to null. FEEL values built by the
 * factories in values.ts pass through unchanged.
 */
export function fromJs(x: unknown): FeelValue {
  switch (typeof x) {
    case "string":
    case "boolean":
      return x;
    case "number":
      return smallInteger(x) ?? (Number.isFinite(x) ? new FeelDecimal(x) : null);
    case "bigint":
      return new FeelDecimal(x.toString());
    case "object":
      break;
    default:
      return null;
  }
  if (x === null) return null;
  if (Array.isArray(x)) return x.map(fromJs);
  const proto = Object.getPrototypeOf(x);
  if (proto === Object.prototype || proto === null) return contextFromObject(x);
  if (isFeelRecord(x)) return x as FeelValue;
  if (x instanceof Date) {
    const ms = x.getTime();
    return Number.isNaN(ms) ? null : dateTimeAtMillis(ms);
  }
  if (x instanceof Map) {
    const m = new Map<string, FeelValue>();
    for (const [k, v] of x) m.set(String(k), fromJs(v));
    return new FeelContext(m);
  }
  return contextFromObject(x);
}

function numberToJs(d: Decimal): number | string {
  if (d.isInteger()) {
    const n = d.toNumber();
    return Number.isSafeInteger(n) ? n + 0 : d.toString();
  }
  const text = d.toString();
  const n = Number(text);
  // A number printing as the decimal's own text round-trips; only the rest needs the decimal comparison.
  return String(n) === text || new FeelDecimal(n).eq(d) ? n : text;
}

/**
 * Converts a FEEL value to JS: numbers to JS numbers when they survive the
 * round trip (else their decimal text), temporals to their ISO-style text,
 * ranges to their FEEL text, contexts to plain objects; functions stay as
 * they are.
 */
export function toJs(v: FeelValue): unknown {
  if (v === null || typeof v !== "object") return v;
  if (v instanceof Decimal) return numberToJs(v);
  if (Array.isArray(v)) return v.map(toJs);
  if (v instanceof FeelContext) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of v.entries) {
      // Assigning "__proto__" would set the prototype instead of making an entry.
      if (k === "__proto__") {
        Object.defineProperty(o, k, {
          value: toJs(x),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else o[k] = toJs(x);
    }
    return o;
  }
  if (v instanceof FeelFunction) return v;
  if (v.kind === "range") return formatFeel(v);
  return formatTemporal(v);
}

// ---------------------------------------------------------------------------
// Rendering

const KEYWORDS = new Set([
  "true",
  "false",
  "null",
  "for",
  "in",
  "return",
  "if",
  "then",
  "else",
  "some",
  "every",
  "satisfies",
  "and",
  "or",
  "between",
  "instance",
  "of",
  "function",
  "external",
  "not",
]);
const SIMPLE_NAME = /^[\p{L}_?][\p{L}\p{N}_?]*$/u;

/** A context key as FEEL source: bare when it is a simple name, else a string literal. */
function formatName(k: string): string {
  return SIMPLE_NAME.test(k) && !KEYWORDS.has(k) ? k : quote(k);
}

/** A string as a FEEL string literal, escaping quotes, backslashes and control characters. */
export function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (c < 0x20 || (c >= 0x7f && c < 0xa0)) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return out + '"';
}

const TEMPORAL_CONSTRUCTOR: Record<string, string> = {
  "date": "date",
  "time": "time",
  "date and time": "date and time",
  "days and time duration": "duration",
  "years and months duration": "duration",
};

function formatRange(r: FeelRange): string {
  if (r.op !== undefined) {
    return `${r.op} ${formatFeel(r.op === "<" || r.op === "<=" ? r.end : r.start)}`;
  }
  return `${r.startIncluded ? "[" : "("}${formatFeel(r.start)}..${formatFeel(r.end)}${
    r.endIncluded ? "]" : ")"
  }`;
}

/**
 * Renders a value as FEEL source text, deterministically: `"text"` with
 * escapes, `date("2021-01-01")`, `duration("P1DT2H")`, `[1, 2]`,
 * `{a: 1, "b c": 2}`, `[1..2)`, `< 10`, `function(a, b)`.
 */
export function formatFeel(v: FeelValue): string {
  if (v === null) return "null";
  if (typeof v === "string") return quote(v);
  if (typeof v === "boolean") return String(v);
  if (v instanceof Decimal) return v.toString();
  if (Array.isArray(v)) return `[${v.map(formatFeel).join(", ")}]`;
  if (v instanceof FeelContext) {
    return `{${
      Array.from(v.entries, ([k, x]) => `${formatName(k)}: ${formatFeel(x)}`).join(", ")
    }}`;
  }
  if (v instanceof FeelFunction) {
    return `function(${(v.signatures[0] ?? []).map((p) => formatName(p.name)).join(", ")})`;
  }
  if (v.kind === "range") return formatRange(v);
  return `${TEMPORAL_CONSTRUCTOR[v.kind]}(${quote(formatTemporal(v))})`;
}

/**
 * The text `string()` gives: strings as they are, numbers in plain decimal
 * notation, temporals in their ISO-style form, anything else as FEEL source.
 */
export function toFeelString(v: FeelValue): string {
  if (typeof v === "string") return v;
  if (
    v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Decimal) &&
    isTemporalKind(v.kind)
  ) {
    return formatTemporal(v as FeelTemporal);
  }
  return formatFeel(v);
}

/**
 * Parses the text of an `@"…"` literal: a date, time, date and time, or
 * either duration kind. Null with a warning when the text is none of these.
 */
export function parseTemporalLiteral(text: string, env: EvalEnv): FeelValue {
  let v: FeelValue;
  if (text.startsWith("P") || text.startsWith("-P")) v = parseDuration(text);
  else if (/^\d\d:/.test(text)) v = parseTime(text);
  else if (text.includes("T")) v = parseDateTime(text);
  else v = parseDate(text);
  if (v === null) env.warn(`"${text}" is not a valid date, time, date and time or duration`);
  return v;
}
