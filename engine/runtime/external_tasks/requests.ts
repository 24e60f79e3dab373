/**
 * The worker request bodies, read and checked. Every violation is reported,
 * not only the first; an omitted bound takes its default, a bound over its
 * ceiling is `SUTRA.EXTERNAL_TASK.BOUND_EXCEEDED`, never clamped. Durations
 * are ISO-8601 (`PT30S`, `PT0.5S`).
 *
 * @module
 */
import {
  type Diagnostic,
  diagnostic,
  formatDurationMillis,
  parseDurationMillis,
} from "../../core/mod.ts";
import type { ExternalTaskSettings } from "./settings.ts";
import { MAX_ASYNC_RESPONSE_TIMEOUT, MAX_LOCK_DURATION, MAX_TASKS } from "./settings.ts";

/** A checked fetch-and-lock. */
export interface FetchRequest {
  readonly workerId: string;
  readonly channels: readonly string[];
  readonly lockMs: number;
  readonly maxTasks: number;
  /** How long to hold the poll open when nothing is fetchable; 0 answers at once. */
  readonly waitMs: number;
}

/** A checked completion. */
export interface CompleteRequest {
  readonly workerId: string;
  /** Absent: re-deliver the original request payload. */
  readonly result?: { readonly value: unknown };
}

/** A checked failure report. */
export interface FailureRequest {
  readonly workerId: string;
  readonly errorMessage: string;
  readonly retries?: number;
  readonly retryTimeoutMs: number;
}

/** Either the checked request or every reason it was refused. */
export type Checked<T> = { readonly ok: T } | { readonly diagnostics: readonly Diagnostic[] };

const invalid = (field: string, message: string) =>
  diagnostic("SUTRA.EXTERNAL_TASK.REQUEST_INVALID", message, { attributes: { field } });

const exceeded = (
  field: string,
  key: string,
  requested: string | number,
  ceiling: string | number,
) =>
  diagnostic(
    "SUTRA.EXTERNAL_TASK.BOUND_EXCEEDED",
    `${field} ${requested} is over the ceiling ${ceiling} (${key})`,
    { attributes: { field, key, requested, ceiling } },
  );

// What the task table's columns can hold: a 32-bit count, an interval PostgreSQL can add to a
// timestamp, text without NUL (PostgreSQL refuses it) or lone surrogates (UTF-8 cannot carry them).
const MAX_INTEGER = 2_147_483_647;
const MAX_DURATION_MS = 10 * 365 * 86_400_000;

/** Whether `text` can be stored as it is. */
function storable(text: string): boolean {
  return !text.includes("\u0000") && text.isWellFormed();
}

/** Reads the fields of a JSON object body, collecting what is wrong with them. */
class Fields {
  readonly problems: Diagnostic[] = [];
  readonly #body: Record<string, unknown>;

  constructor(body: unknown) {
    const isObject = typeof body === "object" && body !== null && !Array.isArray(body);
    if (!isObject) this.problems.push(invalid("", "the request body must be a JSON object"));
    this.#body = isObject ? body as Record<string, unknown> : {};
  }

  has(name: string): boolean {
    return Object.hasOwn(this.#body, name) && this.#body[name] !== null;
  }

  raw(name: string): unknown {
    return this.#body[name];
  }

  text(name: string, required: boolean): string | undefined {
    const v = this.#body[name];
    if (v === undefined || v === null) {
      if (required) this.problems.push(invalid(name, `${name} is required`));
      return undefined;
    }
    if (typeof v !== "string" || v.trim() === "") {
      this.problems.push(invalid(name, `${name} must be a non-empty string`));
      return undefined;
    }
    if (!storable(v)) {
      this.problems.push(
        invalid(name, `${name} must not hold a NUL character or a lone surrogate`),
      );
      return undefined;
    }
    return v;
  }

  integer(name: string, min: number): number | undefined {
    const v = this.#body[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > MAX_INTEGER) {
      this.problems.push(
        invalid(name, `${name} must be an integer from ${min} to ${MAX_INTEGER}`),
      );
      return undefined;
    }
    return v;
  }

  duration(name: string, positive: boolean): number | undefined {
    const v = this.#body[name];
    if (v === undefined || v === null) return undefined;
    const ms = typeof v === "string" ? parseDurationMillis(v) : undefined;
    if (ms === undefined || (positive && ms <= 0) || ms > MAX_DURATION_MS) {
      this.problems.push(invalid(
        name,
        `${name} must be an ISO-8601 duration such as PT30S${
          positive ? ", above zero" : ""
        }, of at most ten years`,
      ));
      return undefined;
    }
    return ms;
  }
}

function done<T>(fields: Fields, value: () => T): Checked<T> {
  return fields.problems.length > 0 ? { diagnostics: fields.problems } : { ok: value() };
}

/** Checks `{workerId, channels, lockDuration?, maxTasks?, asyncResponseTimeout?}`. */
export function checkFetch(body: unknown, s: ExternalTaskSettings): Checked<FetchRequest> {
  const f = new Fields(body);
  const workerId = f.text("workerId", true);
  const channels = f.raw("channels");
  const names = Array.isArray(channels) &&
      channels.length > 0 &&
      channels.every((c) => typeof c === "string" && c.trim() !== "" && storable(c))
    ? channels as string[]
    : undefined;
  if (!names) f.problems.push(invalid("channels", "channels must be a non-empty list of names"));
  const lockMs = f.duration("lockDuration", true) ?? s.defaultLockMs;
  if (lockMs > s.maxLockMs) {
    f.problems.push(exceeded(
      "lockDuration",
      MAX_LOCK_DURATION.key,
      formatDurationMillis(lockMs),
      formatDurationMillis(s.maxLockMs),
    ));
  }
  const maxTasks = f.integer("maxTasks", 1) ?? s.maxTasks;
  if (maxTasks > s.maxTasks) {
    f.problems.push(exceeded("maxTasks", MAX_TASKS.key, maxTasks, s.maxTasks));
  }
  const waitMs = f.duration("asyncResponseTimeout", false) ?? 0;
  if (waitMs > s.maxAsyncResponseMs) {
    f.problems.push(
      exceeded(
        "asyncResponseTimeout",
        MAX_ASYNC_RESPONSE_TIMEOUT.key,
        formatDurationMillis(waitMs),
        formatDurationMillis(s.maxAsyncResponseMs),
      ),
    );
  }
  return done(f, () => ({ workerId: workerId!, channels: names!, lockMs, maxTasks, waitMs }));
}

/** Checks `{workerId, result?}`. */
export function checkComplete(body: unknown): Checked<CompleteRequest> {
  const f = new Fields(body);
  const workerId = f.text("workerId", true);
  return done(f, () => ({
    workerId: workerId!,
    ...(f.has("result") ? { result: { value: f.raw("result") } } : {}),
  }));
}

/** Checks `{workerId, errorMessage, retries?, retryTimeout?}`. */
export function checkFailure(body: unknown, s: ExternalTaskSettings): Checked<FailureRequest> {
  const f = new Fields(body);
  const workerId = f.text("workerId", true);
  const errorMessage = f.text("errorMessage", true);
  const retries = f.integer("retries", 0);
  const retryTimeoutMs = f.duration("retryTimeout", false) ?? s.retryTimeoutMs;
  return done(f, () => ({
    workerId: workerId!,
    errorMessage: errorMessage!,
    ...(retries === undefined ? {} : { retries }),
    retryTimeoutMs,
  }));
}
