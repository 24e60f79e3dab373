/**
 * Diagnostic codes: the authoring tools `sutra docgen` and
 * `sutra compat-baseline` (see docs/authoring.md). Part of the catalogue in
 * `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const AUTHORING_CODES = {
  "SUTRA.COMPAT.CHANNEL_CHANGED":
    "A channel callers use moved to another transport, bind or codec, or gained auth.",
  "SUTRA.COMPAT.CHANNEL_REMOVED": "A channel of the baseline is gone: its callers are refused.",
  "SUTRA.COMPAT.MESSAGE_TYPE_CHANGED":
    "A start or wait node takes another message type, or no longer takes one it took.",
  "SUTRA.COMPAT.PROCESS_REMOVED": "A process of the baseline is gone.",
  "SUTRA.COMPAT.SCHEMA_NARROWED":
    "A message type lost a field or changed a field's type: documents that passed may not.",
  "SUTRA.COMPAT.WAIT_NODE_REMOVED":
    "A node live instances may wait on is gone: they cannot resume on the new revision.",
  "SUTRA.DOCGEN.STALE": "The committed catalogue differs from what docgen generates.",
} as const;
