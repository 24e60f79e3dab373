/**
 * The observable copy of an instance's variables: what the admin view, the
 * audit trail and logs may show of them. The process always works with the
 * real values; everything the engine shows to people goes through here.
 *
 * A variable is shown
 *
 * - as {@link MASK} when it is sensitive (declared `q:variable
 *   sensitive="true"`, or marked by a value read from a store with a
 *   `dataClass`), or when it is bound by a `q:source` with a `dataClass`
 *   and no `q:redactors` (the author classified the payload but named
 *   nothing to find the spans, so all of it is hidden);
 * - with the spans its `q:source`'s `q:redactors` locate masked, when it is
 *   bound by such a source (a redactor that fails masks all of it); the
 *   `validation` summary such a source binds beside the payload is searched
 *   the same way, since its issue messages may quote the payload;
 * - in its display form otherwise.
 *
 * The same set of names is what encryption at rest protects
 * ({@link protectedVariables}).
 *
 * @module
 */
import { formatFeel, fromJs, toJs } from "../../../lang/feel/mod.ts";
import type { FeelValue } from "../../../lang/feel/mod.ts";
import type { ExecutionPlan } from "../../bpmn/mod.ts";
import type { Diagnostic } from "../../core/diagnostic.ts";
import { MASK, redact, type Redactor, redactors } from "../../core/redactor.ts";
import type { Registry } from "../../core/registry.ts";
import { type InstanceState, sensitiveVariables } from "../../executor/mod.ts";

/** The variable intake binds a message's validation summary to, beside the payload. */
const VALIDATION = "validation";

/** How one bound variable is protected: whole (a class) or by located spans (redactor names). */
export type VariableProtection =
  | { readonly kind: "whole"; readonly dataClass: string }
  | { readonly kind: "spans"; readonly redactors: readonly string[]; readonly dataClass?: string };

/** The processes an instance's scopes run (the root process and called or embedded ones). */
function processesOf(state: InstanceState): Set<string> {
  const ids = new Set([state.process]);
  for (const scope of state.scopes.values()) ids.add(scope.process);
  return ids;
}

/**
 * Every variable name of the instance that is protected, with how: the
 * sensitive names whole, then the variables its processes' `q:source`s bind
 * (several sources binding one name pool their redactors; a whole
 * protection wins over spans).
 */
export function protectedVariables(
  plan: ExecutionPlan,
  state: InstanceState,
): Map<string, VariableProtection> {
  const out = new Map<string, VariableProtection>();
  for (const [name, dataClass] of sensitiveVariables(plan, state)) {
    out.set(name, { kind: "whole", dataClass });
  }
  const processes = processesOf(state);
  for (const s of plan.subscriptions) {
    if (!processes.has(s.process)) continue;
    const dataClass = s.dataClass === "none" ? undefined : s.dataClass;
    if (s.redactors.length === 0 && dataClass === undefined) continue;
    // The validation summary quotes the payload in its issue messages: it is protected alike.
    for (const name of [s.variable, VALIDATION]) protect(out, name, s.redactors, dataClass);
  }
  return out;
}

/** Adds one source's protection of `name` to `out`: whole wins, redactors pool. */
function protect(
  out: Map<string, VariableProtection>,
  name: string,
  redactors: readonly string[],
  dataClass: string | undefined,
): void {
  const had = out.get(name);
  if (had?.kind === "whole") return;
  if (redactors.length === 0) {
    out.set(name, { kind: "whole", dataClass: dataClass! });
    return;
  }
  const names = [...new Set([...(had?.redactors ?? []), ...redactors])].sort();
  const cls = dataClass ?? had?.dataClass;
  out.set(name, { kind: "spans", redactors: names, ...(cls ? { dataClass: cls } : {}) });
}

/** Options for {@link observedVariables}. */
export interface ObserveOptions {
  /** Where redactors are looked up (defaults to the process-wide registry). */
  readonly registry?: Registry<Redactor>;
}

/** The observable copy of some variables. */
export interface Observed {
  /** Every variable by name in display form, protected parts masked. */
  readonly variables: Record<string, string>;
  /** Each variable with something masked, with why (a class, or the redactors that found spans). */
  readonly redacted: Record<string, string>;
  /** Redactors that failed (their variable is masked whole). */
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * The observable copy of `variables` (by default the instance's root
 * scope), protected by {@link protectedVariables}.
 */
export function observedVariables(
  plan: ExecutionPlan,
  state: InstanceState,
  options: ObserveOptions & { readonly variables?: ReadonlyMap<string, FeelValue> } = {},
): Observed {
  const protections = protectedVariables(plan, state);
  const vars = options.variables ??
    [...state.scopes.values()].find((s) => s.parent === undefined)?.vars ?? new Map();
  const variables: Record<string, string> = {};
  const redacted: Record<string, string> = {};
  const diagnostics: Diagnostic[] = [];
  for (const [name, value] of vars) {
    const protection = protections.get(name);
    if (protection === undefined) {
      variables[name] = formatFeel(value);
    } else if (protection.kind === "whole" || value === MASK) {
      // A value that is the mask already (a sealed entry read without its key) stays one.
      variables[name] = MASK;
      redacted[name] = protection.kind === "whole"
        ? protection.dataClass
        : protection.dataClass ?? protection.redactors.join(",");
    } else {
      const masked = maskSpans(value, protection.redactors, options.registry ?? redactors, {
        dataClass: protection.dataClass,
      });
      variables[name] = masked.text;
      if (masked.masked) redacted[name] = protection.dataClass ?? protection.redactors.join(",");
      diagnostics.push(...masked.diagnostics);
    }
  }
  return { variables, redacted, diagnostics };
}

/** `value` with the spans the redactors locate masked, in display form. */
function maskSpans(
  value: FeelValue,
  names: readonly string[],
  registry: Registry<Redactor>,
  context: { dataClass?: string },
): { text: string; masked: boolean; diagnostics: readonly Diagnostic[] } {
  const r = redact(toJs(value), names, { registry, dataClass: context.dataClass });
  if (r.spans.length === 0) return { text: formatFeel(value), masked: false, diagnostics: [] };
  const text = r.value === MASK ? MASK : formatFeel(fromJs(r.value));
  return { text, masked: true, diagnostics: r.diagnostics };
}
