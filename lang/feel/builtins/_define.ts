/**
 * Small helpers shared by the built-in function modules: declaring
 * signatures, common parameter types, and argument checks that return null
 * with a warning naming the function.
 *
 * @module
 */
import { Decimal } from "decimal.js";
import { kindName } from "../semantics.ts";
import {
  type EvalEnv,
  FeelFunction,
  type FeelNumber,
  type FeelParam,
  type FeelType,
  type FeelValue,
} from "../values.ts";

/** Parameter types used by built-in signatures (they drive implicit conversions). */
export const T = {
  any: { kind: "Any" },
  number: { kind: "number" },
  string: { kind: "string" },
  boolean: { kind: "boolean" },
  date: { kind: "date" },
  time: { kind: "time" },
  dateTime: { kind: "date and time" },
  list: { kind: "list", item: { kind: "Any" } },
} as const satisfies Record<string, FeelType>;

/** A required parameter. */
export function param(name: string, type?: FeelType): FeelParam {
  return type === undefined ? { name } : { name, type };
}

/** An optional parameter. */
export function optional(name: string, type?: FeelType): FeelParam {
  return type === undefined ? { name, optional: true } : { name, type, optional: true };
}

/**
 * A variadic parameter: receives the remaining arguments as a list and
 * needs at least one of them unless `optional`.
 */
export function variadic(name: string, type?: FeelType, optional = false): FeelParam {
  const p: FeelParam = type === undefined
    ? { name, variadic: true }
    : { name, type, variadic: true };
  return optional ? { ...p, optional: true } : p;
}

/** The arguments a built-in body receives. */
export type Args = readonly (FeelValue | undefined)[];

/** A built-in body. */
export type Body = (args: Args, env: EvalEnv, signature: number) => FeelValue;

/** Declares a built-in function. */
export function builtin(
  name: string,
  signatures: readonly (readonly FeelParam[])[],
  body: Body,
): FeelFunction {
  return new FeelFunction(signatures, body, name);
}

/** Reports why a built-in returned null. */
export function fail(env: EvalEnv, fn: string, reason: string): null {
  env.warn(`${fn}: ${reason}`);
  return null;
}

/** True for a FEEL number. */
export function isNum(v: FeelValue | undefined): v is FeelNumber {
  return v instanceof Decimal;
}

/** Describes a value's kind for warnings. */
export function describe(v: FeelValue | undefined): string {
  return kindName(v);
}

/**
 * The argument as a JS integer, truncating any fraction, or null (with a
 * warning) when it is not a number or too large to index with.
 */
export function intArg(
  v: FeelValue | undefined,
  env: EvalEnv,
  fn: string,
  name: string,
): number | null {
  if (!isNum(v)) return fail(env, fn, `${name} must be a number, got ${describe(v)}`);
  const n = v.trunc().toNumber();
  return Number.isSafeInteger(n) ? n : fail(env, fn, `${name} ${v.toString()} is out of range`);
}

/** The argument as a list, or null with a warning. */
export function listArg(
  v: FeelValue | undefined,
  env: EvalEnv,
  fn: string,
  name: string,
): FeelValue[] | null {
  return Array.isArray(v) ? v : fail(env, fn, `${name} must be a list, got ${describe(v)}`);
}
