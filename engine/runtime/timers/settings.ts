/**
 * Configuration keys of the timer service.
 *
 * @module
 */
import { defineKey } from "../../core/mod.ts";

/** How often the timer poller looks for due timers and schedules. */
export const TIMERS_POLL_INTERVAL = defineKey({
  key: "sutra.timers.poll-interval",
  type: "duration",
  default: 1_000,
  min: 1,
  max: 3_600_000,
  description:
    "How often the timer poller looks for due timer waits and schedules (a full batch polls again at once).",
});

/** How many due timers and schedules one poll takes. */
export const TIMERS_BATCH_SIZE = defineKey({
  key: "sutra.timers.batch-size",
  type: "integer",
  default: 100,
  min: 1,
  max: 10_000,
  description:
    "How many due timer waits (and, separately, schedules) one poll of the timer poller fires.",
});
