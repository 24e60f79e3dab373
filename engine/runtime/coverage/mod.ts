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
  type CoverageStore,
  type CoverageStoreProvider,
  coverageStoreProviders,
  type StoredFragment,
} from "./spi.ts";
export { type CrossRoute, type DeclaredRoutes, declaredRoutes, routeIds } from "./declared.ts";
export { completedRoutes } from "./reconstruct.ts";
export { reconcile, recordStepCoverage, type StepCoverage } from "./marks.ts";
export { type CoverageReport, coverageReport, coverageReset } from "./report.ts";
export { COVERAGE_STORE_MISSING, CoverageService, openCoverageFor } from "./service.ts";
export { attachCoverage, coverageCommitted } from "./hook.ts";
export { addCoverageRoutes, type CoverageRoutesOptions } from "./routes.ts";
export { withCoverageSegments } from "./segments.ts";
