/**
 * TCK values to FEEL values, and the comparison of an actual result with
 * the expected one.
 *
 * Typed values follow their `xsi:type`; untyped text is read with the type
 * the model declares for the input or decision (a number, a boolean, a
 * temporal, a structure's components), and stays a string otherwise.
 * Numbers compare within 1e-8; lists item by item; contexts entry by entry
 * with the same set of names; temporals by kind and FEEL equality.
 *
 * @module
 */
import {
  builtins,
  callFunction,
  FeelContext,
  FeelDecimal,
  feelNumber,
  type FeelType,
  type FeelValue,
  formatFeel,
  kindName,
  structureOf,
  valueEquals,
} from "../../lang/feel/mod.ts";
import type { TckValue } from "./test_file.ts";

const TOLERANCE = new FeelDecimal("1e-8");

const quiet = { warn: () => {} };

function construct(fn: string, text: string): FeelValue {
  return callFunction(builtins.get(fn)!, { positional: [text.trim()] }, quiet);
}

const XSD_READERS: Readonly<Record<string, (text: string) => FeelValue>> = {
  decimal: (t) => feelNumber(t.trim()),
  double: (t) => feelNumber(t.trim()),
  float: (t) => feelNumber(t.trim()),
  integer: (t) => feelNumber(t.trim()),
  int: (t) => feelNumber(t.trim()),
  long: (t) => feelNumber(t.trim()),
  string: (t) => t,
  boolean: (t) => t.trim() === "true" ? true : t.trim() === "false" ? false : null,
  date: (t) => construct("date", t),
  dateTime: (t) => construct("date and time", t),
  time: (t) => construct("time", t),
  duration: (t) => construct("duration", t),
  dayTimeDuration: (t) => construct("duration", t),
  yearMonthDuration: (t) => construct("duration", t),
};

/** Untyped text read as `type` (a string when the type gives no better reading). */
function fromText(text: string, type: FeelType | undefined): FeelValue {
  const kind = type === undefined ? "Any" : structureOf(type).kind;
  switch (kind) {
    case "number":
      return XSD_READERS.decimal(text);
    case "boolean":
      return XSD_READERS.boolean(text);
    case "date":
      return XSD_READERS.date(text);
    case "date and time":
      return XSD_READERS.dateTime(text);
    case "time":
      return XSD_READERS.time(text);
    case "days and time duration":
    case "years and months duration":
      return XSD_READERS.duration(text);
    default:
      return text;
  }
}

/** The type of entry `name` of a context type, or of the items of a list type. */
function entryType(type: FeelType | undefined, name: string): FeelType | undefined {
  if (type === undefined) return undefined;
  const s = structureOf(type);
  if (s.kind === "context") return s.entries.get(name);
  if (s.kind === "list") return entryType(s.item, name);
  return undefined;
}

function itemType(type: FeelType | undefined): FeelType | undefined {
  if (type === undefined) return undefined;
  const s = structureOf(type);
  return s.kind === "list" ? s.item : type;
}

/** Converts a TCK value to FEEL, reading untyped text with `type`. */
export function toFeel(v: TckValue, type?: FeelType): FeelValue {
  switch (v.kind) {
    case "nil":
      return null;
    case "typed": {
      const read = XSD_READERS[v.type];
      return read === undefined ? v.text : read(v.text);
    }
    case "untyped":
      return fromText(v.text, type);
    case "components":
      return new FeelContext(
        new Map(v.components.map(([name, c]) => [name, toFeel(c, entryType(type, name))])),
      );
    case "list":
      return v.items.map((i) => toFeel(i, itemType(type)));
  }
}

/** Whether `actual` matches `expected` (see the module comment for the rules). */
export function same(actual: FeelValue, expected: FeelValue): boolean {
  if (expected === null || actual === null) return expected === actual;
  if (expected instanceof FeelDecimal) {
    return actual instanceof FeelDecimal && actual.minus(expected).abs().lte(TOLERANCE);
  }
  if (typeof expected !== "object") return actual === expected;
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length &&
      expected.every((e, i) => same(actual[i], e));
  }
  if (expected instanceof FeelContext) {
    if (!(actual instanceof FeelContext) || actual.entries.size !== expected.entries.size) {
      return false;
    }
    for (const [k, e] of expected.entries) {
      const a = actual.entries.get(k);
      if (a === undefined || !same(a, e)) return false;
    }
    return true;
  }
  return kindName(actual) === kindName(expected) && valueEquals(actual, expected, quiet) === true;
}

/** A value in FEEL syntax for reports. */
export function show(v: FeelValue): string {
  return formatFeel(v);
}
