/**
 * Reconnecting with exponential backoff: each failed attempt doubles the
 * wait up to a cap, with full jitter (a random wait in [base/2, base]) so
 * that replicas which lost the broker together do not return in lockstep.
 *
 * @module
 */
import type { Logger } from "../../../engine/core/log.ts";
import { errorMessage } from "../../../engine/core/errors.ts";
import { DiagnosticError } from "../../../engine/core/diagnostic.ts";

/** Options for {@link Backoff}. */
export interface BackoffOptions {
  /** First wait, milliseconds (default 250). */
  readonly initialMs?: number;
  /** Longest wait, milliseconds (default 30,000). */
  readonly maxMs?: number;
}

/** Capped, jittered exponential delays. */
export class Backoff {
  readonly #initial: number;
  readonly #max: number;
  #attempt = 0;

  constructor(options: BackoffOptions = {}) {
    this.#initial = options.initialMs ?? 250;
    this.#max = options.maxMs ?? 30_000;
  }

  /** The next wait, milliseconds. */
  next(): number {
    const base = Math.min(this.#max, this.#initial * 2 ** this.#attempt);
    this.#attempt = Math.min(this.#attempt + 1, 30);
    return base / 2 + Math.random() * (base / 2);
  }

  /** Back to the first wait (after a successful connection). */
  reset(): void {
    this.#attempt = 0;
  }
}

/** Options for {@link keepConnected}. */
export interface KeepConnectedOptions extends BackoffOptions {
  readonly logger: Logger;
  /** What is being connected, for the logs (e.g. `channel 'orders'`). */
  readonly what: string;
  /** Aborting stops the loop (and any pending wait). */
  readonly signal: AbortSignal;
}

/**
 * Runs `session` for as long as `signal` is not aborted: `session` connects
 * and resolves when the connection is gone (or rejects when it cannot
 * connect); the loop waits with backoff and connects again. A session that
 * ran resets the backoff. The first three failures in a row, then every
 * tenth, and every recovery are logged, a failure with
 * `SUTRA.BROKER.CONNECTION_LOST`, or with the code of the
 * {@link DiagnosticError} the session threw (a refused login says so).
 */
export async function keepConnected(
  session: (connected: () => void) => Promise<void>,
  options: KeepConnectedOptions,
): Promise<void> {
  const backoff = new Backoff(options);
  let failures = 0;
  while (!options.signal.aborted) {
    try {
      await session(() => {
        if (failures > 0) options.logger.info(`${options.what}: reconnected`, { failures });
        failures = 0;
        backoff.reset();
      });
      if (options.signal.aborted) return;
      options.logger.warn(`${options.what}: connection lost; reconnecting`, {
        code: "SUTRA.BROKER.CONNECTION_LOST",
      });
    } catch (error) {
      if (options.signal.aborted) return;
      failures++;
      // So a broker down for long does not flood the log.
      if (failures <= 3 || failures % 10 === 0) {
        options.logger.warn(`${options.what}: cannot connect; retrying`, {
          code: error instanceof DiagnosticError
            ? error.diagnostics[0].code
            : "SUTRA.BROKER.CONNECTION_LOST",
          failures,
          error: errorMessage(error),
        });
      }
    }
    await sleep(backoff.next(), options.signal);
  }
}

/** Waits `ms`, or less when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
