/**
 * Runs work one after another per ordering key, in the order it was offered,
 * while work under different keys (or none) goes on side by side. The
 * dispatcher uses it for on-persist captures whose transport promises an
 * order (a Kafka record key, an SQS FIFO group, a Pub/Sub ordering key): the
 * transport hands the next message of a key over only once the one before
 * it is captured, and this keeps their runs in that order too.
 *
 * @module
 */

/** A per-key queue of work. */
export class KeyOrder {
  /** Per key, when the last work offered under it settles. */
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `work` after every earlier work offered under `key`; at once when `key` is undefined. */
  run<T>(key: string | undefined, work: () => Promise<T>): Promise<T> {
    if (key === undefined) return work();
    const before = this.#tails.get(key);
    // A failed predecessor does not hold its key up: its own caller hears the failure.
    const mine = before ? before.then(work, work) : work();
    const tail = mine.then(() => {}, () => {});
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return mine;
  }

  /** How many keys have work queued or running. */
  get size(): number {
    return this.#tails.size;
  }
}
