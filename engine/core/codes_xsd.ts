/**
 * Diagnostic codes: compiled XSD validation (see docs/codecs.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const XSD_CODES = {} as const;
