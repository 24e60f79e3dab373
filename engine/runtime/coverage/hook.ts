/**
 * Where a step commit finds the engine's coverage service: attached to the
 * engine's database handle at boot (the same keying the alias predictions
 * use), so the commit path needs no new option threaded through it.
 *
 * @module
 */
import type { StepResult } from "../../executor/mod.ts";
import type { Database } from "../../persistence/mod.ts";
import type { ActiveDeployment } from "../deployments/registry.ts";
import type { CoverageService, StepCoverageWork } from "./service.ts";

const services = new WeakMap<Database, CoverageService>();

/** Makes `service` the coverage service of the engine using `db`, and `db` its engine database. */
export function attachCoverage(db: Database, service: CoverageService): void {
  services.set(db, service);
  service.useEngineDatabase(db);
}

/** A step as coverage needs it. */
export interface CoverageStep {
  readonly deployment: ActiveDeployment;
  readonly processId: string;
  readonly instanceId: string;
  readonly result: Pick<StepResult, "state" | "effects">;
}

const NOTHING: StepCoverageWork = { committed: () => Promise.resolve() };

/**
 * The coverage of a step about to commit on `db`: statements for its
 * commit transaction when the coverage store is the engine database, and
 * what to do once it committed. Never throws.
 */
export async function coverageOfStep(db: Database, step: CoverageStep): Promise<StepCoverageWork> {
  const service = services.get(db);
  if (!service || step.result.effects.coverage.length === 0) return NOTHING;
  return await service.step(step.deployment, stepCoverage(step));
}

function stepCoverage(step: CoverageStep) {
  return {
    processId: step.processId,
    instanceId: step.instanceId,
    completed: step.result.effects.coverage,
    // An instance that ends within the step has already retired its aliases:
    // they still name the business transaction the step belonged to.
    aliases: [
      ...step.result.state?.aliases ?? [],
      ...step.result.effects.aliasesRecorded,
      ...step.result.effects.aliasesRetired,
    ],
  };
}
