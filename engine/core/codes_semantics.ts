/**
 * Diagnostic codes: BPMN semantics and cross-file calls (see docs/bpmn.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const SEMANTICS_CODES = {
  "SUTRA.CONFIG.BPMN.COMPENSATION_HANDLER_AMBIGUOUS":
    "A sub-process has more than one compensation handler (a boundary-associated one and/or several compensation event sub-processes).",
} as const;
