/**
 * The Handlebars helpers templates get, one set per escaping family.
 *
 * - `json value` — the value as JSON (exact decimal digits, ISO temporals).
 * - `xml-escape value` — the value's text with `& < > " '` escaped.
 * - `decimal value scale` — a number with exactly `scale` fraction digits
 *   (half-even rounding), e.g. `{{decimal amount 2}}` → `12.50`.
 * - `eq ne lt le gt ge` — FEEL comparisons, for `{{#if (gt amount 1000)}}`.
 * - `and or not` — boolean combinators.
 * - `if` / `unless` — the built-ins, with a FEEL zero counting as false like
 *   a JS zero does.
 *
 * A helper's result is text *for its family*: `json` is finished JSON in a
 * JSON template but still gets XML-escaped in an XML template, and
 * `xml-escape` is finished markup only in an XML template.
 *
 * @module
 */
import {
  compile,
  type CompiledExpression,
  FeelContext,
  FeelDecimal,
  type FeelValue,
} from "../feel/mod.ts";
import type { Family } from "./content_type.ts";
import { jsonOf, textOf } from "./_feel_text.ts";
import { fromView, Leaf } from "./_view.ts";

/** A helper's failure, with the template position Handlebars gave the call. */
export class HelperError extends Error {
  /** @param line 1-based line of the helper call; @param column 1-based column. */
  constructor(message: string, readonly line?: number, readonly column?: number) {
    super(message);
  }
}

/** What Handlebars passes as a helper's last argument (the parts used here). */
interface HelperOptions {
  /** The helper's name as written. */
  readonly name: string;
  /** Where the call is (0-based columns). */
  readonly loc?: { readonly start: { readonly line: number; readonly column: number } };
}

/** A Handlebars helper. */
export type Helper = (this: unknown, ...args: unknown[]) => unknown;

/** The parts of a Handlebars environment the helpers need. */
export interface HelperHost {
  /** Marks text as already escaped. */
  readonly SafeString: new (text: string) => { toHTML(): string };
  /** The built-in helpers, to wrap `if` and `unless`. */
  readonly helpers: Readonly<Record<string, Helper>>;
}

const XML_ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

/** Escapes the five XML special characters. */
function xmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]);
}

/**
 * Escapes a value for insertion inside a JSON string literal; text already
 * marked safe (a `json` result) passes through.
 */
export function jsonEscape(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "object" && "toHTML" in value && typeof value.toHTML === "function") {
    return String(value.toHTML());
  }
  return JSON.stringify(String(value)).slice(1, -1);
}

function compiled(text: string): CompiledExpression {
  const c = compile(text);
  if (c.diagnostics !== undefined) {
    throw new Error(`built-in comparison '${text}' does not compile`);
  }
  return c.compiled;
}

const COMPARISONS: ReadonlyMap<string, CompiledExpression> = new Map([
  ["eq", compiled("a = b")],
  ["ne", compiled("a != b")],
  ["lt", compiled("a < b")],
  ["le", compiled("a <= b")],
  ["gt", compiled("a > b")],
  ["ge", compiled("a >= b")],
]);

/** Handlebars-style truth, on FEEL values: null, false, "", an empty list and zero are false. */
function truthy(value: unknown): boolean {
  if (value instanceof Leaf) return !(value.value instanceof FeelDecimal && value.value.isZero());
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "number") return value !== 0;
  return value !== null && value !== undefined && value !== false && value !== "";
}

function failure(options: HelperOptions, message: string): HelperError {
  const at = options.loc?.start;
  return new HelperError(
    `${options.name}: ${message}`,
    at?.line,
    at === undefined ? undefined : at.column + 1,
  );
}

/** Splits Handlebars' trailing options object from the positional arguments. */
function split(args: unknown[]): [unknown[], HelperOptions] {
  return [args.slice(0, -1), args[args.length - 1] as HelperOptions];
}

function arity(n: number, args: unknown[], options: HelperOptions): void {
  if (args.length !== n) {
    throw failure(options, `takes ${n} argument${n === 1 ? "" : "s"}, got ${args.length}`);
  }
}

function decimal(value: FeelValue, scale: FeelValue, options: HelperOptions): string {
  if (!(value instanceof FeelDecimal)) {
    throw failure(
      options,
      `needs a number, got ${value === null ? "null" : JSON.stringify(textOf(value))}`,
    );
  }
  if (!(scale instanceof FeelDecimal) || !scale.isInteger() || scale.lt(0) || scale.gt(100)) {
    throw failure(options, "the scale must be a whole number from 0 to 100");
  }
  return value.toFixed(scale.toNumber());
}

function compare(name: string): Helper {
  const expr = COMPARISONS.get(name)!;
  return (...all) => {
    const [args, options] = split(all);
    arity(2, args, options);
    const context = new FeelContext(new Map([["a", fromView(args[0])], ["b", fromView(args[1])]]));
    const r = expr.evaluate(context);
    // Incomparable values (FEEL null) are simply not in that relation.
    return r.value === true;
  };
}

/** The helpers for templates of one escaping family. */
export function helpersFor(family: Family, host: HelperHost): Record<string, Helper> {
  const safe = (text: string) => new host.SafeString(text);
  const builtinIf = host.helpers.if;
  const builtinUnless = host.helpers.unless;
  const helpers: Record<string, Helper> = {
    json(...all) {
      const [args, options] = split(all);
      arity(1, args, options);
      const text = jsonOf(fromView(args[0]));
      return family === "json" ? safe(text) : text;
    },
    "xml-escape"(...all) {
      const [args, options] = split(all);
      arity(1, args, options);
      const text = xmlEscape(textOf(fromView(args[0])));
      return family === "xml" ? safe(text) : text;
    },
    decimal(...all) {
      const [args, options] = split(all);
      arity(2, args, options);
      return decimal(fromView(args[0]), fromView(args[1]), options);
    },
    and(...all) {
      const [args] = split(all);
      return args.every(truthy);
    },
    or(...all) {
      const [args] = split(all);
      return args.some(truthy);
    },
    not(...all) {
      const [args, options] = split(all);
      arity(1, args, options);
      return !truthy(args[0]);
    },
    // With a wrong argument count the built-in reports its own error.
    if(...all) {
      return builtinIf.apply(this, all.length === 2 ? [truthy(all[0]), all[1]] : all);
    },
    unless(...all) {
      return builtinUnless.apply(this, all.length === 2 ? [truthy(all[0]), all[1]] : all);
    },
  };
  for (const name of COMPARISONS.keys()) helpers[name] = compare(name);
  return helpers;
}

/** Names of the helpers {@link helpersFor} provides (for Handlebars' known-helpers check). */
export const HELPER_NAMES: readonly string[] = [
  "json",
  "xml-escape",
  "decimal",
  "and",
  "or",
  "not",
  "if",
  "unless",
  ...COMPARISONS.keys(),
];
