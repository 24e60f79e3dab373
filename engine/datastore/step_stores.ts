/**
 * The executor's store port, backed by the data-store SPI. One instance
 * serves one step: its reads (and their `forUpdate` locks) and the step's
 * store-write effects run in one unit of work, which the runtime commits
 * with the step or rolls back when the step is abandoned.
 *
 * @module
 */
import { putField, type StoreOperations, UnitOfWork } from "../core/datastore.ts";
import type { StoreWriteEffect } from "../executor/effects.ts";
import type { StorePort, StoreReadRequest, StoreRecord } from "../executor/ports.ts";
import type { DataStoreSet } from "./stores.ts";

/** A {@link StorePort} whose reads and writes share one unit of work. */
export class StepStores implements StorePort {
  readonly #stores: DataStoreSet;
  readonly #work = new UnitOfWork();

  /** @param stores the deployment's open stores */
  constructor(stores: DataStoreSet) {
    this.#stores = stores;
  }

  /** Reads a key; a `forUpdate` lock is held until {@link commit} or {@link rollback}. */
  async read(request: StoreReadRequest): Promise<StoreRecord | undefined> {
    const record = await this.#operations(request.store).get(request.key, {
      forUpdate: request.forUpdate,
    });
    return record === undefined ? undefined : { value: record.value, rev: record.rev };
  }

  /**
   * Applies the step's writes in order: a whole value, or one field of the
   * stored map; a write carrying `expectRev` fails with
   * `SUTRA.RUNTIME.DATASTORE.CONFLICT` when the revision moved.
   */
  async apply(writes: readonly StoreWriteEffect[]): Promise<void> {
    for (const w of writes) {
      const ops = this.#operations(w.store);
      if (w.field === undefined) {
        await ops.put(w.key, w.value, { expectRev: w.expectRev });
      } else {
        await putField(ops, w.key, { field: w.field, value: w.value, expectRev: w.expectRev });
      }
    }
  }

  /** Commits every store the step touched and releases its locks. */
  commit(): Promise<void> {
    return this.#work.commit();
  }

  /** Discards every write of the step and releases its locks. */
  rollback(): Promise<void> {
    return this.#work.rollback();
  }

  #operations(name: string): StoreOperations {
    const store = this.#stores.get(name);
    if (!store) {
      throw new Error(
        `data store '${name}' is not declared (declared: ${
          this.#stores.names().join(", ") || "none"
        })`,
      );
    }
    return this.#work.on(store);
  }
}
