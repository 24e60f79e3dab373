/**
 * The embedded driver: PGlite (PostgreSQL compiled to WebAssembly) in this
 * process, on a data directory or in memory.
 *
 * PGlite is a single connection. Its own transaction mutex already queues
 * `query`, `exec` and `transaction` callers one behind the other, so a
 * statement issued outside a transaction waits for any open transaction to
 * finish instead of slipping into it. This module adds what the server driver
 * gives for free: the spoiled-scope rule for failed statements, and a clear
 * error (instead of a deadlock) when a transaction callback calls the
 * database rather than its transaction handle.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import {
  messages,
  PGlite,
  type Results,
  type Transaction as PgliteTransactionHandle,
} from "@electric-sql/pglite";
import type { Logger } from "../core/log.ts";
import { type Database, type QueryResult, SqlError, type Transaction } from "./database.ts";
import {
  assertSafeIntegers,
  checkChannel,
  checkParams,
  CONVERSIONS,
  type Parser,
  quoteIdentifier,
  type Serializer,
} from "./_values.ts";

/** Options for {@link openPglite}. */
export interface PgliteOpenOptions {
  /** Directory holding the data files; absent ⇒ a fresh in-memory database. */
  readonly dataDir?: string;
  /** Schema every statement runs in (created if missing). */
  readonly schema?: string;
  /** What {@link Database.description} reports. */
  readonly description: string;
  /** Runs once the database has closed (e.g. to release a directory lock). */
  readonly onClose?: () => Promise<void>;
  /** Receives listener failures. */
  readonly log?: Logger;
}

const PARSERS: Record<number, Parser> = Object.fromEntries(
  CONVERSIONS.map((c) => [c.oid, c.parse]),
);
const SERIALIZERS: Record<number, Serializer> = Object.fromEntries(
  CONVERSIONS.map((c) => [c.oid, c.serialize]),
);

// initdb costs about two seconds; copying an initialised data directory costs
// a few hundred milliseconds. Every in-memory database of this process
// therefore starts from one pristine image made on first use.
let pristineImage: Promise<Blob> | undefined;

function pristineMemoryImage(): Promise<Blob> {
  if (!pristineImage) {
    pristineImage = (async () => {
      const pg = await PGlite.create({ dataDir: "memory://" });
      try {
        return await pg.dumpDataDir("none");
      } finally {
        await pg.close();
      }
    })();
    pristineImage.catch(() => pristineImage = undefined);
  }
  return pristineImage;
}

/** Opens an embedded database; throws the driver's error when PGlite cannot start. */
export async function openPglite(options: PgliteOpenOptions): Promise<Database> {
  const conversions = { parsers: PARSERS, serializers: SERIALIZERS };
  const pg = options.dataDir === undefined
    ? await PGlite.create({
      dataDir: "memory://",
      loadDataDir: await pristineMemoryImage(),
      ...conversions,
    })
    : await PGlite.create({ dataDir: options.dataDir, ...conversions });
  if (options.schema !== undefined) {
    const schema = quoteIdentifier(options.schema);
    try {
      await pg.exec(`create schema if not exists ${schema}; set search_path to ${schema}`);
    } catch (error) {
      await pg.close();
      throw translate(error);
    }
  }
  return new PgliteDatabase(pg, options);
}

/** Maps PGlite's protocol error onto {@link SqlError}; anything else passes through. */
function translate(error: unknown): unknown {
  if (!(error instanceof messages.DatabaseError) || error.code === undefined) return error;
  return new SqlError(error.message, {
    code: error.code,
    detail: error.detail,
    hint: error.hint,
    schema: error.schema,
    table: error.table,
    column: error.column,
    constraint: error.constraint,
  }, { cause: error });
}

function toResult<T>(result: Results<T>): QueryResult<T> {
  assertSafeIntegers(
    result.rows as Record<string, unknown>[],
    result.fields.map((f) => ({ name: f.name, type: f.dataTypeID })),
  );
  return {
    rows: result.rows,
    rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length,
  };
}

// SQLSTATE of a statement refused because an earlier one aborted the transaction.
const IN_FAILED_TRANSACTION = "25P02";

/** Marks the async context of one open transaction callback. */
interface TransactionMark {
  open: boolean;
}

class PgliteDatabase implements Database {
  readonly driver = "pglite" as const;
  readonly description: string;
  readonly #pg: PGlite;
  readonly #options: PgliteOpenOptions;
  readonly #insideTransaction = new AsyncLocalStorage<TransactionMark>();
  #closing: Promise<void> | undefined;

  constructor(pg: PGlite, options: PgliteOpenOptions) {
    this.#pg = pg;
    this.#options = options;
    this.description = options.description;
  }

