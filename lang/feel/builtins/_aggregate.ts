/**
 * Numeric aggregates over a list or an argument list: `sum`, `mean`,
 * `product`, `median`, `stddev`, `mode`. Every item must be a number.
 *
 * @module
 */
import type { Decimal } from "decimal.js";
import { type EvalEnv, FeelDecimal, type FeelNumber, type FeelValue } from "../values.ts";
import { builtin, describe, fail, isNum, listArg, param, T, variadic } from "./_define.ts";

/** The list's items as numbers, or null with a warning. */
function numbers(v: FeelValue | undefined, env: EvalEnv, fn: string): FeelNumber[] | null {
  const list = listArg(v, env, fn, "list");
  if (list === null) return null;
  for (const x of list) if (!isNum(x)) return fail(env, fn, `item ${describe(x)} is not a number`);
  return list as FeelNumber[];
}

function finite(d: Decimal, env: EvalEnv, fn: string): FeelNumber | null {
  return d.isFinite() ? d : fail(env, fn, "result outside the decimal128 range");
}

function aggregate(
  name: string,
  variadicName: string,
  f: (xs: FeelNumber[], env: EvalEnv) => FeelValue,
) {
  return builtin(name, [[param("list", T.list)], [variadic(variadicName)]], (args, env) => {
    const xs = numbers(args[0], env, name);
    return xs === null ? null : f(xs, env);
  });
}

function sumOf(xs: FeelNumber[]): Decimal {
  let total: Decimal = new FeelDecimal(0);
  for (const x of xs) total = total.plus(x);
  return total;
}

function sorted(xs: FeelNumber[]): FeelNumber[] {
  return xs.slice().sort((a, b) => a.cmp(b));
}

/** The aggregate built-ins. */
export const aggregateBuiltins = [
  aggregate(
    "sum",
    "n",
    (xs, env) =>
      xs.length === 0 ? fail(env, "sum", "the list is empty") : finite(sumOf(xs), env, "sum"),
  ),
  aggregate(
    "mean",
    "n",
    (xs, env) =>
      xs.length === 0
        ? fail(env, "mean", "the list is empty")
        : finite(sumOf(xs).div(xs.length), env, "mean"),
  ),
  aggregate("product", "n", (xs, env) => {
    if (xs.length === 0) return fail(env, "product", "the list is empty");
    let p: Decimal = new FeelDecimal(1);
    for (const x of xs) p = p.times(x);
    return finite(p, env, "product");
  }),
  aggregate("median", "n", (xs, env) => {
    if (xs.length === 0) return fail(env, "median", "the list is empty");
    const s = sorted(xs);
    const mid = s.length >> 1;
    return s.length % 2 === 1 ? s[mid] : s[mid - 1].plus(s[mid]).div(2);
  }),
  aggregate("stddev", "n", (xs, env) => {
    if (xs.length < 2) return fail(env, "stddev", "needs at least two numbers");
    const mean = sumOf(xs).div(xs.length);
    let squares: Decimal = new FeelDecimal(0);
    for (const x of xs) squares = squares.plus(x.minus(mean).pow(2));
    return finite(squares.div(xs.length - 1).sqrt(), env, "stddev");
  }),
  aggregate("mode", "n", (xs) => {
    const counts = new Map<string, { value: FeelNumber; n: number }>();
    let best = 0;
    for (const x of xs) {
      const key = x.toString();
      const entry = counts.get(key) ?? { value: x, n: 0 };
      entry.n++;
      counts.set(key, entry);
      if (entry.n > best) best = entry.n;
    }
    return sorted([...counts.values()].filter((e) => e.n === best).map((e) => e.value));
  }),
];
