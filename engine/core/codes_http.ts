/**
 * Diagnostic codes: HTTP listener limits and channel authentication (see docs/security.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const HTTP_CODES = {} as const;
