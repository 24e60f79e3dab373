/**
 * Compiled DRG elements: every decision, business knowledge model and
 * decision service of a model with its requirements resolved (across
 * imported models by namespace) and its logic compiled. Evaluation reads
 * these plans; see `_request.ts`.
 *
 * @module
 */
import type { FeelType } from "../feel/mod.ts";
import { DmnCode, type DmnDiagnostic } from "./diagnostic.ts";
import type {
  BusinessKnowledgeModel,
  Decision,
  DecisionService,
  Definitions,
  DrgElement,
  Href,
  InputData,
  Located,
} from "./model.ts";
import { ModelTypes } from "./types.ts";
import { compileFunctionDefinition } from "./boxed/function_definition.ts";
import { Compiler, type Evaluator, StaticScope } from "./_compile.ts";

/** A resolved requirement: the element, its model and the name it is visible under. */
export interface Ref<T extends DrgElement> {
  /** The model holding the element. */
  readonly model: ModelPlan;
  /** The element. */
  readonly element: T;
  /** The import name qualifying it, when it lives in an imported model. */
  readonly importName?: string;
}

/** A compiled decision. */
export interface DecisionPlan {
  /** The decision. */
  readonly decision: Decision;
  /** The model holding it. */
  readonly model: ModelPlan;
  /** Its declared result type. */
  readonly type: FeelType | undefined;
  /** Required decisions. */
  readonly decisions: readonly Ref<Decision>[];
  /** Required input data. */
  readonly inputs: readonly Ref<InputData>[];
  /** Required knowledge (BKMs and decision services). */
  readonly knowledge: readonly Ref<BusinessKnowledgeModel | DecisionService>[];
  /** The logic; undefined when the decision has none. */
  readonly run: Evaluator | undefined;
}

/** A compiled business knowledge model. */
export interface BkmPlan {
  /** The BKM. */
  readonly bkm: BusinessKnowledgeModel;
  /** The model holding it. */
  readonly model: ModelPlan;
  /** Required knowledge. */
  readonly knowledge: readonly Ref<BusinessKnowledgeModel | DecisionService>[];
  /** Builds the function value in a scope holding its knowledge; undefined without logic. */
  readonly logic: Evaluator | undefined;
  /** The declared type of the function's result. */
  readonly result: FeelType | undefined;
}

/** A compiled decision service. */
export interface ServicePlan {
  /** The service. */
  readonly service: DecisionService;
  /** The model holding it. */
  readonly model: ModelPlan;
  /** Decisions whose values it returns. */
  readonly outputs: readonly Ref<Decision>[];
  /** Decisions evaluated inside the service. */
  readonly encapsulated: readonly Ref<Decision>[];
  /** Decisions whose values are parameters. */
  readonly inputDecisions: readonly Ref<Decision>[];
  /** Input data that are parameters. */
  readonly inputData: readonly Ref<InputData>[];
  /** The declared type of the result, when it is not a function type. */
  readonly result: FeelType | undefined;
}

/** One model with its compiled elements. */
export class ModelPlan {
  /** Elements by id. */
  readonly byId = new Map<string, DrgElement>();
  /** Elements by name. */
  readonly byName = new Map<string, DrgElement>();
  /** Compiled decisions. */
  readonly decisions = new Map<Decision, DecisionPlan>();
  /** Compiled BKMs. */
  readonly bkms = new Map<BusinessKnowledgeModel, BkmPlan>();
  /** Compiled decision services. */
  readonly services = new Map<DecisionService, ServicePlan>();
  /** Declared types of input data. */
  readonly inputTypes = new Map<InputData, FeelType | undefined>();
  /** Its types. */
  readonly types: ModelTypes;
  /** Its expression compiler. */
  compiler!: Compiler;

  /** Indexes `model`; {@link compilePlans} fills in the compiled parts. */
  constructor(readonly model: Definitions, imported: (ns: string) => ModelPlan | undefined) {
    this.types = new ModelTypes(model, (ns) => imported(ns)?.types);
    for (const e of model.elements) {
      if (e.id !== undefined && !this.byId.has(e.id)) this.byId.set(e.id, e);
      if (!this.byName.has(e.name)) this.byName.set(e.name, e);
    }
  }
}

/**
 * Compiles every element of `plans` (all models of a set, so requirements
 * into imported models resolve), reporting problems into `diagnostics`.
 */
export function compilePlans(
  plans: readonly ModelPlan[],
  byNamespace: ReadonlyMap<string, ModelPlan>,
  diagnostics: DmnDiagnostic[],
): void {
  for (const p of plans) {
    const knownNames = p.types.componentNames();
    // Elements of imported models are read as `import.element`: FEEL must know their names.
    for (const imp of p.model.imports) {
      for (const n of byNamespace.get(imp.namespace)?.byName.keys() ?? []) knownNames.add(n);
    }
    p.compiler = new Compiler({
      types: p.types,
      feelTypes: p.types.feelTypes(),
      knownNames,
      diagnostics,
    });
  }
  for (const p of plans) {
    const resolver = new Resolver(p, byNamespace);
    for (const e of p.model.elements) {
      switch (e.kind) {
        case "decision":
          p.decisions.set(e, planDecision(p, e, resolver));
          break;
        case "bkm":
          p.bkms.set(e, planBkm(p, e, resolver));
          break;
        case "decisionService":
          p.services.set(e, planService(p, e, resolver));
          break;
        case "inputData":
          p.inputTypes.set(e, p.compiler.type(e.variable.typeRef, e));
          break;
      }
    }
    for (const problem of p.types.problems) {
      if (problem.kind === "syntax") {
        p.compiler.report(DmnCode.FEEL_SYNTAX, problem.message, problem.item);
      } else {
        p.compiler.report(DmnCode.UNKNOWN_TYPE, problem.message, problem.item, {
          severity: "WARNING",
        });
      }
    }
  }
}

