/**
 * Diagnostic codes: data-store lock waits and deadlocks (see docs/datastores.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const STORE_LOCK_CODES = {} as const;
