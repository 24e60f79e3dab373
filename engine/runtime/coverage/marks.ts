/**
 * Turning one committed step's coverage effects into store writes. The
 * executor lists the routes a step completed (`effects.coverage`); an
 * intra-process path flips its flag directly, a segment of a cross-process
 * route lands as a fragment tagged with the instance's correlation values,
 * and then the route's correlated groups are reconstructed to flip the
 * route once one business transaction has walked every segment.
 *
 * @module
 */
import type { RecordedAlias } from "../../executor/mod.ts";
import { type CrossRoute, type DeclaredRoutes, pathOfKey } from "./declared.ts";
import { completedRoutes } from "./reconstruct.ts";
import type { CoverageFragment, CoverageStore, CoverageWrite } from "./spi.ts";

/** One committed step, as far as coverage is concerned. */
export interface StepCoverage {
  readonly deploymentId: string;
  /** The instance's own process. */
  readonly processId: string;
  readonly instanceId: string;
  /** `effects.coverage`: the executor's keys of the routes this step completed. */
  readonly completed: readonly string[];
  /** The correlation aliases the instance holds after the step. */
  readonly aliases: readonly Pick<RecordedAlias, "name" | "value">[];
}

/** What one step writes, and the cross-process routes to reconstruct after. */
export interface StepPlan {
  readonly write: CoverageWrite;
  /** Routes a fragment of this step belongs to. */
  readonly touched: readonly CrossRoute[];
}

/**
 * A step's writes: an intra-process path flips its flag, a segment of a
 * cross-process route lands as a fragment tagged with the instance's
 * correlation values.
 */
export function planStepCoverage(declared: DeclaredRoutes, step: StepCoverage): StepPlan {
  const crossById = new Map(declared.cross.map((r) => [r.id, r]));
  const marks: string[] = [];
  const fragments: CoverageFragment[] = [];
  const touched: CrossRoute[] = [];
  for (const key of step.completed) {
    const id = pathOfKey(key);
    const cross = crossById.get(id);
    if (!cross) {
      marks.push(id);
      continue;
    }
    const hash = key.indexOf("#");
    touched.push(cross);
    fragments.push({
      routeId: id,
      processId: hash < 0 ? step.processId : key.slice(0, hash),
      instanceId: step.instanceId,
      correlations: [
        ...new Set(
          step.aliases
            .filter((a) => cross.keys.includes(a.name))
            .map((a) => `${a.name}=${a.value}`),
        ),
      ],
    });
  }
  return { write: { marks, fragments }, touched };
}

/**
 * Flips the routes of `routes` whose fragments now add up to one complete
 * correlated walk; answers those this call newly covered.
 */
export async function reconcile(
  store: CoverageStore,
  deploymentId: string,
  routes: readonly CrossRoute[],
): Promise<string[]> {
  if (routes.length === 0) return [];
  const done = completedRoutes(routes, await store.fragments(deploymentId));
  return done.length === 0 ? [] : await store.write(deploymentId, { marks: done });
}
