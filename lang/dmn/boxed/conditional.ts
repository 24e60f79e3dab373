/**
 * Boxed conditionals: `then` when the condition is true, `else` when it is
 * false or null, and null (with a warning) when it is not a boolean at all.
 *
 * @module
 */
import { kindName } from "../../feel/mod.ts";
import type { ConditionalExpression } from "../model.ts";
import type { Compiler, Evaluator, StaticScope } from "../_compile.ts";

/** Compiles a boxed conditional. */
export function compileConditional(
  c: Compiler,
  x: ConditionalExpression,
  scope: StaticScope,
): Evaluator {
  const cond = c.expression(x.if, scope);
  const then = c.expression(x.then, scope);
  const otherwise = c.expression(x.else, scope);
  return (s) => {
    const c = cond(s);
    if (c === true) return then(s);
    if (c === false || c === null) return otherwise(s);
    s.env.warn(`a conditional's condition gave ${kindName(c)} instead of a boolean`);
    return null;
  };
}
