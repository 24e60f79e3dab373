/**
 * Versioned schema migrations with a ledger table.
 *
 * Each migration runs in its own transaction together with the ledger row
 * that records it, under a transaction-scoped advisory lock, so engines
 * booting at the same time against one database apply every migration
 * exactly once: the loser of the lock finds the ledger row already written.
 * The lock key includes the current schema, so engines in different schemas
 * of one database never wait for each other.
 *
 * @module
 */
import { type Diagnostic, diagnostic, DiagnosticError } from "../core/diagnostic.ts";
import type { Logger } from "../core/log.ts";
import { type Database, type Queryable, SqlError, type Transaction } from "./database.ts";
import { errorMessage } from "../core/errors.ts";

/** One schema change. Versions are positive integers, applied in ascending order. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  /** A script of statements; it runs inside a transaction, so it must not BEGIN or COMMIT itself. */
  readonly sql: string;
}

/** The ledger table's name. */
export const LEDGER_TABLE = "sutra_schema_history";

/** Where one version stands. */
export type MigrationState = "applied" | "pending" | "mismatch" | "unknown";

/** One line of {@link migrationStatus}. */
export interface MigrationStatusEntry {
  readonly version: number;
  readonly name: string;
  /**
   * `applied`: recorded with the shipped checksum; `pending`: shipped, not
   * recorded; `mismatch`: recorded with a different checksum; `unknown`:
   * recorded, not shipped.
   */
  readonly state: MigrationState;
  /** Checksum of the shipped script (absent for `unknown`). */
  readonly checksum?: string;
  /** Checksum the ledger recorded (absent for `pending`). */
  readonly recordedChecksum?: string;
  /** When the ledger recorded it (absent for `pending`). */
  readonly appliedAt?: Date;
}

/** Options for {@link migrate}. */
export interface MigrateOptions {
  /** Check and report what would apply, writing nothing (not even the ledger table). */
  readonly dryRun?: boolean;
  /** Receives one info line per applied migration. */
  readonly log?: Logger;
}

// Two-part advisory lock key: a fixed class ("SUTR" as int4) and the hash of
// the current schema.
const LOCK_CLASS = 0x53555452;

const LEDGER_DDL = `create table if not exists ${LEDGER_TABLE} (
  version integer primary key,
  name text not null,
  checksum text not null,
  applied_at timestamptz not null default now(),
  tenant text not null default 'default'
)`;

interface LedgerRow {
  version: number;
  name: string;
  checksum: string;
  applied_at: Date;
}

/** sha256 of the script's UTF-8 bytes, lower-case hex. */
export async function checksum(sql: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(sql));
  return new Uint8Array(digest).toHex();
}

/**
 * Applies every pending migration in version order, one transaction each.
 * Refuses with a {@link DiagnosticError} listing every problem before applying
 * anything when an applied script's checksum changed
 * (`SUTRA.DB.MIGRATION.CHECKSUM_MISMATCH`) or the ledger holds a version not
 * in `migrations` (`SUTRA.DB.MIGRATION.UNKNOWN_VERSION`); a script that fails
 * is rolled back with its ledger row and reported as
 * `SUTRA.DB.MIGRATION.FAILED`, leaving earlier migrations applied.
 *
 * Resolves to the migrations this call applied, in order (with `dryRun`: the
 * ones it would apply).
 */
export async function migrate(
  db: Database,
  migrations: readonly Migration[],
  options: MigrateOptions = {},
): Promise<Migration[]> {
  const shipped = await withChecksums(migrations);
  if (options.dryRun) {
    const ledger = await readLedgerIfPresent(db);
    refuseOnProblems(shipped, ledger);
    return shipped.filter((m) => !ledger.has(m.version)).map((m) => m.migration);
  }
  const applied: Migration[] = [];
  for (;;) {
    const next = await db.transaction(async (tx) => {
      await tx.query(
        `select pg_advisory_xact_lock(${LOCK_CLASS}, hashtext(coalesce(current_schema(), '')))`,
      );
      await tx.exec(LEDGER_DDL);
      const ledger = await readLedger(tx);
      refuseOnProblems(shipped, ledger);
      const pending = shipped.find((m) => !ledger.has(m.version));
      if (pending) await apply(tx, pending);
      return pending;
    });
    if (!next) return applied;
    applied.push(next.migration);
    options.log?.info(`applied migration ${next.migration.version} ${next.migration.name}`, {
      version: next.migration.version,
      checksum: next.checksum,
    });
  }
}

/** Every shipped and every recorded version with its state, ascending. Writes nothing. */
export async function migrationStatus(
  db: Database,
  migrations: readonly Migration[],
): Promise<MigrationStatusEntry[]> {
  const shipped = await withChecksums(migrations);
  const ledger = await readLedgerIfPresent(db);
  const entries: MigrationStatusEntry[] = shipped.map(({ migration, checksum }) => {
    const row = ledger.get(migration.version);
    if (!row) {
      return { version: migration.version, name: migration.name, state: "pending", checksum };
    }
    return {
      version: migration.version,
      name: migration.name,
      state: row.checksum === checksum ? "applied" : "mismatch",
      checksum,
      recordedChecksum: row.checksum,
      appliedAt: row.applied_at,
    };
  });
  const shippedVersions = new Set(shipped.map((m) => m.migration.version));
  for (const row of ledger.values()) {
    if (shippedVersions.has(row.version)) continue;
    entries.push({
      version: row.version,
      name: row.name,
      state: "unknown",
      recordedChecksum: row.checksum,
      appliedAt: row.applied_at,
    });
  }
  return entries.sort((a, b) => a.version - b.version);
}

