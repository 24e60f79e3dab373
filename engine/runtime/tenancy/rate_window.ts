/**
 * A sliding 60-second admission window for one tenant on this replica: the
 * instants of the messages it admitted over the last minute, oldest first.
 * Replicas do not share it, so a fleet admits up to the limit per replica.
 *
 * @module
 */

/** The window's span in milliseconds. */
export const WINDOW_MS = 60_000;

/** One tenant's admissions over the last {@link WINDOW_MS}. */
export class RateWindow {
  readonly #limit: number;
  // A queue as an array plus the index of its head, compacted now and then, so
  // admitting stays constant-time however large the limit.
  #instants: number[] = [];
  #head = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Admissions still inside the window at `now`. */
  count(now: number): number {
    this.#expire(now);
    return this.#instants.length - this.#head;
  }

  /**
   * Records an admission at `now`, or answers the milliseconds until the
   * oldest admission leaves the window when it is full.
   */
  admit(now: number): { readonly admitted: true } | { readonly retryAfterMs: number } {
    if (this.count(now) >= this.#limit) {
      return { retryAfterMs: this.#instants[this.#head] + WINDOW_MS - now };
    }
    this.#instants.push(now);
    return { admitted: true };
  }

  /** Takes back the latest admission recorded at `at` (the message was refused after all). */
  withdraw(at: number): void {
    for (let i = this.#instants.length - 1; i >= this.#head; i--) {
      if (this.#instants[i] !== at) continue;
      this.#instants.splice(i, 1);
      return;
    }
  }

  #expire(now: number): void {
    const { length } = this.#instants;
    while (this.#head < length && this.#instants[this.#head] <= now - WINDOW_MS) this.#head++;
    if (this.#head > 1024 && this.#head * 2 > length) {
      this.#instants = this.#instants.slice(this.#head);
      this.#head = 0;
    }
  }
}
