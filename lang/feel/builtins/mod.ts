/**
 * The FEEL built-in function library of DMN 1.5, keyed by FEEL name. Each
 * function's signatures carry the parameter names of the specification, so
 * named invocation (`substring(string: "abc", start position: 2)`) works.
 *
 * @module
 */
import type { FeelFunction } from "../values.ts";
import { aggregateBuiltins } from "./_aggregate.ts";
import { booleanBuiltins } from "./_boolean.ts";
import { contextBuiltins } from "./_context.ts";
import { conversionBuiltins } from "./_conversion.ts";
import { listBuiltins } from "./_list.ts";
import { numericBuiltins } from "./_numeric.ts";
import { rangeBuiltins } from "./_range.ts";
import { rangeLiteralBuiltins } from "./_range_literal.ts";
import { stringBuiltins } from "./_string.ts";
import { temporalBuiltins } from "./_temporal.ts";

/** Every built-in function keyed by its FEEL name ("string length", "date and time", …). */
export const builtins: ReadonlyMap<string, FeelFunction> = new Map(
  [
    ...conversionBuiltins,
    ...booleanBuiltins,
    ...stringBuiltins,
    ...listBuiltins,
    ...aggregateBuiltins,
    ...numericBuiltins,
    ...temporalBuiltins,
    ...rangeBuiltins,
    ...rangeLiteralBuiltins,
    ...contextBuiltins,
  ].map((f) => [f.name!, f]),
);
