/**
 * Output priorities for the PRIORITY and OUTPUT ORDER hit policies: a rule's
 * outputs rank by the position of each value in its column's output values
 * list (earlier is higher), the first column deciding first.
 *
 * @module
 */
import { type EvalEnv, type FeelValue, valueEquals } from "../../feel/mod.ts";
import type { MatchedRule } from "./rules.ts";

/** The output values of each output column, in priority order (undefined when not given). */
export type OutputPriorities = readonly (readonly FeelValue[] | undefined)[];

/** The rank of `value` in `values`: its index, or past the end when it is not listed. */
function rank(value: FeelValue, values: readonly FeelValue[] | undefined, env: EvalEnv): number {
  if (values === undefined) return 0;
  const i = values.findIndex((v) => valueEquals(v, value, env) === true);
  return i < 0 ? values.length : i;
}

/** Compares two matched rules by priority: negative when `a` comes first. */
function comparePriority(
  a: MatchedRule,
  b: MatchedRule,
  priorities: OutputPriorities,
  env: EvalEnv,
): number {
  for (let i = 0; i < priorities.length; i++) {
    const d = rank(a.outputs[i], priorities[i], env) - rank(b.outputs[i], priorities[i], env);
    if (d !== 0) return d;
  }
  return 0;
}

/** Matched rules sorted by decreasing priority; equal priorities keep rule order. */
export function byPriority(
  rules: readonly MatchedRule[],
  priorities: OutputPriorities,
  env: EvalEnv,
): MatchedRule[] {
  return [...rules].sort((a, b) => comparePriority(a, b, priorities, env) || a.index - b.index);
}
