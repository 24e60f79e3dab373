/**
 * One engine's coverage stores, per deployment. A deployment's reserved
 * `coverage` store is opened (its tables created) and its declared routes
 * seeded when the deployment becomes active; a store that cannot be opened
 * is logged as an error naming the deployment at that moment, and the
 * report / reset ops then fail with `SUTRA.CONFIG.COVERAGE.STORE_MISSING`
 * naming the cause — never a fabricated 0%.
 *
 * Marking a step: when the coverage store is the engine database itself,
 * the step's marks and fragments are statements of its own commit
 * transaction, so a crash between the commit and the mark cannot lose one.
 * On any other database they are written right after the commit, in the
 * store's own transaction, best-effort: a metric side-effect never fails a
 * business instance, and a failure is logged.
 *
 * @module
 */
import type { ResolveContext } from "../../core/secrets.ts";
import { diagnostic, DiagnosticError } from "../../core/diagnostic.ts";
import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/log.ts";
import { declarationOf } from "../../datastore/mod.ts";
import type { Database, Transaction } from "../../persistence/mod.ts";
import type { ActiveDeployment, DeploymentRegistry } from "../deployments/registry.ts";
import { type DeclaredRoutes, declaredRoutes, routeIds } from "./declared.ts";
import { planStepCoverage, reconcile, type StepCoverage } from "./marks.ts";
import { countCovered } from "./metric.ts";
import { serveCoverageTasks } from "./tasks.ts";
import {
  type CoverageReport,
  coverageReport,
  coverageReset,
  type CoverageResetResult,
} from "./report.ts";
import { COVERAGE_STORE_NAME, type CoverageStore, coverageStoreProviders } from "./spi.ts";

/** The code of a coverage op with no store to read. */
export const COVERAGE_STORE_MISSING = "SUTRA.CONFIG.COVERAGE.STORE_MISSING";

/** What {@link CoverageService} needs. */
export interface CoverageServiceOptions {
  readonly registry: DeploymentRegistry;
  /** Resolves the store's `url-ref` / `username-ref` / `password-ref`. */
  readonly resolve: ResolveContext;
  readonly logger: Logger;
}

/**
 * A step's coverage around its commit: `work` (present when the marks ride
 * in the commit transaction) runs inside it, possibly more than once when a
 * group commit retries it alone; `committed` runs once it is durable.
 */
export interface StepCoverageWork {
  readonly work?: (tx: Transaction) => Promise<void>;
  /** Never throws. */
  committed(): Promise<void>;
}

/** A deployment's open coverage store and what it declares. */
export interface Opened {
  readonly store: CoverageStore;
  readonly declared: DeclaredRoutes;
  readonly routeIds: readonly string[];
}

/** The coverage of every deployment an engine serves. */
export class CoverageService {
  readonly #o: CoverageServiceOptions;
  readonly #open = new Map<string, Promise<Opened>>();
  readonly #unsubscribe: () => void;
  #engine: Database | undefined;

  /** @param options the registry it follows and how references resolve */
  constructor(options: CoverageServiceOptions) {
    this.#o = options;
    this.#unsubscribe = options.registry.subscribe(() => void this.#follow());
  }

  /**
   * The database the engine runs on: a coverage store declared on this
   * very database is served over it (marks then commit with steps), and
   * the engine's meters count covered routes. Set it before {@link start}.
   */
  useEngineDatabase(db: Database): void {
    this.#engine = db;
  }

  /** Opens and seeds the stores of the deployments active now (call once at boot). */
  async start(): Promise<void> {
    await this.#follow();
  }

