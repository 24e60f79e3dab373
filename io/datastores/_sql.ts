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
  type StoreMark,
  type WriteOptions,
} from "../../engine/core/datastore.ts";
import { diagnostic, DiagnosticError } from "../../engine/core/diagnostic.ts";
import { errorMessage } from "../../engine/core/errors.ts";
import { type TransientReason, TransientStoreError } from "../../engine/datastore/mod.ts";

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
  /**
   * Idempotent DDL creating the table of redo marks: `at` (BIGINT epoch ms),
   * `redo_id`, `store_name`, keyed by all three with `at` leading.
   */
  createMarksTable(table: string): string;
  /** Params `[at, redoId, store]`; a unique violation when the mark is there. */
  insertMark(table: string): string;
  /** Params `[store, before]`; deletes the store's marks whose `at` is below `before`. */
  purgeMarks(table: string): string;
  /** True when the driver's `error` is a unique or primary-key violation. */
  duplicate(error: unknown): boolean;
  /**
   * Why the driver's `error` aborted the transaction for contention with
   * other transactions (so running it again may succeed), or undefined when
   * it is any other failure.
   */
  transient(error: unknown): TransientReason | undefined;
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

/**
 * The table of redo marks in a store's database. Fixed, whatever a store's
 * `kv-table`: every store on the database shares it, keyed by store name.
 */
export const MARKS_TABLE = "sutra_store_marks";

/** The lock every process takes to create {@link MARKS_TABLE}. */
export const MARKS_LOCK = "sutra.datastore.marks";

/** The longest redo id the marks table holds. */
export const MAX_REDO_ID = 64;

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
    return new SqlStoreTransaction(
      contentionAware(await this.#client.begin(), this.#client, this.store),
      {
        dialect: this.#client.dialect,
        store: this.store,
        table: this.#table,
      },
    );
  }

  /** Forgets this store's marks recorded before `before` (epoch ms); resolves to how many. */
  purgeMarks(before: number): Promise<number> {
    return purgeMarks(this.#client, this.store, before);
  }

  /** Closes the pool once. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#client.close();
  }
}

/**
 * `tx`, with every statement and the commit that the database aborted for
 * contention rethrown as a {@link TransientStoreError} of `store`.
 */
export function contentionAware(
  tx: SqlTransaction,
  client: Pick<SqlClient, "dialect">,
  store: string,
): SqlTransaction {
  const classified = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      const reason = client.dialect.transient(error);
      throw reason === undefined ? error : new TransientStoreError(store, { reason, cause: error });
    }
  };
  return {
    query: (sql, params) => classified(() => tx.query(sql, params)),
    commit: () => classified(() => tx.commit()),
    rollback: () => tx.rollback(),
  };
}

/**
 * Deletes `store`'s marks whose `at` is below `before` in a transaction of
 * its own; resolves to how many went.
 */
export async function purgeMarks(
  client: SqlClient,
  store: string,
  before: number,
): Promise<number> {
  if (!Number.isSafeInteger(before)) {
    throw new RangeError(
      `data store '${store}': marks are purged before an epoch-ms integer, not ${before}`,
    );
  }
  const tx = contentionAware(await client.begin(), client, store);
  let affected: number;
  try {
    ({ affected } = await tx.query(client.dialect.purgeMarks(MARKS_TABLE), [store, before]));
  } catch (error) {
    await tx.rollback().catch(() => {});
    throw error;
  }
  // A failed commit has already rolled back: nothing is left to end.
  await tx.commit();
  return affected;
}

/** One statement with its parameters. */
export interface Statement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/**
 * The half of a store transaction that every table shape shares: the
 * revision bookkeeping of writes and deletes, and ending exactly once. A
 * shape supplies its statements and how a row reads back.
 */
export abstract class RevisionedTransaction implements DataStoreTransaction {
  /** The store name, for parameters and diagnostics. */
  protected readonly store: string;
  readonly #tx: SqlTransaction;
  readonly #dialect: SqlDialect;
  #ended = false;

