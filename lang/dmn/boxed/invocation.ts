/**
 * Boxed invocations: the callee (usually a business knowledge model's name)
 * is called with the bindings as named arguments; a binding without an
 * expression passes null.
 *
 * @module
 */
import { callFunction, FeelFunction, type FeelValue, kindName } from "../../feel/mod.ts";
import type { InvocationExpression } from "../model.ts";
import type { Compiler, Evaluator, StaticScope } from "../_compile.ts";

/** Compiles a boxed invocation. */
export function compileInvocation(
  c: Compiler,
  x: InvocationExpression,
  scope: StaticScope,
): Evaluator {
  const callee = c.expression(x.callee, scope);
  const label = x.callee.kind === "literal"
    ? `'${x.callee.text.trim()}'`
    : "the invoked expression";
  const bindings = x.bindings.map((b) => ({
    name: b.parameter.name,
    run: b.value === undefined ? undefined : c.expression(b.value, scope),
  }));
  return (s) => {
    const fn = callee(s);
    if (!(fn instanceof FeelFunction)) {
      s.env.warn(`${label} is ${kindName(fn)}, not a function`);
      return null;
    }
    const named = new Map<string, FeelValue>();
    for (const b of bindings) named.set(b.name, b.run === undefined ? null : b.run(s));
    return callFunction(fn, { named }, s.env);
  };
}
