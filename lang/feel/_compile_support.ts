/**
 * Run-time helpers the compiled code calls: iteration domains, list
 * indexing, unary-test matching and type resolution.
 *
 * @module
 */
import type { TypeNode } from "./ast.ts";
import { add, kindName, rangeContains, valueCompare, valueEquals } from "./semantics.ts";
import {
  daysTimeDuration,
  type EvalEnv,
  FeelDecimal,
  type FeelNumber,
  type FeelRange,
  type FeelType,
  type FeelValue,
} from "./values.ts";

/** More items than this in one `for` range is almost certainly a mistake; refuse it. */
const MAX_RANGE_ITEMS = 10_000_000;

const ONE_DAY = daysTimeDuration(new FeelDecimal(86400));

function isRange(v: FeelValue): v is FeelRange {
  return kindName(v) === "range";
}

/**
 * The values an iteration context `name in source` (or `name in source..to`)
 * runs over: a list's items, or the integers or dates of a range. Anything
 * else (a single value is not taken as a one-item list here) is null with a
 * warning.
 */
export function iterationValues(
  source: FeelValue,
  to: FeelValue | undefined,
  env: EvalEnv,
): readonly FeelValue[] | null {
  if (to !== undefined) return rangeValues(source, true, to, true, env);
  if (Array.isArray(source)) return source;
  if (isRange(source)) {
    if (source.op !== undefined || source.start === null || source.end === null) {
      env.warn("cannot iterate over an unbounded range");
      return null;
    }
    if ((valueCompare(source.start, source.end, env) ?? 0) > 0) {
      env.warn("cannot iterate over a range whose start is after its end");
      return null;
    }
    return rangeValues(source.start, source.startIncluded, source.end, source.endIncluded, env);
  }
  env.warn(`cannot iterate over ${kindName(source)}; a list or a range is needed`);
  return null;
}

function rangeValues(
  from: FeelValue,
  fromIncluded: boolean,
  to: FeelValue,
  toIncluded: boolean,
  env: EvalEnv,
): FeelValue[] | null {
  if (from instanceof FeelDecimal && to instanceof FeelDecimal) {
    if (!from.isInteger() || !to.isInteger()) {
      env.warn("a numeric range to iterate over needs integer bounds");
      return null;
    }
    const a = from.toNumber();
    const b = to.toNumber();
    if (Math.abs(b - a) > MAX_RANGE_ITEMS) {
      env.warn(`a range of more than ${MAX_RANGE_ITEMS} numbers is refused`);
      return null;
    }
    const step = a <= b ? 1 : -1;
    const out: FeelValue[] = [];
    for (let i = fromIncluded ? a : a + step; step > 0 ? i <= b : i >= b; i += step) {
      if (i === b && !toIncluded) break;
      out.push(new FeelDecimal(i));
    }
    return out;
  }
  if (kindName(from) === "date" && kindName(to) === "date") {
    const ascending = (valueCompare(from, to, env) ?? 0) <= 0;
    const step = ascending ? ONE_DAY : daysTimeDuration(new FeelDecimal(-86400));
    const out: FeelValue[] = [];
    let d = fromIncluded ? from : add(from, step, env);
    for (;;) {
      const c = valueCompare(d, to, env);
      if (c === null || (ascending ? c > 0 : c < 0) || (c === 0 && !toIncluded)) break;
      if (out.length >= MAX_RANGE_ITEMS) {
        env.warn(`a range of more than ${MAX_RANGE_ITEMS} dates is refused`);
        return null;
      }
      out.push(d);
      d = add(d, step, env);
    }
    return out;
  }
  env.warn(`cannot iterate from ${kindName(from)} to ${kindName(to)}`);
  return null;
}

/** `list[n]`: 1-based, negative counts from the end; null with a warning outside the list. */
export function indexInto(list: readonly FeelValue[], index: FeelNumber, env: EvalEnv): FeelValue {
  if (!index.isInteger()) {
    env.warn(`list index ${index} is not an integer`);
    return null;
  }
  const i = index.toNumber();
  if (i > 0 && i <= list.length) return list[i - 1];
  if (i < 0 && -i <= list.length) return list[list.length + i];
  env.warn(`list index ${i} is outside a list of ${list.length} item(s)`);
  return null;
}

/**
 * Whether `input` satisfies a positive unary test whose expression (not
 * mentioning `?`) evaluated to `test`: a range contains it, a list holds it
 * (or a matching range), a boolean test on a non-boolean input stands for
 * itself, anything else must equal it.
 */
export function matchesTest(input: FeelValue, test: FeelValue, env: EvalEnv): boolean | null {
  if (isRange(test)) return rangeContains(test, input, env);
  if (Array.isArray(test)) {
    if (Array.isArray(input) && valueEquals(input, test, env) === true) return true;
    for (const item of test) {
      const r = isRange(item) ? rangeContains(item, input, env) : valueEquals(input, item, env);
      if (r === true) return true;
    }
    return false;
  }
  if (typeof test === "boolean" && typeof input !== "boolean") return test;
  return valueEquals(input, test, env);
}

const SIMPLE_TYPES: ReadonlyMap<string, FeelType> = new Map<string, FeelType>([
  ["Any", { kind: "Any" }],
  ["Null", { kind: "Null" }],
  ["number", { kind: "number" }],
  ["string", { kind: "string" }],
  ["boolean", { kind: "boolean" }],
  ["date", { kind: "date" }],
  ["time", { kind: "time" }],
  ["date and time", { kind: "date and time" }],
  ["days and time duration", { kind: "days and time duration" }],
  ["years and months duration", { kind: "years and months duration" }],
  // DMN 1.1 spellings still found in models.
  ["dayTimeDuration", { kind: "days and time duration" }],
  ["yearMonthDuration", { kind: "years and months duration" }],
  ["dateTime", { kind: "date and time" }],
  ["list", { kind: "list", item: { kind: "Any" } }],
  ["range", { kind: "range", item: { kind: "Any" } }],
  ["context", { kind: "context", entries: new Map() }],
]);

/**
 * Turns a parsed type into a {@link FeelType}; `named` supplies types the
 * caller defines (DMN item definitions). Returns the first unknown name as a
 * string when the type cannot be resolved.
 */
export function resolveType(
  node: TypeNode,
  named: ReadonlyMap<string, FeelType> | undefined,
): FeelType | string {
  switch (node.kind) {
    case "NamedType":
      return named?.get(node.name) ?? SIMPLE_TYPES.get(node.name) ?? node.name;
    case "ListType":
    case "RangeType": {
      const item = resolveType(node.item, named);
      if (typeof item === "string") return item;
      return { kind: node.kind === "ListType" ? "list" : "range", item };
    }
    case "ContextType": {
      const entries = new Map<string, FeelType>();
      for (const e of node.entries) {
        const t = resolveType(e.type, named);
        if (typeof t === "string") return t;
        entries.set(e.name, t);
      }
      return { kind: "context", entries };
    }
    case "FunctionType": {
      const params: FeelType[] = [];
      for (const p of node.params) {
        const t = resolveType(p, named);
        if (typeof t === "string") return t;
        params.push(t);
      }
      const result = resolveType(node.result, named);
      if (typeof result === "string") return result;
      return { kind: "function", params, result };
    }
  }
}
