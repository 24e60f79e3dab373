/**
 * FEEL (DMN 1.5 Friendly Enough Expression Language) as a standalone library.
 *
 * ```ts
 * import { evaluate } from "./mod.ts";
 * const r = evaluate("amount > 100 and currency = \"EUR\"", { amount: 150, currency: "EUR" });
 * // r.value === true, r.warnings = []
 * ```
 *
 * Compile once and evaluate many times with {@link compile}; every function
 * here returns diagnostics instead of throwing.
 *
 * @module
 */
import {
  compile,
  type CompiledExpression,
  type CompileOptions,
  type EvaluateOptions,
  type EvaluateResult,
  type Refusal,
} from "./compile.ts";
import { type Diagnostic, errorDiagnostic, FeelCode } from "./diagnostic.ts";
import type { ParseOptions } from "./parser.ts";
import { kindName } from "./semantics.ts";
import type { InputContext } from "./_compile_frame.ts";

export { parse } from "./parser.ts";
/** Words that cannot name a variable on their own (`and`, `then`, `true`, …). */
export { RESERVED as RESERVED_WORDS } from "./_parse_names.ts";
export type { ParseMode, ParseOptions, ParseResult } from "./parser.ts";
export { compile, CompiledExpression } from "./compile.ts";
export type {
  CompileOptions,
  CompileResult,
  EvaluateOptions,
  EvaluateResult,
  Evaluation,
  ExternalResolver,
  Refusal,
} from "./compile.ts";
export type { InputContext } from "./_compile_frame.ts";
export { FeelCode } from "./diagnostic.ts";
export type { Diagnostic, Severity, SourcePosition } from "./diagnostic.ts";
export type * from "./ast.ts";
export { FeelContext, FeelDecimal, FeelFunction, feelNumber, feelRange } from "./values.ts";
export type {
  EvalEnv,
  FeelDate,
  FeelDateTime,
  FeelDaysTimeDuration,
  FeelNamedType,
  FeelNumber,
  FeelParam,
  FeelRange,
  FeelTime,
  FeelType,
  FeelValue,
  FeelYearsMonthsDuration,
  FeelZone,
  RangeOperator,
} from "./values.ts";
export {
  callFunction,
  formatFeel,
  fromJs,
  isInstanceOf,
  kindName,
  structureOf,
  toJs,
  typeName,
  typeOf,
  valueEquals,
} from "./semantics.ts";
export { builtins } from "./builtins/mod.ts";

/** Options for {@link evaluate}: how to compile text, and how to run it. */
export interface EvaluationOptions extends CompileOptions, EvaluateOptions {}

/**
 * Evaluates a FEEL expression (text, or a compiled expression) against a
 * context: a plain JS object (converted lazily) or a FEEL context.
 *
 * @example
 * ```ts
 * evaluate("sum(for x in items return x.price * x.qty)", { items: [{ price: 2.5, qty: 3 }] });
 * // { value: FeelDecimal(7.5), warnings: [] }
 * ```
 */
export function evaluate(
  expression: string | CompiledExpression,
  context?: InputContext,
  options: EvaluationOptions = {},
): EvaluateResult {
  const compiled = typeof expression === "string" ? compileFor(expression, options) : expression;
  if ("diagnostics" in compiled) return compiled;
  return compiled.evaluate(context, options);
}

/** The result of {@link evaluateBoolean}: true only when the expression gave boolean true. */
export type BooleanResult =
  | { readonly value: boolean; readonly warnings: string[]; readonly diagnostics?: undefined }
  | Refusal;

/**
 * Evaluates a condition (a gateway, a rule guard): the value is true only
 * when the expression yields boolean true; null, false and non-booleans are
 * false (the warnings say why).
 */
export function evaluateBoolean(
  expression: string | CompiledExpression,
  context?: InputContext,
  options: EvaluationOptions = {},
): BooleanResult {
  const r = evaluate(expression, context, options);
  if (r.diagnostics !== undefined) return r;
  if (typeof r.value !== "boolean" && r.value !== null) {
    r.warnings.push(`a condition gave ${kindName(r.value)} instead of a boolean`);
  }
  return { value: r.value === true, warnings: r.warnings };
}

/** Options for {@link unaryTest}. */
export interface UnaryTestOptions extends EvaluationOptions {
  /** Variables the tests may refer to besides `?`. */
  readonly context?: InputContext;
}

/** The result of {@link unaryTest}: whether `input` passes (null when undecidable). */
export type UnaryTestResult =
  | {
    readonly value: boolean | null;
    readonly warnings: string[];
    readonly diagnostics?: undefined;
  }
  | Refusal;

/**
 * Applies a unary-test list (a decision-table input entry such as
 * `< 10, [20..30]`, `not("a", "b")`, `-` or `? > limit`) to `input`.
 */
export function unaryTest(
  tests: string | CompiledExpression,
  input: unknown,
  options: UnaryTestOptions = {},
): UnaryTestResult {
  const compiled = typeof tests === "string"
    ? compileFor(tests, { ...options, mode: "unaryTests" })
    : tests;
  if ("diagnostics" in compiled) return compiled;
  if (compiled.mode !== "unaryTests") {
    return {
      diagnostics: [errorDiagnostic(
        FeelCode.PARSE,
        "unaryTest needs text compiled with mode 'unaryTests'",
      )],
    };
  }
  const r = compiled.evaluate(options.context, { ...options, input });
  if (r.diagnostics !== undefined) return r;
  return { value: typeof r.value === "boolean" ? r.value : null, warnings: r.warnings };
}

/** The result of {@link paths}. */
export type PathsResult =
  | { readonly paths: string[]; readonly diagnostics?: undefined }
  | { readonly paths?: undefined; readonly diagnostics: Diagnostic[] };

/**
 * The input-context paths an expression reads, without evaluating it, e.g.
 * `["fromAccount.balance", "payload.amount"]` for
 * `fromAccount.balance < payload.amount`. Names the expression binds itself
 * (iteration variables, parameters, context entries, filter items) and
 * called built-in functions are left out.
 */
export function paths(text: string, options: ParseOptions = {}): PathsResult {
  const c = compile(text, options);
  if (c.diagnostics !== undefined) return c;
  return { paths: [...c.compiled.paths] };
}

function compileFor(
  text: string,
  options: EvaluationOptions,
): CompiledExpression | { diagnostics: Diagnostic[] } {
  // Deterministic evaluation with a supplied clock may call now()/today().
  const deterministic = options.deterministic === true && options.now === undefined;
  const c = compile(text, { ...options, deterministic });
  return c.diagnostics !== undefined ? c : c.compiled;
}
