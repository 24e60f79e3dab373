/**
 * Cross-process routes enter execution as ordinary intra-process paths:
 * each route's segment for a process is added to that process's declared
 * coverage under the route's id, so the executor's existing ordered
 * matching marks it, and a completed segment reaches the commit as the
 * route id — which `planStepCoverage` (marks.ts) turns into a
 * correlation-tagged fragment rather than a flag.
 *
 * @module
 */
import type { ExecutionPlan, PlanCoverage, ProcessPlan } from "../../bpmn/mod.ts";
import type { LoadedPackage } from "../../package/mod.ts";
import { declaredRoutes } from "./declared.ts";

/**
 * `plan` with every segment the package's coverage files declare for its
 * processes added to their coverage. A segment naming a flow the process
 * lacks is skipped (lint refuses such a package before it gets here).
 */
export function withCoverageSegments(plan: ExecutionPlan, pkg: LoadedPackage): ExecutionPlan {
  const { cross } = declaredRoutes(pkg, []);
  if (cross.length === 0) return plan;
  let changed = false;
  const processes = plan.processes.map((process): ProcessPlan => {
    const added: PlanCoverage[] = [];
    // Applying it twice (the deployment's compile did once) adds nothing more.
    const have = new Set(process.coverage.map((c) => c.path));
    for (const route of cross) {
      if (have.has(route.id)) continue;
      const flows = route.segments.get(process.id);
      if (!flows) continue;
      const indexes = flows.map((id) => process.flowIndex.get(id));
      if (indexes.some((i) => i === undefined)) continue;
      added.push({ path: route.id, flows: indexes as number[] });
    }
    if (added.length === 0) return process;
    changed = true;
    return Object.freeze({ ...process, coverage: [...process.coverage, ...added] });
  });
  if (!changed) return plan;
  const processById = new Map(plan.processById);
  for (const p of processes) processById.set(p.id, p);
  return Object.freeze({ ...plan, processes, processById });
}
