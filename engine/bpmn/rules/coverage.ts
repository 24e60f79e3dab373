/**
 * Declared coverage routes must be meaningful: every flow id belongs to the
 * declaring process, consecutive flows connect (each flow ends where the
 * next begins), and a path id is declared once per process. Applies to
 * every process: a route that cannot be walked is a broken declaration.
 *
 * @module
 */
import type { RuleContext } from "./context.ts";

/** Checks every `q:coverage` declaration. */
export function checkCoverage(ctx: RuleContext): void {
  for (const process of ctx.index.definitions.processes) {
    const seen = new Map<string, number>();
    for (const route of process.q.coverage) {
      const first = seen.get(route.path);
      if (first !== undefined) {
        ctx.report(
          "SUTRA.CONFIG.BPMN.COVERAGE_PATH_DUPLICATE",
          `coverage path '${route.path}' is already declared on line ${first}`,
          route,
          { attributes: { path: route.path, process: process.id } },
        );
      } else if (route.path) {
        seen.set(route.path, route.line);
      }
      let previousTarget: string | undefined;
      let previousId: string | undefined;
      for (const flowId of route.flows) {
        const entry = ctx.index.flows.get(flowId);
        if (!entry || entry.container.process !== process) {
          ctx.report(
            "SUTRA.CONFIG.BPMN.COVERAGE_FLOW_UNKNOWN",
            `coverage path '${route.path}' names flow '${flowId}', which process '${process.id}' does not have`,
            route,
            { attributes: { path: route.path, flow: flowId } },
          );
          previousTarget = undefined;
          continue;
        }
        if (previousTarget !== undefined && entry.flow.sourceRef !== previousTarget) {
          ctx.report(
            "SUTRA.CONFIG.BPMN.COVERAGE_NOT_CONTIGUOUS",
            `coverage path '${route.path}': flow '${previousId}' ends at '${previousTarget}' but the ` +
              `next flow '${flowId}' starts at '${entry.flow.sourceRef}'`,
            route,
            { attributes: { path: route.path, flow: flowId, after: previousId ?? "" } },
          );
        }
        previousTarget = entry.flow.targetRef;
        previousId = flowId;
      }
    }
  }
}
