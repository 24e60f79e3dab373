/**
 * The reserved `coverage` store on the `sql` provider: the engine-owned
 * `coverage_metric` / `coverage_fragment` tables in each shipped dialect,
 * applied on first open under the same cross-process lock a store's
 * migrations take, and the statements the coverage SPI needs.
 *
 * Marks flip with a guarded `UPDATE … AND NOT covered`, so the affected-row
 * count alone says whether a write newly covered a route: concurrent
 * traversals of one path cannot both count it, and nothing reads first.
 *
 * A declaration whose URL names the engine database itself is served over
 * the engine's own handle (no second connection, which an embedded PGlite
 * directory could not take anyway), and its writes can then ride in a
 * step's commit transaction.
 *
 * @module
 */
import { resolve as resolvePath } from "node:path";
import type { DataStoreDeclaration } from "../../engine/core/datastore.ts";
import { diagnostic, DiagnosticError } from "../../engine/core/diagnostic.ts";
import { resolveReference } from "../../engine/core/secrets.ts";
import type { Database, Transaction } from "../../engine/persistence/mod.ts";
import type {
  CoverageCounts,
  CoverageOpenOptions,
  CoverageStore,
  CoverageStoreProvider,
  CoverageWrite,
  StoredFragment,
} from "../../engine/runtime/coverage/spi.ts";
import { postgresClient } from "./_postgres.ts";
import { messageOf, type SqlClient, type SqlTransaction } from "./_sql.ts";
import { openSqlClient } from "./sql.ts";

/** Serves the reserved coverage store on any `type: sql` declaration. */
export const sqlCoverageProvider: CoverageStoreProvider = {
  name: "sql",
  open: openSqlCoverage,
};

/** The SQL of one dialect for the coverage tables. */
interface CoverageDialect {
  /** DDL scripts, each idempotent. */
  readonly ddl: readonly string[];
  /** Placeholder of the `n`th (1-based) parameter. */
  p(n: number): string;
  readonly trueValue: string;
  readonly falseValue: string;
  /** Inserts `[deployment, route]` unless present. */
  readonly seed: string;
  /** Inserts `[deployment, route, process, instance, correlation]` unless present. */
  readonly fragment: string;
  /** Current time expression. */
  readonly now: string;
}

// Key columns stay short enough for MySQL's 3072-byte index limit in utf8mb4.
const postgres: CoverageDialect = {
  ddl: [
    `CREATE TABLE IF NOT EXISTS coverage_metric (
  deployment_id VARCHAR(64) NOT NULL,
  route_id VARCHAR(255) NOT NULL,
  covered BOOLEAN NOT NULL DEFAULT FALSE,
  covered_at TIMESTAMPTZ,
  PRIMARY KEY (deployment_id, route_id)
)`,
    `CREATE TABLE IF NOT EXISTS coverage_fragment (
  deployment_id VARCHAR(64) NOT NULL,
  route_id VARCHAR(255) NOT NULL,
  process_id VARCHAR(255) NOT NULL,
  instance_id VARCHAR(64) NOT NULL,
  correlation VARCHAR(255) NOT NULL,
  recorded_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (deployment_id, route_id, instance_id, correlation)
)`,
  ],
  p: (n) => `$${n}`,
  trueValue: "TRUE",
  falseValue: "FALSE",
  seed: "INSERT INTO coverage_metric (deployment_id, route_id, covered) VALUES ($1, $2, FALSE) " +
    "ON CONFLICT DO NOTHING",
  fragment: "INSERT INTO coverage_fragment " +
    "(deployment_id, route_id, process_id, instance_id, correlation) VALUES ($1, $2, $3, $4, $5) " +
    "ON CONFLICT DO NOTHING",
  now: "now()",
};

