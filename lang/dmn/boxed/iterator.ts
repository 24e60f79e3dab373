/**
 * Boxed `for`, `some` and `every`: the body runs once per item of the `in`
 * value with the iterator variable bound. The domain is read with FEEL's own
 * iteration rules (a list's items, the integers or dates of a range), so a
 * boxed iterator and its FEEL spelling always agree.
 *
 * @module
 */
import { compile, type FeelValue, kindName } from "../../feel/mod.ts";
import type { IteratorExpression } from "../model.ts";
import type { Compiler, DmnEnv, Evaluator, StaticScope } from "../_compile.ts";

const DOMAIN = (() => {
  const c = compile("for item in domain return item");
  if (c.diagnostics !== undefined) throw new Error(c.diagnostics[0].message);
  return c.compiled;
})();

/** The items a boxed iterator runs over, or null with a warning. */
function domainOf(v: FeelValue, env: DmnEnv): FeelValue[] | null {
  if (Array.isArray(v)) return v;
  const r = DOMAIN.evaluate({ domain: v });
  if (r.diagnostics !== undefined || !Array.isArray(r.value)) {
    env.warn(`cannot iterate over ${kindName(v)}; a list or a range is needed`);
    return null;
  }
  return r.value;
}

/** Compiles a boxed for, some or every. */
export function compileIterator(
  c: Compiler,
  x: IteratorExpression,
  scope: StaticScope,
): Evaluator {
  const source = c.expression(x.in, scope);
  const body = c.expression(x.body, scope.with(x.variable));
  const name = x.variable;
  const kind = x.kind;
  return (s) => {
    const items = domainOf(source(s), s.env);
    if (items === null) return null;
    const results = items.map((item) => {
      const values = new Map(s.values);
      values.set(name, item);
      return body({ values, env: s.env });
    });
    if (kind === "for") return results;
    const invalid = results.find((r) => typeof r !== "boolean");
    if (invalid !== undefined) {
      s.env.warn(`'${kind}' needs boolean conditions, got ${kindName(invalid)}`);
      return null;
    }
    return kind === "some" ? results.includes(true) : results.every((r) => r === true);
  };
}
