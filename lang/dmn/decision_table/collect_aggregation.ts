/**
 * COLLECT aggregations: SUM (`+`), COUNT (`#`), MIN (`<`) and MAX (`>`) over
 * the outputs of the matching rules, with FEEL's `sum`, `count`, `min` and
 * `max` semantics (so a non-number to SUM is null with a warning).
 *
 * @module
 */
import {
  builtins,
  callFunction,
  type EvalEnv,
  FeelDecimal,
  type FeelValue,
} from "../../feel/mod.ts";
import type { Aggregation } from "../model.ts";

const FUNCTION_OF: Readonly<Record<Exclude<Aggregation, "COUNT">, string>> = {
  SUM: "sum",
  MIN: "min",
  MAX: "max",
};

/** Aggregates the collected outputs; with no outputs COUNT is 0 and the others null. */
export function aggregate(aggregation: Aggregation, values: FeelValue[], env: EvalEnv): FeelValue {
  if (aggregation === "COUNT") return new FeelDecimal(values.length);
  if (values.length === 0) return null;
  const fn = builtins.get(FUNCTION_OF[aggregation])!;
  return callFunction(fn, { positional: [values] }, env);
}
