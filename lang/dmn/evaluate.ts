/**
 * Evaluating decisions and decision services of loaded models.
 *
 * @module
 */
import { FeelContext, type FeelValue, fromJs } from "../feel/mod.ts";
import { DmnCode, type DmnDiagnostic, dmnDiagnostic } from "./diagnostic.ts";
import type { Decision, DecisionService, DrgElement } from "./model.ts";
import { type DmnModels, modelPlan } from "./models.ts";
import type { DmnEnv } from "./_compile.ts";
import type { ModelPlan } from "./_plan.ts";
import { invokeService, Request } from "./_request.ts";

/** Input values by input data name: a plain JS object, a Map, or a FEEL context. */
export type DmnInputs =
  | Readonly<Record<string, unknown>>
  | ReadonlyMap<string, unknown>
  | FeelContext;

/** Options for {@link evaluateDecision} and {@link evaluateDecisionService}. */
export interface EvaluateDecisionOptions {
  /** The namespace of the model holding the decision; the main model when absent. */
  readonly namespace?: string;
  /** Inputs of imported models' input data, by model namespace. */
  readonly importedInputs?: Readonly<Record<string, DmnInputs>>;
  /** The clock for `now()`/`today()`: epoch milliseconds, a Date, or a function giving ms. */
  readonly now?: number | Date | (() => number);
  /** The IANA zone `now()`/`today()` use (UTC when absent). */
  readonly zone?: string;
}

/** A successful evaluation. */
export interface DmnEvaluation {
  /** The decision's (or service's) value. */
  readonly value: FeelValue;
  /**
   * Named outputs: the output columns of a decision table with several
   * outputs, each output decision of a decision service, else the decision
   * itself under its name.
   */
  readonly outputs: ReadonlyMap<string, FeelValue>;
  /** Why values became null on the way, in order. */
  readonly warnings: readonly string[];
  /** Constructs this engine does not evaluate that the evaluation reached (their value was null). */
  readonly unsupported: readonly string[];
  /** Never set on success. */
  readonly diagnostics?: undefined;
}

/** An evaluation that could not start (unknown decision, internal defect). */
export interface DmnRefusal {
  /** Never set when refused. */
  readonly value?: undefined;
  /** Never set when refused. */
  readonly outputs?: undefined;
  /** Never set when refused. */
  readonly warnings?: undefined;
  /** Never set when refused. */
  readonly unsupported?: undefined;
  /** Why. */
  readonly diagnostics: readonly DmnDiagnostic[];
}

/** The outcome of an evaluation. */
export type DmnResult = DmnEvaluation | DmnRefusal;

/**
 * Evaluates one decision (by id or name) with `inputs`; the decisions it
 * requires are evaluated first, each once. Never throws.
 *
 * @example
 * ```ts
 * const loaded = loadModel(xml, { uri: "rules/tier.dmn" });
 * if (loaded.models) {
 *   const r = evaluateDecision(loaded.models, "tier", { score: 720 });
 *   // r.value === "GOLD"
 * }
 * ```
 */
export function evaluateDecision(
  models: DmnModels,
  decision: string,
  inputs: DmnInputs = {},
  options: EvaluateDecisionOptions = {},
): DmnResult {
  return guarded(() => {
    const found = find(models, decision, options.namespace, "decision");
    if ("diagnostics" in found) return found;
    const { plan, element } = found;
    const env = newEnv(options);
    const request = new Request(env, inputSource(models, inputs, options));
    const value = request.decision(plan.decisions.get(element as Decision)!);
    return finish(value, decisionOutputs(element as Decision, value), env);
  });
}

/**
 * Invokes a decision service (by id or name): `inputs` supply its input
 * decisions and input data by name (one not supplied is null). Never throws.
 */
export function evaluateDecisionService(
  models: DmnModels,
  service: string,
  inputs: DmnInputs = {},
  options: EvaluateDecisionOptions = {},
): DmnResult {
  return guarded(() => {
    const found = find(models, service, options.namespace, "decisionService");
    if ("diagnostics" in found) return found;
    const plan = found.plan.services.get(found.element as DecisionService)!;
    const env = newEnv(options);
    const values = inputMap(inputs);
    const given = new Map<DrgElement, FeelValue>();
    for (const r of [...plan.inputDecisions, ...plan.inputData]) {
      if (values.has(r.element.name)) given.set(r.element, fromJs(values.get(r.element.name)));
    }
    const outcome = invokeService(plan, given, env);
    return finish(outcome.value, outcome.outputs, env);
  });
}

