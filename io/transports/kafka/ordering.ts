/**
 * Per-key order. Records that share an ordering key (the record key, or
 * the partition for `ordering: partition`) are handed to the engine one
 * after another, each once the one before it is settled; records of other
 * keys run meanwhile. Kafka already delivers a partition in offset order,
 * so this keeps the order the producer wrote a key in.
 *
 * @module
 */

/** Runs work items of one key in the order they were offered. */
export class KeyedSequencer {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `work` after every item offered before under `key` has settled. */
  run(key: string, work: () => Promise<void>): Promise<void> {
    const before = this.#tails.get(key);
    // A key with nothing queued starts at once, without a hop through the microtask queue.
    const tail = before ? before.then(work, work) : work();
    this.#tails.set(key, tail);
    const forget = () => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    };
    tail.then(forget, forget);
    return tail;
  }

  /** Keys with work queued or running. */
  get size(): number {
    return this.#tails.size;
  }
}
