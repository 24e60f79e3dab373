/**
 * Execution lanes: a fixed number of serial queues inside one replica. Work
 * for an instance always lands on the lane its id hashes to, so two steps of
 * one instance never interleave inside a process; the claim on the instance
 * row keeps replicas (and any mis-routed work) apart.
 *
 * A lane's queue may be bounded (`sutra.engine.shard-queue-capacity`). A
 * full lane makes whoever offers more work wait for room, in arrival order,
 * so backpressure reaches the transport holding the message (an HTTP
 * request, a poller tick) and never spills onto another lane.
 *
 * @module
 */

/** Options for {@link Lanes}. */
export interface LanesOptions {
  /** How many lanes (`sutra.engine.shards`). */
  readonly count: number;
  /** Items a lane holds (running and queued) before new work waits; unbounded when absent. */
  readonly capacity?: number;
}

/** N serial queues addressed by a stable hash of a key. */
export class Lanes {
  readonly count: number;
  readonly #capacity: number | undefined;
  readonly #tails: Promise<unknown>[];
  readonly #depth: number[];
  /** Per lane, the offers waiting for room, oldest first. */
  readonly #waiting: (() => void)[][];

  constructor(options: LanesOptions) {
    this.count = options.count;
    this.#capacity = options.capacity;
    this.#tails = Array.from({ length: options.count }, () => Promise.resolve());
    this.#depth = new Array(options.count).fill(0);
    this.#waiting = Array.from({ length: options.count }, () => []);
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

  /**
   * Runs `work` on the key's lane after everything queued there before it;
   * on a full lane, first waits until an item ahead finishes.
   */
  run<T>(key: string, work: (lane: number) => Promise<T>): Promise<T> {
    const lane = this.laneOf(key);
    const full = this.#capacity !== undefined &&
      (this.#depth[lane] >= this.#capacity || this.#waiting[lane].length > 0);
    if (!full) {
      this.#depth[lane]++;
      return this.#enqueue(lane, work);
    }
    return new Promise<T>((resolve, reject) => {
      this.#waiting[lane].push(() => this.#enqueue(lane, work).then(resolve, reject));
    });
  }

  /** Queues `work` on a slot already counted for it. */
  #enqueue<T>(lane: number, work: (lane: number) => Promise<T>): Promise<T> {
    const result = this.#tails[lane].then(() => work(lane));
    // The tail never rejects, so one failed item does not poison the lane.
    this.#tails[lane] = result.then(() => this.#finished(lane), () => this.#finished(lane));
    return result;
  }

  /** A finished item hands its slot to the oldest waiting offer, or frees it. */
  #finished(lane: number): void {
    const next = this.#waiting[lane].shift();
    if (next) next();
    else this.#depth[lane]--;
  }

  /** Resolves once everything queued so far, and every offer waiting for room, has finished. */
  async idle(): Promise<void> {
    for (;;) {
      const tails = [...this.#tails];
      await Promise.all(tails);
      if (tails.every((tail, lane) => tail === this.#tails[lane])) return;
    }
  }
}
