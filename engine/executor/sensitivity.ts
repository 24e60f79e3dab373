/**
 * Which variables of an instance are sensitive. Two things make a variable
 * sensitive: its process declares it so (`q:variable sensitive="true"`), or
 * the executor marked it while the instance ran because a data association
 * wrote into it a value read from a store with a `dataClass`, or a value
 * computed from a name that was already sensitive. The marks live in the
 * instance state (and its snapshot), so they outlast the step that made
 * them. The flow always works with the real values; every surface that
 * shows variables to people (the admin instance view, audit, logs) masks
 * the names listed here.
 *
 * Marks are by variable name, whatever scope holds the variable: a name
 * marked anywhere in the instance is masked everywhere in it. That may mask
 * more than needed, never less.
 *
 * @module
 */
import type { ExecutionPlan } from "../bpmn/mod.ts";
import type { InstanceState } from "./state.ts";

/** The class reported for a variable its process declares sensitive in `q:variables`. */
export const DECLARED_SENSITIVE = "sensitive";

/**
 * Every sensitive variable name of the instance with its class: the store's
 * `dataClass` (`pii`, `pci`, `phi`, `financial`) for values read from a
 * classified store, {@link DECLARED_SENSITIVE} for names the instance's
 * processes declare sensitive (and values computed from them). Names are
 * sorted.
 */
export function sensitiveVariables(
  plan: ExecutionPlan,
  state: InstanceState,
): Map<string, string> {
  const out = new Map(state.sensitive);
  const processes = new Set([state.process]);
  for (const scope of state.scopes.values()) processes.add(scope.process);
  for (const id of processes) {
    for (const name of plan.processById.get(id)?.sensitive ?? []) {
      if (!out.has(name)) out.set(name, DECLARED_SENSITIVE);
    }
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