  /**
   * A step's coverage, planned before its commit: statements for the
   * commit transaction when the store is the engine database, else
   * {@link stepCommitted} after it. Never throws.
   */
  async step(
    deployment: ActiveDeployment,
    step: Omit<StepCoverage, "deploymentId">,
  ): Promise<StepCoverageWork> {
    if (step.completed.length === 0) return { committed: () => Promise.resolve() };
    const full = { ...step, deploymentId: deployment.deploymentId };
    const opened = await this.#opened(deployment).catch(() => undefined);
    const plan = opened && planStepCoverage(opened.declared, full);
    const inCommit = plan && opened.store.inTransaction?.(full.deploymentId, plan.write);
    if (!inCommit) return { committed: () => this.stepCommitted(deployment, step) };
    // Only the run in the transaction that committed is read.
    let newly: readonly string[] = [];
    return {
      work: async (tx) => {
        newly = await inCommit(tx);
      },
      committed: () =>
        this.#recorded(full, async () => [
          ...newly,
          // Reconstruction reads every fragment, so it stays out of the commit; the report
          // reconstructs too, so a crash before it loses no route.
          ...await reconcile(opened.store, full.deploymentId, plan.touched),
        ]),
    };
  }

  /**
   * Records a committed step's completed routes in the store's own
   * transaction, after the commit; never throws.
   */
  async stepCommitted(
    deployment: ActiveDeployment,
    step: Omit<StepCoverage, "deploymentId">,
  ): Promise<void> {
    if (step.completed.length === 0) return;
    const full = { ...step, deploymentId: deployment.deploymentId };
    await this.#recorded(full, async () => {
      const opened = await this.#opened(deployment);
      const plan = planStepCoverage(opened.declared, full);
      return [
        ...await opened.store.write(full.deploymentId, plan.write),
        ...await reconcile(opened.store, full.deploymentId, plan.touched),
      ];
    });
  }

  // Counts what `work` newly covered; a failure is logged, never thrown.
  async #recorded(step: StepCoverage, work: () => Promise<readonly string[]>): Promise<void> {
    try {
      countCovered(this.#engine, step, await work());
    } catch (error) {
      this.#o.logger.warn("recording path coverage failed; the step itself was committed", {
        deploymentId: step.deploymentId,
        instanceId: step.instanceId,
        error: errorMessage(error),
      });
    }
  }

  /** The deployment's report; throws a `STORE_MISSING` {@link DiagnosticError} without a store. */
  async report(deployment: ActiveDeployment): Promise<CoverageReport> {
    const opened = await this.#opened(deployment);
    const report = await this.#read(
      deployment,
      () => coverageReport(opened.store, opened.declared, deployment.deploymentId, opened.routeIds),
    );
    countCovered(this.#engine, { deploymentId: deployment.deploymentId }, report.newlyCovered);
    return report;
  }

  /** Re-seeds the deployment's routes uncovered; throws like {@link report}. */
  async reset(deployment: ActiveDeployment): Promise<CoverageResetResult> {
    const opened = await this.#opened(deployment);
    return await this.#read(
      deployment,
      () => coverageReset(opened.store, deployment.deploymentId, opened.routeIds),
    );
  }

  /** Stops following the registry and closes every store. */
  async close(): Promise<void> {
    this.#unsubscribe();
    await Promise.all([...this.#open.keys()].map((id) => this.#closeOne(id)));
  }

  // A store that opened but whose read failed surfaces that failure, not a count.
  async #read<T>(deployment: ActiveDeployment, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw missing(
        deployment,
        `its coverage store opened, but reading it failed: ${errorMessage(error)}`,
      );
    }
  }

  #opened(deployment: ActiveDeployment): Promise<Opened> {
    const cached = this.#open.get(deployment.deploymentId);
    if (cached) return cached;
    const opening = openCoverageFor(deployment, this.#o.resolve, this.#engine);
    this.#open.set(deployment.deploymentId, opening);
    // Not cached when it failed: the next op (or step) tries again.
    opening.catch(() => this.#open.delete(deployment.deploymentId));
    return opening;
  }

  async #follow(): Promise<void> {
    const live = this.#o.registry.list();
    for (const d of live) serveCoverageTasks(d, this);
    const ids = new Set(live.map((d) => d.deploymentId));
    await Promise.all(
      [...this.#open.keys()].filter((id) => !ids.has(id)).map((id) => this.#closeOne(id)),
    );
    await Promise.all(
      live.filter((d) => !this.#open.has(d.deploymentId)).map(async (d) => {
        const declared = declaredRoutes(d.package, d.plans.values());
        const declares = routeIds(declared).length > 0;
        const hasStore = (d.package.stores.entries ?? []).some((s) =>
          s.name === COVERAGE_STORE_NAME
        );
        if (!declares && !hasStore) return;
        try {
          await this.#opened(d);
        } catch (error) {
          this.#o.logger.error(
            "the deployment's coverage store is unusable; coverage ops will fail",
            {
              deploymentId: d.deploymentId,
              error: errorMessage(error),
            },
          );
        }
      }),
    );
  }

  async #closeOne(deploymentId: string): Promise<void> {
    const opening = this.#open.get(deploymentId);
    if (!opening) return;
    this.#open.delete(deploymentId);
    try {
      await (await opening).store.close();
    } catch {
      // It never opened: there is nothing to close.
    }
  }
}

/**
 * Opens the deployment's coverage store and seeds its declared routes; a
 * declaration naming `engineDatabase` is served over that handle. Throws
 * `STORE_MISSING` naming why when there is no store or it cannot be opened.
 */
export async function openCoverageFor(
  deployment: Pick<ActiveDeployment, "deploymentId" | "package" | "plans">,
  resolve: ResolveContext,
  engineDatabase?: Database,
): Promise<Opened> {
  const pkg = deployment.package;
  const decl = (pkg.stores.entries ?? []).find((s) => s.name === COVERAGE_STORE_NAME);
  if (!decl) {
    throw missing(
      deployment,
      `it declares no '${COVERAGE_STORE_NAME}' store in datastores.yaml to record marks in`,
    );
  }
  const provider = coverageStoreProviders.get(decl.type);
  if (!provider) {
    throw missing(deployment, `no linked provider hosts a coverage store of type '${decl.type}'`);
  }
  let store: CoverageStore;
  try {
    store = await provider.open(declarationOf(decl), { resolve, files: pkg.files, engineDatabase });
  } catch (error) {
    const reason = error instanceof DiagnosticError
      ? error.diagnostics.map((d) => d.message).join("; ")
      : errorMessage(error);
    throw missing(deployment, `its coverage store could not be opened: ${reason}`);
  }
  const declared = declaredRoutes(pkg, deployment.plans.values());
  const ids = routeIds(declared);
  try {
    await store.seed(deployment.deploymentId, ids);
  } catch (error) {
    await store.close();
    throw missing(deployment, `seeding its coverage store failed: ${errorMessage(error)}`);
  }
  return { store, declared, routeIds: ids };
}

function missing(deployment: Pick<ActiveDeployment, "deploymentId">, why: string) {
  return new DiagnosticError(diagnostic(
    COVERAGE_STORE_MISSING,
    `deployment ${deployment.deploymentId}: no coverage to report: ${why}`,
    { attributes: { deploymentId: deployment.deploymentId } },
  ));
}
