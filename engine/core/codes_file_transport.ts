/**
 * Diagnostic codes: the file transport and CloudEvents modes (see docs/transports.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const FILE_TRANSPORT_CODES = {
  "SUTRA.FILE.DIRECTORY_UNAVAILABLE":
    "A file channel's directory or one of its folders cannot be created or opened; retried.",
  "SUTRA.FILE.MOVE_FAILED":
    "A processed file could not be moved to done/ or failed/; it runs again (dedup answers it).",
  "SUTRA.FILE.OPTIONS_INVALID": "A file channel's options are missing or invalid.",
  "SUTRA.FILE.POLL_FAILED": "Reading a file channel's directory failed; it polls again.",
} as const;
