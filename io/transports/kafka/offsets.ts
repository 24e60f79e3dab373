/**
 * Contiguous offset commits. Records of one partition are processed
 * concurrently (different keys) and finish in any order, but Kafka keeps
 * one committed offset per partition: everything below it counts as done.
 * {@link PartitionOffsets} therefore commits only the low watermark — the
 * first offset not finished yet — so a later record finishing early never
 * commits past an earlier one still running, and a restart resumes at the
 * oldest unfinished record (inbox dedup absorbs the finished ones after it).
 *
 * @module
 */

/** One partition's records in flight and its commit watermark. */
export class PartitionOffsets {
  /** Offsets begun and not finished or not yet passed by the watermark, in offset order. */
  readonly #open: bigint[] = [];
  readonly #finished = new Set<bigint>();
  /** One past the highest offset begun. */
  #next: bigint | undefined;
  /** The first offset begun: where this generation started reading. */
  #base: bigint | undefined;
  #committed: bigint | undefined;
  #inFlight = 0;
  #waiting: (() => void)[] = [];

  constructor(readonly maxInFlight: number) {}

  /** Records begun and not finished. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Resolves once fewer than `maxInFlight` records are in flight or the
   * partition is released (true), or after `maxWaitMs` (false). The timer
   * is cleared on wake-up: a full partition waits here once per record, and
   * timers left running would pile up by the thousand.
   */
  room(maxWaitMs = Infinity): Promise<boolean> {
    if (this.#inFlight < this.maxInFlight) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = Number.isFinite(maxWaitMs)
        ? setTimeout(() => resolve(false), maxWaitMs)
        : undefined;
      this.#waiting.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /** A record handed to the engine (offsets arrive in increasing order). */
  begin(offset: bigint): void {
    this.#base ??= offset;
    this.#open.push(offset);
    this.#next = offset + 1n;
    this.#inFlight++;
  }

  /** A record settled for good (acknowledged or dead-lettered). */
  finish(offset: bigint): void {
    this.#finished.add(offset);
    this.#inFlight--;
    while (this.#open.length > 0 && this.#finished.delete(this.#open[0])) this.#open.shift();
    // Every waiter checks again (some may have given up waiting to heartbeat).
    this.release();
  }

  /** The offset to commit (the first unfinished one), or undefined when nothing new is finished. */
  due(): bigint | undefined {
    const mark = this.#open[0] ?? this.#next;
    const floor = this.#committed ?? this.#base;
    return mark === undefined || floor === undefined || mark <= floor ? undefined : mark;
  }

  /** Notes that `offset` was committed. */
  committed(offset: bigint): void {
    if (this.#committed === undefined || offset > this.#committed) this.#committed = offset;
  }

  /** Wakes every waiter of {@link room} (a record finished, or the partition was fenced). */
  release(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const w of waiting) w();
  }
}
