/**
 * Diagnostic codes: Timers, schedules, retries and simulation (see docs/timers.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const TIMER_CODES = {
  "SUTRA.RUNTIME.TIMER.INVALID":
    "A timer expression gave a value that is not a usable duration, date or cycle (null, wrong type, malformed, unsupported, negative).",
  "SUTRA.SIMULATE.EXISTING_DATA":
    "`sutra test simulate` refused a database that already holds instances (pass --allow-existing-data to accept it).",
  "SUTRA.SIMULATE.NO_DEPLOYMENTS":
    "`sutra test simulate --deployments DIR` found no sealed archive or package directory in DIR.",
  "SUTRA.TIMER.FIRE_FAILED":
    "A due timer, schedule or poison prompt could not be acted on; the next poll tries again.",
  "SUTRA.TIMER.SCHEDULE_REFUSED":
    "The executor refused to start an instance at a timer start event; that occurrence is skipped.",
  "SUTRA.TIMER.WAIT_STALE":
    "A timer row named a wait its instance no longer holds (or an instance that ended) and was dropped.",
} as const;
