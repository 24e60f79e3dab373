/**
 * Structural validation of loaded models: everything found while reading
 * and compiling them (malformed elements, FEEL syntax, unresolved
 * references, unknown types, inconsistent decision tables), plus the checks
 * that need the whole graph: duplicate ids and names, requirement cycles,
 * invocation bindings naming parameters the invoked model does not have,
 * decisions and knowledge models without logic, and decision services whose
 * decisions need what the service does not provide. Every violation is
 * reported, never only the first.
 *
 * @module
 */
import { DmnCode, type DmnDiagnostic, dmnDiagnostic } from "./diagnostic.ts";
import type { Decision, Definitions, DrgElement, Expression, Located } from "./model.ts";
import { type DmnModels, modelPlan } from "./models.ts";
import type { ModelPlan, ServicePlan } from "./_plan.ts";

/**
 * Every structural violation of the loaded models, load-time problems
 * first, then graph checks, each with its file and line. Never throws.
 */
export function validate(models: DmnModels): DmnDiagnostic[] {
  const out: DmnDiagnostic[] = [...models.diagnostics];
  try {
    const plans = models.models.map((m) => modelPlan(models, m.namespace)!);
    for (const p of plans) {
      duplicates(p.model, out);
      missingLogic(p.model, out);
      for (const s of p.services.values()) serviceClosure(s, out);
      for (const d of p.decisions.values()) {
        if (d.decision.expression !== undefined) {
          bindings(d.decision.expression, d.knowledge.map((k) => k.element), out);
        }
      }
      for (const b of p.bkms.values()) {
        if (b.bkm.logic?.body !== undefined) {
          bindings(b.bkm.logic.body, [...b.knowledge.map((k) => k.element), b.bkm], out);
        }
      }
    }
    cycles(plans, out);
  } catch (e) {
    out.push(dmnDiagnostic(
      DmnCode.INTERNAL,
      `validation failed inside the DMN library: ${e instanceof Error ? e.message : e}`,
    ));
  }
  return out;
}

function error(code: string, message: string, at: Located, severity: "ERROR" | "WARNING") {
  return dmnDiagnostic(code, message, {
    severity,
    source: at.source,
    ...(at.id === undefined ? {} : { attributes: { id: at.id } }),
  });
}

function duplicates(model: Definitions, out: DmnDiagnostic[]): void {
  const ids = new Map<string, Located>();
  const names = new Map<string, DrgElement>();
  const located: Located[] = [...model.elements, ...model.itemDefinitions];
  for (const e of located) {
    if (e.id === undefined) continue;
    if (ids.has(e.id)) {
      out.push(error(DmnCode.DUPLICATE, `the id '${e.id}' is used twice`, e, "ERROR"));
    } else ids.set(e.id, e);
  }
  for (const e of model.elements) {
    const first = names.get(e.name);
    if (first !== undefined) {
      out.push(error(
        DmnCode.DUPLICATE,
        `the ${e.kind} name '${e.name}' is already used by ${first.kind} '${first.id}'`,
        e,
        "ERROR",
      ));
    } else names.set(e.name, e);
  }
  const types = new Set<string>();
  for (const t of model.itemDefinitions) {
    if (types.has(t.name)) {
      out.push(
        error(DmnCode.DUPLICATE, `item definition '${t.name}' is defined twice`, t, "ERROR"),
      );
    }
    types.add(t.name);
    if (t.typeRef !== undefined && t.components.length > 0) {
      out.push(error(
        DmnCode.MALFORMED,
        `item definition '${t.name}' has both a typeRef and components`,
        t,
        "ERROR",
      ));
    }
  }
}

function missingLogic(model: Definitions, out: DmnDiagnostic[]): void {
  for (const e of model.elements) {
    if (e.kind === "decision" && e.expression === undefined) {
      out.push(error(
        DmnCode.MALFORMED,
        `decision '${e.name}' has no logic; it evaluates to null unless a decision service supplies it`,
        e,
        "WARNING",
      ));
    }
    if (e.kind === "bkm" && e.logic === undefined) {
      out.push(error(
        DmnCode.MALFORMED,
        `business knowledge model '${e.name}' has no logic`,
        e,
        "WARNING",
      ));
    }
  }
}

