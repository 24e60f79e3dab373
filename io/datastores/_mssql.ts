/**
 * The SQL Server dialect over `mssql` (tedious). The driver is loaded only
 * when a `sqlserver://` store is opened: it is large, and most engines never
 * talk to SQL Server.
 *
 * @module
 */
import type { TransientReason } from "../../engine/datastore/mod.ts";
import type { SqlClient, SqlDialect, SqlResult, SqlTransaction } from "./_sql.ts";

/** SQL for SQL Server 2016 and later. */
export const mssqlDialect: SqlDialect = {
  name: "sqlserver",
  // A clustered key is capped at 900 bytes; (200 + 512) NVARCHAR needs 1424,
  // which a nonclustered key (1700 bytes) holds.
  createTable: (t) =>
    `IF OBJECT_ID(N'${t}', N'U') IS NULL
CREATE TABLE ${q(t)} (
  store_name NVARCHAR(200) NOT NULL,
  store_key NVARCHAR(512) NOT NULL,
  value NVARCHAR(MAX) NOT NULL,
  rev BIGINT NOT NULL DEFAULT 1,
  updated_at DATETIME2(6) NOT NULL DEFAULT SYSUTCDATETIME(),
  CONSTRAINT ${q(`${t}_pk`)} PRIMARY KEY NONCLUSTERED (store_name, store_key)
)`,
  // UPDLOCK is SQL Server's FOR UPDATE: held to the end of the transaction.
  select: (t, forUpdate) =>
    `SELECT value, rev FROM ${q(t)}${forUpdate ? " WITH (UPDLOCK, ROWLOCK)" : ""} ` +
    `WHERE store_name = @p1 AND store_key = @p2`,
  // HOLDLOCK keeps the key range locked between the UPDATE that found
  // nothing and the INSERT, so two first writes of one key cannot both insert.
  upsert: (t) => [
    `UPDATE ${q(t)} WITH (UPDLOCK, HOLDLOCK) ` +
    `SET value = @p3, rev = rev + 1, updated_at = SYSUTCDATETIME() OUTPUT inserted.rev ` +
    `WHERE store_name = @p1 AND store_key = @p2;
IF @@ROWCOUNT = 0
INSERT INTO ${q(t)} (store_name, store_key, value, rev, updated_at) OUTPUT inserted.rev ` +
    `VALUES (@p1, @p2, @p3, 1, SYSUTCDATETIME());`,
  ],
  update: (t) =>
    `UPDATE ${q(t)} SET value = @p1, rev = rev + 1, updated_at = SYSUTCDATETIME() ` +
    `WHERE store_name = @p2 AND store_key = @p3 AND rev = @p4`,
  delete: (t, guarded) =>
    `DELETE FROM ${q(t)} WHERE store_name = @p1 AND store_key = @p2` +
    (guarded ? " AND rev = @p3" : ""),
  // NVARCHAR like the key/value table: the driver binds JS strings as NVARCHAR.
  // The whole key is 536 bytes, within the 900 a clustered key allows.
  createMarksTable: (t) =>
    `IF OBJECT_ID(N'${t}', N'U') IS NULL
CREATE TABLE ${q(t)} (
  [at] BIGINT NOT NULL,
  redo_id NVARCHAR(64) NOT NULL,
  store_name NVARCHAR(200) NOT NULL,
  CONSTRAINT ${q(`${t}_pk`)} PRIMARY KEY CLUSTERED ([at], redo_id, store_name)
)`,
  insertMark: (t) => `INSERT INTO ${q(t)} ([at], redo_id, store_name) VALUES (@p1, @p2, @p3)`,
  purgeMarks: (t) => `DELETE FROM ${q(t)} WHERE store_name = @p1 AND [at] < @p2`,
  // 2627: a primary-key or unique constraint; 2601: a unique index.
  duplicate: (error) => [2627, 2601].includes(errorNumberOf(error) as number),
  transient: (error) => MSSQL_TRANSIENT.get(errorNumberOf(error)),
};

// 1205: chosen as the deadlock victim; 1222: lock request timeout (LOCK_TIMEOUT).
const MSSQL_TRANSIENT: ReadonlyMap<unknown, TransientReason> = new Map([
  [1205, "deadlock"],
  [1222, "lock wait timeout"],
]);

// The server's error number: on the driver's error, or on the tedious error it wraps.
function errorNumberOf(error: unknown): unknown {
  const e = error as { number?: unknown; originalError?: { info?: { number?: unknown } } } | null;
  return e?.number ?? e?.originalError?.info?.number;
}

