/**
 * Boxed relations: a list of contexts, one per row, keyed by the column
 * names; cells are converted to their column's declared type.
 *
 * @module
 */
import { FeelContext, type FeelValue } from "../../feel/mod.ts";
import type { RelationExpression } from "../model.ts";
import { coerceToType } from "../types.ts";
import type { Compiler, Evaluator, StaticScope } from "../_compile.ts";

/** Compiles a boxed relation. */
export function compileRelation(c: Compiler, x: RelationExpression, scope: StaticScope): Evaluator {
  const columns = x.columns.map((col) => ({ name: col.name, type: c.type(col.typeRef, x) }));
  const rows = x.rows.map((row) => row.map((cell) => c.expression(cell, scope)));
  return (s) =>
    rows.map((row) => {
      const m = new Map<string, FeelValue>();
      columns.forEach((col, i) => {
        const cell = row[i];
        const v = cell === undefined ? null : cell(s);
        m.set(col.name, coerceToType(v, col.type, s.env, `relation column '${col.name}'`));
      });
      return new FeelContext(m);
    });
}