  async query<T = Record<string, unknown>>(
    sql: string,
    params: readonly unknown[] = [],
  ): Promise<QueryResult<T>> {
    this.#assertUsable();
    checkParams(params);
    let result: Results<T>;
    try {
      result = await this.#pg.query<T>(sql, params as unknown[]);
    } catch (error) {
      throw translate(error);
    }
    return toResult(result);
  }

  async exec(sql: string): Promise<void> {
    this.#assertUsable();
    try {
      await this.#pg.exec(sql);
    } catch (error) {
      throw translate(error);
    }
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    this.#assertUsable();
    const mark: TransactionMark = { open: true };
    try {
      return await this.#pg.transaction((handle) =>
        this.#insideTransaction.run(mark, async () => {
          const scope = new PgliteTransaction(handle, { next: 0 });
          try {
            const result = await fn(scope);
            scope.settle();
            return result;
          } catch (error) {
            throw scope.rootCause(error);
          } finally {
            scope.close();
            mark.open = false;
          }
        })
      );
    } catch (error) {
      throw translate(error);
    }
  }

  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    this.#assertUsable();
    checkChannel(channel);
    const deliver = (payload: string) =>
      // Leave the context of whichever transaction's COMMIT carried the
      // notification, so the listener may use the database freely.
      this.#insideTransaction.exit(() => {
        try {
          onNotify(payload);
        } catch (error) {
          this.#options.log?.error(`listener on channel '${channel}' failed`, { error });
        }
      });
    let unlisten: () => Promise<void>;
    try {
      unlisten = await this.#pg.listen(channel, deliver);
    } catch (error) {
      throw translate(error);
    }
    return async () => {
      if (!this.#closing) await unlisten();
    };
  }

  async notify(channel: string, payload: string): Promise<void> {
    checkChannel(channel);
    await this.query("select pg_notify($1, $2)", [channel, payload]);
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        await this.#pg.close();
      } finally {
        await this.#options.onClose?.();
      }
    })();
    return this.#closing;
  }

  #assertUsable(): void {
    if (this.#closing) throw new Error(`database ${this.description} is closed`);
    if (this.#insideTransaction.getStore()?.open) {
      throw new Error(
        "the embedded database has a single connection and this call comes from inside one of " +
          "its transactions, where it would wait forever: use the transaction handle instead",
      );
    }
  }
}

/** One transaction or savepoint scope over PGlite's transaction handle. */
class PgliteTransaction implements Transaction {
  readonly #handle: PgliteTransactionHandle;
  readonly #savepoints: { next: number };
  #failure: unknown;
  #closed = false;

  constructor(handle: PgliteTransactionHandle, savepoints: { next: number }) {
    this.#handle = handle;
    this.#savepoints = savepoints;
  }

  async query<T = Record<string, unknown>>(
    sql: string,
    params: readonly unknown[] = [],
  ): Promise<QueryResult<T>> {
    this.#assertOpen();
    checkParams(params);
    let result: Results<T>;
    try {
      result = await this.#handle.query<T>(sql, params as unknown[]);
    } catch (error) {
      throw this.#fail(error);
    }
    return toResult(result);
  }

  async exec(sql: string): Promise<void> {
    this.#assertOpen();
    try {
      await this.#handle.exec(sql);
    } catch (error) {
      throw this.#fail(error);
    }
  }

  async savepoint<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const name = `sutra_savepoint_${this.#savepoints.next++}`;
    await this.exec(`savepoint ${name}`);
    const inner = new PgliteTransaction(this.#handle, this.#savepoints);
    let result: T;
    try {
      result = await fn(inner);
      inner.settle();
    } catch (error) {
      inner.close();
      await this.exec(`rollback to savepoint ${name}`);
      throw inner.rootCause(error);
    }
    inner.close();
    await this.exec(`release savepoint ${name}`);
    return result;
  }

  /** Throws the first failed statement's error if the callback swallowed it. */
  settle(): void {
    if (this.#failure !== undefined) throw this.#failure;
  }

  /**
   * The error a failing scope reports: the statement that aborted the
   * transaction rather than the "transaction is aborted" refusal of a later
   * statement, as the server driver does.
   */
  rootCause(error: unknown): unknown {
    const aborted = error instanceof SqlError && error.code === IN_FAILED_TRANSACTION;
    return aborted && this.#failure !== undefined ? this.#failure : error;
  }

  /** Refuses further use once the scope has ended. */
  close(): void {
    this.#closed = true;
  }

  #fail(error: unknown): unknown {
    const translated = translate(error);
    this.#failure ??= translated;
    return translated;
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error("the transaction has ended; its handle cannot be used");
  }
}
