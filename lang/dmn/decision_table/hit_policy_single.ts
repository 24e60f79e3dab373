/**
 * Single-hit policies: UNIQUE (at most one rule may match), ANY (every
 * matching rule must give the same outputs), FIRST (the first match in rule
 * order) and PRIORITY (the match whose outputs rank highest in the output
 * values lists). A violation is null with a warning.
 *
 * @module
 */
import { type EvalEnv, type FeelValue, valueEquals } from "../../feel/mod.ts";
import type { HitPolicy } from "../model.ts";
import { byPriority, type OutputPriorities } from "./priority.ts";
import type { MatchedRule } from "./rules.ts";

/** The single-hit policy names. */
export const SINGLE_HIT: ReadonlySet<HitPolicy> = new Set(["UNIQUE", "ANY", "FIRST", "PRIORITY"]);

function sameOutputs(a: readonly FeelValue[], b: readonly FeelValue[], env: EvalEnv): boolean {
  return a.every((v, i) => valueEquals(v, b[i], env) === true);
}

/**
 * The rule a single-hit policy selects from the (non-empty) matches, or
 * undefined with a warning when the policy is violated.
 */
export function selectSingle(
  policy: HitPolicy,
  matches: readonly MatchedRule[],
  priorities: OutputPriorities,
  env: EvalEnv,
): MatchedRule | undefined {
  const rules = () => matches.map((m) => m.index + 1).join(", ");
  switch (policy) {
    case "UNIQUE":
      if (matches.length > 1) {
        env.warn(`hit policy UNIQUE: rules ${rules()} all match`);
        return undefined;
      }
      return matches[0];
    case "ANY":
      if (matches.some((m) => !sameOutputs(m.outputs, matches[0].outputs, env))) {
        env.warn(`hit policy ANY: matching rules ${rules()} give different outputs`);
        return undefined;
      }
      return matches[0];
    case "PRIORITY":
      return byPriority(matches, priorities, env)[0];
    default:
      return matches[0];
  }
}
