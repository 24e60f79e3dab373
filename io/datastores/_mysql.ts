/**
 * The MySQL/MariaDB dialect over `mysql2`. The table is InnoDB so
 * `FOR UPDATE` takes row locks; migrations serialize on `GET_LOCK`.
 *
 * @module
 */
import mysql from "mysql2/promise";
import type { TransientReason } from "../../engine/datastore/mod.ts";
import type { SqlClient, SqlDialect, SqlResult, SqlTransaction } from "./_sql.ts";

/** SQL for MySQL 8 and MariaDB 10.6+. */
export const mysqlDialect: SqlDialect = {
  name: "mysql",
  createTable: (t) =>
    `CREATE TABLE IF NOT EXISTS ${q(t)} (
  store_name VARCHAR(200) NOT NULL,
  store_key VARCHAR(512) NOT NULL,
  value LONGTEXT NOT NULL,
  rev BIGINT NOT NULL DEFAULT 1,
  updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (store_name, store_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  select: (t, forUpdate) =>
    `SELECT value, rev FROM ${q(t)} WHERE store_name = ? AND store_key = ?` +
    (forUpdate ? " FOR UPDATE" : ""),
  // No RETURNING on an upsert here: the row is locked by the write, so the
  // read that follows in the same transaction sees its own revision.
  upsert: (t) => [
    `INSERT INTO ${q(t)} (store_name, store_key, value, rev, updated_at)
VALUES (?, ?, ?, 1, CURRENT_TIMESTAMP(6))
ON DUPLICATE KEY UPDATE value = VALUES(value), rev = rev + 1, updated_at = CURRENT_TIMESTAMP(6)`,
    `SELECT rev FROM ${q(t)} WHERE store_name = ? AND store_key = ?`,
  ],
  update: (t) =>
    `UPDATE ${q(t)} SET value = ?, rev = rev + 1, updated_at = CURRENT_TIMESTAMP(6) ` +
    `WHERE store_name = ? AND store_key = ? AND rev = ?`,
  delete: (t, guarded) =>
    `DELETE FROM ${q(t)} WHERE store_name = ? AND store_key = ?` + (guarded ? " AND rev = ?" : ""),
  createMarksTable: (t) =>
    `CREATE TABLE IF NOT EXISTS ${q(t)} (
  \`at\` BIGINT NOT NULL,
  redo_id VARCHAR(64) NOT NULL,
  store_name VARCHAR(200) NOT NULL,
  PRIMARY KEY (\`at\`, redo_id, store_name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  insertMark: (t) => `INSERT INTO ${q(t)} (\`at\`, redo_id, store_name) VALUES (?, ?, ?)`,
  purgeMarks: (t) => `DELETE FROM ${q(t)} WHERE store_name = ? AND \`at\` < ?`,
  // ER_DUP_ENTRY
  duplicate: (error) => errnoOf(error) === 1062,
  transient: (error) => MYSQL_TRANSIENT.get(errnoOf(error)),
};

function errnoOf(error: unknown): unknown {
  return (error as { errno?: unknown } | null)?.errno;
}

// ER_LOCK_DEADLOCK (InnoDB rolled the transaction back) and
// ER_LOCK_WAIT_TIMEOUT (innodb_lock_wait_timeout passed).
const MYSQL_TRANSIENT: ReadonlyMap<unknown, TransientReason> = new Map([
  [1213, "deadlock"],
  [1205, "lock wait timeout"],
]);

function q(identifier: string): string {
  return `\`${identifier}\``;
}

/** How long a migration waits for another process's migration lock. */
const LOCK_TIMEOUT_SECONDS = 60;

/** Connects to `url` (`mysql://user:pass@host:port/db`) and checks it answers. */
export async function openMysqlClient(
  url: string,
  options: { readonly description: string },
): Promise<SqlClient> {
  const pool = mysql.createPool({ uri: url, connectionLimit: 10, supportBigNumbers: true });
  try {
    await pool.query("SELECT 1");
  } catch (error) {
    await pool.end();
    throw error;
  }
  return {
    dialect: mysqlDialect,
    description: options.description,
    begin: async () => {
      const conn = await pool.getConnection();
      try {
        await conn.beginTransaction();
      } catch (error) {
        conn.release();
        throw error;
      }
      return transaction(conn);
    },
    runLocked: async (lock, scripts) => {
      // A script holds several statements: only this one connection may send them.
      const conn = await mysql.createConnection({ uri: url, multipleStatements: true });
      try {
        const [rows] = await conn.query("SELECT GET_LOCK(?, ?) AS held", [
          lock,
          LOCK_TIMEOUT_SECONDS,
        ]);
        if ((rows as { held: number | null }[])[0].held !== 1) {
          throw new Error(`timed out after ${LOCK_TIMEOUT_SECONDS}s waiting for lock '${lock}'`);
        }
        try {
          for (const script of scripts) await conn.query(script);
        } finally {
          await conn.query("SELECT RELEASE_LOCK(?)", [lock]);
        }
      } finally {
        await conn.end();
      }
    },
    close: () => pool.end(),
  };
}

type PoolConnection = Awaited<ReturnType<ReturnType<typeof mysql.createPool>["getConnection"]>>;

function transaction(conn: PoolConnection): SqlTransaction {
  let released = false;
  const release = () => {
    if (!released) {
      released = true;
      conn.release();
    }
  };
  return {
    async query(sql: string, params: readonly unknown[]): Promise<SqlResult> {
      // The upsert's follow-up read binds only the leading [store, key].
      const [result] = await conn.query(sql, params.slice(0, (sql.match(/\?/g) ?? []).length));
      if (Array.isArray(result)) {
        return { rows: result as Record<string, unknown>[], affected: result.length };
      }
      return { rows: [], affected: (result as { affectedRows: number }).affectedRows };
    },
    async commit(): Promise<void> {
      try {
        await conn.commit();
      } catch (error) {
        await conn.rollback().catch(() => {});
        throw error;
      } finally {
        release();
      }
    },
    async rollback(): Promise<void> {
      try {
        await conn.rollback();
      } finally {
        release();
      }
    },
  };
}
