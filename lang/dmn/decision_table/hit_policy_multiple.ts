/**
 * Multiple-hit policies: RULE ORDER (outputs of every match in rule order),
 * OUTPUT ORDER (sorted by output priority) and COLLECT (in rule order, or
 * aggregated with SUM, COUNT, MIN or MAX).
 *
 * @module
 */
import type { EvalEnv, FeelValue } from "../../feel/mod.ts";
import type { Aggregation, HitPolicy } from "../model.ts";
import { aggregate } from "./collect_aggregation.ts";
import { byPriority, type OutputPriorities } from "./priority.ts";
import { type MatchedRule, ruleValue, type TableShape } from "./rules.ts";

/** The value of a multiple-hit table from its matches. */
export function collectMultiple(
  policy: HitPolicy,
  aggregation: Aggregation | undefined,
  matches: readonly MatchedRule[],
  shape: TableShape,
  priorities: OutputPriorities,
  env: EvalEnv,
): FeelValue {
  const ordered = policy === "OUTPUT ORDER" ? byPriority(matches, priorities, env) : matches;
  const values = ordered.map((m) => ruleValue(shape, m.outputs));
  if (policy !== "COLLECT" || aggregation === undefined) return values;
  return aggregate(aggregation, values, env);
}
