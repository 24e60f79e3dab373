/**
 * The coverage-store SPI. Path-coverage marks live in the reserved
 * `coverage` store a deployment declares; the engine owns that store's two
 * tables (`coverage_metric`, one flag per declared route, and
 * `coverage_fragment`, the correlation-tagged records cross-process routes
 * are reconstructed from). A store provider (the `sql` one under
 * `io/datastores/`) registers a {@link CoverageStoreProvider} that applies
 * the engine's DDL in its dialect and answers these operations; the engine
 * never names a concrete database.
 *
 * Every operation is scoped by deployment id: that bound predicate, not
 * row-level security, is what keeps deployments sharing one database apart.
 *
 * @module
 */
import type { DataStoreDeclaration, OpenStoreOptions } from "../../core/datastore.ts";
import { Registry } from "../../core/registry.ts";
import type { Database, Transaction } from "../../persistence/mod.ts";

/** The reserved store name coverage marks are persisted in. */
export const COVERAGE_STORE_NAME = "coverage";

/** One completed per-process segment of a cross-process route. */
export interface CoverageFragment {
  readonly routeId: string;
  readonly processId: string;
  readonly instanceId: string;
  /**
   * The correlation values (`key=value`) that join this instance to the
   * others of its business transaction; empty when it recorded none.
   */
  readonly correlations: readonly string[];
}

/** What a step (or a reconstruction) writes in one store transaction. */
export interface CoverageWrite {
  /** Routes to flip covered (guarded: only a row still uncovered changes). */
  readonly marks?: readonly string[];
  readonly fragments?: readonly CoverageFragment[];
}

/** Totals of one deployment, read from one snapshot. */
export interface CoverageCounts {
  readonly total: number;
  readonly covered: number;
  /** Route ids still uncovered, sorted. */
  readonly uncovered: readonly string[];
}

/** One stored fragment row (one per instance and correlation value). */
export interface StoredFragment {
  readonly routeId: string;
  readonly processId: string;
  readonly instanceId: string;
  /** `key=value`, or the empty string for an instance with no correlation. */
  readonly correlation: string;
}

/** An open coverage store. */
export interface CoverageStore {
  /** Where it points, without credentials. */
  readonly description: string;
  /** Inserts an uncovered row for every route not yet seeded; answers how many were new. */
  seed(deploymentId: string, routeIds: readonly string[]): Promise<number>;
  /**
   * Writes fragments and flips marks in one transaction; answers the routes
   * this write newly covered (the guarded update's affected rows).
   */
  write(deploymentId: string, write: CoverageWrite): Promise<string[]>;
  /** Every fragment of the deployment. */
  fragments(deploymentId: string): Promise<StoredFragment[]>;
  /** Total, covered and the uncovered list, from one repeatable-read snapshot. */
  counts(deploymentId: string): Promise<CoverageCounts>;
  /** Flips every route back to uncovered and clears the fragments; answers how many were covered. */
  reset(deploymentId: string): Promise<{ readonly total: number; readonly cleared: number }>;
  /**
   * Present only on a store that lives in the engine database: the
   * statements of {@link write} for a transaction of the engine's own (a
   * step's commit), answering the routes they newly covered. Undefined when
   * this write cannot ride there without risking that transaction (a value
   * too long for its column): the caller writes it with {@link write}.
   */
  inTransaction?(
    deploymentId: string,
    write: CoverageWrite,
  ): ((tx: Transaction) => Promise<string[]>) | undefined;
  /** Ends the store's own connection (never the engine database it may share). */
  close(): Promise<void>;
}

/** How a coverage store is opened. */
export interface CoverageOpenOptions extends OpenStoreOptions {
  /**
   * The engine database. A declaration that names this very database is
   * served over the engine's own handle, so marks can commit with steps.
   */
  readonly engineDatabase?: Database;
}

/** A store type that can host the coverage tables. */
export interface CoverageStoreProvider {
  /** The `type:` of the declaration it serves (`sql`). */
  readonly name: string;
  /** Connects, applies the engine's coverage DDL (idempotent, lock-serialized) and answers the store. */
  open(declaration: DataStoreDeclaration, options: CoverageOpenOptions): Promise<CoverageStore>;
}

/** Every linked coverage-store provider, by store type. */
export const coverageStoreProviders: Registry<CoverageStoreProvider> = new Registry(
  "coverage store provider",
);
