/**
 * The PostgreSQL dialect, for a server (`postgres://…`) and for embedded
 * PGlite (`pglite:…`) alike: both run through the engine's persistence
 * drivers, opened on the store's own URL — never on the engine's database.
 *
 * @module
 */
import { type Database, SqlError, type Transaction } from "../../engine/persistence/mod.ts";
import type { TransientReason } from "../../engine/datastore/mod.ts";
import type { SqlClient, SqlDialect, SqlResult, SqlTransaction } from "./_sql.ts";

/** SQL for PostgreSQL and PGlite. */
export const postgresDialect: SqlDialect = {
  name: "postgresql",
  createTable: (t) =>
    `CREATE TABLE IF NOT EXISTS ${q(t)} (
  store_name VARCHAR(200) NOT NULL,
  store_key VARCHAR(512) NOT NULL,
  value TEXT NOT NULL,
  rev BIGINT NOT NULL DEFAULT 1,
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (store_name, store_key)
)`,
  select: (t, forUpdate) =>
    `SELECT value, rev FROM ${q(t)} WHERE store_name = $1 AND store_key = $2` +
    (forUpdate ? " FOR UPDATE" : ""),
  upsert: (t) => [
    `INSERT INTO ${q(t)} AS t (store_name, store_key, value, rev, updated_at)
VALUES ($1, $2, $3, 1, now())
ON CONFLICT (store_name, store_key)
DO UPDATE SET value = EXCLUDED.value, rev = t.rev + 1, updated_at = now()
RETURNING rev`,
  ],
  update: (t) =>
    `UPDATE ${q(t)} SET value = $1, rev = rev + 1, updated_at = now() ` +
    `WHERE store_name = $2 AND store_key = $3 AND rev = $4`,
  delete: (t, guarded) =>
    `DELETE FROM ${q(t)} WHERE store_name = $1 AND store_key = $2` +
    (guarded ? " AND rev = $3" : ""),
  createMarksTable: (t) =>
    `CREATE TABLE IF NOT EXISTS ${q(t)} (
  "at" BIGINT NOT NULL,
  redo_id VARCHAR(64) NOT NULL,
  store_name VARCHAR(200) NOT NULL,
  PRIMARY KEY ("at", redo_id, store_name)
)`,
  insertMark: (t) => `INSERT INTO ${q(t)} ("at", redo_id, store_name) VALUES ($1, $2, $3)`,
  purgeMarks: (t) => `DELETE FROM ${q(t)} WHERE store_name = $1 AND "at" < $2`,
  // unique_violation
  duplicate: (error) => error instanceof SqlError && error.code === "23505",
  transient: (error) => error instanceof SqlError ? POSTGRES_TRANSIENT.get(error.code) : undefined,
};

// SQLSTATEs of a transaction aborted for contention: deadlock_detected,
// serialization_failure, lock_not_available (lock_timeout or NOWAIT).
const POSTGRES_TRANSIENT: ReadonlyMap<string, TransientReason> = new Map([
  ["40P01", "deadlock"],
  ["40001", "serialization failure"],
  ["55P03", "lock wait timeout"],
]);

function q(identifier: string): string {
  return `"${identifier}"`;
}

// Stops the transaction callback with a rollback rather than a failure.
const ROLLBACK = Symbol("rollback");

/** A {@link SqlClient} over an opened persistence database (it owns and closes it). */
export function postgresClient(db: Database): SqlClient {
  return {
    dialect: postgresDialect,
    description: db.description,
    begin: () => begin(db),
    runLocked: (lock, scripts) =>
      db.transaction(async (tx) => {
        // Transaction-scoped: released at commit, even if this process dies.
        await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [lock]);
        for (const script of scripts) await tx.exec(script);
      }),
    close: () => db.close(),
  };
}

// The persistence layer only offers callback transactions; a store
// transaction must stay open across a step's awaits, so the callback parks
// until commit or rollback settles it.
function begin(db: Database): Promise<SqlTransaction> {
  return new Promise((resolveBegin, rejectBegin) => {
    let started = false;
    let finish!: (commit: boolean) => void;
    const ended = new Promise<boolean>((r) => finish = r);
    const done = db.transaction(async (tx: Transaction) => {
      started = true;
      resolveBegin(handle(tx, { finish, done: () => done }));
      if (!await ended) throw ROLLBACK;
    });
    done.catch((error) => {
      if (!started) rejectBegin(error);
    });
  });
}

function handle(
  tx: Transaction,
  control: { finish: (commit: boolean) => void; done: () => Promise<void> },
): SqlTransaction {
  return {
    async query(sql: string, params: readonly unknown[]): Promise<SqlResult> {
      const r = await tx.query(sql, params);
      return { rows: r.rows, affected: r.rowCount };
    },
    async commit(): Promise<void> {
      control.finish(true);
      await control.done();
    },
    async rollback(): Promise<void> {
      control.finish(false);
      // The outcome is a rollback either way: ROLLBACK itself, or the error
      // of a statement that already spoiled the transaction.
      await control.done().catch(() => {});
    },
  };
}
