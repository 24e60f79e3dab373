/**
 * Diagnostic codes: Timers, schedules, retries and simulation (see docs/timers.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const TIMER_CODES = {} as const;
