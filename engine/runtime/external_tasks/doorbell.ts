/**
 * The long poll's wake-up: a broadcast keyed by destination. A ring carries
 * no payload beyond "look again", so a fetch that misses one loses nothing
 * but a round of the loop it was in anyway; it is a doorbell, not a queue.
 *
 * A waiter subscribes before its first query and stays subscribed between
 * queries: a ring that lands while a query runs is remembered and ends the
 * next wait at once, which closes the lost-wakeup window by ordering.
 *
 * @module
 */

/** One waiter's subscription. */
export class Subscription {
  readonly keys: ReadonlySet<string>;
  readonly #bell: Doorbell;
  #rung = false;
  #wake: (() => void) | undefined;

  constructor(bell: Doorbell, keys: ReadonlySet<string>) {
    this.#bell = bell;
    this.keys = keys;
  }

  /** Marks the subscription rung and ends a wait in progress. */
  ring(): void {
    this.#rung = true;
    this.#wake?.();
  }

  /**
   * Resolves when a ring arrives (or already arrived since the last wait),
   * after `ms`, or when `signal` aborts, whichever is first.
   */
  async wait(ms: number, signal: AbortSignal): Promise<void> {
    if (!this.#rung && !signal.aborted) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let onAbort: (() => void) | undefined;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        timer = setTimeout(resolve, ms);
        onAbort = () => resolve();
        signal.addEventListener("abort", onAbort, { once: true });
      });
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener("abort", onAbort);
      this.#wake = undefined;
    }
    this.#rung = false;
  }

  /** Stops listening. */
  close(): void {
    this.#bell.unsubscribe(this);
  }
}

/** Rings the subscriptions interested in a key. */
export class Doorbell {
  readonly #subscriptions = new Set<Subscription>();

  /** Subscribes to rings on any of `keys`. */
  subscribe(keys: Iterable<string>): Subscription {
    const subscription = new Subscription(this, new Set(keys));
    this.#subscriptions.add(subscription);
    return subscription;
  }

  /** Removes a subscription. */
  unsubscribe(subscription: Subscription): void {
    this.#subscriptions.delete(subscription);
  }

  /** Wakes every subscription that listens on `key`. */
  ring(key: string): void {
    for (const s of this.#subscriptions) if (s.keys.has(key)) s.ring();
  }
}