function q(identifier: string): string {
  return `[${identifier}]`;
}

/** The batch that takes the migration lock inside the migration's transaction. */
export const MSSQL_LOCK_SQL = "DECLARE @status INT; " +
  "EXEC @status = sp_getapplock @Resource = @p1, @LockMode = 'Exclusive', " +
  "@LockOwner = 'Transaction', @LockTimeout = 60000; SELECT @status AS status";

/**
 * Splits a T-SQL script at `GO` lines: a client-side separator the server
 * itself would reject.
 */
export function splitBatches(script: string): string[] {
  return script.split(/^[ \t]*GO[ \t]*;?[ \t]*$/gim).map((b) => b.trim()).filter((b) => b !== "");
}

/** What `mssql` needs to connect, read from a `sqlserver://` URL. */
export interface MssqlConfig {
  readonly server: string;
  readonly port: number;
  readonly database?: string;
  readonly user?: string;
  readonly password?: string;
  readonly options: { readonly encrypt: boolean; readonly trustServerCertificate: boolean };
}

/**
 * Reads `sqlserver://user:pass@host:port/database?encrypt=false&trustServerCertificate=true`
 * (port 1433 and encryption on unless the URL says otherwise).
 */
export function mssqlConfig(
  url: string,
  credentials: { readonly username?: string; readonly password?: string },
): MssqlConfig {
  const parsed = new URL(url);
  const flag = (name: string, fallback: boolean) => {
    const v = parsed.searchParams.get(name);
    return v === null ? fallback : v === "true";
  };
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  const user = credentials.username ?? (decodeURIComponent(parsed.username) || undefined);
  const password = credentials.password ?? (decodeURIComponent(parsed.password) || undefined);
  return {
    server: parsed.hostname,
    port: parsed.port === "" ? 1433 : Number(parsed.port),
    ...(database === "" ? {} : { database }),
    ...(user === undefined ? {} : { user }),
    ...(password === undefined ? {} : { password }),
    options: {
      encrypt: flag("encrypt", true),
      trustServerCertificate: flag("trustServerCertificate", false),
    },
  };
}

type Mssql = typeof import("mssql").default;
type Tx = InstanceType<Mssql["Transaction"]>;

/** Connects with `config` and checks the server answers. */
export async function openMssqlClient(
  config: MssqlConfig,
  options: { readonly description: string },
): Promise<SqlClient> {
  const mssql = (await import("mssql")).default;
  const pool = new mssql.ConnectionPool({ ...config, options: { ...config.options } });
  try {
    await pool.connect();
  } catch (error) {
    await pool.close().catch(() => {});
    throw error;
  }
  const run = async (tx: Tx, sql: string, params: readonly unknown[]): Promise<SqlResult> => {
    const request = new mssql.Request(tx);
    params.forEach((p, i) => request.input(`p${i + 1}`, p));
    const result = await request.query(sql);
    const sets = (result.recordsets ?? []) as Record<string, unknown>[][];
    return {
      rows: sets.flat(),
      affected: result.rowsAffected.reduce((a: number, b: number) => a + b, 0),
    };
  };
  return {
    dialect: mssqlDialect,
    description: options.description,
    begin: async () => {
      const tx = new mssql.Transaction(pool);
      await tx.begin(mssql.ISOLATION_LEVEL.READ_COMMITTED);
      return transaction(tx, run);
    },
    runLocked: async (lock, scripts) => {
      const tx = new mssql.Transaction(pool);
      await tx.begin(mssql.ISOLATION_LEVEL.READ_COMMITTED);
      try {
        const { rows } = await run(tx, MSSQL_LOCK_SQL, [lock]);
        // sp_getapplock: 0 granted, 1 granted after waiting; negative is a failure.
        if (Number(rows[0]?.status) < 0) throw new Error(`could not take lock '${lock}'`);
        for (const script of scripts) {
          for (const batch of splitBatches(script)) await new mssql.Request(tx).batch(batch);
        }
        await tx.commit();
      } catch (error) {
        await tx.rollback().catch(() => {});
        throw error;
      }
    },
    close: () => pool.close(),
  };
}

function transaction(
  tx: Tx,
  run: (tx: Tx, sql: string, params: readonly unknown[]) => Promise<SqlResult>,
): SqlTransaction {
  return {
    query: (sql, params) => run(tx, sql, params),
    commit: () => tx.commit(),
    rollback: () => tx.rollback(),
  };
}
