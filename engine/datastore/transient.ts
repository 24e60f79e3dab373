/**
 * Transient store failures: the store's database aborted a step's
 * transaction because of other transactions (a deadlock, a serialization
 * failure, a lock wait that timed out). Nothing the transaction held was
 * written, and running the step again may well succeed, so the runtime
 * retries it instead of failing the instance. A provider recognises its
 * driver's errors and throws {@link TransientStoreError}.
 *
 * @module
 */
import { errorMessage } from "../core/errors.ts";

/** Why the database gave up on the transaction. */
export type TransientReason = "deadlock" | "serialization failure" | "lock wait timeout";

/** A store transaction the database aborted for contention; nothing in it was written. */
export class TransientStoreError extends Error {
  /** The store whose transaction was aborted. */
  readonly store: string;
  readonly reason: TransientReason;

  /**
   * @param store the store's name
   * @param options why, and the driver's own error (its message is kept)
   */
  constructor(
    store: string,
    options: { readonly reason: TransientReason; readonly cause: unknown },
  ) {
    super(`data store '${store}': ${options.reason}: ${errorMessage(options.cause)}`, {
      cause: options.cause,
    });
    this.name = "TransientStoreError";
    this.store = store;
    this.reason = options.reason;
  }
}

/** True when `error` is a {@link TransientStoreError}. */
export function isTransientStoreError(error: unknown): error is TransientStoreError {
  return error instanceof TransientStoreError;
}

/** How often a step whose store transaction was aborted runs again, and how long it waits first. */
export interface StoreRetryPolicy {
  /** Runs of the step in all, the first included. */
  readonly attempts: number;
  /** Wait before the second run; it doubles for every later one. */
  readonly baseDelayMs: number;
  /** Longest wait between two runs. */
  readonly maxDelayMs: number;
}

/** Five runs, 20 ms doubling up to 500 ms between them (under half a second of waiting in all). */
export const DEFAULT_STORE_RETRY: StoreRetryPolicy = {
  attempts: 5,
  baseDelayMs: 20,
  maxDelayMs: 500,
};

/**
 * The wait before run `attempt + 1` (after `attempt` runs failed): the
 * doubled delay, jittered down by up to half so that two transactions
 * that deadlocked each other do not collide again in lockstep.
 */
export function retryDelayMs(
  policy: StoreRetryPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const full = Math.min(policy.baseDelayMs * 2 ** Math.max(0, attempt - 1), policy.maxDelayMs);
  return Math.round(full / 2 + (full / 2) * random());
}
