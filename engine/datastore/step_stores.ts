/**
 * The executor's store port, backed by the data-store SPI. One instance
 * serves one step: its reads (and their `forUpdate` locks) and the step's
 * store-write effects run in one unit of work, which the runtime commits
 * with the step or rolls back when the step is abandoned.
 *
 * Every operation reaches its database through the `io` the runtime gives
 * (so a wait on a row lock need not hold anything else up), and a read or
 * write the database aborted for contention is remembered: the step's
 * result then cannot stand, and the runtime runs the step again.
 *
 * @module
 */
import {
  type DataStoreTransaction,
  type StoreMark,
  type StoreOperations,
  UnitOfWork,
  writeField,
} from "../core/datastore.ts";
import type { StoreWriteEffect } from "../executor/effects.ts";
import type { StorePort, StoreReadRequest, StoreRecord } from "../executor/ports.ts";
import type { DataStoreSet } from "./stores.ts";
import { storeKeyFits } from "./key_limits.ts";
import { isTransientStoreError, type TransientStoreError } from "./transient.ts";
import type { RedoWrite, StoreRedo } from "./redo.ts";

/** Runs one store operation on the step's behalf; see {@link StepStoresOptions.io}. */
export type StoreIo = <T>(operation: () => Promise<T>) => Promise<T>;

/** Options for {@link StepStores}. */
export interface StepStoresOptions {
  /**
   * Wraps every operation that reaches a database (reads, writes, commit,
   * rollback); the runtime uses it to let the step's lane go while the
   * operation waits. Operations run directly when absent.
   */
  readonly io?: StoreIo;
}

/** A {@link StorePort} whose reads and writes share one unit of work. */
export class StepStores implements StorePort {
  readonly #stores: Promise<DataStoreSet>;
  readonly #work = new UnitOfWork();
  readonly #io: StoreIo;
  #ended = false;
  #transient: TransientStoreError | undefined;
  /** What the applied writes left under each key they touched, by store. */
  readonly #image = new Map<string, Map<string, RedoWrite>>();

  /**
   * @param stores the deployment's open stores, or the promise of them (a
   * rejected one fails every read and write of the step with its reason)
   * @param options how operations reach the databases
   */
  constructor(stores: DataStoreSet | Promise<DataStoreSet>, options: StepStoresOptions = {}) {
    this.#io = options.io ?? ((operation) => operation());
    this.#stores = Promise.resolve(stores);
    // Observed here so a step that never touches a store leaves no unhandled rejection.
    this.#stores.catch(() => {});
  }

  /**
   * The first read or write of this step the database aborted for
   * contention (a deadlock, a serialization failure, a lock wait timeout).
   * Once set, the step's transaction is gone and nothing in it was written:
   * the step must be run again rather than committed.
   */
  get transient(): TransientStoreError | undefined {
    return this.#transient;
  }

  /** Reads a key; a `forUpdate` lock is held until {@link commit} or {@link rollback}. */
  async read(request: StoreReadRequest): Promise<StoreRecord | undefined> {
    // A key no store can hold was never written: nothing to find (or lock).
    if (!storeKeyFits(request.key)) return undefined;
    // Opening the stores (on a deployment's first step) is database work too.
    const record = await this.#run(async () =>
      (await this.#operations(request.store)).get(request.key, { forUpdate: request.forUpdate })
    );
    if (record === undefined) return undefined;
    const dataClass = (await this.#stores).dataClassOf(request.store);
    return {
      value: record.value,
      rev: record.rev,
      ...(dataClass === undefined ? {} : { dataClass }),
    };
  }

  /** The store's declared `dataClass`, if any. */
  async dataClass(store: string): Promise<string | undefined> {
    return (await this.#stores).dataClassOf(store);
  }

  /**
   * Applies the step's writes in order: a whole value, or one field of the
   * stored map; a write carrying `expectRev` fails with
   * `SUTRA.RUNTIME.DATASTORE.CONFLICT` when the revision moved. With a
   * `mark`, every store written records it beside the writes, so a replay
   * of {@link redo} after a crash can tell whether they committed.
   */
  apply(writes: readonly StoreWriteEffect[], mark?: StoreMark): Promise<void> {
    return this.#run(() => this.#applyAll(writes, mark));
  }

  /**
   * The step's writes as a replay needs them: per store, the value each key
   * was left holding and the revision it had before the step; undefined when
   * nothing was applied.
   */
  get redo(): StoreRedo | undefined {
    if (this.#image.size === 0) return undefined;
    return Object.fromEntries(
      [...this.#image].map(([store, keys]) => [store, [...keys.values()]]),
    );
  }

  async #applyAll(writes: readonly StoreWriteEffect[], mark?: StoreMark): Promise<void> {
    for (const w of writes) {
      const ops = await this.#operations(w.store);
      const written = w.field === undefined
        ? { value: w.value, rev: await ops.put(w.key, w.value, { expectRev: w.expectRev }) }
        : await writeField(ops, w.key, { field: w.field, value: w.value, expectRev: w.expectRev });
      this.#remember(w.store, w.key, written);
    }
    if (mark === undefined) return;
    for (const store of this.#image.keys()) {
      if (!await (await this.#operations(store)).mark(mark)) {
        throw new Error(`data store '${store}' already holds the writes of redo ${mark.redoId}`);
      }
    }
  }

  /** Keeps the key's latest value and, from its first write, the revision it had before. */
  #remember(store: string, key: string, written: { value: unknown; rev: number }): void {
    let keys = this.#image.get(store);
    if (!keys) this.#image.set(store, keys = new Map());
    // Every write bumps the revision by one: the first one's new revision less one was there before.
    const from = keys.get(key)?.from ?? written.rev - 1;
    keys.set(key, { key, value: written.value, from });
  }

  /** Commits every store the step touched and releases its locks. */
  commit(): Promise<void> {
    this.#ended = true;
    return this.#io(() => this.#work.commit());
  }

  /**
   * Discards every write of the step and releases its locks. Does nothing
   * once the work has been committed or rolled back, so a caller may always
   * call it on the way out.
   */
  async rollback(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    await this.#io(() => this.#work.rollback());
  }

  /** Runs a read or write through `io`, remembering a contention abort. */
  async #run<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await this.#io(operation);
    } catch (error) {
      if (isTransientStoreError(error)) this.#transient ??= error;
      throw error;
    }
  }

  async #operations(name: string): Promise<StoreOperations & Pick<DataStoreTransaction, "mark">> {
    const stores = await this.#stores;
    const store = stores.get(name);
    if (!store) {
      throw new Error(
        `data store '${name}' is not declared (declared: ${stores.names().join(", ") || "none"})`,
      );
    }
    return this.#work.on(store);
  }
}
