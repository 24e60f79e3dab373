/**
 * The coverage report and reset, shared by the admin routes and the CLI so
 * the runtime signal and the CI gate are the identical query: reconstruct
 * any cross-process route that has completed since the last read, then
 * count the flags from one snapshot. A percentage is derived here, never
 * stored.
 *
 * @module
 */
import type { DeclaredRoutes } from "./declared.ts";
import { reconcile } from "./marks.ts";
import type { CoverageStore } from "./spi.ts";

/** What a report answers. */
export interface CoverageReport {
  readonly deploymentId: string;
  readonly total: number;
  readonly covered: number;
  /** `covered / total` in percent; 100 when nothing is declared. */
  readonly coveragePercentage: number;
  /** Cross-process routes this read's reconstruction flipped. */
  readonly newlyCovered: readonly string[];
  readonly uncovered: readonly string[];
}

/** What a reset answers. */
export interface CoverageResetResult {
  readonly deploymentId: string;
  readonly total: number;
  /** How many routes had been covered. */
  readonly cleared: number;
}

/** Seeds the declared routes (idempotent), reconstructs, and counts. */
export async function coverageReport(
  store: CoverageStore,
  declared: DeclaredRoutes,
  deploymentId: string,
  routeIds: readonly string[],
): Promise<CoverageReport> {
  await store.seed(deploymentId, routeIds);
  const newlyCovered = await reconcile(store, deploymentId, declared.cross);
  const counts = await store.counts(deploymentId);
  return {
    deploymentId,
    total: counts.total,
    covered: counts.covered,
    coveragePercentage: counts.total === 0 ? 100 : (counts.covered * 100) / counts.total,
    newlyCovered,
    uncovered: counts.uncovered,
  };
}

/** Re-seeds every declared route uncovered and clears the reconstruction fragments. */
export async function coverageReset(
  store: CoverageStore,
  deploymentId: string,
  routeIds: readonly string[],
): Promise<CoverageResetResult> {
  await store.seed(deploymentId, routeIds);
  const { total, cleared } = await store.reset(deploymentId);
  return { deploymentId, total, cleared };
}