const mysql: CoverageDialect = {
  ddl: [
    `CREATE TABLE IF NOT EXISTS coverage_metric (
  deployment_id VARCHAR(64) NOT NULL,
  route_id VARCHAR(255) NOT NULL,
  covered BOOLEAN NOT NULL DEFAULT FALSE,
  covered_at TIMESTAMP(6) NULL,
  PRIMARY KEY (deployment_id, route_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
    `CREATE TABLE IF NOT EXISTS coverage_fragment (
  deployment_id VARCHAR(64) NOT NULL,
  route_id VARCHAR(255) NOT NULL,
  process_id VARCHAR(255) NOT NULL,
  instance_id VARCHAR(64) NOT NULL,
  correlation VARCHAR(255) NOT NULL,
  recorded_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (deployment_id, route_id, instance_id, correlation)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ],
  p: () => "?",
  trueValue: "TRUE",
  falseValue: "FALSE",
  seed:
    "INSERT IGNORE INTO coverage_metric (deployment_id, route_id, covered) VALUES (?, ?, FALSE)",
  fragment: "INSERT IGNORE INTO coverage_fragment " +
    "(deployment_id, route_id, process_id, instance_id, correlation) VALUES (?, ?, ?, ?, ?)",
  now: "CURRENT_TIMESTAMP(6)",
};

const sqlserver: CoverageDialect = {
  ddl: [
    `IF OBJECT_ID(N'coverage_metric', N'U') IS NULL
CREATE TABLE coverage_metric (
  deployment_id NVARCHAR(64) NOT NULL,
  route_id NVARCHAR(255) NOT NULL,
  covered BIT NOT NULL DEFAULT 0,
  covered_at DATETIME2(6) NULL,
  CONSTRAINT coverage_metric_pk PRIMARY KEY (deployment_id, route_id)
)`,
    `IF OBJECT_ID(N'coverage_fragment', N'U') IS NULL
CREATE TABLE coverage_fragment (
  deployment_id NVARCHAR(64) NOT NULL,
  route_id NVARCHAR(255) NOT NULL,
  process_id NVARCHAR(255) NOT NULL,
  instance_id NVARCHAR(64) NOT NULL,
  correlation NVARCHAR(255) NOT NULL,
  recorded_at DATETIME2(6) NOT NULL DEFAULT SYSUTCDATETIME(),
  CONSTRAINT coverage_fragment_pk PRIMARY KEY NONCLUSTERED
    (deployment_id, route_id, instance_id, correlation)
)`,
  ],
  p: (n) => `@p${n}`,
  trueValue: "1",
  falseValue: "0",
  seed: "IF NOT EXISTS (SELECT 1 FROM coverage_metric WITH (UPDLOCK, HOLDLOCK) " +
    "WHERE deployment_id = @p1 AND route_id = @p2) " +
    "INSERT INTO coverage_metric (deployment_id, route_id, covered) VALUES (@p1, @p2, 0)",
  fragment: "IF NOT EXISTS (SELECT 1 FROM coverage_fragment WITH (UPDLOCK, HOLDLOCK) " +
    "WHERE deployment_id = @p1 AND route_id = @p2 AND instance_id = @p4 AND correlation = @p5) " +
    "INSERT INTO coverage_fragment (deployment_id, route_id, process_id, instance_id, correlation) " +
    "VALUES (@p1, @p2, @p3, @p4, @p5)",
  now: "SYSUTCDATETIME()",
};

const DIALECTS: Readonly<Record<string, CoverageDialect>> = {
  postgresql: postgres,
  mysql,
  sqlserver,
};

// The widths of the fragment key columns, in characters.
const ID_WIDTH = 64;
const NAME_WIDTH = 255;

async function openSqlCoverage(
  declaration: DataStoreDeclaration,
  options: CoverageOpenOptions,
): Promise<CoverageStore> {
  const engine = options.engineDatabase;
  const shared = engine !== undefined && await namesEngineDatabase(declaration, options, engine);
  const client = shared
    // The engine database is the engine's to close, not this store's.
    ? { ...postgresClient(engine), close: () => Promise.resolve() }
    : await openSqlClient(declaration, options);
  const dialect = DIALECTS[client.dialect.name];
  try {
    await client.runLocked("sutra.datastore.coverage", dialect.ddl);
  } catch (error) {
    await client.close();
    throw new DiagnosticError(diagnostic(
      "SUTRA.RUNTIME.DATASTORE.MIGRATION_FAILED",
      `data store '${declaration.name}': creating the coverage tables on ${client.description} ` +
        `failed: ${messageOf(error)}`,
      { attributes: { store: declaration.name } },
    ));
  }
  return new SqlCoverageStore(client, dialect, shared);
}

/**
 * True when the declaration's URL names the database `engine` is open on:
 * the same PostgreSQL server database (host, port, database; the engine's
 * schema is where the tables then go) or the same embedded directory
 * (`pglite:<dir>` or `file://<dir>`). Two in-memory databases are never one.
 */
async function namesEngineDatabase(
  declaration: DataStoreDeclaration,
  options: CoverageOpenOptions,
  engine: Database,
): Promise<boolean> {
  const ref = declaration.settings["url-ref"];
  // A declaration without a usable URL is refused by the ordinary open, with its own diagnostic.
  if (typeof ref !== "string" || ref.trim() === "") return false;
  const url = (await resolveReference(ref.trim(), options.resolve)).trim();
  const described = engine.description.replace(/ \(schema [^)]*\)$/, "");
  const embedded = /^pglite:(.+)$/.exec(described)?.[1];
  // `file://<dir>` is how the engine's own URL names its directory.
  const dir = /^(?:pglite:|file:\/\/)(.+)$/i.exec(url)?.[1];
  if (dir !== undefined || embedded !== undefined) {
    const memory = (d: string) => d === "memory://" || d === "memory";
    return dir !== undefined && embedded !== undefined && !memory(dir) && !memory(embedded) &&
      resolvePath(dir) === resolvePath(embedded);
  }
  const server = /^postgres(ql)?:\/\//i;
  const a = server.test(url) ? URL.parse(url) : null;
  const b = server.test(described) ? URL.parse(described) : null;
  if (!a || !b) return false;
  const port = (u: URL) => u.port === "" ? "5432" : u.port;
  return a.hostname.toLowerCase() === b.hostname.toLowerCase() && port(a) === port(b) &&
    decodeURIComponent(a.pathname) === decodeURIComponent(b.pathname);
}

