/**
 * The data-store SPI: durable keyed state shared across instances. A
 * provider module registers itself under a store `type` (`sql`, …) on
 * import; the engine opens stores through {@link dataStoreProviders} and
 * never names a concrete database.
 *
 * A provider hands back one {@link DataStoreConnection} per declared store.
 * Everything a store does happens inside a {@link DataStoreTransaction}
 * (begun explicitly, so a row lock taken by a `forUpdate` read stays held
 * across the asynchronous work of a step until the transaction ends).
 * {@link DataStore} wraps a connection with single-operation convenience and
 * a callback transaction; {@link UnitOfWork} spans several stores so a BPMN
 * transaction's writes commit or roll back together.
 *
 * Every record carries a revision: 1 when the key is first written, one more
 * on every later write. A write that names the revision it expects and finds
 * another one fails with {@link DATASTORE_CONFLICT}.
 *
 * @module
 */
import { diagnostic, DiagnosticError } from "./diagnostic.ts";
import { Registry } from "./registry.ts";
import type { ResolveContext } from "./secrets.ts";

/** Code of a compare-and-set write (or delete) that found a moved revision. */
export const DATASTORE_CONFLICT = "SUTRA.RUNTIME.DATASTORE.CONFLICT";

/** What a store holds under one key. */
export interface StoredRecord {
  /** The value as plain JSON-shaped data. */
  readonly value: unknown;
  /** 1 after the first write, bumped by every later one. */
  readonly rev: number;
}

/** Options for a read. */
export interface GetOptions {
  /** Lock the row until the enclosing transaction ends, so writers on the key serialize. */
  readonly forUpdate?: boolean;
}

/** Options for a write or delete. */
export interface WriteOptions {
  /** Compare-and-set: the revision the caller read; another one is a conflict. */
  readonly expectRev?: number;
}

/** The operations on one store inside a transaction. */
export interface StoreOperations {
  /** The record under `key`, or undefined when there is none. */
  get(key: string, options?: GetOptions): Promise<StoredRecord | undefined>;
  /** Writes the whole value; resolves to the new revision. */
  put(key: string, value: unknown, options?: WriteOptions): Promise<number>;
  /** Removes the key; resolves to false when there was nothing to remove. */
  delete(key: string, options?: WriteOptions): Promise<boolean>;
}

/**
 * The identity of one step's writes to a store, recorded in the store's own
 * database in the transaction holding them (see `engine/datastore/redo.ts`):
 * after a crash it tells whether those writes committed there.
 */
export interface StoreMark {
  /** The step's redo id, unique across the engine's database. */
  readonly redoId: string;
  /** When the step wrote, epoch milliseconds: what a purge of old marks goes by. */
  readonly at: number;
}

/** An open transaction on one store's connection. */
export interface DataStoreTransaction extends StoreOperations {
  /**
   * Records `mark` for this store. Resolves to false when a committed
   * transaction recorded it before (so its writes are in the store); after
   * false, the transaction can only be rolled back. A transaction still open
   * elsewhere with the same mark makes this wait for its end.
   */
  mark(mark: StoreMark): Promise<boolean>;
  /** Makes every write durable and releases the locks. */
  commit(): Promise<void>;
  /** Discards every write and releases the locks. Harmless after a failed commit. */
  rollback(): Promise<void>;
}

/** A provider's live connection for one declared store. */
export interface DataStoreConnection {
  /** The store name the connection serves. */
  readonly store: string;
  /** Where it points, without credentials (for logs and diagnostics). */
  readonly description: string;
  /** Starts a transaction; on a single-connection database this waits for the open one. */
  begin(): Promise<DataStoreTransaction>;
  /** Forgets this store's marks recorded before `before` (epoch ms); resolves to how many. */
  purgeMarks(before: number): Promise<number>;
  /** Closes the connection. Closing twice is harmless. */
  close(): Promise<void>;
}

/** One store as `datastores.yaml` declares it. */
export interface DataStoreDeclaration {
  readonly name: string;
  /** The provider key (`sql`). */
  readonly type: string;
  /** The provider's own block (`sql: {url-ref, username-ref, password-ref, migrations}`). */
  readonly settings: Readonly<Record<string, unknown>>;
  /** Sensitivity tag (`pii`, `pci`, `phi`, `financial`) for redaction of values read. */
  readonly dataClass?: string;
  /**
   * A projected store: its record's fields on typed columns of one table.
   * Absent for the key/value shape (one generic table, values as JSON text).
   */
  readonly projection?: StoreProjection;
}

/** One declared field of a projected store and the column it lives in. */
export interface ProjectedColumn {
  readonly field: string;
  readonly column: string;
  /** The XSD built-in the field's type derives from (`string`, `decimal`, `date`, …). */
  readonly type: string;
  /** The field may be absent, so the column must admit NULL. */
  readonly optional: boolean;
}

/** The table a projected store's records are rows of. */
export interface StoreProjection {
  readonly table: string;
  /** The declared record type's name, for messages. */
  readonly type: string;
  /** Every declared field, in declared order. */
  readonly columns: readonly ProjectedColumn[];
}

/** What a provider needs besides the declaration. */
export interface OpenStoreOptions {
  /** Resolves `*-ref` settings (env, secret files). */
  readonly resolve: ResolveContext;
  /** Directory the declaration's relative paths (`migrations:`) are read from. */
  readonly baseDir?: string;
  /**
   * The package's files by package path, when the package is held in
   * memory (a deployed archive): relative paths are read from here instead
   * of {@link baseDir}.
   */
  readonly files?: ReadonlyMap<string, Uint8Array>;
}

