/**
 * The dialect-neutral half of the `sql` store: the key/value operations and
 * their revision bookkeeping, written once over a small client interface
 * that each dialect module implements for its driver.
 *
 * @module
 */
import {
  conflictError,
  type DataStoreConnection,
  type DataStoreTransaction,
  type GetOptions,
  type StoredRecord,
  type WriteOptions,
} from "../../engine/core/datastore.ts";
import { diagnostic, DiagnosticError } from "../../engine/core/diagnostic.ts";

/** Rows and affected-row count of one statement. */
export interface SqlResult {
  readonly rows: readonly Record<string, unknown>[];
  readonly affected: number;
}

/** An open transaction of a driver. */
export interface SqlTransaction {
  /** One statement with positional parameters in the dialect's placeholder style. */
  query(sql: string, params: readonly unknown[]): Promise<SqlResult>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/** The SQL one dialect issues for the generic key/value table. */
export interface SqlDialect {
  readonly name: string;
  /** Idempotent DDL creating the table. */
  createTable(table: string): string;
  /** Params `[store, key]`; rows `{value, rev}`. */
  select(table: string, forUpdate: boolean): string;
  /** Params `[store, key, value]`; the last statement's first row is `{rev}`. */
  upsert(table: string): readonly string[];
  /** Params `[value, store, key, expectRev]`; affects one row when the revision matched. */
  update(table: string): string;
  /** Params `[store, key]` (plus `expectRev` when `guarded`). */
  delete(table: string, guarded: boolean): string;
}

/** A driver's connection pool, as the generic store needs it. */
export interface SqlClient {
  readonly dialect: SqlDialect;
  /** Where it points, without credentials. */
  readonly description: string;
  begin(): Promise<SqlTransaction>;
  /**
   * Runs `scripts` in order while holding a lock named `lock` that every
   * process connecting to the same database honours.
   */
  runLocked(lock: string, scripts: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** The default name of the key/value table. */
export const DEFAULT_TABLE = "sutra_datastore";

const TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** True when `table` is a plain lower-case identifier of at most 63 characters. */
export function isTableName(table: string): boolean {
  return TABLE_NAME.test(table);
}

/** The connection serving one key/value store. */
export class SqlStoreConnection implements DataStoreConnection {
  readonly store: string;
  readonly #client: SqlClient;
  readonly #table: string;
  #closed = false;

  /** @param client the driver, shared by nothing else @param options store and table */
  constructor(client: SqlClient, options: { readonly store: string; readonly table: string }) {
    this.#client = client;
    this.store = options.store;
    this.#table = options.table;
  }

  /** Where the store lives. */
  get description(): string {
    return this.#client.description;
  }

  /** Starts a transaction on a pooled connection. */
  async begin(): Promise<DataStoreTransaction> {
    return new SqlStoreTransaction(await this.#client.begin(), {
      dialect: this.#client.dialect,
      store: this.store,
      table: this.#table,
    });
  }

  /** Closes the pool once. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#client.close();
  }
}

class SqlStoreTransaction implements DataStoreTransaction {
  readonly #tx: SqlTransaction;
  readonly #dialect: SqlDialect;
  readonly #store: string;
  readonly #table: string;
  #ended = false;

  constructor(
    tx: SqlTransaction,
    options: { readonly dialect: SqlDialect; readonly store: string; readonly table: string },
  ) {
    this.#tx = tx;
    this.#dialect = options.dialect;
    this.#store = options.store;
    this.#table = options.table;
  }

  async get(key: string, options: GetOptions = {}): Promise<StoredRecord | undefined> {
    const sql = this.#dialect.select(this.#table, options.forUpdate === true);
    const { rows } = await this.#tx.query(sql, [this.#store, key]);
    if (rows.length === 0) return undefined;
    return { value: JSON.parse(String(rows[0].value)), rev: Number(rows[0].rev) };
  }

  async put(key: string, value: unknown, options: WriteOptions = {}): Promise<number> {
    const text = JSON.stringify(value ?? null);
    if (options.expectRev !== undefined) {
      const sql = this.#dialect.update(this.#table);
      const { affected } = await this.#tx.query(sql, [text, this.#store, key, options.expectRev]);
      if (affected !== 1) throw conflictError(this.#store, key, options.expectRev);
      return options.expectRev + 1;
    }
    let last: SqlResult | undefined;
    for (const sql of this.#dialect.upsert(this.#table)) {
      last = await this.#tx.query(sql, [this.#store, key, text]);
    }
    return Number(last!.rows[0].rev);
  }

  async delete(key: string, options: WriteOptions = {}): Promise<boolean> {
    const guarded = options.expectRev !== undefined;
    const params = guarded ? [this.#store, key, options.expectRev] : [this.#store, key];
    const { affected } = await this.#tx.query(this.#dialect.delete(this.#table, guarded), params);
    if (guarded && affected !== 1) throw conflictError(this.#store, key, options.expectRev!);
    return affected > 0;
  }

  async commit(): Promise<void> {
    this.#end();
    await this.#tx.commit();
  }

  async rollback(): Promise<void> {
    // After a failed commit the driver already rolled back: nothing is left to end.
    if (this.#ended) return;
    this.#end();
    await this.#tx.rollback();
  }

  #end(): void {
    if (this.#ended) throw new Error(`data store '${this.#store}': the transaction has ended`);
    this.#ended = true;
  }
}

/** A migration script of a store, in the order it runs. */
export interface MigrationScript {
  readonly version: number;
  readonly file: string;
  readonly sql: string;
}

const MIGRATION_FILE = /^V(\d+)__.+\.sql$/;

/**
 * Reads `V<n>__*.sql` from `dir` in version order. Any other `.sql` file, or
 * two files with one version, is `SUTRA.CONFIG.DATASTORE.MIGRATION_INVALID`.
 */
export async function readMigrations(store: string, dir: string): Promise<MigrationScript[]> {
  const scripts: MigrationScript[] = [];
  const problems: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CONFIG.DATASTORE.MIGRATIONS_MISSING",
      `data store '${store}': cannot read its migrations folder ${dir}: ${messageOf(error)}`,
      { attributes: { store } },
    ));
  }
  for (const entry of entries) {
    if (!entry.isFile || !entry.name.endsWith(".sql")) continue;
    const m = MIGRATION_FILE.exec(entry.name);
    if (!m) {
      problems.push(`'${entry.name}' is not named V<n>__<description>.sql`);
      continue;
    }
    const version = Number(m[1]);
    const twin = scripts.find((s) => s.version === version);
    if (twin) problems.push(`'${entry.name}' repeats version ${version} of '${twin.file}'`);
    const sql = await Deno.readTextFile(`${dir}/${entry.name}`);
    scripts.push({ version, file: entry.name, sql });
  }
  if (problems.length > 0) {
    throw new DiagnosticError(problems.map((p) =>
      diagnostic(
        "SUTRA.CONFIG.DATASTORE.MIGRATION_INVALID",
        `data store '${store}': migration ${p}`,
        { attributes: { store } },
      )
    ));
  }
  return scripts.sort((a, b) => a.version - b.version);
}

/** The text of an error, whatever was thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
