/**
 * What the hit policies work on: the rules that matched, with their
 * evaluated outputs, and the way a rule's outputs become the table's value
 * (the value itself for one output column, a context for several).
 *
 * @module
 */
import { FeelContext, type FeelValue } from "../../feel/mod.ts";

/** A rule whose input entries all matched, with its output entries evaluated. */
export interface MatchedRule {
  /** Position of the rule in the table (0-based). */
  readonly index: number;
  /** One value per output column. */
  readonly outputs: readonly FeelValue[];
}

/** The shape of a table's result. */
export interface TableShape {
  /** Output column names (the context keys when there are several columns). */
  readonly outputNames: readonly string[];
}

/** The value one rule contributes: its single output, or a context of all of them. */
export function ruleValue(shape: TableShape, outputs: readonly FeelValue[]): FeelValue {
  if (shape.outputNames.length === 1) return outputs[0];
  const m = new Map<string, FeelValue>();
  shape.outputNames.forEach((name, i) => m.set(name, outputs[i]));
  return new FeelContext(m);
}