// A fragment too wide for its key columns would abort the transaction it is written in.
function fits(deploymentId: string, write: CoverageWrite): boolean {
  return deploymentId.length <= ID_WIDTH &&
    (write.fragments ?? []).every((f) =>
      f.routeId.length <= NAME_WIDTH && f.processId.length <= NAME_WIDTH &&
      f.instanceId.length <= ID_WIDTH && f.correlations.every((c) => c.length <= NAME_WIDTH)
    );
}

/** Runs one statement, answering its affected-row count. */
type Run = (sql: string, params: readonly unknown[]) => Promise<number>;

/** The coverage operations over one dialect's client. */
class SqlCoverageStore implements CoverageStore {
  readonly #client: SqlClient;
  readonly #d: CoverageDialect;
  readonly inTransaction?: CoverageStore["inTransaction"];

  /** @param shared the client is the engine database's: writes may ride its transactions */
  constructor(client: SqlClient, dialect: CoverageDialect, shared: boolean) {
    this.#client = client;
    this.#d = dialect;
    if (shared) {
      this.inTransaction = (deploymentId, write) =>
        fits(deploymentId, write)
          ? (tx: Transaction) =>
            this.#writeWith(
              async (sql, params) => (await tx.query(sql, params)).rowCount,
              deploymentId,
              write,
            )
          : undefined;
    }
  }

  get description(): string {
    return this.#client.description;
  }

  seed(deploymentId: string, routeIds: readonly string[]): Promise<number> {
    return this.#in(async (tx) => {
      let added = 0;
      for (const route of new Set(routeIds)) {
        added += (await tx.query(this.#d.seed, [deploymentId, route])).affected > 0 ? 1 : 0;
      }
      return added;
    });
  }

  write(deploymentId: string, write: CoverageWrite): Promise<string[]> {
    return this.#in((tx) =>
      this.#writeWith(
        async (sql, params) => (await tx.query(sql, params)).affected,
        deploymentId,
        write,
      )
    );
  }

  /** The statements of {@link write}, each run by `run` (in a transaction the caller holds). */
  async #writeWith(run: Run, deploymentId: string, write: CoverageWrite): Promise<string[]> {
    const { p, trueValue, falseValue, now } = this.#d;
    const mark = `UPDATE coverage_metric SET covered = ${trueValue}, covered_at = ${now} ` +
      `WHERE deployment_id = ${p(1)} AND route_id = ${p(2)} AND covered = ${falseValue}`;
    for (const f of write.fragments ?? []) {
      const correlations = f.correlations.length > 0 ? f.correlations : [""];
      for (const c of correlations) {
        await run(this.#d.fragment, [deploymentId, f.routeId, f.processId, f.instanceId, c]);
      }
    }
    const newly: string[] = [];
    for (const route of new Set(write.marks ?? [])) {
      if (await run(mark, [deploymentId, route]) > 0) newly.push(route);
    }
    return newly;
  }

  fragments(deploymentId: string): Promise<StoredFragment[]> {
    const sql = "SELECT route_id, process_id, instance_id, correlation FROM coverage_fragment " +
      `WHERE deployment_id = ${this.#d.p(1)} ORDER BY route_id, instance_id, correlation`;
    return this.#in(async (tx) =>
      (await tx.query(sql, [deploymentId])).rows.map((r) => ({
        routeId: String(r.route_id),
        processId: String(r.process_id),
        instanceId: String(r.instance_id),
        correlation: String(r.correlation),
      }))
    );
  }

  counts(deploymentId: string): Promise<CoverageCounts> {
    const { p, trueValue, falseValue } = this.#d;
    // One statement sees one snapshot on every dialect, so the totals and the
    // uncovered list cannot disagree; COUNT(CASE …) is the portable pivot.
    const sql = "SELECT NULL AS route_id, COUNT(*) AS total, " +
      `COUNT(CASE WHEN covered = ${trueValue} THEN 1 END) AS covered ` +
      `FROM coverage_metric WHERE deployment_id = ${p(1)} ` +
      "UNION ALL SELECT route_id, 0, 0 FROM coverage_metric " +
      `WHERE deployment_id = ${p(2)} AND covered = ${falseValue}`;
    return this.#in(async (tx) => {
      const rows = (await tx.query(sql, [deploymentId, deploymentId])).rows;
      const totals = rows.find((r) => r.route_id === null)!;
      const uncovered = rows.filter((r) => r.route_id !== null).map((r) => String(r.route_id));
      return {
        total: Number(totals.total),
        covered: Number(totals.covered),
        uncovered: uncovered.sort(),
      };
    });
  }

  reset(deploymentId: string): Promise<{ total: number; cleared: number }> {
    const { p, trueValue, falseValue } = this.#d;
    return this.#in(async (tx) => {
      const total = Number(
        (await tx.query(
          `SELECT COUNT(*) AS total FROM coverage_metric WHERE deployment_id = ${p(1)}`,
          [deploymentId],
        )).rows[0].total,
      );
      const cleared = (await tx.query(
        `UPDATE coverage_metric SET covered = ${falseValue}, covered_at = NULL ` +
          `WHERE deployment_id = ${p(1)} AND covered = ${trueValue}`,
        [deploymentId],
      )).affected;
      await tx.query(`DELETE FROM coverage_fragment WHERE deployment_id = ${p(1)}`, [deploymentId]);
      return { total, cleared };
    });
  }

  close(): Promise<void> {
    return this.#client.close();
  }

  async #in<T>(work: (tx: SqlTransaction) => Promise<T>): Promise<T> {
    const tx = await this.#client.begin();
    let result: T;
    try {
      result = await work(tx);
    } catch (error) {
      await tx.rollback();
      throw error;
    }
    await tx.commit();
    return result;
  }
}
