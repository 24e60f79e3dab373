/**
 * Static validation of a read model: runs every rule and returns every
 * finding at once, each with its code and position. The order of rules
 * matters in one place only: expressions compile first, because the path
 * and transient-variable rules read the compiled paths.
 *
 * @module
 */
import type { Diagnostic } from "../core/diagnostic.ts";
import type { CompiledExpression } from "../../lang/feel/mod.ts";
import type { SourceText } from "./_source.ts";
import { collectExpressionSites, type ExpressionSite } from "./expression_sites.ts";
import type { Expression } from "./model.ts";
import type { ModelIndex } from "./model_index.ts";
import { RuleContext } from "./rules/context.ts";
import { checkCoverage } from "./rules/coverage.ts";
import { checkEvents } from "./rules/events.ts";
import { checkExpressions } from "./rules/expressions.ts";
import { checkGateways } from "./rules/gateways.ts";
import { checkImplementations } from "./rules/implementation.ts";
import { checkQUsage } from "./rules/q_usage.ts";
import { checkReferences } from "./rules/references.ts";
import { checkRetries } from "./rules/retry.ts";
import { checkTimers } from "./rules/timers.ts";
import { checkTransientReads } from "./rules/transient.ts";
import { checkVariables } from "./rules/variables.ts";
import type { ShapeProvider } from "./shape.ts";

/** Options for {@link validateModel}. */
export interface ValidateOptions {
  /** URI put on every diagnostic. */
  readonly uri: string;
  /** Payload and schema shapes for path checks. */
  readonly shapes?: ShapeProvider;
}

/** What validation found, and the compiled expressions the planner reuses. */
export interface ValidationResult {
  readonly diagnostics: readonly Diagnostic[];
  readonly sites: readonly ExpressionSite[];
  readonly compiled: ReadonlyMap<Expression, CompiledExpression>;
}

const RULES: readonly ((ctx: RuleContext) => void)[] = [
  checkReferences,
  checkEvents,
  checkTimers,
  checkGateways,
  checkQUsage,
  checkRetries,
  checkImplementations,
  checkCoverage,
  checkExpressions,
  checkVariables,
  checkTransientReads,
];

/** Runs every rule over the model. */
export function validateModel(
  index: ModelIndex,
  source: SourceText,
  options: ValidateOptions,
): ValidationResult {
  const sites = collectExpressionSites(index);
  const ctx = new RuleContext(index, sites, source, options);
  for (const rule of RULES) rule(ctx);
  return { diagnostics: ctx.diagnostics, sites, compiled: ctx.compiled };
}
