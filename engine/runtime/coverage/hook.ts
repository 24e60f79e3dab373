/**
 * Where a step commit finds the engine's coverage service: attached to the
 * engine's database handle at boot (the same keying the alias predictions
 * use), so the commit path needs no new option threaded through it.
 *
 * @module
 */
import type { StepResult } from "../../executor/mod.ts";
import type { ActiveDeployment } from "../deployments/registry.ts";
import type { CoverageService } from "./service.ts";

const services = new WeakMap<object, CoverageService>();

/** Makes `service` the coverage service of the engine using `db`. */
export function attachCoverage(db: object, service: CoverageService): void {
  services.set(db, service);
}

/**
 * Records the coverage a committed step completed, when the engine using
 * `db` has a coverage service; never throws.
 */
export async function coverageCommitted(
  db: object,
  step: {
    readonly deployment: ActiveDeployment;
    readonly processId: string;
    readonly instanceId: string;
    readonly result: Pick<StepResult, "state" | "effects">;
  },
): Promise<void> {
  const completed = step.result.effects.coverage;
  if (completed.length === 0) return;
  await services.get(db)?.stepCommitted(step.deployment, {
    processId: step.processId,
    instanceId: step.instanceId,
    completed,
    // An instance that ends within the step has already retired its aliases:
    // they still name the business transaction the step belonged to.
    aliases: [
      ...step.result.state?.aliases ?? [],
      ...step.result.effects.aliasesRecorded,
      ...step.result.effects.aliasesRetired,
    ],
  });
}
