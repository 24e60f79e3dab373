/**
 * Boxed filters: the items of a list for which the match expression is
 * true. Inside the match, `item` is the current item and, when it is a
 * context, its entries are names too (as in a FEEL filter).
 *
 * @module
 */
import { FeelContext, type FeelValue } from "../../feel/mod.ts";
import type { FilterExpression } from "../model.ts";
import type { Compiler, Evaluator, StaticScope } from "../_compile.ts";

/** Compiles a boxed filter. */
export function compileFilter(c: Compiler, x: FilterExpression, scope: StaticScope): Evaluator {
  const list = c.expression(x.in, scope);
  const match = c.expression(x.match, scope.with("item"));
  return (s) => {
    const v = list(s);
    if (v === null) return null;
    const items = Array.isArray(v) ? v : [v];
    const out: FeelValue[] = [];
    for (const item of items) {
      const values = new Map(s.values);
      if (item instanceof FeelContext) { for (const [k, e] of item.entries) values.set(k, e); }
      values.set("item", item);
      if (match({ values, env: s.env }) === true) out.push(item);
    }
    return out;
  };
}