  /**
   * @param tx the driver's open transaction
   * @param store the store it serves
   * @param dialect the SQL of the database, for the marks
   */
  constructor(tx: SqlTransaction, store: string, dialect: SqlDialect) {
    this.#tx = tx;
    this.store = store;
    this.#dialect = dialect;
  }

  abstract get(key: string, options?: GetOptions): Promise<StoredRecord | undefined>;
  abstract put(key: string, value: unknown, options?: WriteOptions): Promise<number>;
  abstract delete(key: string, options?: WriteOptions): Promise<boolean>;

  /** Runs one statement in the transaction. */
  protected query(sql: string, params: readonly unknown[]): Promise<SqlResult> {
    return this.#tx.query(sql, params);
  }

  /**
   * Writes `key`: when `expectRev` is given, through `update` (a row no
   * longer at that revision is a conflict), else through the `upsert`
   * statements, the last of which answers the new `rev`.
   */
  protected async write(
    key: string,
    expectRev: number | undefined,
    statements: { readonly update: () => Statement; readonly upsert: () => readonly Statement[] },
  ): Promise<number> {
    if (expectRev !== undefined) {
      const { sql, params } = statements.update();
      const { affected } = await this.#tx.query(sql, params);
      if (affected !== 1) throw conflictError(this.store, key, expectRev);
      return expectRev + 1;
    }
    let last: SqlResult | undefined;
    for (const { sql, params } of statements.upsert()) last = await this.#tx.query(sql, params);
    return Number(last!.rows[0].rev);
  }

  /** Deletes `key` through `statement`; with `expectRev`, a row not at that revision is a conflict. */
  protected async remove(
    key: string,
    expectRev: number | undefined,
    statement: Statement,
  ): Promise<boolean> {
    const { affected } = await this.#tx.query(statement.sql, statement.params);
    if (expectRev !== undefined && affected !== 1) throw conflictError(this.store, key, expectRev);
    return affected > 0;
  }