/** A registered store type. */
export interface DataStoreProvider {
  /** The `type:` it serves (`sql`). */
  readonly name: string;
  /**
   * Connects to the store's own database (never the engine's), prepares it
   * (its table, its migrations) and resolves once it can serve operations.
   * Throws a {@link DiagnosticError} when the declaration is unusable.
   */
  open(declaration: DataStoreDeclaration, options: OpenStoreOptions): Promise<DataStoreConnection>;
}

/** Every linked store provider, keyed by store type. */
export const dataStoreProviders: Registry<DataStoreProvider> = new Registry("data store provider");

/** The error a moved revision raises. */
export function conflictError(store: string, key: string, expectRev: number): DiagnosticError {
  return new DiagnosticError(diagnostic(
    DATASTORE_CONFLICT,
    `data store '${store}': key '${key}' is no longer at revision ${expectRev}`,
    { attributes: { store, key, expectRev } },
  ));
}

/** True when `error` is a revision conflict. */
export function isConflict(error: unknown): boolean {
  return error instanceof DiagnosticError &&
    error.diagnostics.some((d) => d.code === DATASTORE_CONFLICT);
}

/**
 * Read-modify-write of one field: the stored map (a fresh one when the key is
 * absent or holds no map) with `field` set to `value`. The read locks the
 * row, so concurrent field writes to one key serialize instead of losing one.
 */
export async function putField(
  ops: StoreOperations,
  key: string,
  options: { readonly field: string; readonly value: unknown; readonly expectRev?: number },
): Promise<number> {
  return (await writeField(ops, key, options)).rev;
}

/** {@link putField}, resolving to the whole value written as well as its revision. */
export async function writeField(
  ops: StoreOperations,
  key: string,
  options: { readonly field: string; readonly value: unknown; readonly expectRev?: number },
): Promise<{ readonly value: Record<string, unknown>; readonly rev: number }> {
  const current = await ops.get(key, { forUpdate: true });
  const base = current !== undefined && isRecord(current.value) ? current.value : {};
  const value = { ...base, [options.field]: options.value };
  return { value, rev: await ops.put(key, value, { expectRev: options.expectRev }) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One named store: single operations commit on their own; {@link DataStore.transaction} groups them. */
export class DataStore {
  /** The connection behind the store. */
  readonly connection: DataStoreConnection;

  /** @param connection a provider's connection for the store */
  constructor(connection: DataStoreConnection) {
    this.connection = connection;
  }

  /** The store name. */
  get name(): string {
    return this.connection.store;
  }

  /** The record under `key` (a `forUpdate` read outside a transaction locks nothing useful). */
  get(key: string, options?: GetOptions): Promise<StoredRecord | undefined> {
    return this.transaction((tx) => tx.get(key, options));
  }

  /** Writes the whole value; resolves to the new revision. */
  put(key: string, value: unknown, options?: WriteOptions): Promise<number> {
    return this.transaction((tx) => tx.put(key, value, options));
  }

  /** Sets one field of the stored map; resolves to the new revision. */
  putField(
    key: string,
    options: { readonly field: string; readonly value: unknown; readonly expectRev?: number },
  ): Promise<number> {
    return this.transaction((tx) => putField(tx, key, options));
  }

  /** Removes the key; false when it was absent. */
  delete(key: string, options?: WriteOptions): Promise<boolean> {
    return this.transaction((tx) => tx.delete(key, options));
  }

  /** Runs `fn` in one transaction: commit when it resolves, rollback when it throws. */
  async transaction<T>(fn: (tx: StoreOperations) => Promise<T>): Promise<T> {
    const tx = await this.connection.begin();
    let result: T;
    try {
      result = await fn(tx);
    } catch (error) {
      await tx.rollback();
      throw error;
    }
    await tx.commit();
    return result;
  }

  /** Closes the connection. */
  close(): Promise<void> {
    return this.connection.close();
  }
}

/**
 * Work spanning several stores: each store's transaction begins on first
 * use and stays open (holding its `forUpdate` locks) until {@link commit}
 * or {@link rollback}. Stores on different databases commit one after the
 * other; a failed commit rolls back every store not yet committed.
 */
export class UnitOfWork {
  readonly #open = new Map<DataStore, Promise<DataStoreTransaction>>();
  #ended = false;

  /** The operations on `store` inside this unit of work. */
  on(store: DataStore): StoreOperations & Pick<DataStoreTransaction, "mark"> {
    const tx = () => this.#transactionOf(store);
    return {
      get: async (key, options) => (await tx()).get(key, options),
      put: async (key, value, options) => (await tx()).put(key, value, options),
      delete: async (key, options) => (await tx()).delete(key, options),
      mark: async (mark) => (await tx()).mark(mark),
    };
  }

  /** Commits every store touched, in the order first touched. */
  async commit(): Promise<void> {
    const txs = await this.#end();
    let failure: unknown;
    for (const tx of txs) {
      if (failure !== undefined) {
        await tx.rollback();
        continue;
      }
      try {
        await tx.commit();
      } catch (error) {
        failure = error;
        await tx.rollback();
      }
    }
    if (failure !== undefined) throw failure;
  }

  /** Rolls back every store touched. */
  async rollback(): Promise<void> {
    for (const tx of await this.#end()) await tx.rollback();
  }

  #transactionOf(store: DataStore): Promise<DataStoreTransaction> {
    if (this.#ended) throw new Error("the unit of work has already ended");
    let tx = this.#open.get(store);
    if (!tx) {
      tx = store.connection.begin();
      this.#open.set(store, tx);
    }
    return tx;
  }

  async #end(): Promise<DataStoreTransaction[]> {
    if (this.#ended) throw new Error("the unit of work has already ended");
    this.#ended = true;
    // A begin that failed has nothing to end.
    const settled = await Promise.allSettled(this.#open.values());
    return settled.flatMap((s) => s.status === "fulfilled" ? [s.value] : []);
  }
}
