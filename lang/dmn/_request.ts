/**
 * One evaluation of a decision requirements graph: each decision is
 * evaluated at most once (its value cached for the request), in dependency
 * order, in a scope holding exactly its requirements; business knowledge
 * models and decision services become FEEL functions; a decision service
 * invocation runs in a request of its own whose inputs are the arguments.
 *
 * @module
 */
import {
  type EvalEnv,
  FeelContext,
  FeelFunction,
  type FeelType,
  type FeelValue,
} from "../feel/mod.ts";
import type {
  BusinessKnowledgeModel,
  Decision,
  DecisionService,
  DrgElement,
  InputData,
} from "./model.ts";
import { coerceToType } from "./types.ts";
import { functionValue } from "./boxed/function_definition.ts";
import type { DmnEnv, RunScope } from "./_compile.ts";
import type { DecisionPlan, ModelPlan, Ref, ServicePlan } from "./_plan.ts";

/** Where a request reads input data values from. */
export type InputSource = (model: ModelPlan, input: InputData) => FeelValue | undefined;

/** The state of one evaluation. */
export class Request {
  readonly #values = new Map<Decision, FeelValue>();
  readonly #functions = new Map<BusinessKnowledgeModel | DecisionService, FeelFunction>();
  readonly #active = new Set<Decision>();

  /** A request reading inputs from `inputs`, with decisions in `overrides` taken as given. */
  constructor(
    readonly env: DmnEnv,
    readonly inputs: InputSource,
    overrides: ReadonlyMap<Decision, FeelValue> = new Map(),
  ) {
    for (const [d, v] of overrides) this.#values.set(d, v);
  }

  /** The value of a decision (evaluated once per request). */
  decision(plan: DecisionPlan): FeelValue {
    const d = plan.decision;
    const cached = this.#values.get(d);
    if (cached !== undefined || this.#values.has(d)) return cached ?? null;
    const env = prefixed(this.env, `decision '${d.name}'`);
    if (this.#active.has(d)) {
      env.warn("the decision depends on itself");
      return null;
    }
    this.#active.add(d);
    try {
      let value: FeelValue = null;
      if (plan.run === undefined) env.warn("the decision has no logic");
      else {
        const scope: RunScope = { values: this.scope(plan), env };
        value = coerceToType(plan.run(scope), plan.type, env, "its value");
      }
      this.#values.set(d, value);
      return value;
    } finally {
      this.#active.delete(d);
    }
  }

  /** The values a decision's logic sees: its required decisions, inputs and knowledge. */
  scope(plan: DecisionPlan): Map<string, FeelValue> {
    const values = new Map<string, FeelValue>();
    for (const r of plan.decisions) {
      bindRef(values, r, this.decision(r.model.decisions.get(r.element)!));
    }
    for (const r of plan.inputs) bindRef(values, r, this.input(r.model, r.element));
    for (const r of plan.knowledge) bindRef(values, r, this.knowledge(r));
    return values;
  }

  /** The value of an input data element, converted to its declared type. */
  input(model: ModelPlan, input: InputData): FeelValue {
    const raw = this.inputs(model, input);
    if (raw === undefined) return null;
    return coerceToType(raw, model.inputTypes.get(input), this.env, `input '${input.name}'`);
  }

  /** The function value of a required BKM or decision service. */
  knowledge(ref: Ref<BusinessKnowledgeModel | DecisionService>): FeelFunction {
    const e = ref.element;
    return e.kind === "bkm" ? this.#bkm(ref.model, e) : this.#service(ref.model.services.get(e)!);
  }

  #bkm(model: ModelPlan, bkm: BusinessKnowledgeModel): FeelFunction {
    const cached = this.#functions.get(bkm);
    if (cached !== undefined) return cached;
    const plan = model.bkms.get(bkm)!;
    // The scope is filled after the function is registered, so a BKM can
    // require itself (directly or through others) without looping here.
    const values = new Map<string, FeelValue>();
    const scope: RunScope = { values, env: this.env };
    const made = plan.logic === undefined ? undefined : plan.logic(scope);
    const fn = made instanceof FeelFunction
      ? withResultType(made, plan.result, `business knowledge model '${bkm.name}'`)
      : functionValue(
        { params: [], label: `business knowledge model '${bkm.name}'` },
        scope,
        (s) => {
          s.env.warn(`business knowledge model '${bkm.name}' has no logic`);
          return null;
        },
      );
    this.#functions.set(bkm, fn);
    for (const r of plan.knowledge) bindRef(values, r, this.knowledge(r));
    values.set(bkm.name, fn);
    return fn;
  }

