/**
 * The server driver: a connection pool to PostgreSQL through `npm:postgres`.
 *
 * Every connection starts with the same session settings (UTC time zone, ISO
 * date style, hex bytea, the configured schema as search path) so values read
 * back identically to the embedded driver's.
 *
 * @module
 */
import postgres from "postgres";
import type { Logger } from "../core/log.ts";
import {
  CommitInDoubtError,
  type Database,
  type QueryResult,
  SqlError,
  type Transaction,
} from "./database.ts";
import { isConnectionLoss, ReplaceablePool } from "./_pg_pool.ts";
import {
  assertSafeIntegers,
  checkChannel,
  checkParams,
  CONVERSIONS,
  quoteIdentifier,
} from "./_values.ts";

/** Options for {@link openPostgres}. */
export interface PostgresOpenOptions {
  /** `postgres://` or `postgresql://` URL, credentials included. */
  readonly url: string;
  /** Schema every connection uses (created if missing). */
  readonly schema?: string;
  /** What {@link Database.description} reports. */
  readonly description: string;
  /** How long connecting may take before the open fails (seconds). */
  readonly connectTimeoutSeconds: number;
  /** Pool size (default 10). */
  readonly maxConnections?: number;
  /** Receives server notices (debug) and listener failures. */
  readonly log?: Logger;
}

type Sql = postgres.Sql;
type Row = Record<string, unknown>;

// Statements go through the extended protocol even without parameters (one
// statement per call, as on PGlite) and are prepared once per connection.
const QUERY_OPTIONS = { prepare: true, simple: false } as postgres.UnsafeQueryOptions;

/**
 * Opens a pool and proves it with `select 1` within the connect timeout; on
 * failure the pool is closed and the underlying error thrown.
 */
export async function openPostgres(options: PostgresOpenOptions): Promise<Database> {
  const open = () =>
    postgres(options.url, {
      max: options.maxConnections ?? 10,
      connect_timeout: options.connectTimeoutSeconds,
      onnotice: (notice) => options.log?.debug(`server notice: ${notice.message}`),
      connection: sessionSettings(options.schema),
      types: Object.fromEntries(
        CONVERSIONS.map((c) => [`oid${c.oid}`, {
          to: c.oid,
          from: [c.oid],
          parse: c.parse,
          serialize: c.serialize,
        }]),
      ),
    });
  const sql = open();
  try {
    await withinSeconds(sql.unsafe("select 1").execute(), options.connectTimeoutSeconds);
    if (options.schema !== undefined) await createSchema(sql, options.schema);
  } catch (error) {
    await sql.end({ timeout: 0 });
    throw translate(error);
  }
  return new PostgresDatabase(new ReplaceablePool(sql, open, options.log), options);
}

function sessionSettings(schema: string | undefined): Record<string, string> {
  const settings: Record<string, string> = {
    application_name: "sutra",
    TimeZone: "UTC",
    DateStyle: "ISO, MDY",
    bytea_output: "hex",
    // Row-level security (migration v11): outside a transaction scoped to one
    // tenant, the engine's statements see every tenant.
    "sutra.tenant": "*",
  };
  if (schema !== undefined) settings.search_path = quoteIdentifier(schema);
  return settings;
}

async function createSchema(sql: Sql, schema: string): Promise<void> {
  // An engine role that may not create schemas (the migration role made it) finds it here.
  const found = await sql.unsafe("select 1 from pg_namespace where nspname = $1", [schema]);
  if (found.length > 0) return;
  try {
    await sql.unsafe(`create schema if not exists ${quoteIdentifier(schema)}`);
  } catch (error) {
    // Two processes creating the same schema at once: one of them loses the
    // catalog race with a duplicate error, and the schema exists either way.
    const code = (error as { code?: unknown }).code;
    if (code !== "23505" && code !== "42P06") throw error;
  }
}

