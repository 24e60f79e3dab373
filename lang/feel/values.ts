/**
 * The FEEL value model shared by the evaluator and the built-in functions.
 *
 * Values are plain JS where that is unambiguous (null, booleans, strings,
 * arrays for lists) and small immutable records otherwise. Build temporals,
 * durations and ranges through the factory functions below: they return class
 * instances, which lets `fromJs` tell a FEEL value from an arbitrary JS object
 * that merely happens to have a `kind` field.
 *
 * @module
 */
import { Decimal } from "decimal.js";

/**
 * Decimal constructor configured as IEEE 754 decimal128: 34 significant
 * digits, HALF_EVEN rounding, exponents limited to decimal128's range (a
 * result beyond it becomes ±Infinity, which every operator turns into null
 * with a warning). Plain notation is used for exponents within ±34 so
 * `string()` of ordinary numbers never shows an exponent.
 */
export const FeelDecimal: typeof Decimal = Decimal.clone({
  precision: 34,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -34,
  toExpPos: 34,
  minE: -6143,
  maxE: 6144,
});

/** A FEEL number: always a decimal.js instance created by {@link FeelDecimal}. */
export type FeelNumber = Decimal;

/** The FEEL `date` type (years may range over ±999,999,999). */
export interface FeelDate {
  readonly kind: "date";
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

/**
 * How a time or date-time is anchored: none (local), a fixed offset, or an IANA
 * zone. A zoned date-time may carry the offset it resolved to (`offset`,
 * seconds east of UTC), which tells the two occurrences of an ambiguous wall
 * time apart; when absent the zone's rules decide (earlier offset on overlap).
 */
export type FeelZone =
  | { readonly type: "none" }
  | { readonly type: "offset"; readonly seconds: number }
  | { readonly type: "zone"; readonly id: string; readonly offset?: number };

/** The FEEL `time` type. */
export interface FeelTime {
  readonly kind: "time";
  readonly hour: number;
  readonly minute: number;
  /** Seconds including the fractional part, kept exact. */
  readonly second: FeelNumber;
  readonly zone: FeelZone;
}

/** The FEEL `date and time` type. */
export interface FeelDateTime {
  readonly kind: "date and time";
  readonly date: FeelDate;
  readonly time: FeelTime;
}

/** The FEEL `days and time duration` type, kept as exact seconds. */
export interface FeelDaysTimeDuration {
  readonly kind: "days and time duration";
  readonly seconds: FeelNumber;
}

/** The FEEL `years and months duration` type, kept as total months. */
export interface FeelYearsMonthsDuration {
  readonly kind: "years and months duration";
  readonly months: number;
}

/** A FEEL context: insertion-ordered entries. */
export class FeelContext {
  readonly kind = "context";
  constructor(readonly entries: Map<string, FeelValue> = new Map()) {}
}

/**
 * The unary comparison a range was written as (`< 10`, `= 10`, `!= 10`, …).
 * Such a range is not equal to the interval literal with the same endpoints,
 * and `=`/`!=` ranges test equality/inequality rather than an interval.
 */
export type RangeOperator = "<" | "<=" | ">" | ">=" | "=" | "!=";

/** A FEEL range; an absent endpoint (null) means unbounded on that side. */
export interface FeelRange {
  readonly kind: "range";
  readonly start: FeelValue;
  readonly startIncluded: boolean;
  readonly end: FeelValue;
  readonly endIncluded: boolean;
  /** Set when the range came from a unary comparison rather than `[a..b]`. */
  readonly op?: RangeOperator;
}

/** One formal parameter of a FEEL function. */
export interface FeelParam {
  readonly name: string;
  /** Declared type: arguments are coerced (singleton lists, date → date and time) and checked. */
  readonly type?: FeelType;
  /** May be left out; the body then sees `undefined`. */
  readonly optional?: boolean;
  /** Must be last; the body receives every remaining argument as one list. */
  readonly variadic?: boolean;
}

/**
 * Services a function body or an operator may need while evaluating:
 * a warning sink (each null gets a reason) and, when supplied, a clock.
 */
export interface EvalEnv {
  warn(message: string): void;
  /** Current instant in epoch milliseconds; absent ⇒ now()/today() return null with a warning. */
  now?: () => number;
  /** IANA zone used by now()/today(); defaults to UTC. */
  zone?: string;
}

/** A FEEL function value: built-in or user-defined, with one or more signatures. */
export class FeelFunction {
  readonly kind = "function";
  constructor(
    /** Each signature is an ordered parameter list; named invocation picks the one whose names match. */
    readonly signatures: readonly (readonly FeelParam[])[],
    /**
     * Called with arguments ordered as `signatures[signatureIndex]`; missing
     * optionals are undefined and a variadic parameter receives a list.
     */
    readonly body: (
      args: readonly (FeelValue | undefined)[],
      env: EvalEnv,
      signatureIndex: number,
    ) => FeelValue,
    readonly name?: string,
    /** Declared result type, checked by `instance of function<…>->T`; absent means unknown. */
    readonly resultType?: FeelType,
  ) {}
}

/** Any FEEL value. Lists are plain arrays; strings are JS strings. */
export type FeelValue =
  | null
  | boolean
  | string
  | FeelNumber
  | FeelDate
  | FeelTime
  | FeelDateTime
  | FeelDaysTimeDuration
  | FeelYearsMonthsDuration
  | FeelValue[]
  | FeelContext
  | FeelRange
  | FeelFunction;

/** A FEEL type as used by `instance of` and typed parameters. */
export type FeelType =
  | { readonly kind: "Any" }
  | { readonly kind: "Null" }
  | {
    readonly kind:
      | "number"
      | "string"
      | "boolean"
      | "date"
      | "time"
      | "date and time"
      | "days and time duration"
      | "years and months duration";
  }
  | { readonly kind: "list"; readonly item: FeelType }
  | { readonly kind: "range"; readonly item: FeelType }
  | {
    readonly kind: "context";
    readonly entries: ReadonlyMap<string, FeelType>;
  }
  | {
    readonly kind: "function";
    readonly params: readonly FeelType[];
    readonly result: FeelType;
  }
  | FeelNamedType;

/**
 * A type declared outside FEEL (a DMN item definition): a name for a base
 * structure. `instance of` and conformance look at the structure only (a
 * DMN item definition's allowed values are not part of type conformance).
 * The base may refer back to this object, so recursive definitions are
 * expressible; rendering stops at the name instead of expanding it forever.
 */
export interface FeelNamedType {
  readonly kind: "named";
  /** The declared name, used in messages. */
  readonly name: string;
  /** The structure the name stands for. */
  readonly base: FeelType;
}

/** The zone of a local (unanchored) time or date-time. */
export const NO_ZONE: FeelZone = Object.freeze({ type: "none" });

class DateValue implements FeelDate {
  readonly kind = "date";
  constructor(readonly year: number, readonly month: number, readonly day: number) {}
}

class TimeValue implements FeelTime {
  readonly kind = "time";
  constructor(
    readonly hour: number,
    readonly minute: number,
    readonly second: FeelNumber,
    readonly zone: FeelZone,
  ) {}
}

class DateTimeValue implements FeelDateTime {
  readonly kind = "date and time";
  constructor(readonly date: FeelDate, readonly time: FeelTime) {}
}

class DaysTimeValue implements FeelDaysTimeDuration {
  readonly kind = "days and time duration";
  constructor(readonly seconds: FeelNumber) {}
}

class YearsMonthsValue implements FeelYearsMonthsDuration {
  readonly kind = "years and months duration";
  constructor(readonly months: number) {}
}

class RangeValue implements FeelRange {
  readonly kind = "range";
  constructor(
    readonly start: FeelValue,
    readonly startIncluded: boolean,
    readonly end: FeelValue,
    readonly endIncluded: boolean,
    readonly op?: RangeOperator,
  ) {}
}

/** Builds a date; the caller has validated the fields. */
export function feelDate(year: number, month: number, day: number): FeelDate {
  return new DateValue(year, month, day);
}

/** Builds a time; the caller has validated the fields. */
export function feelTime(
  hour: number,
  minute: number,
  second: FeelNumber,
  zone: FeelZone = NO_ZONE,
): FeelTime {
  return new TimeValue(hour, minute, second, zone);
}

/** Builds a date and time from its date and time parts. */
export function feelDateTime(date: FeelDate, time: FeelTime): FeelDateTime {
  return new DateTimeValue(date, time);
}

/** Builds a days and time duration of the given (exact, signed) seconds. */
export function daysTimeDuration(seconds: FeelNumber): FeelDaysTimeDuration {
  return new DaysTimeValue(seconds);
}

/** Builds a years and months duration of the given signed whole months. */
export function yearsMonthsDuration(months: number): FeelYearsMonthsDuration {
  return new YearsMonthsValue(months === 0 ? 0 : months);
}

/**
 * Builds a range. Null endpoints mean unbounded; `op` records the unary
 * comparison a range was written as (see {@link RangeOperator}).
 */
export function feelRange(
  start: FeelValue,
  startIncluded: boolean,
  end: FeelValue,
  endIncluded: boolean,
  op?: RangeOperator,
): FeelRange {
  return new RangeValue(start, startIncluded, end, endIncluded, op);
}

/** True when `v` is a value built by one of this module's factories (or a context/function). */
export function isFeelRecord(v: object): boolean {
  return v instanceof DateValue || v instanceof TimeValue || v instanceof DateTimeValue ||
    v instanceof DaysTimeValue || v instanceof YearsMonthsValue || v instanceof RangeValue ||
    v instanceof FeelContext || v instanceof FeelFunction || v instanceof Decimal;
}

/** Type guard for FEEL numbers. */
export function isNumber(v: FeelValue | undefined): v is FeelNumber {
  return v instanceof Decimal;
}

const MAX_LITERAL_DIGITS = 34;
const NUMBER_SYNTAX = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Parses a FEEL number literal (`12`, `-1.5`, `.5`, `1.23e4`) or converts a JS
 * number, rounding to 34 significant digits. Returns null for text that is not
 * a number and for values outside decimal128's range.
 */
export function feelNumber(x: string | number): FeelNumber | null {
  if (typeof x === "string" && !NUMBER_SYNTAX.test(x)) return null;
  let d: Decimal;
  try {
    d = new FeelDecimal(x);
  } catch {
    return null;
  }
  if (!d.isFinite()) return null;
  // The constructor keeps every digit it is given; only long inputs can exceed 34 digits.
  if (typeof x === "string" && x.length > MAX_LITERAL_DIGITS) d = d.toSignificantDigits();
  return d.isFinite() ? d : null;
}
