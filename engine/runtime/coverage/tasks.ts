/**
 * The coverage ops as service tasks, for the admin channels a package
 * exposes itself (the book's `coverage-report` / `coverage-reset`
 * channels): a process started on such a channel runs
 * `implementation="registered:coverage:report"` (or `coverage:reset`),
 * which answers the op for the instance's own deployment into the
 * variable `coverage`, and renders its reply from it. A deployment
 * without a usable store fails the attempt with code
 * `SUTRA.CONFIG.COVERAGE.STORE_MISSING` and the op's message (the
 * instance then fails saying why), never with a count.
 *
 * @module
 */
import { DiagnosticError } from "../../core/diagnostic.ts";
import { errorMessage } from "../../core/errors.ts";
import { ExecutorCode, type TaskOutcome, type TaskPort } from "../../executor/mod.ts";
import type { ActiveDeployment } from "../deployments/registry.ts";
import { offLane } from "../dispatch/lanes.ts";
import { COVERAGE_STORE_MISSING, type CoverageService } from "./service.ts";

/** The registered task that answers `coverage:report`. */
export const REPORT_TASK = "coverage:report";
/** The registered task that answers `coverage:reset`. */
export const RESET_TASK = "coverage:reset";

const services = new WeakMap<ActiveDeployment, CoverageService>();

/** Makes `service` the one answering the coverage tasks of `deployment`'s instances. */
export function serveCoverageTasks(deployment: ActiveDeployment, service: CoverageService): void {
  services.set(deployment, service);
}

/**
 * The registered tasks `deployment`'s instances can call: the two coverage
 * ops. Any other name fails the attempt, as a task nobody registered does.
 */
export function coverageTasks(deployment: ActiveDeployment): TaskPort {
  return {
    run: ({ name }) => {
      if (name !== REPORT_TASK && name !== RESET_TASK) {
        return failure(ExecutorCode.TASK_FAILED, `no task is registered as '${name}'`);
      }
      const service = services.get(deployment);
      if (!service) {
        return failure(
          COVERAGE_STORE_MISSING,
          `deployment ${deployment.deploymentId}: no coverage service serves it`,
        );
      }
      // The op reads (and may write) the coverage store: other instances keep the lane meanwhile.
      return offLane(() => op(service, deployment, name));
    },
  };
}

async function op(
  service: CoverageService,
  deployment: ActiveDeployment,
  name: string,
): Promise<TaskOutcome> {
  try {
    const answer = name === REPORT_TASK
      ? await service.report(deployment)
      : await service.reset(deployment);
    return { outputs: { coverage: answer } };
  } catch (error) {
    if (error instanceof DiagnosticError) {
      const first = error.diagnostics[0];
      return failure(first.code, first.message);
    }
    return failure(ExecutorCode.TASK_FAILED, errorMessage(error));
  }
}

function failure(code: string, message: string): TaskOutcome {
  return { failure: { code, message } };
}
