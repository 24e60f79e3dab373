/**
 * Numeric built-ins: rounding to a scale (`decimal`, `floor`, `ceiling`,
 * `round up`/`down`/`half up`/`half down`), `abs`, `modulo`, `sqrt`, `log`,
 * `exp`, `odd`, `even`.
 *
 * @module
 */
import { Decimal } from "decimal.js";
import { negate } from "../semantics.ts";
import { type EvalEnv, FeelDecimal, type FeelValue } from "../values.ts";
import { type Args, builtin, describe, fail, isNum, param, T } from "./_define.ts";

/** Scales FEEL accepts: decimal128's quantum exponents, negated. */
const MIN_SCALE = -6111;
const MAX_SCALE = 6176;
/** Significant digits of a FEEL number. */
const PRECISION = 34;

/**
 * Rounds `n` to `scale` decimal places (negative: to tens, hundreds, …).
 * When the rounding unit lies more than 34 digits above the number's
 * leading digit, no digit of a 34-digit result can be kept meaningfully and
 * the number is returned unchanged (this is what the DMN TCK expects for
 * the extreme scales).
 */
function roundTo(n: Decimal, scale: number, mode: Decimal.Rounding): Decimal {
  if (scale >= 0) return n.toDecimalPlaces(scale, mode);
  if (-scale - n.e > PRECISION) return n;
  const unit = new FeelDecimal(10).pow(-scale);
  return n.div(unit).toDecimalPlaces(0, mode).times(unit);
}

/** Reads a scale argument; `truncate` accepts a fractional scale by dropping the fraction. */
function scaleArg(
  v: FeelValue | undefined,
  env: EvalEnv,
  fn: string,
  truncate: boolean,
): number | null {
  if (!isNum(v)) return fail(env, fn, `scale must be a number, got ${describe(v)}`);
  if (!truncate && !v.isInteger()) return fail(env, fn, "scale must be an integer");
  const s = (v.isInteger() ? v : v.trunc()).toNumber();
  if (s < MIN_SCALE || s > MAX_SCALE) {
    return fail(env, fn, `scale must be within ${MIN_SCALE}..${MAX_SCALE}`);
  }
  return s;
}

function rounding(
  name: string,
  mode: Decimal.Rounding,
  scaleOptional: boolean,
  truncateScale = false,
) {
  const signatures = scaleOptional
    ? [[param("n", T.number)], [param("n", T.number), param("scale", T.number)]]
    : [[param("n", T.number), param("scale", T.number)]];
  return builtin(name, signatures, (args: Args, env, sig) => {
    const n = args[0];
    if (!isNum(n)) return fail(env, name, `n must be a number, got ${describe(n)}`);
    const hasScale = !scaleOptional || sig === 1;
    const scale = hasScale ? scaleArg(args[1], env, name, truncateScale) : 0;
    return scale === null ? null : roundTo(n, scale, mode);
  });
}

function numberFunction(name: string, f: (n: Decimal, env: EvalEnv) => FeelValue) {
  return builtin(name, [[param("number", T.number)]], (args, env) => {
    const n = args[0];
    return isNum(n) ? f(n, env) : fail(env, name, `expects a number, got ${describe(n)}`);
  });
}

const abs = builtin("abs", [[param("n")]], (args, env) => {
  const n = args[0];
  if (isNum(n)) return n.abs();
  const k = describe(n);
  if (k === "days and time duration" || k === "years and months duration") {
    const neg = n as { seconds?: Decimal; months?: number };
    const negative = neg.seconds !== undefined ? neg.seconds.isNeg() : neg.months! < 0;
    return negative ? negate(n!, env) : n!;
  }
  return fail(env, "abs", `expects a number or duration, got ${k}`);
});

const modulo = builtin(
  "modulo",
  [[param("dividend", T.number), param("divisor", T.number)]],
  (args, env) => {
    const [a, b] = args;
    if (!isNum(a) || !isNum(b)) return fail(env, "modulo", "dividend and divisor must be numbers");
    if (b.isZero()) return fail(env, "modulo", "division by zero");
    // Truncated remainder, then moved to the divisor's sign (floored modulo).
    const r = a.mod(b);
    return !r.isZero() && r.isNeg() !== b.isNeg() ? r.plus(b) : r;
  },
);

function integerTest(name: string, wantOdd: boolean) {
  return numberFunction(name, (n, env) => {
    if (!n.isInteger()) return fail(env, name, `${n.toString()} is not an integer`);
    return n.mod(2).isZero() !== wantOdd;
  });
}

/** The numeric built-ins. */
export const numericBuiltins = [
  rounding("decimal", Decimal.ROUND_HALF_EVEN, false, true),
  rounding("floor", Decimal.ROUND_FLOOR, true),
  rounding("ceiling", Decimal.ROUND_CEIL, true),
  rounding("round up", Decimal.ROUND_UP, false),
  rounding("round down", Decimal.ROUND_DOWN, false),
  rounding("round half up", Decimal.ROUND_HALF_UP, false),
  rounding("round half down", Decimal.ROUND_HALF_DOWN, false),
  abs,
  modulo,
  numberFunction("sqrt", (n, env) => (n.isNeg() ? fail(env, "sqrt", "negative number") : n.sqrt())),
  numberFunction(
    "log",
    (n, env) => (n.lte(0) ? fail(env, "log", "number must be positive") : n.ln()),
  ),
  numberFunction("exp", (n, env) => {
    const r = n.exp();
    return r.isFinite() ? r : fail(env, "exp", "result outside the decimal128 range");
  }),
  integerTest("odd", true),
  integerTest("even", false),
];
