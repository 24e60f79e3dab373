/**
 * Boxed filters: the items of a list for which the match expression is
 * true. Inside the match, `item` is the current item and, when it is a
 * context, its entries are names too (as in a FEEL filter).
 *
 * The boxed filter is stricter than FEEL's `list[condition]`, which simply
 * skips every item whose condition is not true: a match that gives an item
 * something other than a boolean or null (a string, say) is an error in the
 * model, so the whole filter is null, with a warning, rather than a list
 * that silently lacks the item (DMN 1.5's filter boxed expression; OMG DMN
 * TCK `compliance-level-3/1151-boxed-filter`, cases 004 and 005). A null
 * match skips its item, as in FEEL.
 *
 * @module
 */
import { FeelContext, type FeelValue, kindName } from "../../feel/mod.ts";
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
    for (const [i, item] of items.entries()) {
      const values = new Map(s.values);
      if (item instanceof FeelContext) { for (const [k, e] of item.entries) values.set(k, e); }
      values.set("item", item);
      const kept = match({ values, env: s.env });
      if (kept === true) out.push(item);
      else if (kept !== false && kept !== null) {
        s.env.warn(
          `a filter's match gave ${kindName(kept)} for item ${i + 1} instead of a boolean`,
        );
        return null;
      }
    }
    return out;
  };
}
