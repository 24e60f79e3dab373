/**
 * Diagnostic codes: broker transports (RabbitMQ and shared broker behaviour) (see docs/transports.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const BROKER_CODES = {} as const;
