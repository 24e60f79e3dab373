/**
 * `PATCH /admin/instances/{id}/variables`: an operator sets root variables
 * of a live or FAILED instance (the Cockpit habit: fix the data, then
 * retry). Values are typed the way snapshots type them: JSON strings,
 * booleans, numbers and null as themselves, and lists and objects through
 * the snapshot's JSON form, where a temporal rides a one-key object
 * (`{"@d":"2026-03-01"}`, `{"@dt":…}`, `{"@t":…}`, `{"@dtd":"PT1H"}`,
 * `{"@ymd":"P1M"}`). A variable the process declares with a `q:variable`
 * type must receive a value of that type; a transient one is refused (it is
 * never persisted). The change is journaled by name only (never the
 * values), and refused while another owner holds the instance's claim.
 *
 * @module
 */
import { type FeelValue, kindName } from "../../../lang/feel/mod.ts";
import type { ProcessPlan } from "../../bpmn/mod.ts";
import { type Diagnostic, diagnostic } from "../../core/diagnostic.ts";
import { decodeValue } from "../../executor/mod.ts";
import { errorMessage } from "../../core/errors.ts";
import { MAX_NESTING_DEPTH } from "../../core/input_limits.ts";
import { hasControl } from "./search.ts";

/** FEEL kinds a declared `q:variable` type admits (null is always admitted). */
const KINDS: Readonly<Record<string, readonly string[]>> = {
  string: ["string"],
  number: ["number"],
  boolean: ["boolean"],
  date: ["date"],
  time: ["time"],
  dateTime: ["date and time"],
  duration: ["days and time duration", "years and months duration"],
  list: ["list"],
  context: ["context"],
};

function invalid(field: string, message: string): Diagnostic {
  return diagnostic("SUTRA.ADMIN.BODY.INVALID", message, { attributes: { field } });
}

/** A JSON value as the FEEL value a snapshot would hold. */
function typed(value: unknown): FeelValue {
  if (value === null) return null;
  switch (typeof value) {
    case "string":
      return value;
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value)) throw new Error("a number must be finite");
      return decodeValue(`n|${value}`);
    default:
      return decodeValue(`j|${JSON.stringify(value)}`);
  }
}

/**
 * Reads a change body `{"variables": {NAME: VALUE, …}}` against the
 * instance's process; every problem is reported at once, each naming its
 * variable.
 */
export function parseVariableChange(
  body: unknown,
  process: ProcessPlan,
): { values: Map<string, FeelValue> } | { diagnostics: Diagnostic[] } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { diagnostics: [invalid("body", "the body must be a JSON object")] };
  }
  const extra = Object.keys(body).filter((k) => k !== "variables");
  const variables = (body as { variables?: unknown }).variables;
  const problems: Diagnostic[] = extra.map((k) =>
    invalid(k, `unknown field '${k}'; the body takes {"variables": {…}}`)
  );
  if (typeof variables !== "object" || variables === null || Array.isArray(variables)) {
    problems.push(invalid("variables", "'variables' must be an object of name to value"));
    return { diagnostics: problems };
  }
  const entries = Object.entries(variables);
  if (entries.length === 0) {
    problems.push(invalid("variables", "'variables' names no variable to set"));
  }
  const declared = new Map(process.variables.map((v) => [v.name, v]));
  const values = new Map<string, FeelValue>();
  for (const [name, raw] of entries) {
    if (name.trim() === "" || hasControl(name)) {
      problems.push(
        invalid(`variables.${name}`, "a variable name must be printable and not empty"),
      );
      continue;
    }
    if (process.transient.has(name)) {
      problems.push(diagnostic(
        "SUTRA.ADMIN.VARIABLES.TRANSIENT",
        `variable '${name}' is transient in process '${process.id}': it is never persisted, so it cannot be set`,
        { attributes: { variable: name } },
      ));
      continue;
    }
    const unfit = unfitValue(raw);
    if (unfit) {
      problems.push(invalid(`variables.${name}`, `variable '${name}': the value ${unfit}`));
      continue;
    }
    let value: FeelValue;
    try {
      value = typed(raw);
    } catch (error) {
      problems.push(invalid(`variables.${name}`, `variable '${name}': ${errorMessage(error)}`));
      continue;
    }
    const type = declared.get(name)?.type;
    const admitted = type === undefined ? undefined : KINDS[type];
    if (value !== null && admitted !== undefined && !admitted.includes(kindName(value))) {
      problems.push(diagnostic(
        "SUTRA.ADMIN.VARIABLES.TYPE_MISMATCH",
        `variable '${name}' is declared ${type} in process '${process.id}', but the value is a ${
          kindName(value)
        }`,
        { attributes: { variable: name, declared: type!, given: kindName(value) } },
      ));
      continue;
    }
    values.set(name, value);
  }
  return problems.length > 0 ? { diagnostics: problems } : { values };
}

/**
 * Why a JSON value cannot become a variable, or undefined: nested past {@link MAX_NESTING_DEPTH} levels,
 * or holding a lone surrogate, which has no UTF-8 form and would be kept as U+FFFD. Iterative, so
 * any depth is safe to look at.
 */
function unfitValue(raw: unknown): string | undefined {
  const stack: { value: unknown; depth: number }[] = [{ value: raw, depth: 0 }];
  for (let at = stack.pop(); at !== undefined; at = stack.pop()) {
    const { value, depth } = at;
    if (typeof value === "string") {
      if (!value.isWellFormed()) return "holds a lone surrogate, which is not text";
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (depth >= MAX_NESTING_DEPTH) return `nests deeper than ${MAX_NESTING_DEPTH} levels`;
    for (const [key, member] of Object.entries(value)) {
      if (!key.isWellFormed()) return "holds a lone surrogate, which is not text";
      stack.push({ value: member, depth: depth + 1 });
    }
  }
  return undefined;
}
