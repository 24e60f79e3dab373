/**
 * Helpers for the built-in tests: call a built-in with JS arguments
 * (positionally or by name) and render the result as FEEL text.
 *
 * @module
 */
import { callFunction, formatFeel, fromJs, parseTemporalLiteral } from "../semantics.ts";
import type { EvalEnv, FeelValue } from "../values.ts";
import { builtins } from "./mod.ts";

/** An environment that records warnings (and optionally has a clock). */
export function testEnv(now?: number, zone?: string): EvalEnv & { warnings: string[] } {
  const warnings: string[] = [];
  const env: EvalEnv & { warnings: string[] } = { warnings, warn: (m) => warnings.push(m) };
  if (now !== undefined) env.now = () => now;
  if (zone !== undefined) env.zone = zone;
  return env;
}

/** A temporal value from `@"…"` literal text. */
export function at(text: string): FeelValue {
  const v = parseTemporalLiteral(text, testEnv());
  if (v === null) throw new Error(`bad temporal literal ${text}`);
  return v;
}

function builtin(name: string) {
  const fn = builtins.get(name);
  if (fn === undefined) throw new Error(`no built-in '${name}'`);
  return fn;
}

/** Calls a built-in positionally; JS arguments are converted with `fromJs`. */
export function call(name: string, ...args: unknown[]): FeelValue {
  return callFunction(builtin(name), { positional: args.map(fromJs) }, testEnv());
}

/** Calls a built-in by parameter name. */
export function callNamed(name: string, named: Record<string, unknown>): FeelValue {
  const m = new Map(Object.entries(named).map(([k, v]) => [k, fromJs(v)]));
  return callFunction(builtin(name), { named: m }, testEnv());
}

/** `call` rendered as FEEL text (`"text"`, `[1, 2]`, `null`, …). */
export function show(name: string, ...args: unknown[]): string {
  return formatFeel(call(name, ...args));
}

/** `callNamed` rendered as FEEL text. */
export function showNamed(name: string, named: Record<string, unknown>): string {
  return formatFeel(callNamed(name, named));
}
