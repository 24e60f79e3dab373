/**
 * `.srl`: a small Drools-inspired rule language whose conditions and action
 * arguments are FEEL. Usable on its own: it depends only on `lang/feel`.
 *
 * ```ts
 * import { evaluate, parseRuleset } from "./mod.ts";
 *
 * const parsed = parseRuleset(`
 * rule "amount-positive"
 * when payload.amount <= 0
 * then
 *   report("SUTRA.VALIDATE.AMOUNT", "payload.amount", "amount must be positive");
 * end`, { uri: "rules/fields.srl" });
 * if (parsed.diagnostics) throw new Error(parsed.diagnostics[0].message);
 *
 * const result = evaluate(parsed.ruleset, { payload: { amount: -5 } });
 * // result.issues[0].code === "SUTRA.VALIDATE.AMOUNT"
 * ```
 *
 * @module
 */
export { parseRuleset } from "./parser.ts";
export type { ParseRulesetOptions, ParseRulesetResult } from "./parser.ts";
export { evaluate } from "./evaluate.ts";
export type {
  EvaluateRulesetOptions,
  RuleClock,
  SrlEvaluation,
  SrlIssue,
  SrlRefusal,
  SrlResult,
} from "./evaluate.ts";
export type {
  ReportAction,
  Rule,
  RuleAction,
  RuleExpression,
  Ruleset,
  SetAction,
} from "./ruleset.ts";
export { SrlCode } from "./diagnostic.ts";
export type { Severity, SourceLocation, SrlDiagnostic } from "./diagnostic.ts";
