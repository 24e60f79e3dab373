/**
 * `.dmn` complex validators. The model's decisions run over the payload
 * (input data named after the payload variable, `header`, and the reserved
 * `now`: the engine clock's instant as a date and time) and what they
 * return are the issues:
 *
 * - `file.dmn#decision` runs that decision (by id or name); a bare file runs
 *   every decision no other decision of the model requires, in document
 *   order;
 * - a decision's value is null (no issue), an issue, or a list of issues
 *   (a COLLECT table); an issue is a context with `code` and optionally
 *   `path`, `message`, `severity` and `value`, or just its code as a string.
 *
 * Anything else, an evaluation that cannot run, or a construct the DMN
 * library does not evaluate, ends the run with a failed-validator issue
 * after the issues found so far.
 *
 * @module
 */
import type { Issue, IssueValue } from "../core/codec.ts";
import type { Severity } from "../core/diagnostic.ts";
import type {
  CompiledValidator,
  ComplexValidatorKind,
  ValidationInput,
} from "../core/validator.ts";
import { toJs } from "../../lang/feel/mod.ts";
import { type Decision, type DmnModels, evaluateDecision, loadModel } from "../../lang/dmn/mod.ts";
import { asDiagnostics, validatorFailed } from "./_issue_values.ts";
import { payloadPointer } from "./_paths.ts";

const SEVERITIES: readonly Severity[] = ["ERROR", "WARNING", "INFO"];

/** The decisions a validator runs: the named one, or every one nothing requires. */
function decisionsToRun(models: DmnModels, fragment: string | undefined): Decision[] {
  const decisions = models.main.elements.filter((e): e is Decision => e.kind === "decision");
  if (fragment !== undefined) {
    return decisions.filter((d) => d.id === fragment || d.name === fragment);
  }
  const required = new Set(
    decisions.flatMap((d) =>
      d.requiredDecisions.filter((h) => h.namespace === undefined).map((h) => h.id)
    ),
  );
  return decisions.filter((d) => d.id === undefined || !required.has(d.id));
}

/** One returned value as an issue, or why it is not one. */
function asIssue(item: unknown, variable: string): Issue | string {
  if (typeof item === "string") return { code: item, severity: "ERROR", path: "", message: item };
  if (item === null || typeof item !== "object" || Array.isArray(item)) {
    return `it returned ${JSON.stringify(item)} where an issue context was expected`;
  }
  const r = item as Record<string, unknown>;
  if (typeof r.code !== "string" || r.code === "") return "an issue it returned has no code";
  const severity = SEVERITIES.find((s) => s === r.severity) ?? "ERROR";
  const path = typeof r.path === "string" ? payloadPointer(r.path, variable) : "";
  const message = typeof r.message === "string" ? r.message : r.code;
  const v = r.value;
  const value = v === null || ["string", "number", "boolean"].includes(typeof v)
    ? v as IssueValue
    : undefined;
  return { code: r.code, severity, path, message, ...(value === undefined ? {} : { value }) };
}

/** The `.dmn` validator kind. */
export const dmnValidatorKind: ComplexValidatorKind = {
  name: ".dmn",
  compile(text: string, options): CompiledValidator {
    const loaded = loadModel(text, { uri: options.uri });
    const errors = loaded.diagnostics.filter((d) => d.severity === "ERROR");
    if (loaded.models === undefined || errors.length > 0) {
      return { diagnostics: asDiagnostics(errors.length > 0 ? errors : loaded.diagnostics) };
    }
    const models = loaded.models;
    const decisions = decisionsToRun(models, options.fragment);
    if (decisions.length === 0) {
      return {
        diagnostics: [{
          code: "SUTRA.CONFIG.VALIDATOR.DECISION_MISSING",
          severity: "ERROR",
          message: options.fragment === undefined
            ? "the model has no decision to run"
            : `the model has no decision '${options.fragment}'`,
          source: { uri: options.uri },
        }],
      };
    }
    const source = options.fragment === undefined
      ? options.uri
      : `${options.uri}#${options.fragment}`;
    return {
      validator: {
        source,
        validate(input: ValidationInput): Promise<readonly Issue[]> {
          const now = input.clock.now();
          const inputs = {
            [input.variable]: input.payload,
            header: input.headers,
            now: new Date(now),
          };
          const issues: Issue[] = [];
          const fail = (reason: string) => {
            issues.push(validatorFailed(source, reason));
            return Promise.resolve(issues);
          };
          for (const decision of decisions) {
            const r = evaluateDecision(models, decision.id ?? decision.name, inputs, { now });
            if (r.diagnostics) return fail(r.diagnostics[0].message);
            if (r.unsupported.length > 0) {
              return fail(
                `it reached constructs this engine does not evaluate: ${r.unsupported.join(", ")}`,
              );
            }
            const value = toJs(r.value);
            for (const item of Array.isArray(value) ? value : value === null ? [] : [value]) {
              if (item === null) continue;
              const found = asIssue(item, input.variable);
              if (typeof found === "string") return fail(`decision '${decision.name}': ${found}`);
              issues.push(found);
            }
          }
          return Promise.resolve(issues);
        },
      },
    };
  },
};
