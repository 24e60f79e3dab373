/**
 * Linking the plans of one package. Each BPMN file is planned on its own,
 * but a package is deployed as a unit: a call activity may call a process
 * of another of its files. A linked plan is the file's plan with every
 * process of the package reachable through `processById`; everything else
 * (its own processes, subscriptions, schedules) stays the file's own, so
 * routing is unchanged.
 *
 * @module
 */
import { FrozenMap } from "./_freeze.ts";
import type { ExecutionPlan, ProcessPlan } from "./plan.ts";

/**
 * The plans of one package, each able to reach every process of the
 * others (a file's own process wins an id clash, which package lint
 * refuses anyway). One plan alone comes back as it is.
 */
export function linkPlans(plans: readonly ExecutionPlan[]): ExecutionPlan[] {
  if (plans.length < 2) return [...plans];
  return plans.map((plan) => {
    const byId = new Map<string, ProcessPlan>(plan.processById);
    for (const other of plans) {
      for (const process of other.processes) {
        if (!byId.has(process.id)) byId.set(process.id, process);
      }
    }
    return Object.freeze({ ...plan, processById: new FrozenMap(byId) });
  });
}