// The driver keeps retrying some unreachable hosts without ever failing the
// pending query, so the open enforces the timeout itself.
async function withinSeconds(pending: Promise<unknown>, seconds: number): Promise<void> {
  pending.catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${seconds} s`)),
      seconds * 1000,
    );
  });
  try {
    await Promise.race([pending, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// The same server error can surface twice (from the statement, and again
// from the transaction that it spoiled); both surface as one SqlError.
const translated = new WeakMap<object, SqlError>();

/** Maps the driver's PostgresError onto {@link SqlError}; anything else passes through. */
function translate(error: unknown): unknown {
  if (!(error instanceof postgres.PostgresError)) return error;
  let sqlError = translated.get(error);
  if (!sqlError) {
    sqlError = new SqlError(error.message, {
      code: error.code,
      detail: error.detail,
      hint: error.hint,
      schema: error.schema_name,
      table: error.table_name,
      column: error.column_name,
      constraint: error.constraint_name,
    }, { cause: error });
    translated.set(error, sqlError);
  }
  return sqlError;
}

async function run<T>(
  sql: postgres.Sql | postgres.TransactionSql,
  text: string,
  params: readonly unknown[],
): Promise<QueryResult<T>> {
  checkParams(params);
  let result: postgres.RowList<Row[]>;
  try {
    result = await sql.unsafe<Row[]>(
      text,
      params as postgres.ParameterOrJSON<never>[],
      QUERY_OPTIONS,
    );
  } catch (error) {
    throw translate(error);
  }
  const rows = Array.from(result) as T[];
  assertSafeIntegers(rows as Row[], result.columns ?? []);
  return { rows, rowCount: result.count ?? rows.length };
}

async function execScript(
  sql: postgres.Sql | postgres.TransactionSql,
  text: string,
): Promise<void> {
  try {
    await sql.unsafe(text);
  } catch (error) {
    throw translate(error);
  }
}

class PostgresDatabase implements Database {
  readonly driver = "postgres" as const;
  readonly description: string;
  readonly #pool: ReplaceablePool;
  readonly #log: Logger | undefined;
  #closing: Promise<void> | undefined;

  constructor(pool: ReplaceablePool, options: PostgresOpenOptions) {
    this.#pool = pool;
    this.#log = options.log;
    this.description = options.description;
  }

  query<T = Record<string, unknown>>(
    sql: string,
    params: readonly unknown[] = [],
  ): Promise<QueryResult<T>> {
    return this.#onPool((pool) => run<T>(pool, sql, params));
  }

  exec(sql: string): Promise<void> {
    return this.#onPool((pool) => execScript(pool, sql));
  }

  /** Runs one statement on the current pool, reporting a broken connection to it. */
  async #onPool<T>(statement: (pool: Sql) => Promise<T>): Promise<T> {
    this.#assertOpen();
    const pool = this.#pool.current;
    try {
      return await statement(pool);
    } catch (error) {
      this.#pool.failed(pool, error);
      throw error;
    }
  }

  /**
   * Runs `fn` on a connection of its own between BEGIN and COMMIT. BEGIN is
   * not awaited on its own: it travels with the first statements, which
   * saves a round trip per transaction. Any statement failure rolls the
   * whole transaction back, even one `fn` caught and went past. If the
   * server closes the connection meanwhile, the transaction fails at once
   * with the driver's connection error and the connection is not reused.
   */
  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    this.#assertOpen();
    const pool = this.#pool.current;
    let lease: Lease;
    try {
      lease = new Lease(await pool.reserve(), (error) => this.#pool.failed(pool, error));
    } catch (error) {
      this.#pool.failed(pool, error);
      throw translate(error);
    }
    const scope = new PostgresTransaction(lease);
    try {
      const begun = lease.begin();
      // A failed BEGIN fails the statements queued behind it as well; it is awaited below.
      begun.catch(() => {});
      try {
        const result = await Promise.race([fn(scope), lease.closed]);
        const transactionId = await begun;
        scope.assertUnspoiled();
        await this.#commit(lease, transactionId);
        return result;
      } catch (error) {
        // Queued behind everything still in flight, so the connection goes back idle.
        await lease.unlessClosed((sql) => execScript(sql, "rollback")).catch(() => {});
        throw translate(scope.rootCause(error));
      }
    } finally {
      scope.close();
      lease.release();
    }
  }

  /**
   * Sends COMMIT. When the connection breaks under it, the server is asked
   * on a fresh connection whether the transaction committed: if it did, the
   * commit succeeded; if it did not, the original failure stands (nothing
   * was written); if nobody can say, {@link CommitInDoubtError}.
   */
  async #commit(lease: Lease, transactionId: string): Promise<void> {
    try {
      await lease.unlessClosed((sql) => execScript(sql, "commit"));
    } catch (error) {
      if (lease.lost === undefined || !(await this.#committed(transactionId, error))) throw error;
      this.#log?.warn(
        `transaction ${transactionId} committed although its connection broke during COMMIT`,
        { code: "SUTRA.DB.CONNECTION_LOST" },
      );
    }
  }

  /** Whether `transactionId` committed, asked until the server answers for sure or the check times out. */
  async #committed(transactionId: string, cause: unknown): Promise<boolean> {
    const deadline = Date.now() + IN_DOUBT_CHECK_MS;
    for (;;) {
      try {
        const { rows } = await this.query<{ status: string | null }>(
          "select txid_status($1::bigint) as status",
          [transactionId],
        );
        // "in progress" until the server has noticed the broken connection and aborted it.
        if (rows[0].status === "committed") return true;
        if (rows[0].status === "aborted") return false;
      } catch {
        // The server may still be coming back; ask again until the deadline.
      }
      if (Date.now() >= deadline) throw new CommitInDoubtError(transactionId, { cause });
      await new Promise((resolve) => setTimeout(resolve, IN_DOUBT_RETRY_MS));
    }
  }

  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    this.#assertOpen();
    checkChannel(channel);
    try {
      return await this.#pool.listen(channel, (payload) => {
        // A throw here would land in the driver's socket handler and drop the
        // listening connection.
        try {
          onNotify(payload);
        } catch (error) {
          this.#log?.error(`listener on channel '${channel}' failed`, { error });
        }
      });
    } catch (error) {
      throw translate(error);
    }
  }

  async notify(channel: string, payload: string): Promise<void> {
    checkChannel(channel);
    await this.query("select pg_notify($1, $2)", [channel, payload]);
  }

  close(): Promise<void> {
    this.#closing ??= this.#pool.end();
    return this.#closing;
  }

  #assertOpen(): void {
    if (this.#closing) throw new Error(`database ${this.description} is closed`);
  }
}

// How long a commit cut off in flight is checked for, and how often.
const IN_DOUBT_CHECK_MS = 5_000;
const IN_DOUBT_RETRY_MS = 100;

// SQLSTATE of a statement refused because an earlier one aborted the transaction.
const IN_FAILED_TRANSACTION = "25P02";

/** The part of the driver's internal connection object a lease touches. */
interface DriverConnection {
  onclose?: (error: unknown) => void;
}

/**
 * A connection reserved for one transaction, watched for the server closing
 * it. The driver does not fail a statement issued on a connection that has
 * already closed (it never settles), and a closed connection handed back to
 * the pool would be given to the next caller; so once closed, the lease
 * refuses new statements, fails the ones waiting, and is never released.
 */
class Lease {
  readonly sql: postgres.ReservedSql;
  /** The driver's error, once the server closed the connection. */
  lost: unknown;
  /** Rejects with the close error when the server closes the connection. */
  readonly closed: Promise<never>;
  readonly #reportLoss: (error: unknown) => void;
  #onClose!: (error: unknown) => void;
  /** The driver's connection object, once BEGIN ran on it. */
  #connection: DriverConnection | undefined;
  #released = false;
  readonly #closeHook = (error: unknown) => this.#lose(error);

  constructor(sql: postgres.ReservedSql, reportLoss: (error: unknown) => void) {
    this.sql = sql;
    this.#reportLoss = reportLoss;
    this.closed = new Promise<never>((_, reject) => this.#onClose = reject);
    this.closed.catch(() => {});
  }

  /** Records that the connection broke: nothing more is sent on it, and the pool hears of it. */
  #lose(error: unknown): void {
    if (this.lost !== undefined || this.#released) return;
    this.lost = error ?? new Error("the database connection closed");
    this.#onClose(this.lost);
    this.#reportLoss(this.lost);
  }

  /**
   * Sends BEGIN and subscribes to the connection's close, as the driver's
   * own `begin` does; resolves to the transaction's server id, asked in the
   * same round trip, by which a commit cut off in flight is checked.
   */
  begin(): Promise<string> {
    const options = {
      // Internal to the pinned driver (its own `begin` relies on it): called with the connection.
      // Its answer says whether later statements may be pipelined behind this one: they must be.
      onexecute: (connection: DriverConnection): boolean => {
        this.#connection = connection;
        connection.onclose = this.#closeHook;
        return true;
      },
    };
    const begun = this.sql.unsafe("begin", [], options as postgres.UnsafeQueryOptions).execute();
    const id = run<{ id: string }>(this.sql, "select txid_current()::text as id", []);
    return Promise.all([begun, id]).then(([, r]) => r.rows[0].id);
  }

  /**
   * Runs `statement` on the connection unless it has closed; settles with
   * the close error if that comes first.
   */
  unlessClosed<T>(statement: (sql: postgres.ReservedSql) => Promise<T>): Promise<T> {
    if (this.lost !== undefined) return Promise.reject(this.lost);
    const sent = statement(this.sql).catch((error) => {
      if (isConnectionLoss(error)) this.#lose(error);
      throw error;
    });
    return Promise.race([sent, this.closed]);
  }

  /** Hands a live connection back to the pool; a closed one is the driver's to reopen. */
  release(): void {
    this.#released = true;
    // Its later closes (idle, lifetime, another user's break) are no longer this lease's.
    if (this.#connection?.onclose === this.#closeHook) this.#connection.onclose = undefined;
    if (this.lost === undefined) this.sql.release();
  }
}

/**
 * A transaction (or savepoint) scope on a lease: it refuses use once ended,
 * remembers the first statement that failed in it, and reports that
 * statement rather than the refusals of the ones after it.
 */
class PostgresTransaction implements Transaction {
  readonly #lease: Lease;
  readonly #depth: number;
  #failure: SqlError | undefined;
  #closed = false;
  #savepoints = 0;

  constructor(lease: Lease, depth = 0) {
    this.#lease = lease;
    this.#depth = depth;
  }

  async query<T = Record<string, unknown>>(
    sql: string,
    params: readonly unknown[] = [],
  ): Promise<QueryResult<T>> {
    this.#assertOpen();
    try {
      return await this.#lease.unlessClosed((handle) => run<T>(handle, sql, params));
    } catch (error) {
      throw this.#note(error);
    }
  }

  async exec(sql: string): Promise<void> {
    this.#assertOpen();
    try {
      await this.#lease.unlessClosed((handle) => execScript(handle, sql));
    } catch (error) {
      throw this.#note(error);
    }
  }

  async savepoint<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    this.#assertOpen();
    const name = `sutra_sp_${this.#depth}_${this.#savepoints++}`;
    await this.exec(`savepoint ${name}`);
    // Failures inside the savepoint are the inner scope's: rolled back to it, they spoil nothing here.
    const inner = new PostgresTransaction(this.#lease, this.#depth + 1);
    try {
      const result = await fn(inner);
      inner.assertUnspoiled();
      await this.exec(`release savepoint ${name}`);
      return result;
    } catch (error) {
      await this.exec(`rollback to savepoint ${name}`);
      throw translate(inner.rootCause(error));
    } finally {
      inner.close();
    }
  }

  /** Throws the first statement failure of this scope, even one its caller caught. */
  assertUnspoiled(): void {
    if (this.#failure) throw this.#failure;
  }

  /** The first statement failure instead of a later "transaction is aborted" refusal. */
  rootCause(error: unknown): unknown {
    const aborted = error instanceof SqlError && error.code === IN_FAILED_TRANSACTION;
    return aborted && this.#failure ? this.#failure : error;
  }

  /** Refuses further use once the scope has ended. */
  close(): void {
    this.#closed = true;
  }

  #note(error: unknown): unknown {
    if (error instanceof SqlError) this.#failure ??= error;
    return error;
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error("the transaction has ended; its handle cannot be used");
  }
}