  /**
   * Inserts `mark` for this store. A unique violation means a committed
   * transaction holds it: false (on PostgreSQL the transaction is then
   * spoiled, and the caller only rolls it back). An insert racing a
   * transaction still open with the mark waits on its key until that ends.
   */
  async mark(mark: StoreMark): Promise<boolean> {
    const { redoId, at } = mark;
    if (typeof redoId !== "string" || redoId === "" || redoId.length > MAX_REDO_ID) {
      throw new RangeError(
        `data store '${this.store}': a redo id is 1 to ${MAX_REDO_ID} characters, ` +
          `not '${String(redoId)}'`,
      );
    }
    if (!Number.isSafeInteger(at)) {
      throw new RangeError(
        `data store '${this.store}': mark '${redoId}' needs an epoch-ms integer, not ${at}`,
      );
    }
    try {
      await this.#tx.query(this.#dialect.insertMark(MARKS_TABLE), [at, redoId, this.store]);
      return true;
    } catch (error) {
      if (this.#dialect.duplicate(error)) return false;
      throw error;
    }
  }

  /** Makes every write durable; a second end throws. */
  async commit(): Promise<void> {
    this.#end();
    await this.#tx.commit();
  }

  /** Discards every write; harmless once the transaction has ended. */
  async rollback(): Promise<void> {
    // After a failed commit the driver already rolled back: nothing is left to end.
    if (this.#ended) return;
    this.#end();
    await this.#tx.rollback();
  }

  #end(): void {
    if (this.#ended) throw new Error(`data store '${this.store}': the transaction has ended`);
    this.#ended = true;
  }
}

class SqlStoreTransaction extends RevisionedTransaction {
  readonly #dialect: SqlDialect;
  readonly #table: string;

  constructor(
    tx: SqlTransaction,
    options: { readonly dialect: SqlDialect; readonly store: string; readonly table: string },
  ) {
    super(tx, options.store, options.dialect);
    this.#dialect = options.dialect;
    this.#table = options.table;
  }

  async get(key: string, options: GetOptions = {}): Promise<StoredRecord | undefined> {
    const sql = this.#dialect.select(this.#table, options.forUpdate === true);
    const { rows } = await this.query(sql, [this.store, key]);
    if (rows.length === 0) return undefined;
    return { value: JSON.parse(String(rows[0].value)), rev: Number(rows[0].rev) };
  }

  async put(key: string, value: unknown, options: WriteOptions = {}): Promise<number> {
    const text = JSON.stringify(value ?? null);
    return await this.write(key, options.expectRev, {
      update: () => ({
        sql: this.#dialect.update(this.#table),
        params: [text, this.store, key, options.expectRev],
      }),
      upsert: () =>
        this.#dialect.upsert(this.#table).map((sql) => ({ sql, params: [this.store, key, text] })),
    });
  }

  async delete(key: string, options: WriteOptions = {}): Promise<boolean> {
    const guarded = options.expectRev !== undefined;
    return await this.remove(key, options.expectRev, {
      sql: this.#dialect.delete(this.#table, guarded),
      params: guarded ? [this.store, key, options.expectRev] : [this.store, key],
    });
  }
}

/** A migration script of a store, in the order it runs. */
export interface MigrationScript {
  readonly version: number;
  readonly file: string;
  readonly sql: string;
}

const MIGRATION_FILE = /^V(\d+)__.+\.sql$/;

/** Where a store's migrations folder is read from. */
export interface MigrationSource {
  /** A directory on disk the folder path is relative to. */
  readonly baseDir?: string;
  /** Package files by package path; preferred over {@link baseDir} when present. */
  readonly files?: ReadonlyMap<string, Uint8Array>;
}

/**
 * Reads `V<n>__*.sql` from the folder `dir` in version order. Any other
 * `.sql` file, or two files with one version, is
 * `SUTRA.CONFIG.DATASTORE.MIGRATION_INVALID`.
 */
export async function readMigrations(
  store: string,
  dir: string,
  source: MigrationSource,
): Promise<MigrationScript[]> {
  const scripts: MigrationScript[] = [];
  const problems: string[] = [];
  for (const file of await sqlFilesIn(store, dir, source)) {
    const m = MIGRATION_FILE.exec(file.name);
    if (!m) {
      problems.push(`'${file.name}' is not named V<n>__<description>.sql`);
      continue;
    }
    const version = Number(m[1]);
    const twin = scripts.find((s) => s.version === version);
    if (twin) problems.push(`'${file.name}' repeats version ${version} of '${twin.file}'`);
    scripts.push({ version, file: file.name, sql: await file.text() });
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

interface SqlFile {
  readonly name: string;
  text(): Promise<string>;
}

// The `.sql` files directly inside `dir`, from the package in memory or from disk.
async function sqlFilesIn(
  store: string,
  dir: string,
  source: MigrationSource,
): Promise<SqlFile[]> {
  const folder = dir.replace(/^\.\//, "").replace(/\/+$/, "");
  if (source.files) {
    const prefix = `${folder}/`;
    const out: SqlFile[] = [];
    for (const [path, bytes] of source.files) {
      const name = path.slice(prefix.length);
      if (!path.startsWith(prefix) || name.includes("/") || !name.endsWith(".sql")) continue;
      out.push({ name, text: () => Promise.resolve(new TextDecoder().decode(bytes)) });
    }
    if (out.length === 0) throw missingFolder(store, folder, "the package has no such folder");
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }
  const path = `${source.baseDir ?? "."}/${folder}`;
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(path));
  } catch (error) {
    throw missingFolder(store, path, messageOf(error));
  }
  return entries
    .filter((e) => e.isFile && e.name.endsWith(".sql"))
    .map((e) => ({ name: e.name, text: () => Deno.readTextFile(`${path}/${e.name}`) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

function missingFolder(store: string, folder: string, reason: string): DiagnosticError {
  return new DiagnosticError(diagnostic(
    "SUTRA.CONFIG.DATASTORE.MIGRATIONS_MISSING",
    `data store '${store}': cannot read its migrations folder ${folder}: ${reason}`,
    { attributes: { store } },
  ));
}

/** The text of an error, whatever was thrown. */
export function messageOf(error: unknown): string {
  return errorMessage(error);
}
