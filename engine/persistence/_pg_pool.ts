/**
 * The server driver's pool, replaced whole when one of its connections
 * breaks under a statement.
 *
 * `npm:postgres` keeps the state of a statement that was in flight when its
 * connection was reset: the next time the pool reopens that connection the
 * startup never completes, the statements waiting for it never settle, and
 * the driver later rejects a promise nobody holds. So a statement that fails
 * because its connection broke retires the pool it ran on: new work goes to
 * a fresh pool at once, the old one is ended (statements still running on
 * its other connections get a grace period), and LISTEN subscriptions move
 * to the new pool.
 *
 * @module
 */
import postgres from "postgres";
import type { Logger } from "../core/log.ts";
import { errorMessage } from "../core/errors.ts";
import { SqlError } from "./database.ts";

type Sql = postgres.Sql;

/** How long statements still running on a retired pool may take before its connections are cut. */
const RETIRE_GRACE_SECONDS = 3;

// Errors of a connection that was open and broke (not a refused connect):
// socket resets and the driver's own codes, and the server ending a session.
const BROKEN_CONNECTION = new Set([
  "ECONNRESET",
  "EPIPE",
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
]);
const SESSION_ENDED = new Set(["57P01", "57P02", "57P05"]);

/** Whether `error` (a server error already translated to {@link SqlError}) says the statement's connection broke. */
export function isConnectionLoss(error: unknown): boolean {
  if (error instanceof SqlError) return SESSION_ENDED.has(error.code);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && BROKEN_CONNECTION.has(code);
}

interface Subscription {
  readonly channel: string;
  readonly onNotify: (payload: string) => void;
  meta?: postgres.ListenMeta;
}

/** A pool that is swapped for a fresh one when a connection breaks. */
export class ReplaceablePool {
  readonly #open: () => Sql;
  readonly #log: Logger | undefined;
  readonly #retiring = new Set<Promise<void>>();
  readonly #subscriptions = new Set<Subscription>();
  #current: Sql;
  #ended = false;

  constructor(first: Sql, open: () => Sql, log?: Logger) {
    this.#current = first;
    this.#open = open;
    this.#log = log;
  }

  /** The pool new work goes to. */
  get current(): Sql {
    return this.#current;
  }

  /**
   * Reports that a statement on `pool` failed with `error`; when the
   * connection broke and `pool` is still current, replaces it.
   */
  failed(pool: Sql, error: unknown): void {
    if (this.#ended || pool !== this.#current || !isConnectionLoss(error)) return;
    this.#current = this.#open();
    this.#log?.warn(
      "a connection to the engine database broke under a statement; its pool was replaced",
      { code: "SUTRA.DB.CONNECTION_LOST", error: errorMessage(error) },
    );
    const ending = pool.end({ timeout: RETIRE_GRACE_SECONDS }).catch(() => {});
    this.#retiring.add(ending);
    void ending.finally(() => this.#retiring.delete(ending));
    for (const s of this.#subscriptions) void this.#subscribe(s);
  }

  /** LISTENs on `channel` on the current pool and on every pool after it; resolves to unlisten. */
  async listen(
    channel: string,
    onNotify: (payload: string) => void,
  ): Promise<() => Promise<void>> {
    const subscription: Subscription = { channel, onNotify };
    subscription.meta = await this.#current.listen(channel, onNotify);
    this.#subscriptions.add(subscription);
    return async () => {
      this.#subscriptions.delete(subscription);
      if (!this.#ended) await subscription.meta?.unlisten();
    };
  }

  /** Ends the current pool and waits for the retired ones. */
  async end(): Promise<void> {
    this.#ended = true;
    await this.#current.end({ timeout: RETIRE_GRACE_SECONDS });
    await Promise.all(this.#retiring);
  }

  async #subscribe(s: Subscription): Promise<void> {
    try {
      s.meta = await this.#current.listen(s.channel, s.onNotify);
    } catch (error) {
      // The next replacement (or the caller's own polling fallback) tries again.
      this.#log?.error(`re-listening on channel '${s.channel}' failed`, {
        code: "SUTRA.DB.CONNECTION_LOST",
        error: errorMessage(error),
      });
    }
  }
}
