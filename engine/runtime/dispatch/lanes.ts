/**
 * Execution lanes: a fixed number of serial queues inside one replica. Work
 * for an instance always lands on the lane its id hashes to, so two steps of
 * one instance never interleave inside a process; the claim on the instance
 * row keeps replicas (and any mis-routed work) apart.
 *
 * @module
 */

/** Thrown by {@link Lanes.run} when the lane's queue is full. */
export class LaneFullError extends Error {
  /** @param lane the full lane's index */
  constructor(readonly lane: number) {
    super(`execution lane ${lane} is full`);
    this.name = "LaneFullError";
  }
}

/** Options for {@link Lanes}. */
export interface LanesOptions {
  /** How many lanes (`sutra.engine.shards`). */
  readonly count: number;
  /** Queued items per lane before new work is refused (`sutra.engine.shard-queue-capacity`). */
  readonly capacity: number;
}

/** N serial queues addressed by a stable hash of a key. */
export class Lanes {
  readonly count: number;
  readonly #capacity: number;
  readonly #tails: Promise<unknown>[];
  readonly #depth: number[];

  constructor(options: LanesOptions) {
    this.count = options.count;
    this.#capacity = options.capacity;
    this.#tails = Array.from({ length: options.count }, () => Promise.resolve());
    this.#depth = new Array(options.count).fill(0);
  }

  /** The lane a key hashes to (FNV-1a, stable across processes and restarts). */
  laneOf(key: string): number {
    let hash = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) {
      hash ^= key.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193);
    }
    return (hash >>> 0) % this.count;
  }

  /** Runs `work` on the key's lane after everything queued there before it. */
  run<T>(key: string, work: (lane: number) => Promise<T>): Promise<T> {
    const lane = this.laneOf(key);
    if (this.#depth[lane] >= this.#capacity) return Promise.reject(new LaneFullError(lane));
    this.#depth[lane]++;
    const result = this.#tails[lane].then(() => work(lane));
    // The tail never rejects, so one failed item does not poison the lane.
    this.#tails[lane] = result.then(
      () => this.#depth[lane]--,
      () => this.#depth[lane]--,
    );
    return result;
  }

  /** Resolves once everything queued so far has finished. */
  async idle(): Promise<void> {
    await Promise.all(this.#tails);
  }
}
