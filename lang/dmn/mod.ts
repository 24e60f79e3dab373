/**
 * DMN 1.1–1.5 decision models as a standalone library (it depends only on
 * `lang/feel`): read models, validate them, and evaluate decisions, decision
 * tables with all seven hit policies, every boxed expression, business
 * knowledge models, decision services and imports across models.
 *
 * ```ts
 * import { evaluateDecision, loadModel } from "./mod.ts";
 * const loaded = loadModel(xml, { uri: "rules/tier.dmn" });
 * if (loaded.models) {
 *   const r = evaluateDecision(loaded.models, "tier", { score: 720 });
 *   // r.value, r.warnings
 * }
 * ```
 *
 * Every function returns data and never throws.
 *
 * @module
 */
export { readDmn } from "./read.ts";
export type { ReadDmnOptions, ReadDmnResult } from "./read.ts";
export { DmnModels, loadModel, loadModels } from "./models.ts";
export type { DmnSource, LoadOptions, LoadResult } from "./models.ts";
export { validate } from "./validate.ts";
export { evaluateDecision, evaluateDecisionService } from "./evaluate.ts";
export type {
  DmnEvaluation,
  DmnInputs,
  DmnRefusal,
  DmnResult,
  EvaluateDecisionOptions,
} from "./evaluate.ts";
export { DmnCode } from "./diagnostic.ts";
export type { DmnDiagnostic, Severity, SourceLocation } from "./diagnostic.ts";
export type * from "./model.ts";
