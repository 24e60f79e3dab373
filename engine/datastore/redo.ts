/**
 * Replaying a step's store writes into a store after they were lost: the
 * engine committed the step, then crashed (or the store's commit failed)
 * before the store's transaction committed. The engine's commit kept the
 * writes as a redo record — per key, the value the step left and the
 * revision the key had before — and the store transaction that held them
 * carried the step's mark (see `StoreMark`).
 *
 * A replay first records the same mark in a new transaction: when the
 * store already holds it, the writes did commit and nothing is done (a
 * transaction still open with the mark is waited for, so a replay never
 * races the step it replays). Otherwise each key is written back only if
 * it is still at the revision the step found, so a replay never overwrites
 * what another step wrote since; a key that moved makes the whole replay
 * roll back as diverged, for an operator to settle.
 *
 * @module
 */
import { conflictError, type DataStore, isConflict, type StoreMark } from "../core/datastore.ts";

/** One key of a step's writes to one store. */
export interface RedoWrite {
  readonly key: string;
  /** The value the step left under the key. */
  readonly value: unknown;
  /** The key's revision before the step; 0 when it was absent. */
  readonly from: number;
}

/** A step's writes, by store name. */
export type StoreRedo = Readonly<Record<string, readonly RedoWrite[]>>;

/** How a replay into one store ended. */
export type ReplayOutcome =
  /** The store held the mark: the writes had committed. */
  | { readonly kind: "present" }
  /** The writes were missing and are now committed. */
  | { readonly kind: "applied" }
  /** The writes were missing and `key` has moved past `from`: nothing was written. */
  | { readonly kind: "diverged"; readonly key: string; readonly from: number };

/**
 * Replays `writes` into `store` under `mark`. Throws what the store throws
 * otherwise (an unreachable database, contention): the replay can be tried
 * again later.
 */
export async function replayInto(
  store: DataStore,
  mark: StoreMark,
  writes: readonly RedoWrite[],
): Promise<ReplayOutcome> {
  const tx = await store.connection.begin();
  let pending: RedoWrite | undefined;
  try {
    if (!await tx.mark(mark)) {
      await tx.rollback();
      return { kind: "present" };
    }
    for (const w of writes) {
      pending = w;
      if (w.from > 0) {
        await tx.put(w.key, w.value, { expectRev: w.from });
      } else if (await tx.put(w.key, w.value) !== 1) {
        // Written without a revision to expect: a key created since shows as a later revision.
        throw conflictError(store.name, w.key, 0);
      }
    }
    await tx.commit();
    return { kind: "applied" };
  } catch (error) {
    await tx.rollback();
    if (isConflict(error) && pending) {
      return { kind: "diverged", key: pending.key, from: pending.from };
    }
    throw error;
  }
}
