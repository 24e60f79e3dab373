/**
 * Diagnostic codes: encryption at rest and audit sinks (see
 * docs/security.md). Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const PROTECTION_CODES = {
  "SUTRA.AUDIT.REPLAY_INPUT_INVALID":
    "`sutra audit-replay` was given a path that is not a readable JSONL audit file or directory, or a bad --until.",
  "SUTRA.AUDIT.SINK_FAILED":
    "An audit sink could not write a committed step's events; they are retried with the next write and the failure is logged.",
  "SUTRA.AUDIT.SINK_UNKNOWN":
    "A process's `q:audit sink` names a sink this engine does not have (known: sql, jsonl).",
  "SUTRA.CRYPTO.DECRYPT_FAILED":
    "An encrypted variable did not authenticate under its data key (wrong key, or the value, instance or variable changed); nothing is read.",
  "SUTRA.CRYPTO.KEK_INVALID":
    "A key-encryption key reference did not resolve to 32 bytes (base64 or hex), or does not unwrap the data keys recorded under it.",
  "SUTRA.CRYPTO.KEY_MISSING":
    "A sensitive variable must be encrypted but its tenant has no data key in the keyring; the step is refused rather than stored in clear.",
  "SUTRA.CRYPTO.KEY_UNKNOWN":
    "An encrypted variable names a data key the keyring does not hold (a retired key removed too early).",
  "SUTRA.CRYPTO.KEYRING_INVALID":
    "The keyring file (`sutra.crypto.keyring`) cannot be read or is not a keyring this build understands.",
} as const;
