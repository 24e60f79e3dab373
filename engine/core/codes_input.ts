/**
 * Diagnostic codes: decoded input limits and examples (see docs/codecs.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const INPUT_CODES = {} as const;
