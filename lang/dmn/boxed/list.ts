/**
 * Boxed lists: one expression per item.
 *
 * @module
 */
import type { ListExpression } from "../model.ts";
import type { Compiler, Evaluator, StaticScope } from "../_compile.ts";

/** Compiles a boxed list. */
export function compileList(c: Compiler, x: ListExpression, scope: StaticScope): Evaluator {
  const items = x.items.map((i) => c.expression(i, scope));
  return (s) => items.map((i) => i(s));
}
