/**
 * Boxed contexts: entries evaluated in order, each seeing the ones before it
 * (and itself, so a function entry can recurse). The value is the final
 * result entry when there is one, else the context of all entries. Entry
 * values are converted to their declared types.
 *
 * @module
 */
import { FeelContext, type FeelType, type FeelValue } from "../../feel/mod.ts";
import { DmnCode } from "../diagnostic.ts";
import type { ContextExpression } from "../model.ts";
import { coerceToType } from "../types.ts";
import type { Compiler, Evaluator, RunScope, StaticScope } from "../_compile.ts";

interface Entry {
  readonly name: string | undefined;
  readonly type: FeelType | undefined;
  readonly run: Evaluator;
}

/** Compiles a boxed context. */
export function compileContext(c: Compiler, x: ContextExpression, scope: StaticScope): Evaluator {
  const entries: Entry[] = [];
  let inner = scope;
  const seen = new Set<string>();
  x.entries.forEach((e, i) => {
    const name = e.variable?.name;
    if (name === undefined && i !== x.entries.length - 1) {
      c.report(DmnCode.MALFORMED, "only the last context entry may lack a variable", x);
    }
    if (name !== undefined) {
      if (seen.has(name)) c.report(DmnCode.DUPLICATE, `context entry '${name}' appears twice`, x);
      seen.add(name);
      inner = inner.with(name);
    }
    entries.push({ name, type: c.type(e.variable?.typeRef, x), run: c.expression(e.value, inner) });
  });
  return (s) => {
    const values = new Map(s.values);
    const local: RunScope = { values, env: s.env };
    const out = new Map<string, FeelValue>();
    for (const e of entries) {
      const raw = e.run(local);
      if (e.name === undefined) return raw;
      const v = coerceToType(raw, e.type, s.env, `context entry '${e.name}'`);
      values.set(e.name, v);
      out.set(e.name, v);
    }
    return new FeelContext(out);
  };
}
