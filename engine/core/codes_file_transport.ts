/**
 * Diagnostic codes: the file transport and CloudEvents modes (see docs/transports.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const FILE_TRANSPORT_CODES = {} as const;
