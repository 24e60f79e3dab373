/**
 * Path coverage: the reserved coverage store's SPI, the routes a
 * deployment declares, marking committed steps, cross-process
 * reconstruction, and the report / reset ops.
 *
 * @module
 */
export {
  COVERAGE_STORE_NAME,
  type CoverageFragment,
  type CoverageOpenOptions,
  type CoverageStore,
  type CoverageStoreProvider,
  coverageStoreProviders,
  type CoverageWrite,
  type StoredFragment,
} from "./spi.ts";
export { type CrossRoute, type DeclaredRoutes, declaredRoutes, routeIds } from "./declared.ts";
export { completedRoutes } from "./reconstruct.ts";
export { planStepCoverage, reconcile, type StepCoverage, type StepPlan } from "./marks.ts";
export { type CoverageReport, coverageReport, coverageReset } from "./report.ts";
export {
  COVERAGE_STORE_MISSING,
  CoverageService,
  openCoverageFor,
  type StepCoverageWork,
} from "./service.ts";
export { attachCoverage, coverageOfStep, type CoverageStep } from "./hook.ts";
export { countCovered, PATH_COVERED_METER } from "./metric.ts";
export { coverageTasks, REPORT_TASK, RESET_TASK } from "./tasks.ts";
export { addCoverageRoutes, type CoverageRoutesOptions } from "./routes.ts";
export { withCoverageSegments } from "./segments.ts";
