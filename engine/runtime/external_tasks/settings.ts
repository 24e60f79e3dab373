/**
 * Configuration keys of the pull worker surface. Every bound a worker may
 * send has a ceiling here; a request over it is refused, never clamped.
 *
 * @module
 */
import { type Config, defineKey, diagnostic, DiagnosticError } from "../../core/mod.ts";

/** The lock a fetch takes when it names no `lockDuration`. */
export const DEFAULT_LOCK_DURATION = defineKey({
  key: "sutra.external-task.default-lock-duration",
  type: "duration",
  default: 30_000,
  description:
    "Lock a fetch-and-lock takes when the worker names no lockDuration; must be above zero and at most max-lock-duration.",
});

/** The longest lock a worker may ask for. */
export const MAX_LOCK_DURATION = defineKey({
  key: "sutra.external-task.max-lock-duration",
  type: "duration",
  default: 3_600_000,
  description: "Longest lockDuration a worker may ask for; a longer request is refused (400).",
});

/** The longest a fetch-and-lock may hold its long poll open. */
export const MAX_ASYNC_RESPONSE_TIMEOUT = defineKey({
  key: "sutra.external-task.max-async-response-timeout",
  type: "duration",
  default: 30_000,
  description:
    "Longest asyncResponseTimeout (long poll) a fetch-and-lock may ask for; a longer request is refused (400).",
});

/** The most tasks one fetch may ask for. */
export const MAX_TASKS = defineKey({
  key: "sutra.external-task.max-tasks",
  type: "integer",
  default: 100,
  min: 1,
  description:
    "Most tasks one fetch-and-lock may ask for (also the default maxTasks); more is refused (400).",
});

/** The worker-failure budget a parked task starts with. */
export const RETRIES = defineKey({
  key: "sutra.external-task.retries",
  type: "integer",
  default: 3,
  min: 0,
  description:
    "Failures a worker may report on a parked task before it turns terminal (a failure with retries omitted spends one).",
});

/** How long a reported failure defers the next fetch by default. */
export const RETRY_TIMEOUT = defineKey({
  key: "sutra.external-task.retry-timeout",
  type: "duration",
  default: 10_000,
  description:
    "How long a reported failure keeps the task from being fetched when the worker names no retryTimeout.",
});

/** The resolved settings of the surface. */
export interface ExternalTaskSettings {
  readonly defaultLockMs: number;
  readonly maxLockMs: number;
  readonly maxAsyncResponseMs: number;
  readonly maxTasks: number;
  readonly retries: number;
  readonly retryTimeoutMs: number;
}

/**
 * Reads the keys; throws `SUTRA.CONFIG.PROPERTY.INVALID` when the default
 * lock is zero or above its own ceiling, a contradiction better refused at
 * boot than discovered at the first fetch.
 */
export function externalTaskSettings(config: Config): ExternalTaskSettings {
  const settings: ExternalTaskSettings = {
    defaultLockMs: config.require(DEFAULT_LOCK_DURATION),
    maxLockMs: config.require(MAX_LOCK_DURATION),
    maxAsyncResponseMs: config.require(MAX_ASYNC_RESPONSE_TIMEOUT),
    maxTasks: config.require(MAX_TASKS),
    retries: config.require(RETRIES),
    retryTimeoutMs: config.require(RETRY_TIMEOUT),
  };
  if (settings.defaultLockMs <= 0 || settings.defaultLockMs > settings.maxLockMs) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CONFIG.PROPERTY.INVALID",
      `${DEFAULT_LOCK_DURATION.key} must be above zero and at most ${MAX_LOCK_DURATION.key}`,
      {
        attributes: {
          key: DEFAULT_LOCK_DURATION.key,
          value: settings.defaultLockMs,
          ceiling: settings.maxLockMs,
        },
      },
    ));
  }
  return settings;
}