/**
 * Every problem with the database's migrations, one diagnostic each: checksum
 * mismatches, unknown versions, and pending migrations
 * (`SUTRA.DB.MIGRATION.PENDING`). Empty means the database is exactly at
 * this engine's head. Writes nothing.
 */
export async function verifyMigrations(
  db: Database,
  migrations: readonly Migration[],
): Promise<Diagnostic[]> {
  const status = await migrationStatus(db, migrations);
  return status.flatMap((entry) => {
    if (entry.state === "pending") {
      return [diagnostic(
        "SUTRA.DB.MIGRATION.PENDING",
        `migration ${entry.version} (${entry.name}) is not applied yet`,
        { attributes: { version: entry.version, name: entry.name } },
      )];
    }
    if (entry.state === "mismatch") return [mismatchDiagnostic(entry)];
    if (entry.state === "unknown") return [unknownDiagnostic(entry)];
    return [];
  });
}

interface ShippedMigration {
  readonly migration: Migration;
  readonly checksum: string;
  readonly version: number;
}

async function withChecksums(migrations: readonly Migration[]): Promise<ShippedMigration[]> {
  const seen = new Set<number>();
  for (const m of migrations) {
    if (!Number.isSafeInteger(m.version) || m.version <= 0) {
      throw new TypeError(`migration version ${m.version} is not a positive integer`);
    }
    if (seen.has(m.version)) throw new TypeError(`migration version ${m.version} is listed twice`);
    seen.add(m.version);
  }
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  return await Promise.all(
    sorted.map(async (migration) => ({
      migration,
      checksum: await checksum(migration.sql),
      version: migration.version,
    })),
  );
}

async function readLedger(q: Queryable): Promise<Map<number, LedgerRow>> {
  const { rows } = await q.query<LedgerRow>(
    `select version, name, checksum, applied_at from ${LEDGER_TABLE} order by version`,
  );
  return new Map(rows.map((r) => [r.version, r]));
}

async function readLedgerIfPresent(db: Database): Promise<Map<number, LedgerRow>> {
  const { rows } = await db.query<{ present: boolean }>(
    `select to_regclass($1) is not null as present`,
    [LEDGER_TABLE],
  );
  return rows[0].present ? await readLedger(db) : new Map();
}

function refuseOnProblems(
  shipped: readonly ShippedMigration[],
  ledger: Map<number, LedgerRow>,
): void {
  const byVersion = new Map(shipped.map((m) => [m.version, m]));
  const problems: Diagnostic[] = [];
  for (const row of ledger.values()) {
    const ship = byVersion.get(row.version);
    if (!ship) {
      problems.push(unknownDiagnostic({ version: row.version, name: row.name }));
    } else if (ship.checksum !== row.checksum) {
      problems.push(mismatchDiagnostic({
        version: row.version,
        name: ship.migration.name,
        checksum: ship.checksum,
        recordedChecksum: row.checksum,
      }));
    }
  }
  if (problems.length > 0) throw new DiagnosticError(problems);
}

async function apply(tx: Transaction, pending: ShippedMigration): Promise<void> {
  const { migration } = pending;
  try {
    await tx.exec(migration.sql);
  } catch (error) {
    const reason = errorMessage(error);
    const attributes: Record<string, string | number> = {
      version: migration.version,
      name: migration.name,
    };
    if (error instanceof SqlError) attributes.sqlstate = error.code;
    throw new DiagnosticError(diagnostic(
      "SUTRA.DB.MIGRATION.FAILED",
      `migration ${migration.version} (${migration.name}) failed and was rolled back: ${reason}`,
      { attributes },
    ));
  }
  await tx.query(
    `insert into ${LEDGER_TABLE} (version, name, checksum) values ($1, $2, $3)`,
    [migration.version, migration.name, pending.checksum],
  );
}

function mismatchDiagnostic(
  entry: { version: number; name: string; checksum?: string; recordedChecksum?: string },
): Diagnostic {
  return diagnostic(
    "SUTRA.DB.MIGRATION.CHECKSUM_MISMATCH",
    `migration ${entry.version} (${entry.name}) was applied with checksum ${entry.recordedChecksum} ` +
      `but this engine ships checksum ${entry.checksum}; the script changed after it ran`,
    {
      attributes: {
        version: entry.version,
        expected: entry.checksum ?? "",
        recorded: entry.recordedChecksum ?? "",
      },
    },
  );
}

function unknownDiagnostic(entry: { version: number; name: string }): Diagnostic {
  return diagnostic(
    "SUTRA.DB.MIGRATION.UNKNOWN_VERSION",
    `the database records migration ${entry.version} (${entry.name}), which this engine does not ` +
      `ship: it was migrated by a newer engine`,
    { attributes: { version: entry.version, name: entry.name } },
  );
}
