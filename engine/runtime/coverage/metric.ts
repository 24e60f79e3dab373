/**
 * The `sutra.coverage.path_covered` meter: declared routes flipping from
 * uncovered to covered, counted once per flip (the guarded update's
 * affected rows, so concurrent walks of one route count it once). Its
 * labels are the deployment and, for a flip a step caused, that step's
 * process; route ids are no metric label, so which routes are covered is
 * the report's to say.
 *
 * @module
 */
import type { Database } from "../../persistence/mod.ts";
import type { Counter, MetricRegistry } from "../telemetry/metrics.ts";
import { telemetryOf } from "../telemetry/mod.ts";

/** The meter's name. */
export const PATH_COVERED_METER = "sutra.coverage.path_covered";

const counters = new WeakMap<MetricRegistry, Counter>();

/** Counts `routes` newly covered in `deploymentId`, when the engine on `db` keeps meters. */
export function countCovered(
  db: Database | undefined,
  flip: { readonly deploymentId: string; readonly processId?: string },
  routes: readonly string[],
): void {
  const registry = db && telemetryOf(db)?.registry;
  if (!registry || routes.length === 0) return;
  let counter = counters.get(registry);
  if (!counter) {
    counter = registry.counter({
      name: PATH_COVERED_METER,
      description: "Declared coverage routes newly covered (first traversal since the last reset).",
      labels: ["deployment", "process"],
    });
    counters.set(registry, counter);
  }
  counter.add(routes.length, { deployment: flip.deploymentId, process: flip.processId });
}