  #service(plan: ServicePlan): FeelFunction {
    const cached = this.#functions.get(plan.service);
    if (cached !== undefined) return cached;
    // Input data come first, then input decisions (the order the TCK's invocations use).
    const params = [...plan.inputData, ...plan.inputDecisions];
    // Typed parameters: an argument that does not conform makes the call null.
    const fn = new FeelFunction(
      [params.map((p) => {
        const type = typeOf(p);
        return type === undefined ? { name: p.element.name } : { name: p.element.name, type };
      })],
      (args, env) => {
        const given = new Map<DrgElement, FeelValue>();
        params.forEach((p, i) => given.set(p.element, args[i] ?? null));
        return invokeService(plan, given, dmnEnv(env, this.env)).value;
      },
      plan.service.name,
    );
    this.#functions.set(plan.service, fn);
    return fn;
  }
}

/** The declared type of a decision or input data reached through a requirement. */
function typeOf(r: Ref<Decision | InputData>): FeelType | undefined {
  return r.element.kind === "decision"
    ? r.model.decisions.get(r.element)!.type
    : r.model.inputTypes.get(r.element);
}

/** The outcome of a decision service invocation. */
export interface ServiceOutcome {
  /** The service's value: the single output's value, or a context of all outputs. */
  readonly value: FeelValue;
  /** Each output decision's value by name. */
  readonly outputs: ReadonlyMap<string, FeelValue>;
}

/**
 * Invokes a decision service: the given input decisions and input data are
 * the only inputs (a parameter not given is null), and the output decisions
 * are evaluated in a request of their own.
 */
export function invokeService(
  plan: ServicePlan,
  given: ReadonlyMap<DrgElement, FeelValue>,
  env: DmnEnv,
): ServiceOutcome {
  const label = `decision service '${plan.service.name}'`;
  const own = prefixed(env, label);
  const overrides = new Map<Decision, FeelValue>();
  for (const r of plan.inputDecisions) {
    const v = given.get(r.element) ?? null;
    overrides.set(r.element, coerceToType(v, typeOf(r), own, `parameter '${r.element.name}'`));
  }
  const request = new Request(own, (_model, input) => given.get(input) ?? null, overrides);
  const outputs = new Map<string, FeelValue>();
  for (const r of plan.outputs) {
    outputs.set(r.element.name, request.decision(r.model.decisions.get(r.element)!));
  }
  const single = plan.outputs.length === 1;
  const raw = single ? outputs.get(plan.outputs[0].element.name)! : new FeelContext(outputs);
  const value = coerceToType(raw, plan.result, own, "its value");
  if (value === raw) return { value, outputs };
  // The service's declared type decides what it returns, output by output.
  const converted = new Map<string, FeelValue>();
  for (const name of outputs.keys()) {
    const v = single ? value : value instanceof FeelContext ? value.entries.get(name) : null;
    converted.set(name, v ?? null);
  }
  return { value, outputs: converted };
}

/** Binds a requirement's value under its name, or inside its import's context. */
function bindRef(values: Map<string, FeelValue>, r: Ref<DrgElement>, v: FeelValue): void {
  if (r.importName === undefined) {
    values.set(r.element.name, v);
    return;
  }
  const existing = values.get(r.importName);
  const entries = existing instanceof FeelContext ? new Map(existing.entries) : new Map();
  entries.set(r.element.name, v);
  values.set(r.importName, new FeelContext(entries));
}

/** A function wrapper converting results to the BKM's declared result type. */
function withResultType(fn: FeelFunction, type: FeelType | undefined, label: string): FeelFunction {
  if (type === undefined) return fn;
  return new FeelFunction(
    fn.signatures,
    (args, env, i) => coerceToType(fn.body(args, env, i), type, env, `the result of ${label}`),
    fn.name,
    fn.resultType,
  );
}

/** An environment whose warnings name where they come from. */
export function prefixed(env: DmnEnv, where: string): DmnEnv {
  return {
    warn: (m) => env.warn(`${where}: ${m}`),
    unsupported: (what) => env.unsupported(what),
    defect: (message) => env.defect(message),
    ...(env.now === undefined ? {} : { now: env.now }),
    ...(env.zone === undefined ? {} : { zone: env.zone }),
  };
}

/** A FEEL caller's environment as a DMN one (unsupported and defect reports go to `outer`). */
function dmnEnv(env: EvalEnv, outer: DmnEnv): DmnEnv {
  if ("unsupported" in env) return env as DmnEnv;
  return {
    warn: (m) => env.warn(m),
    unsupported: (what) => outer.unsupported(what),
    defect: (message) => outer.defect(message),
    ...(env.now === undefined ? {} : { now: env.now }),
    ...(env.zone === undefined ? {} : { zone: env.zone }),
  };
}
