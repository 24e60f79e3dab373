/**
 * Diagnostic codes: BPMN semantics and cross-file calls (see docs/bpmn.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const SEMANTICS_CODES = {} as const;