interface Env extends DmnEnv {
  readonly warnings: string[];
  readonly reached: Set<string>;
  readonly defects: string[];
}

function newEnv(options: EvaluateDecisionOptions): Env {
  const warnings: string[] = [];
  const reached = new Set<string>();
  const defects: string[] = [];
  const now = options.now;
  const clock = now === undefined
    ? undefined
    : typeof now === "function"
    ? now
    : () => (typeof now === "number" ? now : now.getTime());
  return {
    warnings,
    reached,
    defects,
    warn: (m) => warnings.push(m),
    unsupported: (what) => reached.add(what),
    defect: (message) => defects.push(message),
    ...(clock === undefined ? {} : { now: clock }),
    ...(options.zone === undefined ? {} : { zone: options.zone }),
  };
}

/** The evaluation's result, or a refusal when a library defect made any part of it unreliable. */
function finish(value: FeelValue, outputs: ReadonlyMap<string, FeelValue>, env: Env): DmnResult {
  if (env.defects.length > 0) {
    return { diagnostics: env.defects.map((m) => dmnDiagnostic(DmnCode.INTERNAL, m)) };
  }
  return { value, outputs, warnings: env.warnings, unsupported: [...env.reached] };
}

function decisionOutputs(d: Decision, value: FeelValue): Map<string, FeelValue> {
  const x = d.expression;
  if (x?.kind === "decisionTable" && x.outputs.length > 1 && value instanceof FeelContext) {
    return new Map(value.entries);
  }
  return new Map([[d.name, value]]);
}

function find(
  models: DmnModels,
  key: string,
  namespace: string | undefined,
  kind: "decision" | "decisionService",
): { plan: ModelPlan; element: DrgElement } | DmnRefusal {
  const plan = modelPlan(models, namespace);
  const label = kind === "decision" ? "decision" : "decision service";
  if (plan === undefined) {
    return {
      diagnostics: [dmnDiagnostic(
        DmnCode.UNKNOWN_DECISION,
        `no loaded model has the namespace '${namespace}'`,
      )],
    };
  }
  const element = plan.byId.get(key) ?? plan.byName.get(key) ??
    plan.model.elements.find((e) => e.kind === kind && e.name === key);
  if (element === undefined || element.kind !== kind) {
    return {
      diagnostics: [dmnDiagnostic(
        DmnCode.UNKNOWN_DECISION,
        `model '${plan.model.name}' has no ${label} '${key}'`,
        { source: plan.model.source },
      )],
    };
  }
  return { plan, element };
}

function inputMap(inputs: DmnInputs): ReadonlyMap<string, unknown> {
  if (inputs instanceof FeelContext) return inputs.entries;
  if (inputs instanceof Map) return inputs;
  return new Map(Object.entries(inputs));
}

function inputSource(models: DmnModels, inputs: DmnInputs, options: EvaluateDecisionOptions) {
  const main = inputMap(inputs);
  const mainNamespace = options.namespace ?? models.main.namespace;
  const others = new Map<string, ReadonlyMap<string, unknown>>();
  for (const [ns, v] of Object.entries(options.importedInputs ?? {})) others.set(ns, inputMap(v));
  return (model: ModelPlan, input: { name: string }): FeelValue | undefined => {
    const ns = model.model.namespace;
    const source = ns === mainNamespace ? main : others.get(ns);
    if (source === undefined || !source.has(input.name)) return undefined;
    return fromJs(source.get(input.name));
  };
}

function guarded(run: () => DmnResult): DmnResult {
  try {
    return run();
  } catch (e) {
    return {
      diagnostics: [dmnDiagnostic(
        DmnCode.INTERNAL,
        `evaluation failed inside the DMN library: ${e instanceof Error ? e.message : e}`,
      )],
    };
  }
}
