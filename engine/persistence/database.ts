/**
 * The engine database seen through one small interface, whatever the driver.
 *
 * Both drivers (a PostgreSQL server through `npm:postgres`, embedded PGlite)
 * hand back the same JavaScript values for the same column types:
 *
 * | PostgreSQL type            | JavaScript value                          |
 * | -------------------------- | ----------------------------------------- |
 * | int2, int4, int8, oid      | `number` (an int8 beyond ±2^53 throws)    |
 * | float4, float8             | `number`                                  |
 * | numeric                    | `string` (exact decimal text)             |
 * | timestamptz, timestamp     | `Date` (a zone-less timestamp reads as UTC) |
 * | date                       | `string` (`YYYY-MM-DD`)                   |
 * | json, jsonb                | the parsed value                          |
 * | bytea                      | `Uint8Array`                              |
 * | bool                       | `boolean`                                 |
 * | text, varchar, uuid, other | `string`                                  |
 *
 * Parameters follow the same mapping in reverse; a JSON parameter is always
 * `JSON.stringify`-ed, so a string bound to a json column is a JSON string.
 *
 * @module
 */

/** Result of one statement. */
export interface QueryResult<T> {
  readonly rows: T[];
  /** Rows returned or affected. */
  readonly rowCount: number;
}

/** Something SQL can be sent to: the database itself or an open transaction. */
export interface Queryable {
  /** One parameterised statement (`$1`, `$2`, …). */
  query<T = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
  ): Promise<QueryResult<T>>;
  /** A script of several statements without parameters. */
  exec(sql: string): Promise<void>;
}

/**
 * An open transaction; nested work runs in savepoints.
 *
 * A statement that fails spoils the scope it ran in (the transaction or the
 * savepoint): that scope rolls back and rethrows the statement's error even if
 * the callback caught it, because PostgreSQL refuses every later statement of
 * an aborted transaction anyway. Catch failures you mean to survive by running
 * the statement in {@link Transaction.savepoint}.
 */
export interface Transaction extends Queryable {
  /** Runs `fn` inside a savepoint: a throw rolls back to it and rethrows. */
  savepoint<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
}

/** Which driver is behind a {@link Database}. */
export type DriverKind = "postgres" | "pglite";

/**
 * The engine database.
 *
 * On the embedded driver there is one connection: transactions and single
 * statements queue behind each other, and calling the database itself (rather
 * than the transaction handle) from inside a transaction callback throws
 * instead of waiting forever for its own transaction to end.
 */
export interface Database extends Queryable {
  readonly driver: DriverKind;
  /** Human description for logs, credentials removed (e.g. `postgres://db:5432/sutra`, `pglite:./.sutra/engine-db`). */
  readonly description: string;
  /** Runs `fn` in a transaction: commit on resolve, rollback on throw. */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  /**
   * Subscribes to NOTIFY on `channel` (a lower-case SQL identifier); resolves
   * to an unsubscribe function.
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /** Sends NOTIFY (delivered after the sending transaction commits). */
  notify(channel: string, payload: string): Promise<void>;
  /** Closes every connection; pending work is finished first. Closing twice is harmless. */
  close(): Promise<void>;
}

/** Fields of a server error, named the same whichever driver raised it. */
export interface SqlErrorFields {
  /** The SQLSTATE, e.g. `23505` for a unique violation. */
  readonly code: string;
  readonly detail?: string;
  readonly hint?: string;
  readonly schema?: string;
  readonly table?: string;
  readonly column?: string;
  readonly constraint?: string;
}

/**
 * A statement PostgreSQL refused. Both drivers throw this class, so callers
 * branch on {@link SqlError.code} (the SQLSTATE) without knowing the driver.
 */
export class SqlError extends Error implements SqlErrorFields {
  readonly code: string;
  readonly detail?: string;
  readonly hint?: string;
  readonly schema?: string;
  readonly table?: string;
  readonly column?: string;
  readonly constraint?: string;

  constructor(message: string, fields: SqlErrorFields, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SqlError";
    this.code = fields.code;
    if (fields.detail !== undefined) this.detail = fields.detail;
    if (fields.hint !== undefined) this.hint = fields.hint;
    if (fields.schema !== undefined) this.schema = fields.schema;
    if (fields.table !== undefined) this.table = fields.table;
    if (fields.column !== undefined) this.column = fields.column;
    if (fields.constraint !== undefined) this.constraint = fields.constraint;
  }
}

/**
 * The connection broke while COMMIT was on its way, and whether the
 * transaction took effect could not be found out afterwards. Unlike any
 * other failure of a transaction, this one does not say "nothing was
 * written": the work must not simply be run again.
 */
export class CommitInDoubtError extends Error {
  /** @param transactionId the server's id of the transaction in doubt */
  constructor(readonly transactionId: string, options?: { cause?: unknown }) {
    super(
      `the database connection broke while transaction ${transactionId} was committing, and ` +
        "whether it committed could not be checked",
      options,
    );
    this.name = "CommitInDoubtError";
  }
}
