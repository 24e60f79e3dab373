/**
 * Diagnostic codes: External tasks (the pull worker surface) (see docs/external-tasks.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const EXTERNAL_TASK_CODES = {
  "SUTRA.EXTERNAL_TASK.BOUND_EXCEEDED":
    "A worker asked for more than a sutra.external-task.* ceiling allows (400); nothing was clamped.",
  "SUTRA.EXTERNAL_TASK.COMPLETION_REFUSED":
    "The inbound path refused a completion (422); attributes.causeCode is the engine's own code and the task is fetchable again.",
  "SUTRA.EXTERNAL_TASK.COMPLETION_DEFERRED":
    "The instance was busy (its claim held, lanes full): send the completion again after Retry-After; the lock is kept (503).",
  "SUTRA.EXTERNAL_TASK.LOCK_EXPIRED":
    "The worker does not hold a live lock on the task any more (its lock lapsed or was released) (409).",
  "SUTRA.EXTERNAL_TASK.LOCKED_BY_OTHER": "Another worker holds a live lock on the task (409).",
  "SUTRA.EXTERNAL_TASK.PARK_UNATTRIBUTED":
    "A pull delivery carried no owning deployment, so it could not be parked (the outbox row is poisoned).",
  "SUTRA.EXTERNAL_TASK.REQUEST_INVALID":
    "A worker request body is not the JSON object the route expects (400).",
  "SUTRA.EXTERNAL_TASK.RETRIES_EXHAUSTED":
    "A worker's failure spent the task's budget; the task is terminal, kept with its last error (warning).",
  "SUTRA.EXTERNAL_TASK.TERMINAL":
    "The task spent its failure budget and takes no completion or failure any more (409).",
  "SUTRA.EXTERNAL_TASK.UNKNOWN": "No external task with that id exists (404).",
} as const;