/** Resolves hrefs of one model, reporting what does not resolve. */
class Resolver {
  constructor(readonly plan: ModelPlan, readonly byNamespace: ReadonlyMap<string, ModelPlan>) {}

  refs<K extends DrgElement["kind"]>(
    hrefs: readonly Href[],
    kinds: readonly K[],
    at: Located,
    role: string,
  ): Ref<Extract<DrgElement, { kind: K }>>[] {
    const out: Ref<Extract<DrgElement, { kind: K }>>[] = [];
    for (const h of hrefs) {
      const r = this.#one(h);
      if (r === undefined) {
        this.plan.compiler.report(
          DmnCode.UNRESOLVED_REFERENCE,
          `${role} '${h.namespace === undefined ? "" : h.namespace}#${h.id}' names no element`,
          at,
        );
      } else if (!(kinds as readonly string[]).includes(r.element.kind)) {
        this.plan.compiler.report(
          DmnCode.UNRESOLVED_REFERENCE,
          `${role} '#${h.id}' is a ${r.element.kind}, not a ${kinds.join(" or ")}`,
          at,
        );
      } else out.push(r as Ref<Extract<DrgElement, { kind: K }>>);
    }
    return out;
  }

  #one(h: Href): Ref<DrgElement> | undefined {
    const own = this.plan.model;
    if (h.namespace === undefined || h.namespace === own.namespace) {
      const element = this.plan.byId.get(h.id);
      return element === undefined ? undefined : { model: this.plan, element };
    }
    const model = this.byNamespace.get(h.namespace);
    const element = model?.byId.get(h.id);
    if (model === undefined || element === undefined) return undefined;
    const imp = own.imports.find((i) => i.namespace === h.namespace);
    return { model, element, importName: imp?.name ?? model.model.name };
  }
}

/** The names a set of requirements makes visible (imported ones under their import name). */
export function visibleNames(refs: readonly Ref<DrgElement>[]): string[] {
  return refs.map((r) => r.importName ?? r.element.name);
}

function planDecision(p: ModelPlan, d: Decision, r: Resolver): DecisionPlan {
  const decisions = r.refs(d.requiredDecisions, ["decision"], d, "required decision");
  const inputs = r.refs(d.requiredInputs, ["inputData"], d, "required input");
  const knowledge = r.refs(
    d.requiredKnowledge,
    ["bkm", "decisionService"],
    d,
    "required knowledge",
  );
  const scope = new StaticScope(new Set(visibleNames([...decisions, ...inputs, ...knowledge])));
  return {
    decision: d,
    model: p,
    type: p.compiler.type(d.variable.typeRef, d),
    decisions,
    inputs,
    knowledge,
    run: d.expression === undefined ? undefined : p.compiler.expression(d.expression, scope),
  };
}

/** The result type of a function variable: its function type's result, or the type itself. */
function resultType(t: FeelType | undefined): FeelType | undefined {
  if (t === undefined) return undefined;
  let s = t;
  while (s.kind === "named") s = s.base;
  if (s.kind !== "function") return t;
  return s.result.kind === "Any" ? undefined : s.result;
}

function planBkm(p: ModelPlan, b: BusinessKnowledgeModel, r: Resolver): BkmPlan {
  const knowledge = r.refs(
    b.requiredKnowledge,
    ["bkm", "decisionService"],
    b,
    "required knowledge",
  );
  // A BKM sees its own name, so its logic may call itself.
  const scope = new StaticScope(new Set([...visibleNames(knowledge), b.name]));
  const logic = b.logic === undefined
    ? undefined
    : compileFunctionDefinition(p.compiler, b.logic, scope, `business knowledge model '${b.name}'`);
  return {
    bkm: b,
    model: p,
    knowledge,
    logic,
    result: resultType(p.compiler.type(b.variable.typeRef, b)),
  };
}

function planService(p: ModelPlan, s: DecisionService, r: Resolver): ServicePlan {
  const outputs = r.refs(s.outputDecisions, ["decision"], s, "output decision");
  if (outputs.length === 0) {
    p.compiler.report(DmnCode.MALFORMED, `decision service '${s.name}' has no output decision`, s);
  }
  return {
    service: s,
    model: p,
    outputs,
    encapsulated: r.refs(s.encapsulatedDecisions, ["decision"], s, "encapsulated decision"),
    inputDecisions: r.refs(s.inputDecisions, ["decision"], s, "input decision"),
    inputData: r.refs(s.inputData, ["inputData"], s, "input data"),
    result: resultType(p.compiler.type(s.variable.typeRef, s)),
  };
}
