/**
 * Diagnostic codes: compiled flavours, permissions and the engine command line (see docs/install.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const SHIPPING_CODES = {} as const;