/** A decision service's decisions may need only the service's decisions and inputs. */
function serviceClosure(s: ServicePlan, out: DmnDiagnostic[]): void {
  const decisions = new Set<DrgElement>(
    [...s.outputs, ...s.encapsulated, ...s.inputDecisions].map((r) => r.element),
  );
  const inputs = new Set<DrgElement>(s.inputData.map((r) => r.element));
  for (const r of [...s.outputs, ...s.encapsulated]) {
    const plan = r.model.decisions.get(r.element)!;
    for (const d of plan.decisions) {
      if (!decisions.has(d.element)) {
        out.push(error(
          DmnCode.UNRESOLVED_REFERENCE,
          `decision service '${s.service.name}': decision '${r.element.name}' requires '${d.element.name}', which the service neither encapsulates nor takes as an input decision`,
          s.service,
          "WARNING",
        ));
      }
    }
    for (const i of plan.inputs) {
      if (!inputs.has(i.element)) {
        out.push(error(
          DmnCode.UNRESOLVED_REFERENCE,
          `decision service '${s.service.name}': decision '${r.element.name}' requires input '${i.element.name}', which is not an input of the service`,
          s.service,
          "WARNING",
        ));
      }
    }
  }
}

/** Boxed invocations of a known BKM must bind only its parameters. */
function bindings(
  x: Expression,
  knowledge: readonly DrgElement[],
  out: DmnDiagnostic[],
): void {
  walk(x, (e) => {
    if (e.kind !== "invocation" || e.callee.kind !== "literal") return;
    const name = e.callee.text.trim();
    const target = knowledge.find((k) => k.name === name);
    if (target === undefined || target.kind !== "bkm" || target.logic === undefined) return;
    const params = new Set(target.logic.parameters.map((q) => q.name));
    for (const b of e.bindings) {
      if (!params.has(b.parameter.name)) {
        out.push(error(
          DmnCode.UNRESOLVED_REFERENCE,
          `invocation of '${name}' binds '${b.parameter.name}', which is not one of its parameters (${
            [...params].join(", ")
          })`,
          e,
          "ERROR",
        ));
      }
    }
  });
}

/** Calls `visit` on `x` and every expression nested in it. */
function walk(x: Expression, visit: (e: Expression) => void): void {
  visit(x);
  const children: (Expression | undefined)[] = [];
  switch (x.kind) {
    case "context":
      children.push(...x.entries.map((e) => e.value));
      break;
    case "invocation":
      children.push(x.callee, ...x.bindings.map((b) => b.value));
      break;
    case "relation":
      children.push(...x.rows.flat());
      break;
    case "list":
      children.push(...x.items);
      break;
    case "function":
      children.push(x.body);
      break;
    case "conditional":
      children.push(x.if, x.then, x.else);
      break;
    case "filter":
      children.push(x.in, x.match);
      break;
    case "for":
    case "some":
    case "every":
      children.push(x.in, x.body);
      break;
    default:
      break;
  }
  for (const c of children) if (c !== undefined) walk(c, visit);
}

/** Decisions that require themselves, directly or through others. */
function cycles(plans: readonly ModelPlan[], out: DmnDiagnostic[]): void {
  const state = new Map<Decision, "active" | "done">();
  const visit = (p: ModelPlan, d: Decision, path: Decision[]): void => {
    const s = state.get(d);
    if (s === "done") return;
    if (s === "active") {
      const cycle = path.slice(path.indexOf(d)).map((x) => x.name);
      out.push(error(
        DmnCode.CYCLE,
        `decisions require each other in a cycle: ${[...cycle, d.name].join(" → ")}`,
        d,
        "ERROR",
      ));
      return;
    }
    state.set(d, "active");
    for (const r of p.decisions.get(d)!.decisions) visit(r.model, r.element, [...path, d]);
    state.set(d, "done");
  };
  for (const p of plans) for (const d of p.decisions.keys()) visit(p, d, []);
}
