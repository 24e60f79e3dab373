/**
 * Diagnostic codes: the AMQP 1.0 transport (see docs/transports.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const AMQP10_CODES = {} as const;
