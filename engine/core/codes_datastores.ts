/**
 * Diagnostic codes: Data-store projection, DDL replay and runtime refusals (see docs/datastores.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const DATASTORE_CODES = {} as const;
