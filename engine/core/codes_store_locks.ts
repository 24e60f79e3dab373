/**
 * Diagnostic codes: data-store lock waits and deadlocks (see docs/datastores.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const STORE_LOCK_CODES = {
  "SUTRA.RUNTIME.DATASTORE.CONTENDED":
    "A data store aborted the step's transaction for contention (deadlock, serialization failure, lock wait timeout) on every attempt; nothing was written.",
} as const;
