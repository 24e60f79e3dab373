/**
 * Diagnostic codes: External tasks (the pull worker surface) (see docs/external-tasks.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const EXTERNAL_TASK_CODES = {} as const;
