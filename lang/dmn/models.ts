/**
 * Loading models: one file, or a set of files whose models import each
 * other by namespace. Every model is read, its types resolved and its logic
 * compiled once; the result is reused for any number of evaluations.
 *
 * @module
 */
import type { FeelType } from "../feel/mod.ts";
import { DmnCode, type DmnDiagnostic, dmnDiagnostic } from "./diagnostic.ts";
import type { Definitions } from "./model.ts";
import { DMN_NAMESPACES, readDmn } from "./read.ts";
import { compilePlans, ModelPlan } from "./_plan.ts";

/** One model document to load. */
export interface DmnSource {
  /** Where it comes from (copied into diagnostics). */
  readonly uri: string;
  /** The XML text. */
  readonly text: string;
}

/** The compiled plans behind each {@link DmnModels}, kept out of its public surface. */
const PLANS = new WeakMap<DmnModels, ReadonlyMap<string, ModelPlan>>();

/** Loaded, compiled models: the unit evaluation works on. */
export class DmnModels {
  /** Use {@link loadModels} or {@link loadModel}. */
  constructor(
    byNamespace: ReadonlyMap<string, ModelPlan>,
    /** The model decisions are looked up in by default. */
    readonly main: Definitions,
    /** Every problem found while loading (errors and warnings). */
    readonly diagnostics: readonly DmnDiagnostic[],
  ) {
    PLANS.set(this, byNamespace);
  }

  /** Every loaded model. */
  get models(): Definitions[] {
    return [...PLANS.get(this)!.values()].map((p) => p.model);
  }

  /**
   * The declared type of an input data element or a decision's variable, by
   * name, in the model with `namespace` (the main model when absent);
   * undefined when the element is unknown or untyped.
   */
  declaredType(name: string, namespace?: string): FeelType | undefined {
    const plan = modelPlan(this, namespace);
    const e = plan?.byName.get(name);
    if (plan === undefined || e === undefined) return undefined;
    if (e.kind === "inputData") return plan.inputTypes.get(e);
    if (e.kind === "decision") return plan.decisions.get(e)?.type;
    return undefined;
  }
}

/** The compiled plan of the model with `namespace` (the main model when undefined). */
export function modelPlan(models: DmnModels, namespace?: string): ModelPlan | undefined {
  return PLANS.get(models)!.get(namespace ?? models.main.namespace);
}

/** Options for {@link loadModels}. */
export interface LoadOptions {
  /**
   * Which model is the main one (decisions are looked up there): its uri,
   * namespace or name. Default: the first source whose model no other
   * source imports, else the first source.
   */
  readonly main?: string;
}

/** The outcome of loading: the models (with any diagnostics), or only diagnostics. */
export type LoadResult =
  | { readonly models: DmnModels; readonly diagnostics: readonly DmnDiagnostic[] }
  | { readonly models?: undefined; readonly diagnostics: readonly DmnDiagnostic[] };

/**
 * Loads a set of model documents that may import each other. Every
 * document's problems are reported; models are returned whenever at least
 * the main document is a DMN model. Never throws.
 */
export function loadModels(sources: readonly DmnSource[], options: LoadOptions = {}): LoadResult {
  const diagnostics: DmnDiagnostic[] = [];
  try {
    const models: Definitions[] = [];
    for (const s of sources) {
      const r = readDmn(s.text, { uri: s.uri });
      diagnostics.push(...r.diagnostics);
      if (r.model !== undefined) models.push(r.model);
    }
    if (models.length === 0) {
      if (diagnostics.length === 0) {
        diagnostics.push(dmnDiagnostic(DmnCode.NOT_DMN, "no model documents were given"));
      }
      return { diagnostics };
    }
    const byNamespace = new Map<string, ModelPlan>();
    const plans: ModelPlan[] = [];
    for (const m of models) {
      if (byNamespace.has(m.namespace)) {
        diagnostics.push(dmnDiagnostic(
          DmnCode.DUPLICATE,
          `two models share the namespace '${m.namespace}'`,
          { source: m.source },
        ));
        continue;
      }
      const plan = new ModelPlan(m, (ns) => byNamespace.get(ns));
      byNamespace.set(m.namespace, plan);
      plans.push(plan);
    }
    for (const m of models) {
      for (const imp of m.imports) {
        if (!DMN_NAMESPACES.has(imp.importType) && imp.importType !== "") continue;
        if (!byNamespace.has(imp.namespace)) {
          diagnostics.push(dmnDiagnostic(
            DmnCode.UNRESOLVED_REFERENCE,
            `import '${imp.name}' names namespace '${imp.namespace}', which no loaded model has`,
            { source: imp.source },
          ));
        }
      }
    }
    compilePlans(plans, byNamespace, diagnostics);
    const loaded = plans.map((p) => p.model);
    let main = pickMain(loaded, options.main);
    if (main === undefined) {
      diagnostics.push(dmnDiagnostic(
        DmnCode.UNRESOLVED_REFERENCE,
        `the main model '${options.main}' is not among the loaded models; using the default`,
        { severity: "WARNING" },
      ));
      main = pickMain(loaded, undefined)!;
    }
    return { models: new DmnModels(byNamespace, main, diagnostics), diagnostics };
  } catch (e) {
    diagnostics.push(dmnDiagnostic(
      DmnCode.INTERNAL,
      `loading failed inside the DMN library: ${e instanceof Error ? e.message : e}`,
    ));
    return { diagnostics };
  }
}

/** Loads one model document. */
export function loadModel(text: string, options: { readonly uri?: string } = {}): LoadResult {
  return loadModels([{ uri: options.uri ?? "model.dmn", text }]);
}

/** The model named by `wanted` (uri, namespace or name), or the default one when undefined. */
function pickMain(
  models: readonly Definitions[],
  wanted: string | undefined,
): Definitions | undefined {
  if (wanted !== undefined) {
    return models.find((x) =>
      x.uri === wanted || x.namespace === wanted || x.name === wanted ||
      x.uri.endsWith(`/${wanted}`)
    );
  }
  const imported = new Set(models.flatMap((m) => m.imports.map((i) => i.namespace)));
  return models.find((m) => !imported.has(m.namespace)) ?? models[0];
}
